package org.fraudpipe.tools;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.fraudpipe.job.testing.Cli;
import org.fraudpipe.tools.testing.Fraud;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Long commands show progress on a terminal only, as the launcher decides it ({@code [ -t 2 ]}):
 * {@code ./fraud replay} and {@code ./fraud parity} run through {@code ./fraud} itself (not
 * rebuilt: {@code FRAUD_SKIP_BUILD=1}), once with standard error a pipe, as a scheduler runs them,
 * and once on a pseudo-terminal ({@code script}, util-linux). Piped: not one progress line, on
 * stdout or stderr. On the terminal: progress lines, erased, and the same summary.
 */
class ProgressIT {

    private static final Duration TIMEOUT = Duration.ofMinutes(3);

    @TempDir static Path dir;

    private static Path tx;

    @BeforeAll
    static void simulate() {
        tx = dir.resolve("tx.jsonl");
        Cli.Run r =
                Fraud.fraud(
                        "simulate",
                        "--users",
                        "40",
                        "--duration",
                        "6h",
                        "--tx-per-user-day",
                        "400",
                        "--seed",
                        "5",
                        "--out",
                        tx.toString());
        assertThat(r.exitCode()).as(r.err()).isZero();
    }

    /** What a command printed and how it ended. */
    private record Run(int exit, String out, String err) {}

    private static Path root() {
        return Path.of(System.getProperty("user.dir")).getParent();
    }

    /** {@code ./fraud ARGS} with stdout and stderr pipes. */
    private static Run piped(String... args) throws Exception {
        List<String> command = new ArrayList<>();
        command.add(root().resolve("fraud").toString());
        command.addAll(List.of(args));
        Path out = Files.createTempFile(dir, "out", ".txt");
        Path err = Files.createTempFile(dir, "err", ".txt");
        int exit = run(new ProcessBuilder(command), out, err);
        return new Run(exit, read(out), read(err));
    }

    /**
     * {@code ./fraud ARGS} on a pseudo-terminal: stdout and stderr both go to it, so {@code out} is
     * what a terminal receives and {@code err} is empty.
     */
    private static Run onTerminal(String... args) throws Exception {
        StringBuilder line = new StringBuilder(root().resolve("fraud").toString());
        for (String a : args) {
            line.append(" '").append(a.replace("'", "'\\''")).append('\'');
        }
        Path out = Files.createTempFile(dir, "tty", ".txt");
        Path err = Files.createTempFile(dir, "tty-err", ".txt");
        ProcessBuilder pb =
                new ProcessBuilder("script", "-q", "-e", "-c", line.toString(), "/dev/null");
        int exit = run(pb, out, err);
        // The terminal's line discipline turns \n into \r\n.
        return new Run(exit, read(out).replace("\r\n", "\n"), read(err));
    }

    private static int run(ProcessBuilder pb, Path out, Path err) throws Exception {
        pb.directory(root().toFile())
                .redirectInput(ProcessBuilder.Redirect.from(new java.io.File("/dev/null")))
                .redirectOutput(out.toFile())
                .redirectError(err.toFile());
        pb.environment().put("FRAUD_SKIP_BUILD", "1");
        Process p = pb.start();
        if (!p.waitFor(TIMEOUT.toMillis(), TimeUnit.MILLISECONDS)) {
            p.descendants().forEach(ProcessHandle::destroyForcibly);
            p.destroyForcibly();
            throw new AssertionError("./fraud did not end within " + TIMEOUT);
        }
        return p.exitValue();
    }

    private static String read(Path file) throws IOException {
        return Files.readString(file, StandardCharsets.UTF_8);
    }

    /**
     * What a terminal shows of each line (the text after its last carriage return), without the
     * log's warnings (stderr shares the terminal; Flink warns at times, e.g. while shutting down).
     */
    private static List<String> shown(String terminalOutput) {
        // Not String.lines(), which also ends a line at a lone carriage return.
        return java.util.Arrays.stream(terminalOutput.split("\n"))
                .filter(l -> !LOG_LINE.matcher(l).find() && !l.startsWith("\tat "))
                .map(l -> l.substring(l.lastIndexOf('\r') + 1))
                .filter(l -> !l.isBlank())
                .toList();
    }

    /** A line of log4j2-cli.xml's console pattern, e.g. {@code 23:06:30 WARN [JobMaster] ...}. */
    private static final java.util.regex.Pattern LOG_LINE =
            java.util.regex.Pattern.compile("\\d\\d:\\d\\d:\\d\\d (WARN |ERROR) \\[");

    /** The replay's summary without its timing ("in 4.2 s"), the one thing that may differ. */
    private static String untimed(String summary) {
        return summary.replaceAll(" in \\d+\\.\\d s ", " in N s ");
    }

    @Test
    void replayShowsProgressOnATerminalOnlyAndTheSameSummary() throws Exception {
        String out = dir.resolve("replay").toString();
        Run piped = piped("replay", "--input", tx.toString(), "--output", out);
        assertThat(piped.exit()).as(piped.err()).isZero();
        assertThat(piped.out()).startsWith("replayed ").doesNotContain("\r");
        assertThat(piped.err())
                .as("no progress without a terminal")
                .doesNotContain("\r")
                .doesNotContain("replay: replaying");

        Run tty = onTerminal("replay", "--input", tx.toString(), "--output", out);
        assertThat(tty.exit()).as(tty.out()).isZero();
        assertThat(tty.out())
                .as("progress drawn in place on the terminal")
                .contains("\rreplay: starting a local Flink cluster")
                .contains("\rreplay: replaying tx.jsonl | ");
        List<String> summary = shown(tty.out());
        assertThat(summary.get(0)).as("the progress line is erased").startsWith("replayed ");
        assertThat(untimed(String.join("\n", summary)))
                .as("the summary is the same on a terminal")
                .isEqualTo(untimed(piped.out().strip()));
    }

    @Test
    void parityShowsProgressOnATerminalOnlyAndTheSameSummaryAndExitCode() throws Exception {
        Path replay = dir.resolve("for-parity");
        Cli.Run r = Fraud.fraud("replay", "--input", tx.toString(), "--output", replay.toString());
        assertThat(r.exitCode()).as(r.err()).isZero();
        String[] args = {
            "parity",
            "--transactions",
            tx.toString(),
            "--served",
            replay.resolve("features.jsonl").toString(),
            "--scores",
            replay.resolve("scores.jsonl").toString(),
            "--late",
            replay.resolve("late.jsonl").toString(),
            "--dead-letters",
            replay.resolve("dead-letters.jsonl").toString(),
            "--report",
            dir.resolve("report").toString(),
            // The simulated traffic is late and messy on purpose: its explained skew is above the
            // default paging limit, and this test is about progress, not thresholds.
            "--max-mismatch-rate",
            "1"
        };
        Run piped = piped(args);
        assertThat(piped.exit()).as(piped.err()).isZero();
        assertThat(piped.out().lines().toList())
                .as("one summary line, nothing else on stdout")
                .hasSize(1)
                .allMatch(l -> l.startsWith("parity PASS all windows: "));
        assertThat(piped.err()).doesNotContain("\r").doesNotContain("parity: checking");

        Run tty = onTerminal(args);
        assertThat(tty.exit()).as(tty.out()).isZero();
        assertThat(tty.out())
                .contains("\rparity: starting the batch job")
                .contains("\rparity: checking all windows, transactions read | ");
        assertThat(shown(tty.out()))
                .as("the same summary line on the terminal")
                .contains(piped.out().strip());
    }
}
