package org.fraudpipe.job.sim;

import java.time.Instant;
import java.util.Objects;
import org.fraudpipe.schemas.avro.Transaction;

/**
 * One line of the replay format: a transaction and when it arrived.
 *
 * @param transaction the transaction as it would be on the transactions topic
 * @param arrivalTime when it reached the topic; a replay feeds records in file order, which is
 *     nondecreasing arrivalTime for files written by the simulator
 */
public record ReplayRecord(Transaction transaction, Instant arrivalTime) {
    public ReplayRecord {
        Objects.requireNonNull(transaction, "transaction");
        Objects.requireNonNull(arrivalTime, "arrivalTime");
    }
}
