package org.fraudpipe.job.kafka;

import java.util.Properties;
import org.apache.avro.specific.SpecificRecord;
import org.apache.flink.connector.base.DeliveryGuarantee;
import org.apache.flink.connector.kafka.sink.KafkaSink;
import org.apache.flink.connector.kafka.source.KafkaSource;
import org.apache.flink.connector.kafka.source.enumerator.initializer.OffsetsInitializer;
import org.apache.flink.connector.kafka.source.reader.deserializer.KafkaRecordDeserializationSchema;
import org.apache.flink.streaming.api.datastream.DataStream;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.OffsetResetStrategy;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.fraudpipe.job.config.JobConfig;
import org.fraudpipe.job.ingest.IngestWatermarks;
import org.fraudpipe.job.ingest.RecordIngestor;
import org.fraudpipe.job.ingest.SourcePosition;
import org.fraudpipe.job.position.ReadPositions;
import org.fraudpipe.job.scoring.release.ModelReleases;
import org.fraudpipe.job.scoring.release.RegistryFollower;
import org.fraudpipe.job.topology.OperatorNames;
import org.fraudpipe.job.topology.OutputSinks;
import org.fraudpipe.job.topology.TransactionSource;
import org.fraudpipe.job.topology.Uids;
import org.fraudpipe.schemas.Topic;
import org.fraudpipe.schemas.avro.ArchivedModelEvent;
import org.fraudpipe.schemas.avro.DeadLetter;
import org.fraudpipe.schemas.avro.FeatureRecord;
import org.fraudpipe.schemas.avro.LateRecord;
import org.fraudpipe.schemas.avro.ScoreRecord;
import org.fraudpipe.schemas.avro.TransactionScore;
import org.fraudpipe.schemas.avro.WindowKey;

/**
 * The job's Kafka source and exactly-once sinks, from its {@link JobConfig}.
 *
 * <p>Exactly-once: every sink of the window path is transactional ({@link
 * DeliveryGuarantee#EXACTLY_ONCE}), commits on checkpoints, has its own transactional-id prefix
 * ({@code <transactional-id-prefix>-<topic>}) and an explicit {@code transaction.timeout.ms}
 * (validated by {@link JobConfig} against the checkpoint interval and the brokers' maximum). The
 * source reads with {@code isolation.level=read_committed} and commits offsets on checkpoints only
 * for monitoring; its position lives in Flink's checkpoints.
 */
public final class KafkaIO {

    private KafkaIO() {}

    /** The transactions topic, decoded and classified, with per-partition watermarks. */
    public static TransactionSource source(JobConfig config) {
        return source(config, deserializer(config));
    }

    /**
     * Where the job's scoring stages learn the model releases: the registry topic, followed by
     * every scoring subtask ({@code --model-registry follow}), or none.
     */
    public static ModelReleases modelReleases(JobConfig config) {
        if (config.modelRegistry() == JobConfig.ModelRegistryMode.OFF) {
            return ModelReleases.startupOnly();
        }
        Properties kafka = config.kafkaClient().kafkaProperties(config.bootstrapServers());
        kafka.setProperty(
                org.apache.kafka.clients.CommonClientConfigs.CLIENT_ID_CONFIG,
                config.transactionalIdPrefix() + "-model-registry");
        return new ModelReleases.Followed(
                config.topics().name(Topic.MODEL_RELEASES),
                RegistryFollower.consumerProperties(kafka),
                config.registryConfig(),
                config.modelRegistryTimeout());
    }

    /** The job's deserializer of the transactions topic: decode, validate, classify. */
    public static KafkaTransactionDeserializer deserializer(JobConfig config) {
        return new KafkaTransactionDeserializer(
                config.registryConfig(),
                config.topics().name(Topic.TRANSACTIONS),
                new RecordIngestor(config.futureTolerance()));
    }

    /**
     * The transactions topic read with {@code deserializer}: the job's own ({@link #deserializer}),
     * or one that wraps it (the benchmark counts records in it). Everything else (offsets,
     * isolation, watermarks, uid) is the job's. With {@code --transaction-source own} the
     * per-transaction path gets a second source on the same topic ({@link
     * TransactionSource#createForTransactions}), with the job's own deserializer: the same group id
     * (so a first start after an upgrade continues from the offsets the group committed) but no
     * offset commits of its own (the group's offsets stay the window path's, what the job's lag
     * alerts watch); its lag is Flink's KafkaSource metrics of that operator.
     */
    public static TransactionSource source(
            JobConfig config,
            KafkaRecordDeserializationSchema<org.fraudpipe.job.ingest.IngestedRecord>
                    deserializer) {
        KafkaSource<org.fraudpipe.job.ingest.IngestedRecord> windows =
                kafkaSource(config, deserializer, ReadPositions.Reader.WINDOWS);
        // The decision job (--paths decisions) reads with the per-transaction path's own source.
        boolean own =
                config.transactionSource() == JobConfig.TransactionSourceMode.OWN
                        || !config.paths().windows();
        return new TransactionSource() {
            @Override
            public DataStream<org.fraudpipe.job.ingest.IngestedRecord> create(
                    StreamExecutionEnvironment env) {
                return env.fromSource(
                                windows,
                                IngestWatermarks.streaming(
                                        config.outOfOrderness(), config.idleness()),
                                OperatorNames.KAFKA_SOURCE)
                        .uid(Uids.KAFKA_SOURCE);
            }

            @Override
            public DataStream<org.fraudpipe.job.ingest.IngestedRecord> createForTransactions(
                    StreamExecutionEnvironment env) {
                if (!own) {
                    return null;
                }
                return env.fromSource(
                                kafkaSource(
                                        config,
                                        deserializer(config),
                                        ReadPositions.Reader.DECISIONS),
                                IngestWatermarks.streaming(
                                        config.outOfOrderness(), config.idleness()),
                                OperatorNames.KAFKA_SOURCE_TRANSACTIONS)
                        .uid(Uids.KAFKA_SOURCE_TRANSACTIONS);
            }

            @Override
            public DataStream<ArchivedModelEvent> createModelEvents(
                    StreamExecutionEnvironment env) {
                return config.modelRegistry() == JobConfig.ModelRegistryMode.FOLLOW
                        ? modelEvents(env, config)
                        : null;
            }
        };
    }

    /**
     * The model registry topic from its beginning, for the archive: one reader, its offset in the
     * checkpoint, no offsets committed to the group (the group's offsets are the window path's).
     */
    private static DataStream<ArchivedModelEvent> modelEvents(
            StreamExecutionEnvironment env, JobConfig config) {
        String topic = config.topics().name(Topic.MODEL_RELEASES);
        KafkaSource<ArchivedModelEvent> source =
                KafkaSource.<ArchivedModelEvent>builder()
                        .setProperties(
                                config.kafkaClient().kafkaProperties(config.bootstrapServers()))
                        .setTopics(topic)
                        .setGroupId(config.groupId())
                        .setClientIdPrefix(config.groupId() + "-model-registry")
                        .setStartingOffsets(OffsetsInitializer.earliest())
                        .setProperty("isolation.level", "read_committed")
                        .setProperty("commit.offsets.on.checkpoint", "false")
                        .setProperty(
                                "max.partition.fetch.bytes",
                                Integer.toString(Topic.MODEL_EVENT_MAX_BYTES))
                        .setProperty(
                                "fetch.max.bytes", Integer.toString(Topic.MODEL_EVENT_MAX_BYTES))
                        .setDeserializer(new ModelEventDeserializer(config.registryConfig(), topic))
                        .build();
        return env.fromSource(
                        source,
                        org.apache.flink.api.common.eventtime.WatermarkStrategy.noWatermarks(),
                        OperatorNames.MODEL_EVENTS_SOURCE)
                .uid(Uids.MODEL_EVENTS_SOURCE)
                .setParallelism(1);
    }

    /**
     * The source of one reader. Its consumers' client ids are {@code <group-id>-<reader>-<subtask>}
     * ({@link #clientIdPrefix}), so that the broker's request logs and quotas, and a client
     * interceptor, tell the two readers apart; only the window path's reader commits offsets.
     *
     * <p>Fetch settings per reader ({@link #fetchSettings}), under the client file's (which can
     * override them): the reader that feeds the decisions (its own, or a shared source) fetches for
     * latency; the window path's own reader waits for a fuller fetch, up to 100 ms (its records
     * wait for a watermark anyway), which saves a fetch request per few records at low rates.
     */
    private static KafkaSource<org.fraudpipe.job.ingest.IngestedRecord> kafkaSource(
            JobConfig config,
            KafkaRecordDeserializationSchema<org.fraudpipe.job.ingest.IngestedRecord> deserializer,
            ReadPositions.Reader reader) {
        boolean commitOffsets = reader == ReadPositions.Reader.WINDOWS;
        return KafkaSource.<org.fraudpipe.job.ingest.IngestedRecord>builder()
                .setProperties(
                        fetchSettings(
                                reader == ReadPositions.Reader.DECISIONS
                                        // a shared source feeds the decisions too
                                        || (config.paths().decisions()
                                                && config.transactionSource()
                                                        == JobConfig.TransactionSourceMode.SHARED)))
                // The client file's settings (security) next: the job's own below win.
                .setProperties(config.kafkaClient().kafkaProperties(config.bootstrapServers()))
                .setBootstrapServers(config.bootstrapServers())
                .setTopics(config.topics().name(Topic.TRANSACTIONS))
                .setGroupId(config.groupId())
                .setStartingOffsets(startingOffsets(config.startingOffsets()))
                .setDeserializer(deserializer)
                .setClientIdPrefix(clientIdPrefix(config, reader))
                .setProperty(ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed")
                .setProperty("commit.offsets.on.checkpoint", Boolean.toString(commitOffsets))
                .build();
    }

    /**
     * The fetch settings of a reader: one that feeds the decisions fetches for latency (a fetch
     * answered as soon as a record is there, a long poll no longer than 50 ms when none is); the
     * window path's own, for fewer requests (a fetch answered at 16 KB or after 100 ms).
     */
    static java.util.Properties fetchSettings(boolean decisions) {
        java.util.Properties p = new java.util.Properties();
        p.setProperty(ConsumerConfig.FETCH_MIN_BYTES_CONFIG, decisions ? "1" : "16384");
        p.setProperty(ConsumerConfig.FETCH_MAX_WAIT_MS_CONFIG, decisions ? "50" : "100");
        return p;
    }

    /** The client-id prefix of {@code reader}'s Kafka consumers: {@code <group-id>-<reader>}. */
    public static String clientIdPrefix(JobConfig config, ReadPositions.Reader reader) {
        return config.groupId() + "-" + reader.id();
    }

    /**
     * The features, scores, late and dead-letter topics, exactly-once; the transaction-scores topic
     * as {@code --transaction-scores-delivery} says.
     */
    public static OutputSinks sinks(JobConfig config) {
        return new OutputSinks() {
            @Override
            public void features(DataStream<FeatureRecord> features) {
                features.sinkTo(
                                sink(
                                        config,
                                        Topic.FEATURES,
                                        FeatureRecord.class,
                                        f -> new WindowKey(f.getUserId(), f.getWindowStart())))
                        .uid(Uids.FEATURES_SINK)
                        .name(OperatorNames.FEATURES_SINK);
            }

            @Override
            public void scores(DataStream<ScoreRecord> scores) {
                scores.sinkTo(
                                sink(
                                        config,
                                        Topic.SCORES,
                                        ScoreRecord.class,
                                        s -> new WindowKey(s.getUserId(), s.getWindowStart())))
                        .uid(Uids.SCORES_SINK)
                        .name(OperatorNames.SCORES_SINK);
            }

            @Override
            public void late(DataStream<LateRecord> late) {
                late.sinkTo(
                                sink(
                                        config,
                                        Topic.LATE,
                                        LateRecord.class,
                                        l -> l.getTransaction().getUserId()))
                        .uid(Uids.LATE_SINK)
                        .name(OperatorNames.LATE_SINK);
            }

            @Override
            public void deadLetters(DataStream<DeadLetter> deadLetters) {
                deadLetters
                        .sinkTo(
                                sink(
                                        config,
                                        Topic.DEAD_LETTERS,
                                        DeadLetter.class,
                                        d ->
                                                new SourcePosition(
                                                                d.getSourceTopic(),
                                                                d.getSourcePartition(),
                                                                d.getSourceOffset(),
                                                                null)
                                                        .key()))
                        .uid(Uids.DEAD_LETTERS_SINK)
                        .name(OperatorNames.DEAD_LETTERS_SINK);
            }

            @Override
            public void transactionScores(DataStream<TransactionScore> transactionScores) {
                transactionScores
                        .sinkTo(transactionScoresSink(config))
                        .uid(Uids.TRANSACTION_SCORES_SINK)
                        .name(OperatorNames.TRANSACTION_SCORES_SINK);
            }
        };
    }

    /**
     * The transaction-scores topic, keyed by transactionId, with the delivery of {@code
     * --transaction-scores-delivery}: at-least-once (default) through an idempotent producer that
     * sends at once (no linger: the score is for a decision waiting on it), visible to every reader
     * immediately; after a failover the records since the last checkpoint are written again, with
     * the same values. Exactly-once: transactional like the window topics, visible to {@code
     * read_committed} readers at each checkpoint.
     */
    public static KafkaSink<TransactionScore> transactionScoresSink(JobConfig config) {
        OutputRecordSerializer.KeyOf<TransactionScore> key = TransactionScore::getTransactionId;
        if (config.transactionScoresDelivery() == JobConfig.Delivery.EXACTLY_ONCE) {
            return sink(config, Topic.TRANSACTION_SCORES, TransactionScore.class, key);
        }
        String topicName = config.topics().name(Topic.TRANSACTION_SCORES);
        Properties producer = clientProperties(config);
        producer.setProperty(ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, "true");
        producer.setProperty(ProducerConfig.ACKS_CONFIG, "all");
        producer.setProperty(ProducerConfig.LINGER_MS_CONFIG, "0");
        // No compression: at linger 0 a request carries one or a few scores of ~200 bytes, and an
        // LZ4 frame per request was measured as per-request CPU on the decision path (issue #29).
        producer.setProperty(ProducerConfig.COMPRESSION_TYPE_CONFIG, "none");
        return KafkaSink.<TransactionScore>builder()
                .setBootstrapServers(config.bootstrapServers())
                .setKafkaProducerConfig(producer)
                .setRecordSerializer(
                        new OutputRecordSerializer<>(
                                Topic.TRANSACTION_SCORES,
                                topicName,
                                config.registryConfig(),
                                TransactionScore.class,
                                key))
                .setDeliveryGuarantee(DeliveryGuarantee.AT_LEAST_ONCE)
                .build();
    }

    /** An exactly-once sink of one output topic. */
    public static <T extends SpecificRecord> KafkaSink<T> sink(
            JobConfig config,
            Topic topic,
            Class<T> valueClass,
            OutputRecordSerializer.KeyOf<T> keyOf) {
        String topicName = config.topics().name(topic);
        Properties producer = clientProperties(config);
        producer.setProperty(
                ProducerConfig.TRANSACTION_TIMEOUT_CONFIG,
                Long.toString(config.transactionTimeout().toMillis()));
        producer.setProperty(ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, "true");
        producer.setProperty(ProducerConfig.ACKS_CONFIG, "all");
        producer.setProperty(ProducerConfig.LINGER_MS_CONFIG, "20");
        producer.setProperty(ProducerConfig.COMPRESSION_TYPE_CONFIG, "lz4");
        return KafkaSink.<T>builder()
                .setBootstrapServers(config.bootstrapServers())
                .setKafkaProducerConfig(producer)
                .setRecordSerializer(
                        new OutputRecordSerializer<>(
                                topic, topicName, config.registryConfig(), valueClass, keyOf))
                .setDeliveryGuarantee(DeliveryGuarantee.EXACTLY_ONCE)
                .setTransactionalIdPrefix(config.transactionalIdPrefix() + "-" + topicName)
                .build();
    }

    /**
     * The client settings of {@code --kafka-config} for a producer, without {@code
     * bootstrap.servers} (the sink builders set it), to which the sink adds its own.
     */
    private static Properties clientProperties(JobConfig config) {
        Properties p = new Properties();
        p.putAll(config.kafkaClient().kafka());
        p.remove("bootstrap.servers");
        return p;
    }

    static OffsetsInitializer startingOffsets(JobConfig.StartingOffsets startingOffsets) {
        return switch (startingOffsets) {
            case COMMITTED_OR_EARLIEST ->
                    OffsetsInitializer.committedOffsets(OffsetResetStrategy.EARLIEST);
            case EARLIEST -> OffsetsInitializer.earliest();
            case LATEST -> OffsetsInitializer.latest();
        };
    }
}
