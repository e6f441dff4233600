package org.fraudpipe.job.topology;

import org.apache.flink.streaming.api.datastream.DataStream;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.fraudpipe.job.ingest.IngestedRecord;
import org.fraudpipe.schemas.avro.ArchivedModelEvent;

/**
 * Where the job's input comes from: Kafka in production, a JSON Lines file in a replay, anything in
 * a test. An implementation adds its source to the environment and returns the ingested records
 * with event timestamps and watermarks already assigned (in the source, so watermarks are per
 * partition/split), using {@link org.fraudpipe.job.ingest.IngestWatermarks}.
 */
@FunctionalInterface
public interface TransactionSource {

    DataStream<IngestedRecord> create(StreamExecutionEnvironment env);

    /**
     * A second reading of the same input for the per-transaction path, with its own uid, or null
     * (the default) for that path to share {@link #create}'s stream. Called at most once, after
     * {@link #create}, and only when the topology scores transactions. Why a second reading: a
     * window-close burst keeps the window operator from reading for seconds; its input buffers fill
     * and a shared source blocks on them, so transactions would wait for the burst before being
     * scored at arrival.
     */
    default DataStream<IngestedRecord> createForTransactions(StreamExecutionEnvironment env) {
        return null;
    }

    /**
     * The model registry's records, for the archive, or null (the default: an input without a
     * registry, a replay). Called at most once, only when the topology archives.
     */
    default DataStream<ArchivedModelEvent> createModelEvents(StreamExecutionEnvironment env) {
        return null;
    }
}
