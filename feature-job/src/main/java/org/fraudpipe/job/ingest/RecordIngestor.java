package org.fraudpipe.job.ingest;

import java.io.Serializable;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.time.Instant;
import java.util.Optional;
import org.fraudpipe.schemas.TransactionValidator;
import org.fraudpipe.schemas.avro.DeadLetter;
import org.fraudpipe.schemas.avro.DeadLetterReason;
import org.fraudpipe.schemas.avro.Transaction;
import org.fraudpipe.schemas.registry.SchemaRegistryException;
import org.fraudpipe.schemas.wire.WireFormatException;

/**
 * Turns one raw record into an {@link IngestedRecord}: decode, validate, decide whether it is
 * future-dated. Shared by the Kafka source and the replay source so both apply the same rules.
 *
 * <p>Invariant: never throws for bad data. Whatever the bytes, the result is a valid transaction or
 * a dead letter that keeps the raw bytes, the position and the reason; so a poison pill can never
 * make the job restart-loop.
 */
public final class RecordIngestor implements Serializable {

    private static final long serialVersionUID = 1L;

    /**
     * Decodes a raw value; throws {@link WireFormatException} when the bytes are not a transaction.
     */
    @FunctionalInterface
    public interface Decoder {
        Transaction decode(byte[] value);
    }

    private final long futureToleranceMillis;

    public RecordIngestor(Duration futureTolerance) {
        this.futureToleranceMillis = futureTolerance.toMillis();
    }

    /**
     * Ingests one record.
     *
     * @param receivedAt processing time of its arrival, epoch millis
     */
    public IngestedRecord ingest(
            SourcePosition position, byte[] key, byte[] value, long receivedAt, Decoder decoder) {
        Transaction tx;
        try {
            tx = decoder.decode(value);
        } catch (WireFormatException e) {
            return dead(position, key, value, receivedAt, e.reason(), e.getMessage());
        } catch (SchemaRegistryException outage) {
            throw outage;
        } catch (RuntimeException e) {
            // A decoder bug or an unforeseen input: still data, never a crash loop.
            return dead(position, key, value, receivedAt, DeadLetterReason.OTHER, e.toString());
        }
        return ingestDecoded(position, key, value, tx, receivedAt);
    }

    /** Validates and classifies an already decoded transaction. */
    public IngestedRecord ingestDecoded(
            SourcePosition position, byte[] key, byte[] value, Transaction tx, long receivedAt) {
        Optional<String> problem = TransactionValidator.problem(tx);
        if (problem.isPresent()) {
            return dead(position, key, value, receivedAt, DeadLetterReason.INVALID, problem.get());
        }
        long arrival =
                arrivalTime(
                        position.timestamp() == null ? null : position.timestamp().toEpochMilli(),
                        receivedAt);
        return IngestedRecord.valid(tx, position, receivedAt, isFutureDated(tx, arrival));
    }

    /**
     * The one future-dated rule: event time beyond the arrival time plus the tolerance.
     *
     * @param arrivalTime {@link #arrivalTime(Long, long)} of the record, epoch millis
     */
    public boolean isFutureDated(Transaction tx, long arrivalTime) {
        return isFutureDated(tx.getEventTime().toEpochMilli(), arrivalTime, futureToleranceMillis);
    }

    /**
     * The future-dated rule itself, shared by the job and the parity check (which re-checks the
     * job's FUTURE_DATED labels with it): {@code eventTime > arrival + tolerance}.
     */
    public static boolean isFutureDated(
            long eventTimeMillis, long arrivalMillis, long toleranceMillis) {
        return eventTimeMillis > arrivalMillis + toleranceMillis;
    }

    /**
     * The arrival time the future-dated rule judges against: the Kafka record timestamp when there
     * is one, else the time the job read the record. With the input topic on {@code LogAppendTime}
     * (as the job's topics are created) that is the broker's clock when the record was appended, so
     * reprocessing a backlog gives the same fates as the live run, and a replay file's {@code
     * arrivalTime} plays the same part; the parity check proves it from the archive the same way.
     * With {@code CreateTime} it is the producer's clock: a producer that stamps records with their
     * event time would never have one quarantined.
     *
     * @param recordTimestamp the Kafka record timestamp, epoch millis, or null
     * @param receivedAt when the job read the record, epoch millis
     */
    public static long arrivalTime(Long recordTimestamp, long receivedAt) {
        return recordTimestamp != null ? recordTimestamp : receivedAt;
    }

    /**
     * A dead letter for a record that a source could not even decode with its own format (e.g. an
     * unreadable line of a replay file): keeps the position, the raw bytes and the reason.
     *
     * @param receivedAt processing time of its arrival, epoch millis
     */
    public static IngestedRecord deadLetter(
            SourcePosition position,
            byte[] key,
            byte[] value,
            long receivedAt,
            DeadLetterReason reason,
            String message) {
        return dead(position, key, value, receivedAt, reason, message);
    }

    private static IngestedRecord dead(
            SourcePosition position,
            byte[] key,
            byte[] value,
            long receivedAt,
            DeadLetterReason reason,
            String message) {
        DeadLetter letter =
                DeadLetter.newBuilder()
                        .setSourceTopic(position.topic())
                        .setSourcePartition(position.partition())
                        .setSourceOffset(position.offset())
                        .setRecordTimestamp(position.timestamp())
                        .setKey(key == null ? null : ByteBuffer.wrap(key))
                        .setValue(value == null ? null : ByteBuffer.wrap(value))
                        .setReason(reason)
                        .setErrorMessage(message == null ? reason.name() : message)
                        .setDetectedAt(Instant.ofEpochMilli(receivedAt))
                        .build();
        return IngestedRecord.dead(letter, receivedAt);
    }
}
