package org.fraudpipe.job.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Path;
import org.fraudpipe.job.config.Durations;
import org.fraudpipe.job.config.JobOption;
import org.fraudpipe.scoring.data.LabelledFeaturesJson;
import org.fraudpipe.scoring.data.LabelledWindow;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

class FeaturesCommandTest {

    @TempDir Path tmp;

    private record Run(int exitCode, String out, String err) {}

    private static Run fraud(String... args) {
        CommandLine cli = FraudCli.commandLine();
        StringWriter out = new StringWriter();
        StringWriter err = new StringWriter();
        cli.setOut(new PrintWriter(out, true));
        cli.setErr(new PrintWriter(err, true));
        return new Run(cli.execute(args), out.toString(), err.toString());
    }

    @Test
    void writesLabelledFeaturesOfASimulationThatTheTrainerReads() throws Exception {
        Path tx = tmp.resolve("tx.jsonl");
        Run sim =
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
        Run r = fraud("features", "--transactions", tx.toString(), "--out", out.toString());
        assertThat(r.exitCode()).as(r.err()).isZero();
        assertThat(r.out()).contains("wrote " + out).contains("fraudulent").contains("PT10M");
        var windows = LabelledFeaturesJson.readAll(out);
        assertThat(windows).isNotEmpty();
        assertThat(windows).anyMatch(LabelledWindow::fraud).anyMatch(w -> !w.fraud());
    }

    @Test
    void missingLabelsFileIsAUsageErrorNamingTheOption() throws Exception {
        Path tx = tmp.resolve("tx.jsonl");
        java.nio.file.Files.writeString(tx, "");
        Run r =
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
    void windowDefaultsToTheJobsWindowSize() {
        CommandLine features = FraudCli.commandLine().getSubcommands().get("features");
        String def = features.getCommandSpec().findOption("--window").defaultValue();
        assertThat(Durations.parse(def))
                .isEqualTo(Durations.parse(JobOption.WINDOW_SIZE.defaultValue()));
    }
}
