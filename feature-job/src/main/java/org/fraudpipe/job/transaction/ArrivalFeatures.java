package org.fraudpipe.job.transaction;

import org.fraudpipe.schemas.avro.TransactionFeatures;

/**
 * One arrival of a transaction, answered with its features, on its way to the model: what the
 * trailing features ({@link TrailingFeatureFunction}) hand to the scoring ({@link
 * TransactionScorer}), chained.
 *
 * <p>A Flink POJO (public fields, no-arg constructor); never mutated after it is emitted (the job
 * runs with object reuse).
 */
public final class ArrivalFeatures {

    /** The features scored: the transaction's own, or for a retry, the original's. */
    public TransactionFeatures features;

    /**
     * The Kafka record timestamp of the transaction scored (its first arrival), or {@link
     * ReceivedTransaction#NO_TIMESTAMP}: goes into the score record.
     */
    public long recordTimestamp;

    /**
     * The Kafka record timestamp of this arrival (a retry's own), or {@link
     * ReceivedTransaction#NO_TIMESTAMP}: where the latency of this answer is measured from.
     */
    public long arrivalRecordTimestamp;

    /** Processing time of this arrival (in a replay: the record's arrival time). */
    public long receivedAt;

    /**
     * The transaction's coordinate, which decides the model release that scores it: its first
     * arrival's Kafka record timestamp, or where records have none (a replay) its first arrival's
     * time. A retry's is its original's, so it is answered by the same release.
     */
    public long coordinate;

    /** Whether this arrival is a retry of an id answered before (its original's features). */
    public boolean retry;

    /** Where this arrival was read (a retry's own position): partition and offset. */
    public int sourcePartition;

    public long sourceOffset;

    public ArrivalFeatures() {}

    ArrivalFeatures(
            TransactionFeatures features,
            long recordTimestamp,
            long arrivalRecordTimestamp,
            long receivedAt,
            long coordinate,
            boolean retry,
            int sourcePartition,
            long sourceOffset) {
        this.features = features;
        this.recordTimestamp = recordTimestamp;
        this.arrivalRecordTimestamp = arrivalRecordTimestamp;
        this.receivedAt = receivedAt;
        this.coordinate = coordinate;
        this.retry = retry;
        this.sourcePartition = sourcePartition;
        this.sourceOffset = sourceOffset;
    }

    @Override
    public String toString() {
        return "ArrivalFeatures{"
                + (features == null ? null : features.getTransactionId())
                + (retry ? ", retry" : "")
                + "}";
    }
}
