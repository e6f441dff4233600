package org.fraudpipe.tools.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.fraudpipe.tools.testing.Fraud.fraud;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import org.fraudpipe.job.config.JobConfig;
import org.fraudpipe.job.replay.ReplayConfig;
import org.fraudpipe.job.testing.Cli;
import org.fraudpipe.job.window.ProcessingTimeSource;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

/** The command line of {@code ./fraud replay}, up to (not including) running a job. */
class ReplayCommandTest {

    @TempDir Path tmp;

    private static ReplayConfig parse(String... args) {
        CommandLine cl = ReplayCommand.commandLine();
        cl.parseArgs(args);
        return ((ReplayCommand) cl.getCommand()).config();
    }

    @Test
    void helpListsTheJobsEventTimeOptionsWithTheWindowAlias() {
        Cli.Run r = fraud("replay", "--help");

        assertThat(r.exitCode()).isZero();
        assertThat(r.out())
                .contains("--input=FILE")
                .contains("--output=DIR")
                .contains("--window, --window-size=DURATION")
                .contains("--allowed-lateness=DURATION")
                .contains("--out-of-orderness=DURATION")
                .contains("--future-tolerance=DURATION")
                .contains("--parallelism=N")
                .contains("--state-backend=rocksdb|hashmap")
                .contains("(default: hashmap)")
                .doesNotContain("--bootstrap-servers");
    }

    @Test
    void optionsAreReadLikeTheJobsWithHashmapByDefault() throws Exception {
        Path input = Files.writeString(tmp.resolve("tx.jsonl"), "");

        ReplayConfig c =
                parse(
                        "--input", input.toString(),
                        "--output", tmp.resolve("out").toString(),
                        "--window", "5m",
                        "--allowed-lateness", "30s",
                        "--parallelism", "1");

        assertThat(c.windows().windowSize()).isEqualTo(Duration.ofMinutes(5));
        assertThat(c.windows().allowedLateness()).isEqualTo(Duration.ofSeconds(30));
        assertThat(c.windows().processingTime()).isEqualTo(ProcessingTimeSource.WATERMARK);
        assertThat(c.outOfOrderness()).isEqualTo(Duration.ofSeconds(5));
        assertThat(c.futureTolerance()).isEqualTo(Duration.ofMinutes(5));
        assertThat(c.parallelism()).isEqualTo(1);
        assertThat(c.stateBackend()).isEqualTo(JobConfig.StateBackend.HASHMAP);
        assertThat(
                        parse(
                                        "--input",
                                        input.toString(),
                                        "--output",
                                        tmp.toString(),
                                        "--window-size",
                                        "1h",
                                        "--state-backend",
                                        "rocksdb")
                                .windows()
                                .windowSize())
                .isEqualTo(Duration.ofHours(1));
    }

    @Test
    void aMissingInputFileIsAUsageErrorNamingTheOption() {
        Cli.Run r =
                fraud(
                        "replay",
                        "--input",
                        tmp.resolve("nope.jsonl").toString(),
                        "--output",
                        tmp.resolve("out").toString());

        assertThat(r.exitCode()).isEqualTo(2);
        assertThat(r.err()).contains("--input " + tmp.resolve("nope.jsonl") + " does not exist");
        assertThat(tmp.resolve("out")).doesNotExist();
    }

    @Test
    void badOptionValuesAreUsageErrorsNamingTheOption() throws Exception {
        Path input = Files.writeString(tmp.resolve("tx.jsonl"), "");
        String out = tmp.resolve("out").toString();

        Cli.Run duration =
                fraud("replay", "--input", input.toString(), "--output", out, "--window", "0s");
        assertThat(duration.exitCode()).isEqualTo(2);
        assertThat(duration.err()).contains("--window-size must be positive");

        Cli.Run backend =
                fraud(
                        "replay",
                        "--input",
                        input.toString(),
                        "--output",
                        out,
                        "--state-backend",
                        "x");
        assertThat(backend.exitCode()).isEqualTo(2);
        assertThat(backend.err()).contains("--state-backend 'x' is not one of: rocksdb, hashmap");

        Cli.Run notADir =
                fraud("replay", "--input", input.toString(), "--output", input.toString());
        assertThat(notADir.exitCode()).isEqualTo(2);
        assertThat(notADir.err()).contains("exists and is not a directory");

        Path outDir = Files.createDirectories(tmp.resolve("o"));
        Path overwritten = Files.writeString(outDir.resolve("features.jsonl"), "");
        Cli.Run selfOverwrite =
                fraud("replay", "--input", overwritten.toString(), "--output", outDir.toString());
        assertThat(selfOverwrite.exitCode()).isEqualTo(2);
        assertThat(selfOverwrite.err()).contains("is one of the files the replay writes");

        Cli.Run missing = fraud("replay", "--input", input.toString());
        assertThat(missing.exitCode()).isEqualTo(2);
        assertThat(missing.err()).contains("Missing required option: '--output=DIR'");
    }

    @Test
    void archiveTakesADirectoryOrAUriAndNoneByDefault() throws Exception {
        Path input = Files.writeString(tmp.resolve("tx.jsonl"), "");
        String out = tmp.resolve("out").toString();

        assertThat(parse("--input", input.toString(), "--output", out).archive()).isNull();
        assertThat(
                        parse(
                                        "--input",
                                        input.toString(),
                                        "--output",
                                        out,
                                        "--archive",
                                        tmp.resolve("a").toString())
                                .archive()
                                .toUri()
                                .getPath())
                .isEqualTo(tmp.resolve("a").toString());
        assertThat(
                        parse(
                                        "--input",
                                        input.toString(),
                                        "--output",
                                        out,
                                        "--archive",
                                        tmp.resolve("b").toUri().toString())
                                .archive()
                                .toUri()
                                .getPath())
                .isEqualTo(tmp.resolve("b").toString());
        assertThat(fraud("replay", "--help").out()).contains("--archive=DIR");
    }

    @Test
    void anArchiveThatExistsOrCannotBeWrittenIsAUsageErrorNamingTheOption() throws Exception {
        Path input = Files.writeString(tmp.resolve("tx.jsonl"), "");
        String out = tmp.resolve("out").toString();
        Path old = Files.createDirectories(tmp.resolve("old").resolve("transactions"));

        Cli.Run existing =
                fraud(
                        "replay",
                        "--input",
                        input.toString(),
                        "--output",
                        out,
                        "--archive",
                        old.getParent().toString());
        assertThat(existing.exitCode()).isEqualTo(2);
        assertThat(existing.err())
                .contains("--archive " + old.getParent() + " already holds an archive");

        Cli.Run file =
                fraud(
                        "replay",
                        "--input",
                        input.toString(),
                        "--output",
                        out,
                        "--archive",
                        input.toString());
        assertThat(file.exitCode()).isEqualTo(2);
        assertThat(file.err()).contains("exists and is not a directory");

        Cli.Run scheme =
                fraud(
                        "replay",
                        "--input",
                        input.toString(),
                        "--output",
                        out,
                        "--archive",
                        "nosuchfs://bucket/a");
        assertThat(scheme.exitCode()).isEqualTo(2);
        assertThat(scheme.err()).contains("--archive nosuchfs://bucket/a");
        assertThat(tmp.resolve("out")).doesNotExist();
    }
}
