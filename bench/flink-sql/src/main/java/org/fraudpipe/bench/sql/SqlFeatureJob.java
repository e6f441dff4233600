package org.fraudpipe.bench.sql;

import java.nio.file.Path;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import org.apache.flink.api.common.eventtime.WatermarkStrategy;
import org.apache.flink.configuration.CheckpointingOptions;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.CoreOptions;
import org.apache.flink.configuration.ExternalizedCheckpointRetention;
import org.apache.flink.configuration.PipelineOptions;
import org.apache.flink.configuration.StateBackendOptions;
import org.apache.flink.connector.base.DeliveryGuarantee;
import org.apache.flink.connector.kafka.sink.KafkaSink;
import org.apache.flink.connector.kafka.source.KafkaSource;
import org.apache.flink.connector.kafka.source.enumerator.initializer.OffsetsInitializer;
import org.apache.flink.core.execution.CheckpointingMode;
import org.apache.flink.core.execution.JobClient;
import org.apache.flink.core.execution.SavepointFormatType;
import org.apache.flink.state.rocksdb.EmbeddedRocksDBStateBackend;
import org.apache.flink.state.rocksdb.RocksDBOptions;
import org.apache.flink.streaming.api.datastream.DataStream;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.table.api.bridge.java.StreamTableEnvironment;
import org.apache.flink.types.Row;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.fraudpipe.bench.probe.RunProbe;
import org.fraudpipe.bench.probe.RunnerArgs;

/**
 * The Flink SQL peer as a benchmark run: reads the input topic from the earliest offset, computes
 * {@link SqlFeatures} and writes them exactly-once to its output topic, in a local MiniCluster
 * configured as the job runs (parallelism, checkpoints, state backend: the same settings as the
 * job's {@code JobEnvironment}). Stops with a savepoint (which commits the last transactions) once
 * the {@link RunProbe} counted the expected records, then writes the probe's result file.
 *
 * <p>I/O is DataStream (the same Kafka connector, codec and sink settings as the job): the
 * Confluent Avro table format ({@code flink-avro-confluent-registry}) needs Confluent's client
 * jars, which are not on Maven Central. The features themselves are the SQL query.
 *
 * <p>Options ({@code --name value}): bootstrap-servers, schema-registry-url, input-topic,
 * output-topic, group-id, transactional-id-prefix, checkpoint-dir, savepoint-dir, result-file,
 * expect-records, and optionally state-backend (rocksdb), parallelism (2), window-size (10m),
 * allowed-lateness (2m), out-of-orderness (5s), idleness (1m), checkpoint-interval (10s),
 * transaction-timeout (10m), dedup-ttl (window + lateness + out-of-orderness), settle (2s), timeout
 * (30m), window-query (legacy, tvf or none: {@link SqlFeatures.WindowQuery}), transaction-topic
 * (none: with a topic, the per-transaction OVER query too, written at-least-once as the job writes
 * its scores at arrival), trailing-window (the window size), live-file and stop-file (a live-paced
 * run: {@link RunProbe#liveFile}, {@link RunProbe#awaitOrStop}).
 */
public final class SqlFeatureJob {

    private SqlFeatureJob() {}

    public static void main(String[] argv) throws Exception {
        org.fraudpipe.bench.probe.ParentWatch.fromSystemProperty();
        RunnerArgs args = RunnerArgs.parse(argv);
        String bootstrap = args.required("bootstrap-servers");
        String registry = args.required("schema-registry-url");
        String input = args.required("input-topic");
        String output = args.required("output-topic");
        String groupId = args.required("group-id");
        String txPrefix = args.required("transactional-id-prefix");
        String checkpointDir = args.required("checkpoint-dir");
        String savepointDir = args.required("savepoint-dir");
        Path resultFile = Path.of(args.required("result-file"));
        long expected = args.longValue("expect-records");
        String backend = args.get("state-backend", "rocksdb");
        int parallelism = args.intValue("parallelism", 2);
        Duration window = args.duration("window-size", "10m");
        Duration lateness = args.duration("allowed-lateness", "2m");
        Duration ooo = args.duration("out-of-orderness", "5s");
        Duration idleness = args.duration("idleness", "1m");
        Duration interval = args.duration("checkpoint-interval", "10s");
        Duration txTimeout = args.duration("transaction-timeout", "10m");
        Duration dedupTtl =
                args.duration("dedup-ttl", window.plus(lateness).plus(ooo).toMillis() + "ms");
        Duration settle = args.duration("settle", "2s");
        Duration timeout = args.duration("timeout", "30m");
        SqlFeatures.WindowQuery windowQuery =
                SqlFeatures.WindowQuery.valueOf(
                        args.get("window-query", "legacy").toUpperCase(java.util.Locale.ROOT));
        String transactionTopic = args.get("transaction-topic", null);
        Duration trailing = args.duration("trailing-window", window.toMillis() + "ms");
        String liveFile = args.get("live-file", null);
        String stopFile = args.get("stop-file", null);
        args.requireAllRead(List.of());

        Configuration conf = new Configuration();
        conf.set(CoreOptions.DEFAULT_PARALLELISM, parallelism);
        conf.set(PipelineOptions.MAX_PARALLELISM, 128);
        conf.set(CheckpointingOptions.CHECKPOINTING_INTERVAL, interval);
        conf.set(
                CheckpointingOptions.CHECKPOINTING_CONSISTENCY_MODE,
                CheckpointingMode.EXACTLY_ONCE);
        conf.set(CheckpointingOptions.CHECKPOINTS_DIRECTORY, checkpointDir);
        conf.set(
                CheckpointingOptions.EXTERNALIZED_CHECKPOINT_RETENTION,
                ExternalizedCheckpointRetention.DELETE_ON_CANCELLATION);
        switch (backend) {
            case "rocksdb" -> {
                conf.set(StateBackendOptions.STATE_BACKEND, "rocksdb");
                conf.set(CheckpointingOptions.INCREMENTAL_CHECKPOINTS, true);
                conf.set(
                        RocksDBOptions.TIMER_SERVICE_FACTORY,
                        EmbeddedRocksDBStateBackend.PriorityQueueStateType.HEAP);
            }
            case "hashmap" -> conf.set(StateBackendOptions.STATE_BACKEND, "hashmap");
            default ->
                    throw new IllegalArgumentException(
                            "--state-backend must be rocksdb or hashmap, was " + backend);
        }
        StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment(conf);

        KafkaSource<Row> source =
                KafkaSource.<Row>builder()
                        .setBootstrapServers(bootstrap)
                        .setTopics(input)
                        .setGroupId(groupId)
                        .setStartingOffsets(OffsetsInitializer.earliest())
                        .setDeserializer(new TransactionRowDeserializer(registry, input))
                        .setProperty(ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed")
                        .setProperty("commit.offsets.on.checkpoint", "true")
                        .build();
        DataStream<Row> rows =
                env.fromSource(
                                source,
                                WatermarkStrategy.<Row>forBoundedOutOfOrderness(ooo)
                                        .withTimestampAssigner(
                                                (r, previous) ->
                                                        (Long) r.getField(SqlFeatures.EVENT_TIME))
                                        .withIdleness(idleness),
                                "Kafka transactions")
                        .uid("sql-kafka-source");
        StreamTableEnvironment tEnv = StreamTableEnvironment.create(env);
        SqlFeatures.Queries queries =
                SqlFeatures.build(
                        tEnv,
                        rows,
                        windowQuery,
                        window,
                        lateness,
                        dedupTtl,
                        transactionTopic == null ? null : trailing);

        if (queries.windows() != null) {
            Properties producer = new Properties();
            producer.setProperty(
                    ProducerConfig.TRANSACTION_TIMEOUT_CONFIG, Long.toString(txTimeout.toMillis()));
            producer.setProperty(ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, "true");
            producer.setProperty(ProducerConfig.ACKS_CONFIG, "all");
            producer.setProperty(ProducerConfig.LINGER_MS_CONFIG, "20");
            producer.setProperty(ProducerConfig.COMPRESSION_TYPE_CONFIG, "lz4");
            SqlFeatures.upserts(tEnv, queries.windows())
                    .sinkTo(
                            KafkaSink.<Row>builder()
                                    .setBootstrapServers(bootstrap)
                                    .setKafkaProducerConfig(producer)
                                    .setRecordSerializer(new FeatureRowSerializer(registry, output))
                                    .setDeliveryGuarantee(DeliveryGuarantee.EXACTLY_ONCE)
                                    .setTransactionalIdPrefix(txPrefix)
                                    .build())
                    .uid("sql-features-sink")
                    .name("Kafka features");
        }
        if (queries.transactions() != null) {
            // As the job writes its scores at arrival (KafkaIO.transactionScoresSink, default
            // at-least-once): an idempotent producer sending at once, visible at once.
            Properties producer = new Properties();
            producer.setProperty(ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, "true");
            producer.setProperty(ProducerConfig.ACKS_CONFIG, "all");
            producer.setProperty(ProducerConfig.LINGER_MS_CONFIG, "0");
            producer.setProperty(ProducerConfig.COMPRESSION_TYPE_CONFIG, "lz4");
            tEnv.toDataStream(queries.transactions())
                    .sinkTo(
                            KafkaSink.<Row>builder()
                                    .setBootstrapServers(bootstrap)
                                    .setKafkaProducerConfig(producer)
                                    .setRecordSerializer(
                                            new TransactionRowSerializer(
                                                    registry, transactionTopic, trailing))
                                    .setDeliveryGuarantee(DeliveryGuarantee.AT_LEAST_ONCE)
                                    .build())
                    .uid("sql-transaction-features-sink")
                    .name("Kafka transaction features");
        }

        if (liveFile != null) {
            RunProbe.liveFile(Path.of(liveFile));
        }
        RunProbe.expect(expected);
        JobClient client = env.executeAsync("bench flink-sql features");
        boolean complete =
                RunProbe.awaitOrStop(timeout, stopFile == null ? null : Path.of(stopFile));
        Thread.sleep(settle.toMillis());
        long stopStart = System.nanoTime();
        String savepoint =
                client.stopWithSavepoint(false, savepointDir, SavepointFormatType.CANONICAL).get();
        client.getJobExecutionResult().get();
        Map<String, Object> result = new LinkedHashMap<>();
        result.put("system", "flink-sql");
        result.put("stateBackend", backend);
        result.put("windowQuery", windowQuery.name().toLowerCase(java.util.Locale.ROOT));
        result.put("perTransaction", transactionTopic != null);
        result.put("parallelism", parallelism);
        result.putAll(RunProbe.result());
        result.put("stopWithSavepointSeconds", (System.nanoTime() - stopStart) / 1e9);
        result.put("savepoint", savepoint);
        result.put("timedOut", !complete);
        RunnerArgs.writeResult(resultFile, result);
        System.exit(0);
    }
}
