package org.fraudpipe.bench;

/**
 * The schedule of a live-paced run: event {@code i} (from 0) is due {@code floor(i * 1e9 / rate)}
 * nanoseconds after the start, for {@code total} events. Integer arithmetic only, so the schedule
 * has no drift however long the run: the publisher sends whatever is due and sleeps until the next
 * event is, and falling behind shows as events sent after their scheduled time (measured, never
 * hidden by re-basing the schedule).
 */
final class LivePacer {

    private static final long NANOS = 1_000_000_000L;

    private final long rate;
    private final long total;
    private final long startNanos;

    /**
     * @param ratePerSecond events per second, at least 1 (at most a million)
     * @param total events in the schedule
     * @param startNanos when event 0 is due, on {@link System#nanoTime()}'s clock
     */
    LivePacer(long ratePerSecond, long total, long startNanos) {
        if (ratePerSecond < 1 || ratePerSecond > 1_000_000) {
            throw new IllegalArgumentException("rate must be 1 to 1,000,000 per second");
        }
        if (total < 0) {
            throw new IllegalArgumentException("total must not be negative");
        }
        this.rate = ratePerSecond;
        this.total = total;
        this.startNanos = startNanos;
    }

    long rate() {
        return rate;
    }

    long total() {
        return total;
    }

    /** Nanoseconds after the start when event {@code i} is due. */
    static long offsetNanos(long i, long rate) {
        // i < 2^31 events per run at most: i * 1e9 stays far below Long.MAX_VALUE.
        return i * NANOS / rate;
    }

    /** When event {@code i} is due, on the {@code nanoTime} clock. */
    long scheduledNanos(long i) {
        return startNanos + offsetNanos(i, rate);
    }

    /**
     * How many events are due by {@code nowNanos}: the number of {@code i} in {@code [0, total)}
     * with {@code scheduledNanos(i) <= nowNanos}.
     */
    long dueBy(long nowNanos) {
        long d = nowNanos - startNanos;
        if (d < 0 || total == 0) {
            return 0;
        }
        if (d >= offsetNanos(total - 1, rate)) {
            return total; // also keeps (d + 1) * rate below overflow
        }
        // floor(i * 1e9 / rate) <= d  <=>  i * 1e9 < (d + 1) * rate  <=>  i < (d + 1) * rate / 1e9
        long due = ceilDiv((d + 1) * rate, NANOS);
        return Math.min(total, due);
    }

    /** Nanoseconds from {@code nowNanos} until event {@code i} is due (0 if it is). */
    long nanosUntil(long i, long nowNanos) {
        return Math.max(0, scheduledNanos(i) - nowNanos);
    }

    private static long ceilDiv(long a, long b) {
        return -Math.floorDiv(-a, b);
    }
}
