package org.fraudpipe.job.window;

import java.util.Objects;
import org.fraudpipe.job.features.FeatureAccumulator;
import org.fraudpipe.schemas.avro.Timing;

/**
 * Everything the feature window keeps for one user and one window, in one state entry: the
 * accumulator and the pane bookkeeping (revision of the last pane emitted, records counted into the
 * ON_TIME pane). Mutable: {@link FeatureWindowFunction} reads it, adds a record or fires, and
 * writes it back.
 *
 * <p>Invariants: {@code revision == NOT_FIRED} until the window's first pane; after it, the
 * revision of the last pane emitted (0, 1, ...), except that the ON_TIME pane is not written back
 * (window state format 3): a stored pane may still say {@code NOT_FIRED} after its on-time firing,
 * which {@link #settleOnTimeFiring} tells from the watermark. {@code recordsSeenOnTime} is the
 * accumulator's {@code recordsSeen} at the ON_TIME pane, 0 if the first pane was already late, and
 * never more than {@code recordsSeen}.
 */
public final class WindowPane {

    /** The revision of a window that has not fired yet. */
    public static final int NOT_FIRED = -1;

    private final FeatureAccumulator accumulator;
    private int revision;
    private long recordsSeenOnTime;

    /** A window without records that has not fired. */
    public WindowPane() {
        this(new FeatureAccumulator());
    }

    /** A window that has not fired, holding {@code accumulator}. */
    public WindowPane(FeatureAccumulator accumulator) {
        this(accumulator, NOT_FIRED, 0);
    }

    /**
     * A window restored from its parts (serializer, savepoint migration).
     *
     * @throws IllegalArgumentException if the parts break the invariants above
     */
    public static WindowPane restore(
            FeatureAccumulator accumulator, int revision, long recordsSeenOnTime) {
        if (recordsSeenOnTime > accumulator.recordsSeen()) {
            throw new IllegalArgumentException(
                    "corrupt window pane: "
                            + recordsSeenOnTime
                            + " records on time of "
                            + accumulator.recordsSeen());
        }
        return new WindowPane(accumulator, revision, recordsSeenOnTime);
    }

    private WindowPane(FeatureAccumulator accumulator, int revision, long recordsSeenOnTime) {
        if (revision < NOT_FIRED || recordsSeenOnTime < 0) {
            throw new IllegalArgumentException(
                    "corrupt window pane: revision " + revision + ", on time " + recordsSeenOnTime);
        }
        this.accumulator = Objects.requireNonNull(accumulator, "accumulator");
        this.revision = revision;
        this.recordsSeenOnTime = recordsSeenOnTime;
    }

    public FeatureAccumulator accumulator() {
        return accumulator;
    }

    /** Revision of the last pane emitted, {@link #NOT_FIRED} before the first. */
    public int revision() {
        return revision;
    }

    public long recordsSeenOnTime() {
        return recordsSeenOnTime;
    }

    public boolean hasFired() {
        return revision != NOT_FIRED;
    }

    /**
     * Records a firing and says what it is: the first firing is ON_TIME when {@code onTime} (the
     * watermark reached the window's end), LATE otherwise (the window's first record came within
     * grace); every later firing is LATE.
     */
    Timing fire(boolean onTime) {
        if (revision == NOT_FIRED) {
            revision = 0;
            recordsSeenOnTime = onTime ? accumulator.recordsSeen() : 0;
            return onTime ? Timing.ON_TIME : Timing.LATE;
        }
        revision++;
        return Timing.LATE;
    }

    /**
     * The rule of window state format 3: the on-time firing is not written back, so a pane stored
     * as not fired whose on-time firing time ({@code windowEnd - 1}) is at or before {@code
     * watermark} did fire ON_TIME, with every record it holds (every other change of a pane is
     * written, so what it holds is what that firing counted). Settles such a pane into what it is:
     * revision 0, all its records on time. {@code watermark} must be one the window's operator had
     * reached (after a restore, the highest one of the restored checkpoint): its on-time timer then
     * fired. Readers of a savepoint's window state apply the same rule, with the savepoint's
     * watermark.
     */
    public void settleOnTimeFiring(long windowEnd, long watermark) {
        if (revision == NOT_FIRED && windowEnd - 1 <= watermark) {
            revision = 0;
            recordsSeenOnTime = accumulator.recordsSeen();
        }
    }

    /** Raw records counted after the ON_TIME pane (all of them if there was none). */
    long lateRecordsIncluded() {
        return accumulator.recordsSeen() - recordsSeenOnTime;
    }

    WindowPane copy() {
        return new WindowPane(accumulator.copy(), revision, recordsSeenOnTime);
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof WindowPane p
                && p.revision == revision
                && p.recordsSeenOnTime == recordsSeenOnTime
                && p.accumulator.equals(accumulator);
    }

    @Override
    public int hashCode() {
        return Objects.hash(accumulator, revision, recordsSeenOnTime);
    }

    @Override
    public String toString() {
        return "WindowPane{revision="
                + revision
                + ", recordsSeenOnTime="
                + recordsSeenOnTime
                + ", "
                + accumulator
                + "}";
    }
}
