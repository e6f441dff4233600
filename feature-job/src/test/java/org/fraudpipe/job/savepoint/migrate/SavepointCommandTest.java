package org.fraudpipe.job.savepoint.migrate;

import static org.assertj.core.api.Assertions.assertThat;
import static org.fraudpipe.job.testing.Cli.fraud;

import java.nio.file.Files;
import java.nio.file.Path;
import org.fraudpipe.job.testing.Cli;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code ./fraud savepoint migrate}'s usage errors (exit code 2, the option named), all decided
 * before any Flink job runs. The migration itself: {@code SavepointMigrationIT}, {@code
 * SavepointReliabilityIT}.
 */
class SavepointCommandTest {

    @TempDir Path tmp;

    @Test
    void aTargetThatHoldsFilesIsRefused() throws Exception {
        Path to = Files.createDirectories(tmp.resolve("to"));
        Files.writeString(to.resolve("_metadata"), "an earlier migration");

        Cli.Run r = fraud("savepoint", "migrate", "--from", tmp.toString(), "--to", to.toString());

        assertThat(r.exitCode()).isEqualTo(2);
        assertThat(r.err()).contains("--to " + to + " exists and is not empty");
        assertThat(Files.readString(to.resolve("_metadata"))).isEqualTo("an earlier migration");
    }

    @Test
    void aSourceThatIsNoSavepointIsRefused() {
        Path from = tmp.resolve("nothing-here");

        Cli.Run r =
                fraud(
                        "savepoint",
                        "migrate",
                        "--from",
                        from.toString(),
                        "--to",
                        tmp.resolve("to").toString());

        assertThat(r.exitCode()).isEqualTo(2);
        assertThat(r.err()).contains("--from " + from + " is not a readable savepoint");
    }

    @Test
    void windowOptionsAreTheJobsWithItsValidation() {
        Cli.Run r =
                fraud(
                        "savepoint",
                        "migrate",
                        "--from",
                        tmp.toString(),
                        "--to",
                        tmp.resolve("to").toString(),
                        "--allowed-lateness",
                        "-1m");

        assertThat(r.exitCode()).isEqualTo(2);
        assertThat(r.err()).contains("allowed-lateness");
    }

    @Test
    void helpNamesTheOptions() {
        Cli.Run r = fraud("savepoint", "migrate", "--help");

        assertThat(r.exitCode()).isZero();
        assertThat(r.out())
                .contains("--from")
                .contains("--to")
                .contains("--window-size")
                .contains("--allowed-lateness")
                .contains("--parallelism");
    }
}
