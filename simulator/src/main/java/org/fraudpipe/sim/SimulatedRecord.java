package org.fraudpipe.sim;

import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.Objects;
import org.fraudpipe.schemas.avro.Transaction;
import org.fraudpipe.schemas.json.TransactionJson;

/**
 * One record of the simulated stream, in arrival order: either a transaction or a malformed
 * payload.
 *
 * <p>Invariants: exactly one of {@code transaction} and {@code malformedPayload} is non-null; a
 * malformed payload is a single line (no line break); {@code line} is the record's 1-based position
 * in the stream (and so its line in the transactions file); {@code label} is shared by both copies
 * of a duplicate, and {@code retryCopy} is true only for the second.
 *
 * @param line 1-based position in arrival order
 * @param arrivalTime when the record reaches the topic (millisecond precision)
 * @param transaction the transaction, {@code null} if malformed
 * @param malformedPayload the raw line, {@code null} unless malformed
 * @param label ground truth for the transaction id
 * @param retryCopy whether this is the producer-retry copy of an earlier record
 */
public record SimulatedRecord(
        long line,
        Instant arrivalTime,
        Transaction transaction,
        String malformedPayload,
        Label label,
        boolean retryCopy) {

    public SimulatedRecord {
        Objects.requireNonNull(arrivalTime, "arrivalTime");
        Objects.requireNonNull(label, "label");
        if ((transaction == null) == (malformedPayload == null)) {
            throw new IllegalArgumentException(
                    "exactly one of transaction and malformedPayload must be set");
        }
    }

    /** Whether this record is a malformed payload rather than a transaction. */
    public boolean isMalformed() {
        return transaction == null;
    }

    /** The line of the transactions file (replay format), without line terminator. */
    public String jsonLine() {
        return isMalformed()
                ? malformedPayload
                : TransactionJson.toJsonLine(transaction, arrivalTime);
    }

    /** The item to publish: valid transactions go through the serializer, malformed ones raw. */
    public TransactionPublisher.Item toPublishItem() {
        return isMalformed()
                ? TransactionPublisher.Item.raw(
                        malformedPayload.getBytes(StandardCharsets.UTF_8), arrivalTime)
                : TransactionPublisher.Item.valid(transaction, arrivalTime);
    }
}
