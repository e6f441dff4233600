package org.fraudpipe.parity;

import org.fraudpipe.schemas.avro.FeatureRecord;
import org.fraudpipe.schemas.avro.ScoreRecord;

/**
 * The parity check's finding for one (user, window): the ideal and the last served features, the
 * cause of their difference, the records that explain it, and the score-level skew.
 *
 * <p>A Flink POJO (public fields, no-arg constructor). Invariants: {@link #cause} is the first of
 * {@link #causes} in {@link Cause} order; {@code MATCH} iff {@link #differingFeatures} is empty and
 * both sides exist and nothing is unaccounted for; {@link #idealScore} is {@code NaN} when the
 * window was not scored (no ideal features, or no model).
 */
public final class WindowVerdict implements java.io.Serializable {

    private static final long serialVersionUID = 1L;

    public String userId;
    public long windowStart;
    public long windowEnd;

    /** The main cause. */
    public Cause cause;

    /** Every cause found, comma-separated in {@link Cause} order. */
    public String causes;

    /** Comma-separated names of the features that differ (empty if none). */
    public String differingFeatures;

    /** The batch recomputation over every archived transaction of the window; null if none. */
    public FeatureRecord ideal;

    /**
     * What an upsert reader holds: the last pane in write order (of the topic when served values
     * are read from Kafka); null if streaming never served the window.
     */
    public FeatureRecord served;

    /** How many panes streaming served for the window (0 if none). */
    public int servedPanes;

    /** Archived records of the window (every copy, duplicates included). */
    public int archivedRecords;

    /** Records the causes name: too late, quarantined, dead-lettered. */
    public int lateDropped;

    public int quarantined;
    public int deadLettered;

    /** Late records whose label (TOO_LATE, FUTURE_DATED) the archive contradicts. */
    public int contradictedLabels;

    /**
     * TOO_LATE labels the archive could not check (their partition may have been idle, or its
     * history was not read): accepted, and counted.
     */
    public int uncheckedLabels;

    /** Transaction ids of the window with more than one distinct payload. */
    public int conflictingDuplicates;

    /** How late each TOO_LATE record of the window was (watermark minus event time), in ms. */
    public long[] lateByMillis;

    /** The last score in write order (what an upsert reader of scores holds); null if none. */
    public ScoreRecord servedScore;

    /** The ideal features scored by the checker's model; NaN if not scored. */
    public double idealScore = Double.NaN;

    /** The decision for {@link #idealScore}; null if not scored. */
    public String idealDecision;

    /** The version of the model that produced {@link #idealScore}; null if not scored. */
    public String idealModelVersion;

    /** What a person should know beyond the cause (empty if nothing). */
    public String note;

    public WindowVerdict() {}

    /** Whether the served score and the ideal score can be compared (same model, both present). */
    public boolean hasScoreDelta() {
        return servedScore != null
                && !Double.isNaN(idealScore)
                && servedScore.getModelVersion().equals(idealModelVersion);
    }

    /** Whether both scores exist but come from different model versions. */
    public boolean modelVersionDiffers() {
        return servedScore != null
                && idealModelVersion != null
                && !servedScore.getModelVersion().equals(idealModelVersion);
    }

    /** Ideal minus served score; NaN unless {@link #hasScoreDelta()}. */
    public double scoreDelta() {
        return hasScoreDelta() ? idealScore - servedScore.getScore() : Double.NaN;
    }

    /** Whether the ideal decision differs from the served one. */
    public boolean decisionFlipped() {
        return hasScoreDelta() && !servedScore.getDecision().name().equals(idealDecision);
    }

    @Override
    public String toString() {
        return "WindowVerdict{"
                + userId
                + "@"
                + windowStart
                + " "
                + causes
                + (differingFeatures.isEmpty() ? "" : " differ: " + differingFeatures)
                + (note.isEmpty() ? "" : " (" + note + ")")
                + "}";
    }
}
