package org.fraudpipe.schemas.archive;

import java.time.Instant;
import java.util.function.ToLongFunction;
import org.apache.avro.specific.SpecificRecord;
import org.fraudpipe.schemas.avro.ArchivedModelEvent;
import org.fraudpipe.schemas.avro.ArchivedTransaction;
import org.fraudpipe.schemas.avro.DeadLetter;
import org.fraudpipe.schemas.avro.FeatureRecord;
import org.fraudpipe.schemas.avro.LateRecord;
import org.fraudpipe.schemas.avro.ReadPosition;
import org.fraudpipe.schemas.avro.ScoreRecord;
import org.fraudpipe.schemas.avro.TransactionScore;

/**
 * The one registry of what the streaming job archives: a directory per stream under the archive
 * root, Avro container files in hour partitions (see {@link ArchivePartition}). What the batch
 * parity check and training export read; nothing else names these directories.
 *
 * <p>Layout: {@code <root>/<directory>/date=YYYY-MM-DD/hour=HH/<part files>.avro}. Each stream says
 * which time of a record decides its partition. Transactions, late records and window results are
 * partitioned by event time (a transaction's {@code eventTime}, a window's {@code windowStart}, a
 * per-transaction score's transaction's {@code eventTime}), so everything about one window lies in
 * the partition of its start; dead letters have no trustworthy event time and are partitioned by
 * arrival (the Kafka record timestamp, else detection time); read positions by the time they were
 * recorded.
 *
 * <p>Part files become visible only when committed (the streaming job's file sink commits on
 * checkpoint completion): readers only read files whose name does not start with {@code .} or
 * {@code _} (in-progress and pending files are hidden).
 */
public enum ArchiveStream {
    /** Every valid transaction received (quarantined ones flagged), by event time. */
    TRANSACTIONS(
            "transactions",
            ArchivedTransaction.class,
            r -> ((ArchivedTransaction) r).getTransaction().getEventTime().toEpochMilli()),
    /** Every pane (all revisions) of every window, by window start. */
    FEATURES(
            "features",
            FeatureRecord.class,
            r -> ((FeatureRecord) r).getWindowStart().toEpochMilli()),
    /** Every score of every pane, by window start. */
    SCORES("scores", ScoreRecord.class, r -> ((ScoreRecord) r).getWindowStart().toEpochMilli()),
    /** Too-late and future-dated transactions, by the transaction's event time. */
    LATE(
            "late",
            LateRecord.class,
            r -> ((LateRecord) r).getTransaction().getEventTime().toEpochMilli()),
    /** Records that could not become valid transactions, by arrival. */
    DEAD_LETTERS("dead-letters", DeadLetter.class, r -> arrivalOf((DeadLetter) r)),
    /**
     * Every per-transaction score, as served (a retry answered again included), by the scored
     * transaction's event time.
     */
    TRANSACTION_SCORES(
            "transaction-scores",
            TransactionScore.class,
            r -> ((TransactionScore) r).getEventTime().toEpochMilli()),
    /**
     * Where each of the job's readers of the transactions topic stood, recorded at every checkpoint
     * and at the end of input, by the time it was recorded. Not an input of the BATCH check: the
     * parity client reads it whole (a few records per partition and checkpoint) to tell a record
     * that a reader had not reached yet from one it lost.
     */
    READ_POSITIONS(
            "read-positions",
            ReadPosition.class,
            r -> ((ReadPosition) r).getRecordedAt().toEpochMilli()),
    /**
     * Every record of the model registry topic (releases and role assignments), by the broker's
     * append time. Not an input of the BATCH check: the parity client reads it whole (a few records
     * a week) to rebuild the registry and re-score each record with the release that served it.
     */
    MODEL_EVENTS(
            "model-events",
            ArchivedModelEvent.class,
            r -> ((ArchivedModelEvent) r).getAppendTime().toEpochMilli());

    private final String directory;
    private final Class<? extends SpecificRecord> recordClass;
    private final ToLongFunction<SpecificRecord> partitionTime;

    ArchiveStream(
            String directory,
            Class<? extends SpecificRecord> recordClass,
            ToLongFunction<SpecificRecord> partitionTime) {
        this.directory = directory;
        this.recordClass = recordClass;
        this.partitionTime = partitionTime;
    }

    /** The stream's directory under the archive root. */
    public String directory() {
        return directory;
    }

    /** The Avro class of the stream's records. */
    public Class<? extends SpecificRecord> recordClass() {
        return recordClass;
    }

    /**
     * The epoch millis that decide the partition of {@code record} (which must be of {@link
     * #recordClass()}).
     */
    public long partitionTimeOf(SpecificRecord record) {
        if (!recordClass.isInstance(record)) {
            throw new IllegalArgumentException(
                    name() + " archives " + recordClass.getSimpleName() + ", not " + record);
        }
        return partitionTime.applyAsLong(record);
    }

    /** The partition of {@code record}. */
    public ArchivePartition partitionOf(SpecificRecord record) {
        return ArchivePartition.of(partitionTimeOf(record));
    }

    private static long arrivalOf(DeadLetter deadLetter) {
        Instant arrival = deadLetter.getRecordTimestamp();
        return (arrival != null ? arrival : deadLetter.getDetectedAt()).toEpochMilli();
    }
}
