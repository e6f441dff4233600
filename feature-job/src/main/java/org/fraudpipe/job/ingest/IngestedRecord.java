package org.fraudpipe.job.ingest;

import java.time.Instant;
import java.util.Objects;
import org.fraudpipe.schemas.avro.DeadLetter;
import org.fraudpipe.schemas.avro.Transaction;

/**
 * One source record after decoding and validation, before it is routed to its fate. Exactly one of
 * {@link #transaction} and {@link #deadLetter} is set.
 *
 * <p>Invariants: {@link #receivedAt} is the processing time at which the record was read (wall
 * clock when read from Kafka; the record's {@code arrivalTime} in a replay). {@link #arrivalTime()}
 * is when it reached Kafka: its record timestamp when it has one, else {@code receivedAt}. {@link
 * #futureDated} is decided once, when the record is read, as {@code eventTime > arrivalTime +
 * future-tolerance} ({@link RecordIngestor#isFutureDated}); the watermark generator and the router
 * both obey that one decision, so a quarantined record can never have moved the watermark.
 *
 * <p>Every record, valid or not, carries its {@link SourcePosition} (the {@code source*} fields and
 * {@link #recordTimestamp}): a dead letter names it, and a valid transaction is archived with it
 * ({@code ArchivedTransaction}), so that one received record can be told from another, e.g. a
 * producer's retry from the original.
 *
 * <p>A Flink POJO (public fields, no-arg constructor); the Avro fields use Flink's Avro serializer.
 */
public final class IngestedRecord {

    public Transaction transaction;
    public DeadLetter deadLetter;
    public long receivedAt;
    public boolean futureDated;

    /** Kafka topic it was read from (in a replay: the input file's name). */
    public String sourceTopic;

    /** Kafka partition (in a replay: 0). */
    public int sourcePartition;

    /** Kafka offset (in a replay: the 1-based line number). */
    public long sourceOffset;

    /** The Kafka record timestamp, epoch millis; null without one (and in a replay). */
    public Long recordTimestamp;

    public IngestedRecord() {}

    /** A valid transaction read at {@code position}. */
    public static IngestedRecord valid(
            Transaction tx, SourcePosition position, long receivedAt, boolean futureDated) {
        IngestedRecord r = new IngestedRecord();
        r.transaction = Objects.requireNonNull(tx);
        r.setPosition(position);
        r.receivedAt = receivedAt;
        r.futureDated = futureDated;
        return r;
    }

    /** A record that could not become a valid transaction; its position is the dead letter's. */
    public static IngestedRecord dead(DeadLetter deadLetter, long receivedAt) {
        IngestedRecord r = new IngestedRecord();
        r.deadLetter = Objects.requireNonNull(deadLetter);
        r.setPosition(
                new SourcePosition(
                        deadLetter.getSourceTopic(),
                        deadLetter.getSourcePartition(),
                        deadLetter.getSourceOffset(),
                        deadLetter.getRecordTimestamp()));
        r.receivedAt = receivedAt;
        return r;
    }

    /** Where the record was read. */
    public SourcePosition position() {
        return new SourcePosition(
                sourceTopic,
                sourcePartition,
                sourceOffset,
                recordTimestamp == null ? null : Instant.ofEpochMilli(recordTimestamp));
    }

    private void setPosition(SourcePosition position) {
        sourceTopic = position.topic();
        sourcePartition = position.partition();
        sourceOffset = position.offset();
        recordTimestamp = position.timestamp() == null ? null : position.timestamp().toEpochMilli();
    }

    /**
     * When the record reached Kafka, as the future-dated rule judges it: the record timestamp (the
     * broker's append time on a {@code LogAppendTime} topic), else {@link #receivedAt} (a replay,
     * or a record without a timestamp).
     */
    public long arrivalTime() {
        return RecordIngestor.arrivalTime(recordTimestamp, receivedAt);
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
