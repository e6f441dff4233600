package org.fraudpipe.tools.advise;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.TreeSet;

/**
 * The default grid of pairs, chosen from the arrival-delay distribution: bounds near the high
 * percentiles of the delay (where a watermark bound belongs), lateness from none to the tail (where
 * the allowed lateness decides what is too late), each rounded up to a value an operator would
 * write, plus the pair the job runs with now when it is known.
 */
final class Grid {

    /** Values an operator would write, ascending. */
    static final long[] LADDER = {
        0,
        100,
        200,
        500,
        1_000,
        2_000,
        5_000,
        10_000,
        15_000,
        30_000,
        60_000,
        120_000,
        300_000,
        600_000,
        900_000,
        1_800_000,
        3_600_000,
        7_200_000,
        10_800_000,
        21_600_000,
        43_200_000,
        86_400_000
    };

    static final long DAY = 86_400_000;

    private Grid() {}

    /** The smallest value of the ladder at or above {@code millis} (whole days beyond). */
    static long niceAtLeast(long millis) {
        if (millis <= 0) {
            return 0;
        }
        for (long v : LADDER) {
            if (v >= millis) {
                return v;
            }
        }
        return (millis + DAY - 1) / DAY * DAY;
    }

    /**
     * Bounds: the p90, p95 and p99 of the delay rounded up, and the two values of the ladder above
     * the rounded p95; only those below half the window (a bound near the window delays every
     * result by a window: hours-late arrivals belong to the lateness, not the bound); and the
     * current bound.
     *
     * @param sortedDelays delays of the windowable records, ascending
     */
    static List<Duration> bounds(long[] sortedDelays, Duration windowSize, Duration current) {
        TreeSet<Long> values = new TreeSet<>();
        long limit = windowSize.toMillis() / 2;
        int n = sortedDelays.length;
        if (n > 0) {
            long p95 = niceAtLeast(Percentiles.at(sortedDelays, n, 0.95));
            long up1 = niceAtLeast(p95 + 1);
            long[] candidates = {
                niceAtLeast(Percentiles.at(sortedDelays, n, 0.90)),
                p95,
                up1,
                niceAtLeast(up1 + 1),
                niceAtLeast(Percentiles.at(sortedDelays, n, 0.99))
            };
            for (long c : candidates) {
                if (c <= limit) {
                    values.add(c);
                }
            }
        }
        if (current != null) {
            values.add(current.toMillis());
        }
        if (values.isEmpty()) {
            values.add(Math.min(5_000L, limit));
        }
        return durations(values);
    }

    /**
     * Lateness: none, the p99, p99.8, p99.9 and p99.95 of the delay and its maximum (at most a
     * day), rounded up, and the current lateness.
     */
    static List<Duration> lateness(long[] sortedDelays, Duration current) {
        TreeSet<Long> values = new TreeSet<>();
        values.add(0L);
        int n = sortedDelays.length;
        if (n > 0) {
            values.add(niceAtLeast(Percentiles.at(sortedDelays, n, 0.99)));
            values.add(niceAtLeast(Percentiles.at(sortedDelays, n, 0.998)));
            values.add(niceAtLeast(Percentiles.at(sortedDelays, n, 0.999)));
            values.add(niceAtLeast(Percentiles.at(sortedDelays, n, 0.9995)));
            values.add(Math.min(DAY, niceAtLeast(sortedDelays[n - 1])));
        }
        if (current != null) {
            values.add(current.toMillis());
        }
        return durations(values);
    }

    private static List<Duration> durations(TreeSet<Long> millis) {
        List<Duration> out = new ArrayList<>();
        for (long v : millis) {
            out.add(Duration.ofMillis(v));
        }
        return out;
    }
}
