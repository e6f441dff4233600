package org.fraudpipe.schemas.json;

import java.time.Instant;
import java.util.Objects;
import org.fraudpipe.schemas.avro.Transaction;

/**
 * One line of the replay format: a transaction and when it arrived.
 *
 * @param transaction the transaction as it would be on the transactions topic
 * @param arrivalTime when it reached the topic, or {@code null} if the line does not say; a replay
 *     feeds records in file order, which is nondecreasing arrivalTime for files written by the
 *     simulator
 */
public record ReplayRecord(Transaction transaction, Instant arrivalTime) {
    public ReplayRecord {
        Objects.requireNonNull(transaction, "transaction");
    }

    /**
     * The time that stands for the record's arrival (processing time): {@link #arrivalTime()}, or
     * the event time when the line has none. Such a record arrived "on time" by definition, so it
     * can never be future-dated; a file without arrival times cannot exercise the quarantine.
     */
    public Instant arrivalOrEventTime() {
        return arrivalTime != null ? arrivalTime : transaction.getEventTime();
    }
}
