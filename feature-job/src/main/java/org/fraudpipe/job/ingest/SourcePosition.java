package org.fraudpipe.job.ingest;

import java.time.Instant;

/**
 * Where a raw record came from (for its dead letter, or a valid transaction's archive record): a
 * Kafka topic, partition and offset, or in a replay the file's name, partition 0 and the line
 * number. Identifies one received record.
 *
 * @param timestamp the Kafka record timestamp, or null
 */
public record SourcePosition(String topic, int partition, long offset, Instant timestamp) {

    /** The dead-letter key: {@code <topic>-<partition>@<offset>}. */
    public String key() {
        return topic + "-" + partition + "@" + offset;
    }
}
