package org.fraudpipe.job.features;

import java.io.Serializable;
import java.time.Duration;
import org.apache.flink.streaming.api.windowing.windows.TimeWindow;

/**
 * Which tumbling event-time window {@code [start, start + size)} a timestamp belongs to: windows
 * aligned to the epoch, exactly as Flink's {@code TumblingEventTimeWindows.of(size)} (offset 0, no
 * stagger) assigns them, negative timestamps included (start = the largest multiple of size that is
 * {@code <= timestamp}). Used wherever a window must be named without a window operator: the late
 * stream, the parity check, training export.
 *
 * <p>Like Flink, it does not guard against {@code long} overflow for timestamps within one window
 * size of {@link Long#MIN_VALUE} or {@link Long#MAX_VALUE}.
 */
public final class WindowAssignment implements Serializable {

    private static final long serialVersionUID = 1L;

    private final long sizeMillis;

    private WindowAssignment(long sizeMillis) {
        this.sizeMillis = sizeMillis;
    }

    /**
     * Tumbling windows of the given size.
     *
     * @throws IllegalArgumentException if the size is not a positive whole number of milliseconds
     */
    public static WindowAssignment tumbling(Duration size) {
        if (size.isNegative()
                || size.isZero()
                || size.getNano() % 1_000_000 != 0
                || size.compareTo(Duration.ofMillis(Long.MAX_VALUE)) > 0) {
            throw new IllegalArgumentException(
                    "window size must be a positive whole number of milliseconds, got " + size);
        }
        return new WindowAssignment(size.toMillis());
    }

    public long sizeMillis() {
        return sizeMillis;
    }

    /** Inclusive start of the window of {@code timestampMillis}. */
    public long startOf(long timestampMillis) {
        return timestampMillis - Math.floorMod(timestampMillis, sizeMillis);
    }

    /** Exclusive end of the window of {@code timestampMillis}. */
    public long endOf(long timestampMillis) {
        return startOf(timestampMillis) + sizeMillis;
    }

    /** The window of {@code timestampMillis} as Flink names it. */
    public TimeWindow windowOf(long timestampMillis) {
        long start = startOf(timestampMillis);
        return new TimeWindow(start, start + sizeMillis);
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof WindowAssignment other && sizeMillis == other.sizeMillis;
    }

    @Override
    public int hashCode() {
        return Long.hashCode(sizeMillis);
    }

    @Override
    public String toString() {
        return "WindowAssignment{tumbling, size=" + Duration.ofMillis(sizeMillis) + '}';
    }
}
