package org.fraudpipe.job.archive;

import java.time.Instant;
import org.apache.flink.api.common.functions.FlatMapFunction;
import org.apache.flink.util.Collector;
import org.fraudpipe.job.ingest.IngestedRecord;
import org.fraudpipe.schemas.avro.ArchivedTransaction;

/**
 * Turns the ingested records into the transactions archive's records: every valid transaction,
 * windowable or quarantined, becomes one {@link ArchivedTransaction} with its source position,
 * Kafka record timestamp, arrival time and quarantine flag; dead letters are skipped (they have
 * their own archive stream). Stateless; runs chained to the source.
 *
 * <p>Invariant: one archive record per valid record read, whatever its fate afterwards (on time,
 * late, too late, quarantined): the archive is what the job received, not what it counted.
 */
public final class ReceivedTransactions
        implements FlatMapFunction<IngestedRecord, ArchivedTransaction> {

    private static final long serialVersionUID = 1L;

    @Override
    public void flatMap(IngestedRecord record, Collector<ArchivedTransaction> out) {
        if (record.transaction != null) {
            out.collect(toArchived(record));
        }
    }

    /**
     * The archive record of a valid ingested transaction.
     *
     * @throws IllegalArgumentException for a dead letter
     */
    public static ArchivedTransaction toArchived(IngestedRecord record) {
        if (record.transaction == null) {
            throw new IllegalArgumentException(
                    "only valid transactions are archived as received, not " + record);
        }
        return ArchivedTransaction.newBuilder()
                .setTransaction(record.transaction)
                .setSourceTopic(record.sourceTopic)
                .setSourcePartition(record.sourcePartition)
                .setSourceOffset(record.sourceOffset)
                .setRecordTimestamp(
                        record.recordTimestamp == null
                                ? null
                                : Instant.ofEpochMilli(record.recordTimestamp))
                .setReceivedAt(Instant.ofEpochMilli(record.receivedAt))
                .setQuarantined(record.futureDated)
                .build();
    }
}
