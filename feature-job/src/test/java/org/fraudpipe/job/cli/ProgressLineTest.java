package org.fraudpipe.job.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.LongSupplier;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The progress line's text, when it is drawn at all, and how it is drawn and erased. */
class ProgressLineTest {

    @TempDir Path dir;

    @Test
    void progressIsOnlyForATerminalTheLauncherFound() {
        assertThat(ProgressLine.onTerminal("tty")).isTrue();
        assertThat(ProgressLine.onTerminal(null)).as("not launched by ./fraud, or piped").isFalse();
        assertThat(ProgressLine.onTerminal("")).isFalse();
        assertThat(ProgressLine.onTerminal("off")).isFalse();
        // The test JVM is not started by the launcher: nothing is drawn.
        assertThat(System.getProperty(ProgressLine.PROPERTY)).isNull();
        assertThat(ProgressLine.forCommand("parity").isOn()).isFalse();
    }

    @Test
    void aLineOffPrintsNothingWhateverItIsTold() {
        ProgressLine off = ProgressLine.off();
        off.stage("reading", () -> 5, () -> 10);
        off.draw();
        off.close();
        assertThat(off.isOn()).isFalse();
    }

    @Test
    void theLineShowsStageRecordsRateElapsedAndTimeLeft() {
        assertThat(
                        ProgressLine.format(
                                "parity",
                                "checking 2026-11-28",
                                523_417,
                                1_000_000,
                                12_345.4,
                                Duration.ofSeconds(42)))
                .isEqualTo(
                        "parity: checking 2026-11-28 | 523,417 of 1,000,000 records (52%) |"
                                + " 12,345/s | 0:42 | about 0:39 left");
    }

    @Test
    void withoutATotalThereIsNoTimeLeftAndWithoutACountOnlyTheStage() {
        assertThat(ProgressLine.format("replay", "replaying tx.jsonl", 1200, -1, 300, d(5)))
                .isEqualTo("replay: replaying tx.jsonl | 1,200 records | 300/s | 0:05");
        assertThat(ProgressLine.format("replay", "replaying tx.jsonl", 0, -1, -1, d(1)))
                .as("no rate yet")
                .isEqualTo("replay: replaying tx.jsonl | 0 records | 0:01");
        assertThat(ProgressLine.format("replay", "writing the output files", -1, -1, -1, d(3700)))
                .isEqualTo("replay: writing the output files | 1:01:40");
        assertThat(ProgressLine.format("parity", "checking", 1_000_000, 1_000_000, 5, d(90)))
                .as("all read: nothing left to estimate")
                .isEqualTo("parity: checking | 1,000,000 of 1,000,000 records (100%) | 5/s | 1:30");
        assertThat(ProgressLine.format("parity", "checking", 11, 10, 5, d(2)))
                .as("a total that fell short (estimated lines) is not shown")
                .isEqualTo("parity: checking | 11 records | 5/s | 0:02");
    }

    private static Duration d(long seconds) {
        return Duration.ofSeconds(seconds);
    }

    @Test
    void aLongLineIsCutToTheTerminalWidth() {
        assertThat(ProgressLine.fit("0123456789", 10)).isEqualTo("0123456789");
        assertThat(ProgressLine.fit("0123456789A", 10)).isEqualTo("0123456...");
    }

    @Test
    void theRateIsOverTheLastTenSecondsOrSo() {
        ProgressLine.Rate rate = new ProgressLine.Rate();
        long s = 1_000_000_000L;
        assertThat(rate.add(0, 0)).as("one sample").isEqualTo(ProgressLine.UNKNOWN);
        assertThat(rate.add(1 * s, 100)).isEqualTo(100.0);
        for (int i = 2; i <= 10; i++) {
            rate.add(i * s, 100L * i);
        }
        // From t=10 s on, the first samples drop out: 20 s at 1000/s after 10 s at 100/s.
        for (int i = 11; i <= 30; i++) {
            rate.add(i * s, 1000 + 1000L * (i - 10));
        }
        assertThat(rate.add(31 * s, 1000 + 1000L * 21)).isEqualTo(1000.0);
    }

    @Test
    void drawnInPlaceAndErasedAtTheEnd() {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        PrintStream err = new PrintStream(bytes, true, StandardCharsets.UTF_8);
        AtomicLong read = new AtomicLong(7);
        try (ProgressLine line = ProgressLine.drawingOn("replay", err, 80)) {
            line.stage("replaying tx.jsonl", read::get, () -> 70);
            read.set(35);
            line.draw();
            line.stage("writing the output files");
        }
        String drawn = bytes.toString(StandardCharsets.UTF_8);
        assertThat(drawn).doesNotContain("\n").startsWith("\rreplay: replaying tx.jsonl | 7 of 70");
        assertThat(drawn).contains("\rreplay: replaying tx.jsonl | 35 of 70 records (50%)");
        String last = "replay: writing the output files | 0:00";
        assertThat(drawn).contains("\r" + last);
        assertThat(drawn)
                .as("the last frame is erased")
                .endsWith("\r" + " ".repeat(last.length()) + "\r");
        assertThat(drawn.split("\r", -1))
                .as("each frame fits the terminal (79 of 80 columns)")
                .allMatch(frame -> frame.length() <= 79);
    }

    @Test
    void aCounterThatFailsShowsNoCount() {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        PrintStream err = new PrintStream(bytes, true, StandardCharsets.UTF_8);
        LongSupplier broken =
                () -> {
                    throw new IllegalStateException("the job is gone");
                };
        try (ProgressLine line = ProgressLine.drawingOn("parity", err, 80)) {
            line.stage("checking", broken, () -> 10);
        }
        assertThat(bytes.toString(StandardCharsets.UTF_8)).startsWith("\rparity: checking | 0:00");
    }

    @Test
    void linesOfAFileCountALastLineWithoutABreak() throws Exception {
        assertThat(ProgressLine.lines(Files.writeString(dir.resolve("a"), "x\ny\n"))).isEqualTo(2);
        assertThat(ProgressLine.lines(Files.writeString(dir.resolve("b"), "x\ny"))).isEqualTo(2);
        assertThat(ProgressLine.lines(Files.writeString(dir.resolve("c"), ""))).isZero();
    }

    @Test
    void aTotalCountedInTheBackgroundIsUnknownUntilDone() throws Exception {
        java.util.concurrent.CountDownLatch go = new java.util.concurrent.CountDownLatch(1);
        LongSupplier total =
                ProgressLine.countInBackground(
                        "test",
                        () -> {
                            go.await();
                            return 42L;
                        });
        assertThat(total.getAsLong()).isEqualTo(ProgressLine.UNKNOWN);
        go.countDown();
        long deadline = System.nanoTime() + Duration.ofSeconds(10).toNanos();
        while (total.getAsLong() == ProgressLine.UNKNOWN && System.nanoTime() < deadline) {
            Thread.onSpinWait();
        }
        assertThat(total.getAsLong()).isEqualTo(42);
    }
}
