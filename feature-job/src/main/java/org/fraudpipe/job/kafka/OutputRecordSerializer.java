package org.fraudpipe.job.kafka;

import java.io.Serializable;
import java.nio.charset.StandardCharsets;
import org.apache.avro.specific.SpecificRecord;
import org.apache.flink.api.common.serialization.SerializationSchema;
import org.apache.flink.connector.kafka.sink.KafkaRecordSerializationSchema;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.fraudpipe.schemas.Topic;
import org.fraudpipe.schemas.avro.WindowKey;
import org.fraudpipe.schemas.wire.ConfluentAvroCodec;
import org.fraudpipe.schemas.wire.TopicSerdes;

/**
 * Writes one of the job's outputs to its topic: the value as Confluent-framed Avro, the key as the
 * topic's {@link Topic.KeyFormat} demands (a framed {@link WindowKey} for the upsert topics, UTF-8
 * text otherwise). Kafka's default partitioner then routes equal keys to one partition, which is
 * what keeps the revisions of one window in order.
 */
public final class OutputRecordSerializer<T extends SpecificRecord>
        implements KafkaRecordSerializationSchema<T> {

    private static final long serialVersionUID = 1L;

    /**
     * The record key of a value: a {@link WindowKey} or a String, as the topic's key format says.
     */
    @FunctionalInterface
    public interface KeyOf<T> extends Serializable {
        Object key(T value);
    }

    private final Topic topic;
    private final String topicName;
    private final java.util.HashMap<String, String> registryConfig;
    private final Class<T> valueClass;
    private final KeyOf<T> keyOf;
    private transient ConfluentAvroCodec<T> valueCodec;
    private transient ConfluentAvroCodec<WindowKey> keyCodec;

    public OutputRecordSerializer(
            Topic topic,
            String topicName,
            java.util.Map<String, String> registryConfig,
            Class<T> valueClass,
            KeyOf<T> keyOf) {
        if (!topic.valueClass().equals(valueClass)) {
            throw new IllegalArgumentException(
                    topic
                            + " carries "
                            + topic.valueClass().getSimpleName()
                            + ", not "
                            + valueClass);
        }
        this.topic = topic;
        this.topicName = topicName;
        this.registryConfig = new java.util.HashMap<>(registryConfig);
        this.valueClass = valueClass;
        this.keyOf = keyOf;
    }

    @Override
    public void open(
            SerializationSchema.InitializationContext context, KafkaSinkContext sinkContext) {
        TopicSerdes serdes = TopicSerdes.forRegistry(registryConfig);
        valueCodec = serdes.valueCodec(topic, topicName, valueClass);
        // The registry round trip (register or look up the writer schema) here, not in the first
        // record's serialize, where a fresh job's first scores at arrival waited for it on the task
        // thread; a registry that refuses the schema fails the sink's start, not its first write.
        valueCodec.writerSchemaId();
        if (topic.keyFormat() == Topic.KeyFormat.WINDOW_KEY) {
            keyCodec = serdes.windowKeyCodec(topic, topicName);
            keyCodec.writerSchemaId();
        }
    }

    @Override
    public ProducerRecord<byte[], byte[]> serialize(
            T element, KafkaSinkContext context, Long timestamp) {
        Object key = keyOf.key(element);
        byte[] keyBytes =
                topic.keyFormat() == Topic.KeyFormat.WINDOW_KEY
                        ? keyCodec.encode((WindowKey) key)
                        : ((String) key).getBytes(StandardCharsets.UTF_8);
        // No record timestamp: the producer stamps the write time. The stream timestamp is event
        // time, and a future-dated record's would be rejected by the broker
        // (InvalidTimestampException, a restart loop); retention must count from the write, too.
        return new ProducerRecord<>(topicName, null, null, keyBytes, valueCodec.encode(element));
    }
}
