package org.fraudpipe.job.ingest;

import java.util.Objects;
import org.fraudpipe.schemas.avro.DeadLetter;
import org.fraudpipe.schemas.avro.Transaction;

/**
 * One source record after decoding and validation, before it is routed to its fate. Exactly one of
 * {@link #transaction} and {@link #deadLetter} is set.
 *
 * <p>Invariants: {@link #receivedAt} is the processing time at which the record arrived (wall clock
 * when read from Kafka; the record's {@code arrivalTime} in a replay). {@link #futureDated} is
 * decided once, when the record is read, as {@code eventTime > receivedAt + future-tolerance}; the
 * watermark generator and the router both obey that one decision, so a quarantined record can never
 * have moved the watermark.
 *
 * <p>A Flink POJO (public fields, no-arg constructor); the Avro fields use Flink's Avro serializer.
 */
public final class IngestedRecord {

    public Transaction transaction;
    public DeadLetter deadLetter;
    public long receivedAt;
    public boolean futureDated;

    public IngestedRecord() {}

    /** A valid transaction. */
    public static IngestedRecord valid(Transaction tx, long receivedAt, boolean futureDated) {
        IngestedRecord r = new IngestedRecord();
        r.transaction = Objects.requireNonNull(tx);
        r.receivedAt = receivedAt;
        r.futureDated = futureDated;
        return r;
    }

    /** A record that could not become a valid transaction. */
    public static IngestedRecord dead(DeadLetter deadLetter, long receivedAt) {
        IngestedRecord r = new IngestedRecord();
        r.deadLetter = Objects.requireNonNull(deadLetter);
        r.receivedAt = receivedAt;
        return r;
    }

    /** Whether this record may reach a window and move the watermark. */
    public boolean isWindowable() {
        return transaction != null && !futureDated;
    }

    /** The event-time timestamp Flink assigns: the event time if valid, else the arrival time. */
    public long timestamp() {
        return transaction != null ? transaction.getEventTime().toEpochMilli() : receivedAt;
    }

    @Override
    public String toString() {
        return transaction != null
                ? "IngestedRecord{"
                        + transaction.getTransactionId()
                        + (futureDated ? ", future" : "")
                        + "}"
                : "IngestedRecord{dead: " + deadLetter.getReason() + "}";
    }
}
