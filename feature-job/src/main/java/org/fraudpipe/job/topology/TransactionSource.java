package org.fraudpipe.job.topology;

import org.apache.flink.streaming.api.datastream.DataStream;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.fraudpipe.job.ingest.IngestedRecord;

/**
 * Where the job's input comes from: Kafka in production, a JSON Lines file in a replay, anything in
 * a test. An implementation adds its source to the environment and returns the ingested records
 * with event timestamps and watermarks already assigned (in the source, so watermarks are per
 * partition/split), using {@link org.fraudpipe.job.ingest.IngestWatermarks}.
 */
@FunctionalInterface
public interface TransactionSource {

    DataStream<IngestedRecord> create(StreamExecutionEnvironment env);
}
