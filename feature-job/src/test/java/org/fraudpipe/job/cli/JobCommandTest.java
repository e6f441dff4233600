package org.fraudpipe.job.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

/**
 * The job stops at start-up, before touching Kafka, when its model or archive is unusable or its
 * transaction timeout cannot work (the broker's own limit is checked against a real broker in
 * {@code StartupChecksIT}).
 */
class JobCommandTest {

    @TempDir Path tmp;

    private static String[] run(String... args) {
        StringWriter err = new StringWriter();
        CommandLine cl = JobCommand.commandLine();
        cl.setErr(new PrintWriter(err, true));
        int exit = cl.execute(args);
        return new String[] {Integer.toString(exit), err.toString()};
    }

    @Test
    void aMissingModelFileStopsTheJobNamingThePath() {
        Path missing = tmp.resolve("nope.onnx");
        String[] r = run("--model", missing.toString(), "--bootstrap-servers", "localhost:1");
        assertThat(r[0]).isNotEqualTo("0");
        assertThat(r[1]).contains(missing.toString()).contains("--model");
    }

    @Test
    void aCorruptModelFileStopsTheJobNamingThePath() throws Exception {
        Path corrupt = Files.writeString(tmp.resolve("corrupt.onnx"), "not an onnx model");
        String[] r = run("--model", corrupt.toString(), "--bootstrap-servers", "localhost:1");
        assertThat(r[0]).isNotEqualTo("0");
        assertThat(r[1]).contains(corrupt.toString());
    }

    @Test
    void badThresholdsStopTheJobNamingTheOption() {
        String[] r = run("--review-threshold", "0.95", "--block-threshold", "0.9");
        assertThat(r[0]).isNotEqualTo("0");
        assertThat(r[1]).contains("--block-threshold (0.9) must be at least --review-threshold");
    }

    @Test
    void anArchiveDirWithoutAFileSystemStopsTheJobNamingTheOption() {
        String[] r =
                run(
                        "--archive-dir",
                        "nosuchfs://bucket/archive",
                        "--bootstrap-servers",
                        "localhost:1");
        assertThat(r[0]).isNotEqualTo("0");
        assertThat(r[1]).contains("--archive-dir nosuchfs://bucket/archive").contains("plugin");
    }

    @Test
    void aMalformedArchiveDirStopsTheJobNamingTheOption() {
        String[] r = run("--archive-dir", "hdfs:archive");
        assertThat(r[0]).isNotEqualTo("0");
        assertThat(r[1]).contains("--archive-dir 'hdfs:archive' is not a directory URI");
    }

    @Test
    @DisplayName(
            "#7.7 transaction-timeout guard: above the brokers' transaction.max.timeout.ms, the job"
                    + " stops at start-up naming both values")
    void aTransactionTimeoutAboveTheBrokersMaximumStopsTheJobAtStartUp() {
        String[] r = run("--transaction-timeout", "20m", "--bootstrap-servers", "localhost:1");
        assertThat(r[0]).isNotEqualTo("0");
        assertThat(r[1])
                .contains("--transaction-timeout (20m) exceeds the brokers'")
                .contains("transaction.max.timeout.ms (15m, --broker-transaction-max-timeout)");
    }

    @Test
    @DisplayName(
            "#7.7 transaction-timeout guard: shorter than two checkpoints plus a restart, the job"
                    + " stops at start-up naming what it needs")
    void aTransactionTimeoutShorterThanCheckpointPlusRestartStopsTheJobAtStartUp() {
        String[] r =
                run(
                        "--checkpoint-interval",
                        "5m",
                        "--transaction-timeout",
                        "10m",
                        "--bootstrap-servers",
                        "localhost:1");
        assertThat(r[0]).isNotEqualTo("0");
        assertThat(r[1])
                .contains("--transaction-timeout (10m) is shorter than two checkpoint intervals")
                .contains("(11m)")
                .contains("--checkpoint-interval");
    }

    @Test
    @DisplayName(
            "--split: the decision job's command line is what was given, without --split and"
                    + " with its own paths, transactional ids, state backend and checkpoints")
    void theDecisionJobOfASplitGetsTheGivenOptionsAndItsOwn() {
        CommandLine cl = JobCommand.commandLine();
        CommandLine.ParseResult parsed =
                cl.parseArgs(
                        "--split",
                        "--bootstrap-servers",
                        "localhost:9",
                        "--state-backend=rocksdb",
                        "--checkpoint-interval",
                        "5s",
                        "--kafka-property",
                        "client.rack=r1",
                        "--transactional-id-prefix",
                        "tx");
        java.util.List<String> given = LocalSplit.given(parsed);
        org.fraudpipe.job.config.JobConfig config = org.fraudpipe.job.cli.JobOptions.read(parsed);
        java.util.List<String> args =
                LocalSplit.decisionArguments(given, LocalSplit.decisionOverrides(config));
        assertThat(args)
                .containsExactly(
                        "--bootstrap-servers=localhost:9",
                        "--kafka-property=client.rack=r1",
                        "--paths",
                        "decisions",
                        "--transactional-id-prefix",
                        "tx-decisions",
                        "--state-backend",
                        "hashmap",
                        "--checkpoint-interval",
                        "30s");
        // and it parses as a decision job
        org.fraudpipe.job.config.JobConfig decisions =
                org.fraudpipe.job.cli.JobOptions.read(
                        JobCommand.commandLine().parseArgs(args.toArray(String[]::new)));
        assertThat(decisions.paths()).isEqualTo(org.fraudpipe.job.config.JobConfig.Paths.DECISIONS);
        assertThat(decisions.transactionalIdPrefix()).isEqualTo("tx-decisions");
    }

    @Test
    void aSplitWithPathsGivenIsAUsageError() {
        String[] r = run("--split", "--paths", "windows");
        assertThat(r[0]).isEqualTo("2");
        assertThat(r[1]).contains("--split runs both paths").contains("--paths");
    }

    @Test
    @DisplayName(
            "issue #29: locally both paths run as two jobs unless --no-split; one path, or a"
                    + " cluster's client (flink run), runs one job; --split and --no-split say so"
                    + " explicitly")
    void theSplitIsTheLocalDefaultWithBothPaths() {
        org.fraudpipe.job.config.JobConfig.Paths both =
                org.fraudpipe.job.config.JobConfig.Paths.BOTH;
        org.fraudpipe.job.config.JobConfig.Paths windows =
                org.fraudpipe.job.config.JobConfig.Paths.WINDOWS;
        assertThat(JobCommand.splits(null, both, true)).as("./fraud job").isTrue();
        assertThat(JobCommand.splits(null, both, false)).as("flink run").isFalse();
        assertThat(JobCommand.splits(null, windows, true)).as("--paths windows").isFalse();
        assertThat(JobCommand.splits(false, both, true)).as("--no-split").isFalse();
        assertThat(JobCommand.splits(true, both, false)).as("--split under flink run").isTrue();
        // and the command line gives the three states
        CommandLine neither = JobCommand.commandLine();
        neither.parseArgs();
        assertThat(((JobCommand) neither.getCommand()).split).isNull();
        CommandLine no = JobCommand.commandLine();
        no.parseArgs("--no-split");
        assertThat(((JobCommand) no.getCommand()).split).isFalse();
        CommandLine yes = JobCommand.commandLine();
        yes.parseArgs("--split");
        assertThat(((JobCommand) yes.getCommand()).split).isTrue();
    }
}
