package org.fraudpipe.parity.transaction;

import java.io.Serializable;
import java.time.Instant;

/**
 * One archived record a cause names for a scored transaction x: a record of x's trailing window
 * that x's answer could not count (arrived after x, quarantined, dead-lettered, evicted), or the
 * copy of a conflicting duplicate that the ideal counts instead of the served one.
 *
 * @param transactionId the record's transaction id
 * @param cause the cause it stands for ({@link TransactionCause} name)
 * @param eventTime its event time
 * @param arrival when it reached Kafka: its record timestamp, else the time the job read it (a
 *     replay: the line's arrival time)
 * @param delayMillis how late it was: arrival minus event time
 * @param afterScoredMillis its arrival minus x's arrival (positive: it came after x's answer)
 * @param position where it was read: {@code topic-partition@offset}
 */
public record NamedRecord(
        String transactionId,
        String cause,
        Instant eventTime,
        Instant arrival,
        long delayMillis,
        long afterScoredMillis,
        String position)
        implements Serializable {}
