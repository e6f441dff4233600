package org.fraudpipe.job.config;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import org.fraudpipe.job.ingest.IngestRouter;
import org.fraudpipe.job.scoring.BatchScoringOperator;
import org.fraudpipe.job.topology.PaneMetrics;
import org.fraudpipe.job.transaction.TrailingFeatureFunction;
import org.fraudpipe.job.transaction.TransactionScoring;
import org.fraudpipe.job.window.TooLateRecordFunction;
import org.junit.jupiter.api.Test;

/**
 * The reference documents are where operators look: the configuration tables
 * (docs/CONFIGURATION.md) and the metrics table (docs/OPERATIONS.md) must match the code.
 */
class ReferenceDocsListEveryOptionTest {

    private static String doc(String name) throws Exception {
        Path doc =
                Path.of(System.getProperty("user.dir")).getParent().resolve("docs").resolve(name);
        return Files.readString(doc, StandardCharsets.UTF_8);
    }

    @Test
    void everyJobOptionIsInTheConfigurationTableWithItsDefault() throws Exception {
        String reference = doc("CONFIGURATION.md");
        for (JobOption option : JobOption.values()) {
            assertThat(reference)
                    .as("docs/CONFIGURATION.md row of %s", option.flag())
                    .contains(
                            "| `"
                                    + option.flag()
                                    + "` | "
                                    + (option.defaultValue().isEmpty()
                                            ? "(empty)"
                                            : "`" + option.defaultValue() + "`")
                                    + " |");
        }
    }

    @Test
    void theJobCommandsOwnOptionsAreInTheConfigurationTable() throws Exception {
        String reference = doc("CONFIGURATION.md");
        for (picocli.CommandLine.Model.OptionSpec option :
                org.fraudpipe.job.cli.JobCommand.commandLine().getCommandSpec().options()) {
            String name = option.longestName();
            boolean jobOption =
                    java.util.Arrays.stream(JobOption.values())
                            .anyMatch(o -> o.flag().equals(name));
            if (option.usageHelp()
                    || option.versionHelp()
                    || jobOption
                    || name.startsWith("--topic.")) {
                continue; // the job's options and topic names: the tests above and their own row
            }
            assertThat(reference)
                    .as("docs/CONFIGURATION.md row of %s", name)
                    .contains("| `" + name + "` | ");
        }
    }

    @Test
    void everyMetricIsInTheMetricsTable() throws Exception {
        String reference = doc("OPERATIONS.md");
        for (String metric :
                new String[] {
                    IngestRouter.RECORDS_IN,
                    IngestRouter.RECORDS_VALID,
                    IngestRouter.RECORDS_DEAD_LETTERED,
                    IngestRouter.RECORDS_QUARANTINED,
                    IngestRouter.WATERMARK_LAG_MS,
                    TooLateRecordFunction.TOO_LATE_RECORDS_METRIC,
                    PaneMetrics.WINDOWS_FIRED,
                    PaneMetrics.LATE_REFIRES,
                    PaneMetrics.EMIT_DELAY_MS,
                    BatchScoringOperator.SCORED,
                    BatchScoringOperator.DECISIONS_ALLOW,
                    BatchScoringOperator.DECISIONS_REVIEW,
                    BatchScoringOperator.DECISIONS_BLOCK,
                    BatchScoringOperator.BATCH_SIZE,
                    BatchScoringOperator.BATCH_MICROS,
                    TrailingFeatureFunction.RETRIES,
                    TrailingFeatureFunction.HISTORY_INCOMPLETE,
                    TransactionScoring.METRICS.scored(),
                    TransactionScoring.METRICS.allow(),
                    TransactionScoring.METRICS.review(),
                    TransactionScoring.METRICS.block(),
                    TransactionScoring.METRICS.batchSize(),
                    TransactionScoring.METRICS.batchMicros(),
                    TransactionScoring.METRICS.latency()
                }) {
            assertThat(reference)
                    .as("docs/OPERATIONS.md metrics table")
                    .contains("| `" + metric + "`");
        }
    }
}
