package org.fraudpipe.job.window;

import java.io.Serializable;
import java.time.Duration;
import org.fraudpipe.job.features.WindowAssignment;

/**
 * How the feature job windows a user's transactions: tumbling event-time windows of {@code
 * windowSize} that accept stragglers until the watermark passes their end plus {@code
 * allowedLateness}.
 *
 * <p>Exact boundaries (Flink's watermark {@code W} means "no more records with timestamp {@code <=
 * W}", so a window {@code [start, end)} is complete at {@code W >= end - 1}): the on-time firing
 * happens when the watermark reaches {@code end - 1}; a record is too late once the watermark has
 * reached {@link #cleanupTime(long) end - 1 + allowedLateness}; in between it re-fires the window.
 * With {@code allowedLateness = 0} there are no re-fires.
 *
 * <p>State cost: a key holds at most {@link #maxLiveWindowsPerKey()} = {@code ceil(allowedLateness
 * / windowSize) + 1} windows (one state entry: accumulator and pane bookkeeping; one timer each);
 * size {@code allowedLateness} against the state backend.
 *
 * <p>Processing-time fields of the outputs ({@code emittedAt}, {@code detectedAt}) come from {@link
 * #processingTime()}: the wall clock in the streaming job (the two-argument constructor), the
 * watermark in a deterministic replay ({@link #withProcessingTime}).
 *
 * @param windowSize option {@value #WINDOW_SIZE_OPTION}: positive, whole milliseconds
 * @param allowedLateness option {@value #ALLOWED_LATENESS_OPTION}: zero or positive, whole
 *     milliseconds
 * @param processingTime where {@code emittedAt} and {@code detectedAt} come from; never null
 */
public record FeatureWindowSpec(
        Duration windowSize, Duration allowedLateness, ProcessingTimeSource processingTime)
        implements Serializable {

    /** Name of the window-size option, as the user writes it. */
    public static final String WINDOW_SIZE_OPTION = "window-size";

    /** Name of the allowed-lateness option, as the user writes it. */
    public static final String ALLOWED_LATENESS_OPTION = "allowed-lateness";

    /**
     * @throws IllegalArgumentException naming the option, if a duration is missing, negative, finer
     *     than a millisecond, or (window size) zero
     */
    public FeatureWindowSpec {
        if (processingTime == null) {
            throw new IllegalArgumentException("processingTime is required");
        }
        requireWholeMillis(WINDOW_SIZE_OPTION, windowSize);
        requireWholeMillis(ALLOWED_LATENESS_OPTION, allowedLateness);
        if (windowSize.isZero()) {
            throw new IllegalArgumentException(
                    WINDOW_SIZE_OPTION + " must be positive; got " + windowSize);
        }
    }

    /** Windows whose processing-time fields read the wall clock: the streaming job's. */
    public FeatureWindowSpec(Duration windowSize, Duration allowedLateness) {
        this(windowSize, allowedLateness, ProcessingTimeSource.WALL_CLOCK);
    }

    /** The same windows with processing-time fields read from {@code source}. */
    public FeatureWindowSpec withProcessingTime(ProcessingTimeSource source) {
        return new FeatureWindowSpec(windowSize, allowedLateness, source);
    }

    private static void requireWholeMillis(String option, Duration value) {
        if (value == null) {
            throw new IllegalArgumentException(option + " is required");
        }
        if (value.isNegative()) {
            throw new IllegalArgumentException(option + " must not be negative; got " + value);
        }
        if (value.getNano() % 1_000_000 != 0
                || value.compareTo(Duration.ofMillis(Long.MAX_VALUE)) > 0) {
            throw new IllegalArgumentException(
                    option
                            + " must be a whole number of milliseconds (at most ~292 million years); got "
                            + value);
        }
    }

    /** The window assignment these windows follow. */
    public WindowAssignment assignment() {
        return WindowAssignment.tumbling(windowSize);
    }

    /**
     * The watermark at which the window ending at {@code windowEnd} is closed for good: its state
     * and timers are dropped, and later records for it are too late. {@code windowEnd - 1 +
     * allowedLateness}, {@link Long#MAX_VALUE} on overflow (as Flink).
     */
    public long cleanupTime(long windowEnd) {
        long maxTimestamp = windowEnd - 1;
        long cleanup = maxTimestamp + allowedLateness.toMillis();
        return cleanup >= maxTimestamp ? cleanup : Long.MAX_VALUE;
    }

    /**
     * Whether a record with this event time misses its window when it reaches the window operator
     * at this watermark (the operator's own rule, restated for the late stream and parity).
     */
    public boolean isTooLate(long eventTimeMillis, long watermark) {
        return cleanupTime(assignment().endOf(eventTimeMillis)) <= watermark;
    }

    /** Upper bound of windows alive at once per key: {@code ceil(lateness / size) + 1}. */
    public long maxLiveWindowsPerKey() {
        long size = windowSize.toMillis();
        long lateness = allowedLateness.toMillis();
        return lateness / size + (lateness % size == 0 ? 0 : 1) + 1;
    }

    @Override
    public String toString() {
        return WINDOW_SIZE_OPTION
                + "="
                + windowSize
                + ", "
                + ALLOWED_LATENESS_OPTION
                + "="
                + allowedLateness
                + (processingTime == ProcessingTimeSource.WALL_CLOCK
                        ? ""
                        : ", processing-time=" + processingTime);
    }
}
