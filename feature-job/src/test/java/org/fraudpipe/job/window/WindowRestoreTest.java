package org.fraudpipe.job.window;

import static org.assertj.core.api.Assertions.assertThat;
import static org.fraudpipe.job.features.TestTransactions.tx;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import org.apache.flink.runtime.checkpoint.OperatorSubtaskState;
import org.apache.flink.runtime.state.KeyGroupRangeAssignment;
import org.apache.flink.streaming.util.AbstractStreamOperatorTestHarness;
import org.fraudpipe.schemas.avro.LateReason;
import org.fraudpipe.schemas.avro.LateRecord;
import org.fraudpipe.schemas.avro.Timing;
import org.fraudpipe.schemas.avro.Transaction;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Issue #15, item 1: a window whose state was dropped (its final value served) never reopens after
 * a restore, although Flink does not checkpoint watermarks, whatever the parallelism before and
 * after, and with subtasks that never saw a watermark (more subtasks than partitions, or idle
 * ones). A late record or a producer's retry for such a window is too late, never a new revision-0
 * pane that would overwrite the final value on the compacted topic.
 */
class WindowRestoreTest {

    private static final Duration SIZE = Duration.ofMinutes(10);
    private static final Duration LATENESS = Duration.ofMinutes(5);
    private static final FeatureWindowSpec SPEC = new FeatureWindowSpec(SIZE, LATENESS);
    private static final long MINUTE = 60_000;
    private static final long START = 1_735_725_600_000L; // 2025-01-01T10:00Z
    private static final long END = START + 10 * MINUTE;
    private static final long CLEANUP = END - 1 + 5 * MINUTE;

    private final List<WindowHarness> open = new ArrayList<>();

    @AfterEach
    void close() throws Exception {
        for (WindowHarness h : open) {
            h.close();
        }
    }

    private WindowHarness track(WindowHarness h) {
        open.add(h);
        return h;
    }

    private static int subtaskOf(String user, int parallelism) {
        return KeyGroupRangeAssignment.assignKeyToParallelOperator(
                user, WindowHarness.MAX_PARALLELISM, parallelism);
    }

    /** A record for the dropped window and a producer's retry of one it counted. */
    private static List<Transaction> lateRecordAndRetry(String user) {
        return List.of(
                tx(user + "-late", user, 500, START + 2 * MINUTE),
                tx(user + "-a", user, 100, START + MINUTE));
    }

    /**
     * Feeds {@code records} to a restored operator before any watermark, then a watermark past the
     * window's end (which would fire a reopened window), and checks nothing reopened.
     */
    private static void assertTooLateNeverANewPane(
            WindowHarness restored, List<Transaction> records) throws Exception {
        for (Transaction tx : records) {
            restored.process(tx);
        }
        restored.watermark(END + MINUTE);
        assertThat(restored.features()).as("panes after the restore").isEmpty();
        assertThat(restored.lateRecords())
                .extracting(
                        l -> l.getTransaction().getTransactionId(),
                        LateRecord::getReason,
                        LateRecord::getWindowStart)
                .containsExactlyElementsOf(
                        records.stream()
                                .map(
                                        tx ->
                                                org.assertj.core.groups.Tuple.tuple(
                                                        tx.getTransactionId(),
                                                        LateReason.TOO_LATE,
                                                        Instant.ofEpochMilli(START)))
                                .toList());
        assertThat(restored.stateEntries()).isZero();
        assertThat(restored.window.numEventTimeTimers()).isZero();
    }

    @Test
    void aDroppedWindowDoesNotReopenForALateRecordOrARetryArrivingBeforeTheFirstWatermark()
            throws Exception {
        WindowHarness before = track(WindowHarness.open(SPEC, null));
        before.process(tx("alice-a", "alice", 100, START + MINUTE));
        before.watermark(CLEANUP); // fires ON_TIME and drops the window
        assertThat(before.features())
                .singleElement()
                .satisfies(f -> assertThat(f.getRevision()).isZero());
        assertThat(before.stateEntries()).isZero();
        OperatorSubtaskState snapshot = before.window.snapshot(1, 1);

        WindowHarness after = track(WindowHarness.openRestored(SPEC, snapshot));

        assertTooLateNeverANewPane(after, lateRecordAndRetry("alice"));
    }

    @ParameterizedTest(name = "2 subtasks, one never saw a watermark, restored at {0}")
    @ValueSource(ints = {1, 2, 3})
    void aDroppedWindowDoesNotReopenAfterARescaleEvenWhenASubtaskSawNoWatermark(int parallelism)
            throws Exception {
        int owner = subtaskOf("alice", 2);
        OperatorSubtaskState[] snapshots = new OperatorSubtaskState[2];
        for (int subtask = 0; subtask < 2; subtask++) {
            WindowHarness h = track(WindowHarness.openSubtask(SPEC, 2, subtask, null, 2));
            if (subtask == owner) {
                h.process(tx("alice-a", "alice", 100, START + MINUTE));
                h.watermark(CLEANUP);
                assertThat(h.features()).hasSize(1);
            } // the other subtask gets nothing, not even a watermark: it keeps Long.MIN_VALUE
            snapshots[subtask] = h.window.snapshot(1, 1);
        }
        OperatorSubtaskState all = AbstractStreamOperatorTestHarness.repackageState(snapshots);

        WindowHarness after =
                track(
                        WindowHarness.openSubtask(
                                SPEC, parallelism, subtaskOf("alice", parallelism), all, 2));

        assertTooLateNeverANewPane(after, lateRecordAndRetry("alice"));
    }

    @Test
    void aWindowStillAliveOnItsSubtaskCountsItsLateRecordWhateverTheRestoredWatermarkSays()
            throws Exception {
        // Two users on different subtasks: alice's window is dropped on a subtask that saw a later
        // watermark than bob's, whose window is still within its grace period there.
        String alice = "alice";
        String bob = firstUserNotOnTheSubtaskOf(alice);
        int aliceSubtask = subtaskOf(alice, 2);
        int bobSubtask = subtaskOf(bob, 2);
        OperatorSubtaskState[] snapshots = new OperatorSubtaskState[2];

        WindowHarness a = track(WindowHarness.openSubtask(SPEC, 2, aliceSubtask, null, 2));
        a.process(tx("alice-a", alice, 100, START + MINUTE));
        a.watermark(CLEANUP + 10 * MINUTE);
        snapshots[aliceSubtask] = a.window.snapshot(1, 1);

        WindowHarness b = track(WindowHarness.openSubtask(SPEC, 2, bobSubtask, null, 2));
        b.process(tx("bob-a", bob, 100, START + MINUTE));
        b.watermark(END - 1); // fired ON_TIME, alive until CLEANUP
        snapshots[bobSubtask] = b.window.snapshot(1, 1);
        OperatorSubtaskState all = AbstractStreamOperatorTestHarness.repackageState(snapshots);

        WindowHarness bobAfter = track(WindowHarness.openSubtask(SPEC, 2, bobSubtask, all, 2));
        bobAfter.process(tx("bob-late", bob, 50, START + 2 * MINUTE));
        bobAfter.watermark(END + MINUTE);

        assertThat(bobAfter.lateRecords()).isEmpty();
        assertThat(bobAfter.features())
                .singleElement()
                .satisfies(
                        f -> {
                            assertThat(f.getUserId()).isEqualTo(bob);
                            assertThat(f.getRevision()).isEqualTo(1);
                            assertThat(f.getTiming()).isEqualTo(Timing.LATE);
                            assertThat(f.getTxCount()).isEqualTo(2);
                        });
        // And alice's dropped window stays dropped on her own subtask after the same restore.
        WindowHarness aliceAfter = track(WindowHarness.openSubtask(SPEC, 2, aliceSubtask, all, 2));
        assertTooLateNeverANewPane(aliceAfter, lateRecordAndRetry(alice));
    }

    @Test
    void theRestoredWatermarkSurvivesASecondRestoreWithoutAWatermarkInBetween() throws Exception {
        WindowHarness first = track(WindowHarness.open(SPEC, null));
        first.process(tx("alice-a", "alice", 100, START + MINUTE));
        first.watermark(CLEANUP);
        OperatorSubtaskState one = first.window.snapshot(1, 1);

        // Restored, then checkpointed again before any watermark arrived (e.g. a quick second
        // failure): the second snapshot must still carry what the first knew.
        WindowHarness second = track(WindowHarness.openRestored(SPEC, one));
        OperatorSubtaskState two = second.window.snapshot(2, 2);

        WindowHarness third = track(WindowHarness.openRestored(SPEC, two));
        assertTooLateNeverANewPane(third, lateRecordAndRetry("alice"));
    }

    private static String firstUserNotOnTheSubtaskOf(String user) {
        int taken = subtaskOf(user, 2);
        for (int i = 0; ; i++) {
            String candidate = "user-" + i;
            if (subtaskOf(candidate, 2) != taken) {
                return candidate;
            }
        }
    }
}
