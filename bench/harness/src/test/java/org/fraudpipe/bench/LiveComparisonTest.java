package org.fraudpipe.bench;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class LiveComparisonTest {

    static final long T = 60_000;

    static long[] f(long txCount, long complete) {
        return new long[] {txCount, 10 * txCount, 10, 1, 1, 1, complete};
    }

    @Test
    void everyDifferenceHasItsCauseFromTheTraffic() {
        // user 1: x0 at 10 s, x1 at 20 s, x2 at 15 s arriving after x1 (index 2):
        // the peer answers x1 over x0, x2, x1 (3), the job at x1's arrival over x0, x1 (2).
        // user 2: y3 at 100 s dropped by the peer, y4 at 110 s: the job counts y3, the peer not.
        // user 3: z5 equal; z6 historyComplete false; z7 differs without a cause.
        // user 4: w8 only in the peer; w9 beyond the tail margin.
        List<LiveComparison.Input> inputs =
                List.of(
                        new LiveComparison.Input(0, 1, 10_000),
                        new LiveComparison.Input(1, 1, 20_000),
                        new LiveComparison.Input(2, 1, 15_000),
                        new LiveComparison.Input(3, 2, 100_000),
                        new LiveComparison.Input(4, 2, 110_000),
                        new LiveComparison.Input(5, 3, 200_000),
                        new LiveComparison.Input(6, 3, 201_000),
                        new LiveComparison.Input(7, 3, 300_000),
                        new LiveComparison.Input(8, 4, 400_000));
        Map<Long, long[]> ours = new HashMap<>();
        Map<Long, long[]> peer = new HashMap<>();
        ours.put(0L, f(1, 1));
        peer.put(0L, f(1, 1));
        ours.put(1L, f(2, 1));
        peer.put(1L, f(3, 1));
        ours.put(2L, f(2, 1));
        peer.put(2L, f(2, 1));
        ours.put(3L, f(1, 1)); // the peer dropped y3
        ours.put(4L, f(2, 1));
        peer.put(4L, f(1, 1));
        ours.put(5L, f(1, 1));
        peer.put(5L, f(1, 1));
        ours.put(6L, f(1, 0));
        peer.put(6L, f(2, 1));
        ours.put(7L, f(1, 1));
        peer.put(7L, f(5, 1));
        peer.put(8L, f(1, 1));
        ours.put(9L, f(1, 1));

        Map<String, Object> r = LiveComparison.compare(ours, peer, inputs, 9, T);

        assertThat(r).containsEntry("compared", 9L).containsEntry("equal", 3L);
        assertThat(r).containsEntry("onlyOurs", 1L).containsEntry("onlyPeer", 1L);
        assertThat(r).containsEntry("different", 4L);
        assertThat(r.get("byCause"))
                .isEqualTo(
                        Map.of(
                                LiveComparison.LATER_ARRIVAL, 1L,
                                LiveComparison.DROPPED_BY_PEER, 2L,
                                LiveComparison.HISTORY_INCOMPLETE, 1L,
                                LiveComparison.UNEXPLAINED, 2L));
        assertThat((Map<String, Object>) r.get("differentByFeature"))
                .containsEntry("txCount", 4L)
                .containsEntry("amountMax", 0L);
    }

    @Test
    void aLateRowTheFlinkPeerAnsweredAfterClearingItsUsersStateIsExplained() {
        // user 1: y at 10 s, x late (event time 40 s) sent at 110 s: y + 1.5 T = 100 s < 110 s, so
        // the peer's state was cleared at the watermark's 100 s and it counts x alone.
        // user 2: the same but x sent at 95 s (before the clearing): not explained.
        // user 3: sent at 110 s but not late: not explained.
        List<LiveComparison.Input> inputs =
                List.of(
                        new LiveComparison.Input(0, 1, 10_000),
                        new LiveComparison.Input(1, 1, 40_000, true, 110_000),
                        new LiveComparison.Input(2, 2, 10_000),
                        new LiveComparison.Input(3, 2, 40_000, true, 95_000),
                        new LiveComparison.Input(4, 3, 10_000),
                        new LiveComparison.Input(5, 3, 40_000, false, 110_000));
        Map<Long, long[]> ours = new HashMap<>();
        Map<Long, long[]> peer = new HashMap<>();
        for (long i = 0; i < 6; i += 2) {
            ours.put(i, f(1, 1));
            peer.put(i, f(1, 1));
            ours.put(i + 1, f(2, 1));
            peer.put(i + 1, f(1, 1));
        }
        Map<String, Object> r = LiveComparison.compare(ours, peer, inputs, 6, T);
        assertThat(r.get("byCause"))
                .isEqualTo(
                        Map.of(
                                LiveComparison.PEER_STATE_CLEARED, 1L,
                                LiveComparison.UNEXPLAINED, 2L));
    }

    @Test
    void theTrailingWindowExcludesItsLowerBound() {
        // y at exactly t - T is not in x's window: its absence from the peer explains nothing
        List<LiveComparison.Input> inputs =
                List.of(new LiveComparison.Input(0, 1, 0), new LiveComparison.Input(1, 1, T));
        Map<Long, long[]> ours = Map.of(0L, f(1, 1), 1L, f(2, 1));
        Map<Long, long[]> peer = Map.of(1L, f(1, 1));
        Map<String, Object> r = LiveComparison.compare(ours, peer, inputs, 2, T);
        assertThat(r.get("byCause"))
                .isEqualTo(
                        Map.of(
                                LiveComparison.DROPPED_BY_PEER, 1L,
                                LiveComparison.UNEXPLAINED, 1L));
    }
}
