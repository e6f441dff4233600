package org.fraudpipe.tools.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.fraudpipe.tools.testing.Fraud.fraud;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import org.fraudpipe.job.config.JobConfig;
import org.fraudpipe.job.config.JobOption;
import org.fraudpipe.job.testing.Cli;
import org.fraudpipe.job.testing.LatenessFixture;
import org.fraudpipe.scoring.data.LabelledFeaturesJson;
import org.fraudpipe.scoring.data.LabelledTransactionsJson;
import org.fraudpipe.scoring.data.LabelledWindow;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

class FeaturesCommandTest {

    @TempDir Path tmp;

    @Test
    void writesLabelledFeaturesOfASimulationThatTheTrainerReads() throws Exception {
        Path tx = tmp.resolve("tx.jsonl");
        Cli.Run sim =
                fraud(
                        "simulate",
                        "--users",
                        "40",
                        "--duration",
                        "3h",
                        "--tx-per-user-day",
                        "200",
                        "--fraud-share",
                        "0.1",
                        "--seed",
                        "3",
                        "--out",
                        tx.toString());
        assertThat(sim.exitCode()).as(sim.err()).isZero();
        Path out = tmp.resolve("features.jsonl");
        Cli.Run r = fraud("features", "--transactions", tx.toString(), "--out", out.toString());
        assertThat(r.exitCode()).as(r.err()).isZero();
        assertThat(r.out())
                .contains("wrote " + out)
                .contains("fraudulent")
                .contains("PT10M")
                .contains("semantics ideal")
                .contains("future-dated counted");
        var windows = LabelledFeaturesJson.readAll(out);
        assertThat(windows).isNotEmpty();
        assertThat(windows).anyMatch(LabelledWindow::fraud).anyMatch(w -> !w.fraud());
    }

    @Test
    void perTransactionRowsAreAsOfArrivalByDefaultAndIdealOnRequest() throws Exception {
        Path tx = tmp.resolve("tx.jsonl");
        Cli.Run sim =
                fraud(
                        "simulate",
                        "--users",
                        "30",
                        "--duration",
                        "3h",
                        "--tx-per-user-day",
                        "300",
                        "--fraud-share",
                        "0.1",
                        "--hours-late-share",
                        "0.05",
                        "--seed",
                        "4",
                        "--out",
                        tx.toString());
        assertThat(sim.exitCode()).as(sim.err()).isZero();
        Path asOf = tmp.resolve("as-of-arrival.jsonl");
        Path ideal = tmp.resolve("ideal.jsonl");

        Cli.Run r =
                fraud(
                        "features",
                        "--transactions",
                        tx.toString(),
                        "--per-transaction",
                        "--trailing-window",
                        "5m",
                        "--out",
                        asOf.toString());
        Cli.Run i =
                fraud(
                        "features",
                        "--transactions",
                        tx.toString(),
                        "--per-transaction",
                        "--trailing-window",
                        "5m",
                        "--semantics",
                        "ideal",
                        "--out",
                        ideal.toString());

        assertThat(r.exitCode()).as(r.err()).isZero();
        assertThat(i.exitCode()).as(i.err()).isZero();
        assertThat(r.out())
                .contains("wrote " + asOf)
                .contains("trailing window 5m, semantics as-of-arrival")
                .contains("differ from ideal");
        assertThat(i.out()).contains("semantics ideal");
        var rows = LabelledTransactionsJson.readAll(asOf);
        var idealRows = LabelledTransactionsJson.readAll(ideal);
        assertThat(rows).hasSameSizeAs(idealRows).isNotEmpty();
        assertThat(rows).anyMatch(t -> t.fraud()).anyMatch(t -> !t.fraud());
        assertThat(rows)
                .allSatisfy(
                        t -> assertThat(t.features().getTrailingWindowMillis()).isEqualTo(300_000));
        assertThat(rows).isNotEqualTo(idealRows);
    }

    @Test
    void missingLabelsFileIsAUsageErrorNamingTheOption() throws Exception {
        Path tx = tmp.resolve("tx.jsonl");
        Files.writeString(tx, "");
        Cli.Run r =
                fraud(
                        "features",
                        "--transactions",
                        tx.toString(),
                        "--out",
                        tmp.resolve("f").toString());
        assertThat(r.exitCode()).isEqualTo(2);
        assertThat(r.err())
                .contains("--labels " + tmp.resolve("tx.jsonl.labels.jsonl") + " does not exist");
    }

    @Test
    void helpListsTheSemanticsAndTheJobsStreamingOptionsWithTheirDefaults() {
        Cli.Run r = fraud("features", "--help");

        assertThat(r.exitCode()).isZero();
        assertThat(r.out())
                .contains("--semantics=ideal|as-served")
                .contains("(default: ideal)")
                .contains("--window, --window-size=DURATION")
                .contains("--allowed-lateness=DURATION")
                .contains("--out-of-orderness=DURATION")
                .contains("--future-tolerance=DURATION")
                .contains("Only with --semantics as-served.")
                .doesNotContain("--parallelism")
                .doesNotContain("--bootstrap-servers");
        for (JobOption o : FeaturesCommand.OPTIONS) {
            assertThat(r.out()).contains("(default: " + o.defaultDescription() + ")");
        }
    }

    private JobConfig parse(String... args) throws Exception {
        Path tx = Files.writeString(tmp.resolve("tx.jsonl"), "");
        CommandLine cl = FeaturesCommand.commandLine();
        String[] all = new String[args.length + 4];
        all[0] = "--transactions";
        all[1] = tx.toString();
        all[2] = "--out";
        all[3] = tmp.resolve("f.jsonl").toString();
        System.arraycopy(args, 0, all, 4, args.length);
        cl.parseArgs(all);
        return ((FeaturesCommand) cl.getCommand()).config();
    }

    @Test
    void streamingOptionsAreReadLikeTheJobsWithTheJobsDefaults() throws Exception {
        JobConfig defaults = parse();
        JobConfig job = JobConfig.defaults();
        assertThat(defaults.windowSize()).isEqualTo(job.windowSize());
        assertThat(defaults.allowedLateness()).isEqualTo(job.allowedLateness());
        assertThat(defaults.outOfOrderness()).isEqualTo(job.outOfOrderness());
        assertThat(defaults.futureTolerance()).isEqualTo(job.futureTolerance());
        assertThat(defaults.stateBackend()).isEqualTo(JobConfig.StateBackend.HASHMAP);

        JobConfig c =
                parse(
                        "--semantics",
                        "as-served",
                        "--window",
                        "5m",
                        "--allowed-lateness",
                        "30s",
                        "--out-of-orderness",
                        "1s",
                        "--future-tolerance",
                        "1h");
        assertThat(c.windowSize()).isEqualTo(Duration.ofMinutes(5));
        assertThat(c.allowedLateness()).isEqualTo(Duration.ofSeconds(30));
        assertThat(c.outOfOrderness()).isEqualTo(Duration.ofSeconds(1));
        assertThat(c.futureTolerance()).isEqualTo(Duration.ofHours(1));
        assertThat(parse("--window-size", "1h").windowSize()).isEqualTo(Duration.ofHours(1));
    }

    @Test
    void badOptionsAreUsageErrorsNamingTheOption() throws Exception {
        Path tx = Files.writeString(tmp.resolve("tx.jsonl"), "");
        Files.writeString(tmp.resolve("tx.jsonl.labels.jsonl"), "");
        Path out = tmp.resolve("f.jsonl");
        String[] base = {"features", "--transactions", tx.toString(), "--out", out.toString()};

        assertUsageError(
                fraud(with(base, "--semantics", "streaming")),
                "Invalid value for option '--semantics': 'streaming' is not one of: ideal,"
                        + " as-served, as-of-arrival");
        assertUsageError(
                fraud(with(base, "--semantics", "as-of-arrival")),
                "--semantics as-of-arrival is per transaction: add --per-transaction");
        assertUsageError(
                fraud(with(base, "--trailing-window", "5m")),
                "--trailing-window only applies to --per-transaction");
        assertUsageError(
                fraud(with(base, "--per-transaction", "--semantics", "as-served")),
                "--semantics as-served is per window");
        assertUsageError(
                fraud(with(base, "--per-transaction", "--trailing-window", "0s")),
                "--trailing-window must be positive");
        assertUsageError(
                fraud(with(base, "--window", "0s")), "--window-size must be positive, was 0s");
        assertUsageError(
                fraud(with(base, "--semantics", "as-served", "--allowed-lateness", "10")),
                "--allowed-lateness '10' is not a duration");
        assertUsageError(
                fraud(with(base, "--allowed-lateness", "1m")),
                "--allowed-lateness only applies to --semantics as-served");
        assertUsageError(
                fraud(with(base, "--semantics", "ideal", "--out-of-orderness", "1s")),
                "--out-of-orderness only applies to --semantics as-served");
        assertUsageError(
                fraud(
                        "features",
                        "--transactions",
                        tmp.resolve("nope.jsonl").toString(),
                        "--out",
                        out.toString()),
                "--transactions " + tmp.resolve("nope.jsonl") + " does not exist");
        assertUsageError(
                fraud("features", "--transactions", tx.toString(), "--out", tmp.toString()),
                "--out " + tmp + " is a directory");
        assertThat(out).doesNotExist();
    }

    @Test
    void labelsOfAnotherFileFailBeforeAnyReplayWithExitCode1() throws Exception {
        Path tx = LatenessFixture.write(tmp);
        Path labels = tmp.resolve("other.labels.jsonl");
        Files.writeString(labels, "");
        Path out = tmp.resolve("served.jsonl");

        for (String semantics : new String[] {"ideal", "as-served"}) {
            Cli.Run r =
                    fraud(
                            "features",
                            "--transactions",
                            tx.toString(),
                            "--labels",
                            labels.toString(),
                            "--semantics",
                            semantics,
                            "--out",
                            out.toString());
            assertThat(r.exitCode()).as(semantics).isEqualTo(1);
            assertThat(r.err())
                    .startsWith("fraud features: transaction t1 has no label")
                    .contains("are the labels those of this transactions file?");
        }
        try (var files = Files.list(tmp)) {
            assertThat(files.map(p -> p.getFileName().toString()))
                    .containsExactlyInAnyOrder(
                            "tx.jsonl", "tx.jsonl.labels.jsonl", "other.labels.jsonl");
        }
    }

    private static String[] with(String[] base, String... more) {
        String[] all = java.util.Arrays.copyOf(base, base.length + more.length);
        System.arraycopy(more, 0, all, base.length, more.length);
        return all;
    }

    private static void assertUsageError(Cli.Run r, String message) {
        assertThat(r.exitCode()).as(r.err()).isEqualTo(2);
        assertThat(r.err()).contains(message);
    }
}
