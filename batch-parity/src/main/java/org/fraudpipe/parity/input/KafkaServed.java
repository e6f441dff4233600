package org.fraudpipe.parity.input;

import java.io.Serializable;
import org.apache.flink.api.common.eventtime.WatermarkStrategy;
import org.apache.flink.api.common.serialization.DeserializationSchema;
import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.connector.kafka.source.KafkaSource;
import org.apache.flink.connector.kafka.source.enumerator.initializer.OffsetsInitializer;
import org.apache.flink.connector.kafka.source.reader.deserializer.KafkaRecordDeserializationSchema;
import org.apache.flink.streaming.api.datastream.DataStream;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.util.Collector;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.fraudpipe.parity.Evidence;
import org.fraudpipe.schemas.Topic;
import org.fraudpipe.schemas.avro.FeatureRecord;
import org.fraudpipe.schemas.avro.ScoreRecord;
import org.fraudpipe.schemas.security.ClientProperties;
import org.fraudpipe.schemas.wire.ConfluentAvroCodec;
import org.fraudpipe.schemas.wire.TopicSerdes;

/**
 * Served values as an upsert reader sees them: the compacted features and scores topics, read
 * {@code read_committed} from the earliest offset to the latest offsets when the run starts
 * (Flink's bounded KafkaSource), every record with its partition and offset so that the judge takes
 * each key's last value in the topic's own order. A Kafka transaction that was aborted (e.g. on
 * timeout after the archive had committed the same panes) is invisible here, as it is to every
 * reader: that is what this mode exists to see.
 *
 * @param bootstrapServers the job's {@code --bootstrap-servers}
 * @param schemaRegistryUrl the job's {@code --schema-registry-url}
 * @param featuresTopic the job's {@code --topic.features}
 * @param scoresTopic the job's {@code --topic.scores}, or null not to read scores
 * @param client the Kafka and registry client settings ({@code --kafka-config}): a principal that
 *     may READ both topics
 */
public record KafkaServed(
        String bootstrapServers,
        String schemaRegistryUrl,
        String featuresTopic,
        String scoresTopic,
        ClientProperties client)
        implements Serializable {

    /** Without client settings: a plaintext Kafka and an open registry. */
    public KafkaServed(
            String bootstrapServers,
            String schemaRegistryUrl,
            String featuresTopic,
            String scoresTopic) {
        this(
                bootstrapServers,
                schemaRegistryUrl,
                featuresTopic,
                scoresTopic,
                ClientProperties.none());
    }

    /** What was read, for the report. */
    public String describe() {
        return "kafka "
                + bootstrapServers
                + " topics "
                + featuresTopic
                + (scoresTopic == null ? "" : ", " + scoresTopic)
                + " (read_committed, to the latest offsets at the start of the run)";
    }

    /** The panes (and scores) in the topics, as {@code KAFKA_SERVED} and {@code KAFKA_SCORE}. */
    public DataStream<Evidence> read(StreamExecutionEnvironment env) {
        KafkaSource<Evidence> source =
                KafkaSource.<Evidence>builder()
                        .setProperties(client.kafkaProperties(bootstrapServers))
                        .setBootstrapServers(bootstrapServers)
                        .setTopics(
                                scoresTopic == null
                                        ? java.util.List.of(featuresTopic)
                                        : java.util.List.of(featuresTopic, scoresTopic))
                        .setStartingOffsets(OffsetsInitializer.earliest())
                        .setBounded(OffsetsInitializer.latest())
                        .setDeserializer(new Deserializer(this))
                        .setProperty(ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed")
                        .setProperty("client.id.prefix", "fraudpipe-parity-" + featuresTopic)
                        .setProperty("commit.offsets.on.checkpoint", "false")
                        .build();
        return env.fromSource(source, WatermarkStrategy.noWatermarks(), "served in Kafka");
    }

    /** Decodes either topic's values; tombstones (no value) are skipped. */
    static final class Deserializer implements KafkaRecordDeserializationSchema<Evidence> {
        private static final long serialVersionUID = 1L;

        private final KafkaServed topics;
        private transient ConfluentAvroCodec<FeatureRecord> features;
        private transient ConfluentAvroCodec<ScoreRecord> scores;

        Deserializer(KafkaServed topics) {
            this.topics = topics;
        }

        @Override
        public void open(DeserializationSchema.InitializationContext context) {
            TopicSerdes serdes =
                    TopicSerdes.forRegistry(
                            topics.client().registryConfig(topics.schemaRegistryUrl()));
            features =
                    serdes.valueCodec(Topic.FEATURES, topics.featuresTopic(), FeatureRecord.class);
            if (topics.scoresTopic() != null) {
                scores = serdes.valueCodec(Topic.SCORES, topics.scoresTopic(), ScoreRecord.class);
            }
        }

        @Override
        public void deserialize(ConsumerRecord<byte[], byte[]> record, Collector<Evidence> out) {
            if (record.value() == null) {
                return;
            }
            if (record.topic().equals(topics.featuresTopic())) {
                out.collect(
                        Evidence.kafkaServed(
                                features.decode(record.value()),
                                record.partition(),
                                record.offset()));
            } else {
                out.collect(
                        Evidence.kafkaScore(
                                scores.decode(record.value()),
                                record.partition(),
                                record.offset()));
            }
        }

        @Override
        public TypeInformation<Evidence> getProducedType() {
            return TypeInformation.of(Evidence.class);
        }
    }
}
