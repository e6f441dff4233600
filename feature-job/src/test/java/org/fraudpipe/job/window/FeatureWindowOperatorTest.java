package org.fraudpipe.job.window;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.tuple;
import static org.fraudpipe.job.features.TestTransactions.tx;

import java.time.Duration;
import java.time.Instant;
import java.util.List;
import org.apache.flink.runtime.checkpoint.OperatorSubtaskState;
import org.apache.flink.state.rocksdb.EmbeddedRocksDBStateBackend;
import org.fraudpipe.schemas.avro.FeatureRecord;
import org.fraudpipe.schemas.avro.LateReason;
import org.fraudpipe.schemas.avro.LateRecord;
import org.fraudpipe.schemas.avro.Timing;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The three fates of a record, driven through the real window operator with explicit watermarks.
 * Window {@code [START, END)} of 10 minutes, allowed lateness 5 minutes: the on-time firing comes
 * at watermark {@code END - 1}; records are too late from watermark {@code END - 1 + 5 min}.
 */
class FeatureWindowOperatorTest {

    private static final Duration SIZE = Duration.ofMinutes(10);
    private static final Duration LATENESS = Duration.ofMinutes(5);
    private static final long MINUTE = 60_000;
    private static final long START = 1_735_725_600_000L; // 2025-01-01T10:00Z
    private static final long END = START + 10 * MINUTE;
    private static final long CLEANUP = END - 1 + 5 * MINUTE;

    private WindowHarness harness;

    @AfterEach
    void close() throws Exception {
        if (harness != null) {
            harness.close();
        }
    }

    private WindowHarness open() throws Exception {
        harness = WindowHarness.open(SIZE, LATENESS);
        return harness;
    }

    @Test
    void onTimeRecordsFireOnceWhenTheWatermarkReachesTheWindowEnd() throws Exception {
        WindowHarness h = open();
        h.processingTime(42_000);
        h.process(tx("a", "alice", 100, START + MINUTE));
        h.process(tx("b", "alice", 300, START + 2 * MINUTE));
        h.watermark(END - 2);
        assertThat(h.features()).isEmpty();

        h.watermark(END - 1);

        List<FeatureRecord> out = h.features();
        assertThat(out).hasSize(1);
        FeatureRecord r = out.get(0);
        assertThat(r.getUserId()).isEqualTo("alice");
        assertThat(r.getWindowStart()).isEqualTo(Instant.ofEpochMilli(START));
        assertThat(r.getWindowEnd()).isEqualTo(Instant.ofEpochMilli(END));
        assertThat(r.getTxCount()).isEqualTo(2);
        assertThat(r.getAmountSum()).isEqualTo(400);
        assertThat(r.getAmountMax()).isEqualTo(300);
        assertThat(r.getRevision()).isZero();
        assertThat(r.getTiming()).isEqualTo(Timing.ON_TIME);
        assertThat(r.getLateRecordsIncluded()).isZero();
        assertThat(r.getWatermark()).isEqualTo(Instant.ofEpochMilli(END - 1));
        assertThat(r.getEmittedAt()).isEqualTo(Instant.ofEpochMilli(42_000));
        assertThat(h.window.extractOutputStreamRecords().get(0).getTimestamp()).isEqualTo(END - 1);
    }

    @Test
    void recordBehindTheWatermarkInAnOpenWindowIsCountedOnTime() throws Exception {
        WindowHarness h = open();
        h.process(tx("a", "alice", 100, START + MINUTE));
        h.watermark(START + 8 * MINUTE);

        h.process(tx("b", "alice", 100, START + 2 * MINUTE)); // behind the watermark, window open
        h.watermark(END + MINUTE);

        assertThat(h.features())
                .singleElement()
                .satisfies(
                        r -> {
                            assertThat(r.getTxCount()).isEqualTo(2);
                            assertThat(r.getTiming()).isEqualTo(Timing.ON_TIME);
                            assertThat(r.getRevision()).isZero();
                            assertThat(r.getLateRecordsIncluded()).isZero();
                        });
        assertThat(h.tooLateTransactions()).isEmpty();
    }

    @Test
    void lateRecordWithinGraceRefiresWindowWithNextRevision() throws Exception {
        WindowHarness h = open();
        h.process(tx("a", "alice", 100, START + MINUTE));
        h.watermark(END - 1);
        h.watermark(END + 2 * MINUTE);
        h.processingTime(99_000);

        h.process(tx("b", "alice", 50, START + 3 * MINUTE));

        List<FeatureRecord> out = h.features();
        assertThat(out).hasSize(2);
        FeatureRecord refire = out.get(1);
        assertThat(refire.getWindowStart()).isEqualTo(Instant.ofEpochMilli(START));
        assertThat(refire.getRevision()).isEqualTo(1);
        assertThat(refire.getTiming()).isEqualTo(Timing.LATE);
        assertThat(refire.getTxCount()).isEqualTo(2);
        assertThat(refire.getAmountSum()).isEqualTo(150);
        assertThat(refire.getLateRecordsIncluded()).isEqualTo(1);
        assertThat(refire.getWatermark()).isEqualTo(Instant.ofEpochMilli(END + 2 * MINUTE));
        assertThat(refire.getEmittedAt()).isEqualTo(Instant.ofEpochMilli(99_000));

        h.process(tx("c", "alice", 10, START + 4 * MINUTE));

        assertThat(h.features().get(2))
                .satisfies(
                        r -> {
                            assertThat(r.getRevision()).isEqualTo(2);
                            assertThat(r.getTxCount()).isEqualTo(3);
                            assertThat(r.getLateRecordsIncluded()).isEqualTo(2);
                        });
        assertThat(h.tooLateTransactions()).isEmpty();
    }

    @Test
    void lastMillisecondOfGraceStillRefires() throws Exception {
        WindowHarness h = open();
        h.process(tx("a", "alice", 100, START));
        h.watermark(CLEANUP - 1);

        h.process(tx("b", "alice", 100, START));

        assertThat(h.features()).extracting(FeatureRecord::getRevision).containsExactly(0, 1);
        assertThat(h.tooLateTransactions()).isEmpty();
    }

    @Test
    void tooLateRecordGoesToTheLateStreamWithWindowAndWatermark() throws Exception {
        WindowHarness h = open();
        h.process(tx("a", "alice", 100, START + MINUTE));
        h.watermark(CLEANUP); // fires on time and drops the window in one step
        assertThat(h.features()).hasSize(1);
        h.processingTime(77_000);

        h.process(tx("late", "alice", 500, START + 2 * MINUTE));

        assertThat(h.features()).hasSize(1);
        assertThat(h.tooLateTransactions())
                .singleElement()
                .satisfies(r -> assertThat(r.getValue().getTransactionId()).isEqualTo("late"));
        LateRecord late = h.lateRecords().get(0);
        assertThat(late.getTransaction().getTransactionId()).isEqualTo("late");
        assertThat(late.getReason()).isEqualTo(LateReason.TOO_LATE);
        assertThat(late.getWindowStart()).isEqualTo(Instant.ofEpochMilli(START));
        assertThat(late.getWindowEnd()).isEqualTo(Instant.ofEpochMilli(END));
        assertThat(late.getWatermark()).isEqualTo(Instant.ofEpochMilli(CLEANUP));
        assertThat(late.getLateByMillis()).isEqualTo(CLEANUP - (START + 2 * MINUTE));
        assertThat(late.getDetectedAt()).isEqualTo(Instant.ofEpochMilli(77_000));
        assertThat(h.spec.isTooLate(START + 2 * MINUTE, CLEANUP)).isTrue();
        assertThat(h.spec.isTooLate(START + 2 * MINUTE, CLEANUP - 1)).isFalse();
    }

    @Test
    void tooLateRecordOfAWindowThatNeverExistedIsStillReportedWithItsWindow() throws Exception {
        WindowHarness h = open();
        h.watermark(END + 30 * MINUTE);

        h.process(tx("lost", "bob", 1, START + 9 * MINUTE));

        assertThat(h.features()).isEmpty();
        assertThat(h.lateRecords())
                .singleElement()
                .satisfies(
                        late -> {
                            assertThat(late.getWindowStart())
                                    .isEqualTo(Instant.ofEpochMilli(START));
                            assertThat(late.getWatermark())
                                    .isEqualTo(Instant.ofEpochMilli(END + 30 * MINUTE));
                            assertThat(late.getLateByMillis()).isEqualTo(31 * MINUTE);
                        });
    }

    @Test
    void firstRecordArrivingWithinGraceGivesALateRevisionZero() throws Exception {
        WindowHarness h = open();
        h.process(tx("other-window", "alice", 1, END + MINUTE));
        h.watermark(END + MINUTE);

        h.process(tx("a", "alice", 100, START + MINUTE));
        h.process(tx("b", "alice", 100, START + 2 * MINUTE));

        List<FeatureRecord> out = h.features();
        assertThat(out).hasSize(2);
        assertThat(out.get(0))
                .satisfies(
                        r -> {
                            assertThat(r.getRevision()).isZero();
                            assertThat(r.getTiming()).isEqualTo(Timing.LATE);
                            assertThat(r.getLateRecordsIncluded()).isEqualTo(1);
                        });
        assertThat(out.get(1))
                .satisfies(
                        r -> {
                            assertThat(r.getRevision()).isEqualTo(1);
                            assertThat(r.getTiming()).isEqualTo(Timing.LATE);
                            assertThat(r.getTxCount()).isEqualTo(2);
                            assertThat(r.getLateRecordsIncluded()).isEqualTo(2);
                        });
    }

    @Test
    void duplicatesCountOnceAndALateDuplicateRefiresWithUnchangedFeatures() throws Exception {
        WindowHarness h = open();
        h.process(tx("a", "alice", 100, START + MINUTE));
        h.process(tx("a", "alice", 100, START + MINUTE));
        h.process(tx("b", "alice", 200, START + 2 * MINUTE));
        h.watermark(END - 1);
        h.process(tx("b", "alice", 200, START + 2 * MINUTE));

        List<FeatureRecord> out = h.features();
        assertThat(out).extracting(FeatureRecord::getTxCount).containsExactly(2L, 2L);
        assertThat(out).extracting(FeatureRecord::getAmountSum).containsExactly(300L, 300L);
        assertThat(out).extracting(FeatureRecord::getRevision).containsExactly(0, 1);
        assertThat(out).extracting(FeatureRecord::getLateRecordsIncluded).containsExactly(0, 1);
    }

    @Test
    void usersAndWindowsAreSeparate() throws Exception {
        WindowHarness h = open();
        h.process(tx("a", "alice", 1, START + MINUTE));
        h.process(tx("b", "bob", 2, START + MINUTE));
        h.process(tx("c", "alice", 4, END + MINUTE));

        h.watermark(END + 10 * MINUTE);

        assertThat(h.features())
                .extracting(
                        r ->
                                r.getUserId()
                                        + "@"
                                        + r.getWindowStart().toEpochMilli()
                                        + "="
                                        + r.getAmountSum())
                .containsExactlyInAnyOrder(
                        "alice@" + START + "=1", "bob@" + START + "=2", "alice@" + END + "=4");
    }

    @Test
    void stateAndTimersAreGoneAfterEndPlusAllowedLateness() throws Exception {
        WindowHarness h = open();
        h.process(tx("a", "alice", 1, START + MINUTE));
        h.process(tx("b", "bob", 1, START + MINUTE));
        h.watermark(END - 1);
        h.process(tx("c", "alice", 1, START + 2 * MINUTE)); // late pane for alice
        h.process(tx("d", "carol", 1, START + 3 * MINUTE)); // late first pane for carol
        assertThat(h.stateEntries()).isPositive();
        assertThat(h.window.numEventTimeTimers()).isPositive();

        h.watermark(CLEANUP - 1);
        assertThat(h.stateEntries()).isPositive();

        h.watermark(CLEANUP);

        assertThat(h.stateEntries()).isZero();
        assertThat(h.window.numEventTimeTimers()).isZero();
        assertThat(h.features()).hasSize(4);
    }

    @Test
    void aWindowIsOneStateEntryAndOneTimerThroughItsLife() throws Exception {
        harness =
                WindowHarness.open(
                        new FeatureWindowSpec(SIZE, LATENESS), new EmbeddedRocksDBStateBackend());
        WindowHarness h = harness;
        h.process(tx("a", "alice", 1, START + MINUTE));
        h.process(tx("b", "alice", 1, START + 2 * MINUTE));
        h.process(tx("c", "bob", 1, START + MINUTE));
        h.process(tx("d", "alice", 1, END + MINUTE)); // alice's next window
        assertThat(h.stateEntries()).isEqualTo(3);
        assertThat(h.window.numEventTimeTimers()).isEqualTo(3);

        h.watermark(END - 1); // both windows of START fire; their firing timers become cleanups
        assertThat(h.stateEntries()).isEqualTo(3);
        assertThat(h.window.numEventTimeTimers()).isEqualTo(3);

        h.process(tx("e", "alice", 1, START + 3 * MINUTE)); // a late pane adds nothing
        h.process(tx("f", "carol", 1, START + 3 * MINUTE)); // a late first pane: one of each
        assertThat(h.stateEntries()).isEqualTo(4);
        assertThat(h.window.numEventTimeTimers()).isEqualTo(4);

        h.watermark(CLEANUP);
        assertThat(h.stateEntries()).isEqualTo(1);
        assertThat(h.window.numEventTimeTimers()).isEqualTo(1);
        assertThat(h.features()).hasSize(4);
    }

    @Test
    void latenessOfAWholeWindowDropsOneWindowAndFiresTheNextOnTheSameTimer() throws Exception {
        harness = WindowHarness.open(SIZE, SIZE);
        WindowHarness h = harness;
        h.process(tx("a", "alice", 1, START + MINUTE));
        h.process(tx("b", "alice", 2, END + MINUTE));
        h.watermark(END - 1);
        h.process(tx("c", "alice", 4, START + 2 * MINUTE)); // late within grace: re-fire

        // END + SIZE - 1: the first window's cleanup and the second's on-time firing.
        h.watermark(END + SIZE.toMillis() - 1);
        h.process(tx("d", "alice", 8, START + 3 * MINUTE)); // too late now

        assertThat(h.features())
                .extracting(
                        FeatureRecord::getWindowStart,
                        FeatureRecord::getRevision,
                        FeatureRecord::getTiming,
                        FeatureRecord::getAmountSum)
                .containsExactly(
                        tuple(Instant.ofEpochMilli(START), 0, Timing.ON_TIME, 1L),
                        tuple(Instant.ofEpochMilli(START), 1, Timing.LATE, 5L),
                        tuple(Instant.ofEpochMilli(END), 0, Timing.ON_TIME, 2L));
        assertThat(h.lateRecords())
                .singleElement()
                .satisfies(l -> assertThat(l.getTransaction().getTransactionId()).isEqualTo("d"));
        assertThat(h.stateEntries()).isEqualTo(1); // the second window, until its own cleanup
        assertThat(h.window.numEventTimeTimers()).isEqualTo(1);
    }

    @Test
    void zeroAllowedLatenessFiresOnceAndSendsEverythingLaterToTheLateStream() throws Exception {
        harness = WindowHarness.open(SIZE, Duration.ZERO);
        WindowHarness h = harness;
        h.process(tx("a", "alice", 1, START + MINUTE));
        h.watermark(END - 1);

        h.process(tx("b", "alice", 1, END - 1));

        assertThat(h.features())
                .singleElement()
                .satisfies(r -> assertThat(r.getTiming()).isEqualTo(Timing.ON_TIME));
        assertThat(h.lateRecords())
                .singleElement()
                .satisfies(late -> assertThat(late.getLateByMillis()).isZero());
        assertThat(h.stateEntries()).isZero();
        assertThat(h.window.numEventTimeTimers()).isZero();
    }

    @Test
    void panesContinueAfterRestoreFromASnapshot() throws Exception {
        WindowHarness h = open();
        h.process(tx("a", "alice", 100, START + MINUTE));
        h.process(tx("a", "alice", 100, START + MINUTE));
        h.watermark(END - 1);
        OperatorSubtaskState snapshot = h.window.snapshot(1, 1);
        h.close();

        harness = WindowHarness.openRestored(new FeatureWindowSpec(SIZE, LATENESS), snapshot);
        harness.watermark(END + MINUTE); // a restored operator starts without a watermark
        harness.process(tx("b", "alice", 50, START + 2 * MINUTE));

        assertThat(harness.features())
                .singleElement()
                .satisfies(
                        r -> {
                            assertThat(r.getRevision()).isEqualTo(1);
                            assertThat(r.getTxCount()).isEqualTo(2);
                            assertThat(r.getAmountSum()).isEqualTo(150);
                            assertThat(r.getLateRecordsIncluded()).isEqualTo(1);
                        });
    }

    @Test
    void theOnTimeFiringIsNotWrittenBackTheWatermarkSaysItFired() throws Exception {
        harness =
                WindowHarness.open(
                        new FeatureWindowSpec(SIZE, LATENESS), new EmbeddedRocksDBStateBackend());
        WindowHarness h = harness;
        h.process(tx("a", "alice", 100, START + MINUTE));
        h.process(tx("b", "alice", 300, START + 2 * MINUTE));
        h.watermark(END - 1);
        assertThat(h.features())
                .singleElement()
                .satisfies(r -> assertThat(r.getTiming()).isEqualTo(Timing.ON_TIME));

        // State format 3: the entry is as the last record left it.
        WindowPane stored = h.storedPane("alice", START);
        assertThat(stored.hasFired()).isFalse();
        assertThat(stored.accumulator().recordsSeen()).isEqualTo(2);
        // What it is, read with the watermark: the ON_TIME pane with both records.
        stored.settleOnTimeFiring(END, END - 2);
        assertThat(stored.hasFired()).as("before the firing time: not fired").isFalse();
        stored.settleOnTimeFiring(END, END - 1);
        assertThat(stored.revision()).isZero();
        assertThat(stored.recordsSeenOnTime()).isEqualTo(2);

        // The next change is written, settled: a late record re-fires as revision 1.
        h.process(tx("c", "alice", 50, START + 3 * MINUTE));
        assertThat(h.features().get(1).getRevision()).isEqualTo(1);
        assertThat(h.features().get(1).getLateRecordsIncluded()).isEqualTo(1);
        WindowPane written = h.storedPane("alice", START);
        assertThat(written.revision()).isEqualTo(1);
        assertThat(written.recordsSeenOnTime()).isEqualTo(2);
    }

    @Test
    void aNewWindowAfterARestoreWhoseFiringTimePassedBeforeTheCheckpointFiresAtOnceAsLate()
            throws Exception {
        WindowHarness h = open();
        h.process(tx("a", "alice", 100, START + MINUTE));
        h.watermark(END - 1); // alice's window fires; bob has none yet
        OperatorSubtaskState snapshot = h.window.snapshot(1, 1);
        h.close();

        harness = WindowHarness.openRestored(new FeatureWindowSpec(SIZE, LATENESS), snapshot);
        // Before any watermark: bob's first record of the window whose firing time had passed.
        harness.process(tx("b", "bob", 70, START + 2 * MINUTE));

        // As without the restore (the watermark at END - 1): a LATE revision 0 at once, stored
        // fired, so that no stored unfired pane is past its firing time.
        assertThat(harness.features())
                .singleElement()
                .satisfies(
                        r -> {
                            assertThat(r.getUserId()).isEqualTo("bob");
                            assertThat(r.getRevision()).isZero();
                            assertThat(r.getTiming()).isEqualTo(Timing.LATE);
                            assertThat(r.getTxCount()).isEqualTo(1);
                        });
        assertThat(harness.storedPane("bob", START).hasFired()).isTrue();
        harness.watermark(END + MINUTE);
        assertThat(harness.features()).as("no second pane of revision 0").hasSize(1);
        harness.watermark(CLEANUP);
        assertThat(harness.stateEntries()).isZero();
    }

    @Test
    void aRecordForAFiredWindowBeforeTheFirstWatermarkAfterARestoreRefiresAtTheNextOne()
            throws Exception {
        WindowHarness h = open();
        h.process(tx("a", "alice", 100, START + MINUTE));
        h.watermark(END - 1);
        OperatorSubtaskState snapshot = h.window.snapshot(1, 1);
        h.close();

        harness = WindowHarness.openRestored(new FeatureWindowSpec(SIZE, LATENESS), snapshot);
        harness.process(tx("b", "alice", 50, START + 2 * MINUTE)); // no watermark yet
        assertThat(harness.features()).isEmpty();
        harness.watermark(END + MINUTE);

        assertThat(harness.features())
                .singleElement()
                .satisfies(
                        r -> {
                            assertThat(r.getRevision()).isEqualTo(1);
                            assertThat(r.getTiming()).isEqualTo(Timing.LATE);
                            assertThat(r.getTxCount()).isEqualTo(2);
                            assertThat(r.getLateRecordsIncluded()).isEqualTo(1);
                        });
        harness.watermark(CLEANUP);
        assertThat(harness.stateEntries()).isZero();
        assertThat(harness.window.numEventTimeTimers()).isZero();
    }

    @Test
    void latePanesWorkOnRocksDb() throws Exception {
        harness =
                WindowHarness.open(
                        new FeatureWindowSpec(SIZE, LATENESS), new EmbeddedRocksDBStateBackend());
        WindowHarness h = harness;
        h.process(tx("a", "alice", 100, START + MINUTE));
        h.process(tx("a", "alice", 100, START + MINUTE));
        h.watermark(END - 1);
        h.process(tx("b", "alice", 50, START + 2 * MINUTE));
        h.watermark(CLEANUP);
        h.process(tx("c", "alice", 50, START + 3 * MINUTE));

        assertThat(h.features())
                .extracting(
                        r ->
                                r.getRevision()
                                        + ":"
                                        + r.getTiming()
                                        + ":"
                                        + r.getTxCount()
                                        + ":"
                                        + r.getLateRecordsIncluded())
                .containsExactly("0:ON_TIME:1:0", "1:LATE:2:1");
        assertThat(h.lateRecords()).hasSize(1);
        assertThat(h.stateEntries()).isZero();
        assertThat(h.window.numEventTimeTimers()).isZero();
    }

    @Test
    void withTheWatermarkAsProcessingTimeEmittedAtAndDetectedAtAreTheWatermark() throws Exception {
        harness =
                WindowHarness.open(
                        new FeatureWindowSpec(SIZE, LATENESS)
                                .withProcessingTime(ProcessingTimeSource.WATERMARK),
                        null);
        WindowHarness h = harness;
        h.processingTime(42_000); // the wall clock: must not show up anywhere
        h.process(tx("a", "alice", 100, START + MINUTE));
        h.watermark(END - 1);
        h.watermark(END + MINUTE);
        h.process(tx("b", "alice", 50, START + 2 * MINUTE));
        h.watermark(CLEANUP + 7);
        h.process(tx("c", "alice", 50, START + 3 * MINUTE));

        assertThat(h.features())
                .extracting(FeatureRecord::getEmittedAt, FeatureRecord::getWatermark)
                .containsExactly(
                        tuple(Instant.ofEpochMilli(END - 1), Instant.ofEpochMilli(END - 1)),
                        tuple(
                                Instant.ofEpochMilli(END + MINUTE),
                                Instant.ofEpochMilli(END + MINUTE)));
        assertThat(h.lateRecords())
                .singleElement()
                .satisfies(
                        late -> {
                            assertThat(late.getDetectedAt())
                                    .isEqualTo(Instant.ofEpochMilli(CLEANUP + 7));
                            assertThat(late.getWatermark())
                                    .isEqualTo(Instant.ofEpochMilli(CLEANUP + 7));
                        });
    }
}
