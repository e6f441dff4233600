package org.fraudpipe.job.window;

/**
 * What the window stage's processing-time fields ({@code FeatureRecord.emittedAt}, {@code
 * LateRecord.detectedAt} of TOO_LATE records) are read from.
 *
 * <p>Only those fields depend on it: firings, panes and late decisions are event-time driven and
 * identical under both choices.
 */
public enum ProcessingTimeSource {

    /**
     * The operator's processing-time service: the wall clock in a running job, the harness clock in
     * an operator test. The streaming job's choice.
     */
    WALL_CLOCK,

    /**
     * The operator's current watermark at that moment. In a replay there is no wall clock: {@code
     * emittedAt} and {@code detectedAt} are the event-time progress (watermark) at the firing or
     * when the record was set aside, so the same input gives the same output.
     */
    WATERMARK;

    /** The processing time to record, given the operator's clock and watermark now. */
    public long now(long processingTime, long watermark) {
        return this == WALL_CLOCK ? processingTime : watermark;
    }
}
