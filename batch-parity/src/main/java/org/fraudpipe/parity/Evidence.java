package org.fraudpipe.parity;

import org.apache.flink.api.common.typeinfo.TypeInfo;
import org.fraudpipe.schemas.avro.ArchivedTransaction;
import org.fraudpipe.schemas.avro.DeadLetter;
import org.fraudpipe.schemas.avro.FeatureRecord;
import org.fraudpipe.schemas.avro.LateRecord;
import org.fraudpipe.schemas.avro.ScoreRecord;
import org.fraudpipe.schemas.avro.TransactionScore;

/**
 * One piece of what is known about one (user, window): the ideal recomputation, a served pane or
 * score, an archived transaction, a late record or a dead letter. All inputs of the parity check
 * become evidence keyed by window and meet in {@link WindowVerdictFunction}. The per-transaction
 * check uses the same evidence keyed by user ({@code windowStart} unused there): archived
 * transactions with their watermark bound, dead letters, served transaction scores and labels
 * ({@link org.fraudpipe.parity.transaction.TransactionVerdictFunction}).
 *
 * <p>Public fields and a no-arg constructor; exactly the field of its {@link #kind} is set.
 * Serialized by {@link EvidenceSerializer} (declared through {@link TypeInfo}): the scalars and the
 * one Avro record it carries, through Flink's Avro serializer.
 */
@TypeInfo(EvidenceSerializer.Factory.class)
public final class Evidence {

    /** What the evidence is. */
    public enum Kind {
        IDEAL,
        /** A pane in the archive's copy of what was served. */
        SERVED,
        /** A score in the archive's copy of what was served. */
        SCORE,
        /** A pane read from the features topic ({@link #kafkaPartition}, {@link #kafkaOffset}). */
        KAFKA_SERVED,
        /** A score read from the scores topic ({@link #kafkaPartition}, {@link #kafkaOffset}). */
        KAFKA_SCORE,
        ARCHIVED,
        LATE,
        DEAD_LETTER,
        /** A per-transaction score as served ({@link #transactionScore}). */
        TRANSACTION_SCORE,
        /** A transaction's fraud label ({@link #labelledTransactionId}, {@link #fraud}). */
        LABEL
    }

    /** {@link #watermarkBound} when no earlier record of the partition was read. */
    public static final long NO_BOUND = Long.MIN_VALUE;

    public Kind kind;
    public String userId;
    public long windowStart;
    public FeatureRecord features;
    public ScoreRecord score;
    public ArchivedTransaction archived;
    public LateRecord late;
    public DeadLetter deadLetter;
    public TransactionScore transactionScore;

    /** LABEL: the transaction id labelled. */
    public String labelledTransactionId;

    /** LABEL: whether the transaction was fraudulent. */
    public boolean fraud;

    /** KAFKA_*: where the record is in its topic (the upsert order of its key). */
    public int kafkaPartition;

    public long kafkaOffset;

    /**
     * ARCHIVED: the highest watermark the job can have had when it processed this record, as the
     * archive proves it ({@link PartitionWatermarkBounds}), or {@link #NO_BOUND}; meaningful only
     * when {@link #boundCaveat} is null.
     */
    public long watermarkBound = NO_BOUND;

    /** ARCHIVED: why {@link #watermarkBound} proves nothing for this record, or null if it does. */
    public String boundCaveat;

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

    /** An archived record with the watermark bound the archive proves for it. */
    public static Evidence archived(
            ArchivedTransaction r, long windowStart, long watermarkBound, String boundCaveat) {
        Evidence e = archived(r, windowStart);
        e.watermarkBound = watermarkBound;
        e.boundCaveat = boundCaveat;
        return e;
    }

    /** A pane read from the features topic at {@code partition}/{@code offset}. */
    public static Evidence kafkaServed(FeatureRecord r, int partition, long offset) {
        Evidence e = of(Kind.KAFKA_SERVED, r.getUserId(), r.getWindowStart().toEpochMilli());
        e.features = r;
        e.kafkaPartition = partition;
        e.kafkaOffset = offset;
        return e;
    }

    /** A score read from the scores topic at {@code partition}/{@code offset}. */
    public static Evidence kafkaScore(ScoreRecord r, int partition, long offset) {
        Evidence e = of(Kind.KAFKA_SCORE, r.getUserId(), r.getWindowStart().toEpochMilli());
        e.score = r;
        e.kafkaPartition = partition;
        e.kafkaOffset = offset;
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

    /** A per-transaction score as served (the per-transaction check, keyed by user). */
    public static Evidence transactionScore(TransactionScore r) {
        Evidence e = of(Kind.TRANSACTION_SCORE, r.getUserId(), 0L);
        e.transactionScore = r;
        return e;
    }

    /** The fraud label of one transaction of {@code userId} (the per-transaction check). */
    public static Evidence label(String userId, String transactionId, boolean fraud) {
        Evidence e = of(Kind.LABEL, userId, 0L);
        e.labelledTransactionId = transactionId;
        e.fraud = fraud;
        return e;
    }

    @Override
    public String toString() {
        return "Evidence{" + kind + " " + userId + "@" + windowStart + "}";
    }
}
