package org.fraudpipe.parity;

import org.fraudpipe.schemas.avro.ArchivedTransaction;
import org.fraudpipe.schemas.avro.DeadLetter;
import org.fraudpipe.schemas.avro.FeatureRecord;
import org.fraudpipe.schemas.avro.LateRecord;
import org.fraudpipe.schemas.avro.ScoreRecord;

/**
 * One piece of what is known about one (user, window): the ideal recomputation, a served pane or
 * score, an archived transaction, a late record or a dead letter. All inputs of the parity check
 * become evidence keyed by window and meet in {@link WindowVerdictFunction}.
 *
 * <p>A Flink POJO (public fields, no-arg constructor); exactly the field of its {@link #kind} is
 * set; the Avro fields use Flink's Avro serializer.
 */
public final class Evidence {

    /** What the evidence is. */
    public enum Kind {
        IDEAL,
        SERVED,
        SCORE,
        ARCHIVED,
        LATE,
        DEAD_LETTER
    }

    public Kind kind;
    public String userId;
    public long windowStart;
    public FeatureRecord features;
    public ScoreRecord score;
    public ArchivedTransaction archived;
    public LateRecord late;
    public DeadLetter deadLetter;

    public Evidence() {}

    private static Evidence of(Kind kind, String userId, long windowStart) {
        Evidence e = new Evidence();
        e.kind = kind;
        e.userId = userId;
        e.windowStart = windowStart;
        return e;
    }

    public static Evidence ideal(FeatureRecord r) {
        Evidence e = of(Kind.IDEAL, r.getUserId(), r.getWindowStart().toEpochMilli());
        e.features = r;
        return e;
    }

    public static Evidence served(FeatureRecord r) {
        Evidence e = of(Kind.SERVED, r.getUserId(), r.getWindowStart().toEpochMilli());
        e.features = r;
        return e;
    }

    public static Evidence score(ScoreRecord r) {
        Evidence e = of(Kind.SCORE, r.getUserId(), r.getWindowStart().toEpochMilli());
        e.score = r;
        return e;
    }

    public static Evidence archived(ArchivedTransaction r, long windowStart) {
        Evidence e = of(Kind.ARCHIVED, r.getTransaction().getUserId(), windowStart);
        e.archived = r;
        return e;
    }

    public static Evidence late(LateRecord r) {
        Evidence e =
                of(Kind.LATE, r.getTransaction().getUserId(), r.getWindowStart().toEpochMilli());
        e.late = r;
        return e;
    }

    /** A dead letter attributed to the window of the archived transaction at its position. */
    public static Evidence deadLetter(DeadLetter r, String userId, long windowStart) {
        Evidence e = of(Kind.DEAD_LETTER, userId, windowStart);
        e.deadLetter = r;
        return e;
    }

    @Override
    public String toString() {
        return "Evidence{" + kind + " " + userId + "@" + windowStart + "}";
    }
}
