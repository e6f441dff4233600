package org.fraudpipe.job.window;

import static org.assertj.core.api.Assertions.assertThat;
import static org.fraudpipe.job.features.TestTransactions.tx;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import org.apache.flink.runtime.checkpoint.OperatorSubtaskState;
import org.apache.flink.state.rocksdb.EmbeddedRocksDBStateBackend;
import org.fraudpipe.job.features.FeatureAggregator;
import org.fraudpipe.schemas.avro.FeatureRecord;
import org.fraudpipe.schemas.avro.LateRecord;
import org.fraudpipe.schemas.avro.Transaction;
import org.junit.jupiter.api.Test;

/**
 * The unfired panes the window holds in the heap ({@link UnfiredPanes}) change no output: the same
 * hostile traffic (several users interleaved, duplicates, records behind the watermark, late within
 * grace, too late, a snapshot and restore in the middle) gives the same panes and late records
 * whether none, one, two or the default number of panes are held, on RocksDB; and the on-time
 * firing of a held pane does read the held copy, not the state.
 */
class HeldPanesTest {

    private static final Duration SIZE = Duration.ofMinutes(10);
    private static final Duration LATENESS = Duration.ofMinutes(5);
    private static final long MINUTE = 60_000;
    private static final long T0 = 1_735_725_600_000L; // 2025-01-01T10:00Z, a window start

    private static final int USERS = 5;

    /** One step of the traffic: a record, or a watermark when {@code tx} is null. */
    private record Step(Transaction tx, long watermark) {}

    private static List<Step> hostileTraffic() {
        Random random = new Random(33);
        List<Step> steps = new ArrayList<>();
        long maxEventTime = T0;
        for (int i = 0; i < 600; i++) {
            long eventTime;
            int kind = random.nextInt(20);
            if (kind == 0) {
                eventTime =
                        maxEventTime
                                - 12 * MINUTE
                                - random.nextInt(8) * MINUTE; // late, or too late
            } else if (kind == 1) {
                eventTime = maxEventTime - random.nextInt(90_000); // behind the watermark
            } else {
                eventTime = maxEventTime + random.nextInt(40_000);
            }
            maxEventTime = Math.max(maxEventTime, eventTime);
            String user = "u" + random.nextInt(USERS);
            String id = kind == 2 && i > 0 ? "tx" + (i - 1) : "tx" + i; // a retry now and then
            steps.add(new Step(tx(id, user, 100 + random.nextInt(900), eventTime), 0));
            if (random.nextInt(4) == 0) {
                steps.add(new Step(null, maxEventTime - 5_000));
            }
        }
        steps.add(new Step(null, maxEventTime + 60 * MINUTE));
        return steps;
    }

    private record Outputs(List<FeatureRecord> features, List<LateRecord> late) {}

    /** Runs the traffic holding {@code heldPanes}, with a snapshot and restore at its middle. */
    private static Outputs run(int heldPanes) throws Exception {
        FeatureWindowSpec spec = new FeatureWindowSpec(SIZE, LATENESS);
        List<Step> steps = hostileTraffic();
        List<FeatureRecord> features = new ArrayList<>();
        List<LateRecord> late = new ArrayList<>();
        WindowHarness h =
                WindowHarness.openHolding(spec, new EmbeddedRocksDBStateBackend(), null, heldPanes);
        int middle = steps.size() / 2;
        for (int i = 0; i < steps.size(); i++) {
            if (i == middle) {
                OperatorSubtaskState snapshot = h.window.snapshot(1, 1);
                features.addAll(h.features());
                late.addAll(h.lateRecords());
                h.close();
                h =
                        WindowHarness.openHolding(
                                spec, new EmbeddedRocksDBStateBackend(), snapshot, heldPanes);
            }
            Step step = steps.get(i);
            if (step.tx() != null) {
                h.process(step.tx());
            } else {
                h.watermark(step.watermark());
            }
        }
        features.addAll(h.features());
        late.addAll(h.lateRecords());
        assertThat(liveWindows(h)).as("every window dropped at the end").isZero();
        h.close();
        return new Outputs(features, late);
    }

    /** Window state entries of the traffic's users. */
    private static int liveWindows(WindowHarness h) throws Exception {
        int entries = 0;
        for (int u = 0; u < USERS; u++) {
            for (var ignored : h.storedWindows("u" + u).keys()) {
                entries++;
            }
        }
        return entries;
    }

    @Test
    void holdingPanesChangesNoOutputOfHostileTrafficAcrossARestore() throws Exception {
        Outputs none = run(0);
        assertThat(none.features()).hasSizeGreaterThan(50);
        assertThat(none.features()).anySatisfy(r -> assertThat(r.getRevision()).isPositive());
        assertThat(none.late()).isNotEmpty();
        for (int held : new int[] {1, 2, FeatureWindows.HELD_UNFIRED_PANES}) {
            Outputs outputs = run(held);
            assertThat(outputs.features()).as("panes holding %d", held).isEqualTo(none.features());
            assertThat(outputs.late()).as("late records holding %d", held).isEqualTo(none.late());
        }
    }

    @Test
    void theOnTimeFiringOfAHeldPaneReadsTheHeldCopyNotTheState() throws Exception {
        WindowHarness h =
                WindowHarness.openHolding(
                        new FeatureWindowSpec(SIZE, LATENESS),
                        new EmbeddedRocksDBStateBackend(),
                        null,
                        FeatureWindows.HELD_UNFIRED_PANES);
        try {
            h.process(tx("a", "alice", 100, T0 + MINUTE));
            // The state's entry replaced behind the operator's back by an empty pane: a firing
            // that read the state would emit no transaction.
            h.storedWindows("alice")
                    .put(T0, new WindowPane(new FeatureAggregator().createAccumulator()));

            h.watermark(T0 + 10 * MINUTE - 1);

            assertThat(h.features())
                    .singleElement()
                    .satisfies(
                            r -> {
                                assertThat(r.getTxCount()).isEqualTo(1);
                                assertThat(r.getAmountSum()).isEqualTo(100);
                            });
        } finally {
            h.close();
        }
    }
}
