package org.fraudpipe.schemas.wire;

import java.util.HashMap;
import java.util.Map;
import java.util.Objects;
import org.apache.avro.specific.SpecificRecord;
import org.apache.flink.api.common.serialization.DeserializationSchema;
import org.apache.flink.api.common.serialization.SerializationSchema;
import org.apache.flink.api.common.serialization.SimpleStringSchema;
import org.apache.kafka.common.serialization.Deserializer;
import org.apache.kafka.common.serialization.Serializer;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.fraudpipe.schemas.Topic;
import org.fraudpipe.schemas.avro.WindowKey;
import org.fraudpipe.schemas.registry.SchemaRegistries;
import org.fraudpipe.schemas.registry.SchemaRegistryClient;

/**
 * The one place where the serdes of the product's topics come from, for Kafka clients and for
 * Flink, bound to one schema registry.
 *
 * <ul>
 *   <li>Values: Confluent-framed Avro of {@link Topic#valueClass()}, subject {@code <topic>-value}.
 *   <li>Keys by {@link Topic.KeyFormat}: {@code USER_ID}, {@code SOURCE_POSITION} and {@code
 *       TRANSACTION_ID} are UTF-8 strings ({@code String}); {@code WINDOW_KEY} is Confluent-framed
 *       Avro {@link WindowKey}, subject {@code <topic>-key}.
 * </ul>
 *
 * Every method takes the class the caller expects and checks it against the topic's contract, so
 * asking for the wrong type fails at once with {@link IllegalArgumentException}, not at the first
 * record. Kafka serdes take the subject from the topic of each call (Confluent's
 * TopicNameStrategy), so they follow a renamed topic by themselves; Flink schemas are told the
 * deployed {@code topicName}.
 *
 * <p>Immutable and thread-safe.
 */
public final class TopicSerdes {

    private final Map<String, String> registryConfig;
    private final SchemaRegistryClient registry;

    private TopicSerdes(Map<String, String> registryConfig) {
        this.registryConfig = Map.copyOf(registryConfig);
        this.registry = SchemaRegistries.forConfig(this.registryConfig);
    }

    /**
     * Serdes against the registry at {@code registryUrl} ({@code http(s)://...} or {@code
     * mock://...}).
     */
    public static TopicSerdes forRegistry(String registryUrl) {
        Map<String, String> config = new HashMap<>();
        config.put(SchemaRegistries.URL_CONFIG, registryUrl == null ? "" : registryUrl);
        return new TopicSerdes(config);
    }

    /**
     * Serdes against the registry configured by {@code registryConfig} (the keys of {@link
     * SchemaRegistries#forConfig}; other keys are ignored).
     */
    public static TopicSerdes forRegistry(Map<String, ?> registryConfig) {
        Map<String, String> config = new HashMap<>();
        registryConfig.forEach(
                (k, v) -> {
                    if (v != null
                            && (k.startsWith("schema.registry.") || k.startsWith("basic.auth."))) {
                        config.put(k, String.valueOf(v));
                    }
                });
        return new TopicSerdes(config);
    }

    /** The registry client every serde of this instance uses. */
    public SchemaRegistryClient registry() {
        return registry;
    }

    /** The Java type of keys in {@code format}: {@code String} or {@link WindowKey}. */
    public static Class<?> keyClass(Topic.KeyFormat format) {
        return switch (format) {
            case USER_ID, SOURCE_POSITION, TRANSACTION_ID, MODEL_EVENT_ID -> String.class;
            case WINDOW_KEY -> WindowKey.class;
        };
    }

    // --- codecs ------------------------------------------------------------------------------

    /** The value codec of {@code topic} deployed as {@code topicName}. */
    public <T extends SpecificRecord> ConfluentAvroCodec<T> valueCodec(
            Topic topic, String topicName, Class<T> valueClass) {
        checkValueClass(topic, valueClass);
        return new ConfluentAvroCodec<>(registry, Topic.valueSubject(topicName), valueClass);
    }

    /** The {@link WindowKey} codec of {@code topic} (key format {@code WINDOW_KEY}). */
    public ConfluentAvroCodec<WindowKey> windowKeyCodec(Topic topic, String topicName) {
        checkKeyClass(topic, WindowKey.class);
        return new ConfluentAvroCodec<>(registry, Topic.keySubject(topicName), WindowKey.class);
    }

    // --- Kafka -------------------------------------------------------------------------------

    /** Kafka value serializer of {@code topic}. */
    public <T extends SpecificRecord> Serializer<T> valueSerializer(
            Topic topic, Class<T> valueClass) {
        checkValueClass(topic, valueClass);
        return new ConfluentAvroSerializer<>(registry, valueClass, false);
    }

    /** Kafka value deserializer of {@code topic}. */
    public <T extends SpecificRecord> Deserializer<T> valueDeserializer(
            Topic topic, Class<T> valueClass) {
        checkValueClass(topic, valueClass);
        return new ConfluentAvroDeserializer<>(registry, valueClass, false);
    }

    /** Kafka key serializer of {@code topic}; {@code keyClass} must be {@link #keyClass}. */
    @SuppressWarnings("unchecked")
    public <K> Serializer<K> keySerializer(Topic topic, Class<K> keyClass) {
        checkKeyClass(topic, keyClass);
        return topic.keyFormat() == Topic.KeyFormat.WINDOW_KEY
                ? (Serializer<K>) new ConfluentAvroSerializer<>(registry, WindowKey.class, true)
                : (Serializer<K>) new StringSerializer();
    }

    /** Kafka key deserializer of {@code topic}; {@code keyClass} must be {@link #keyClass}. */
    @SuppressWarnings("unchecked")
    public <K> Deserializer<K> keyDeserializer(Topic topic, Class<K> keyClass) {
        checkKeyClass(topic, keyClass);
        return topic.keyFormat() == Topic.KeyFormat.WINDOW_KEY
                ? (Deserializer<K>) new ConfluentAvroDeserializer<>(registry, WindowKey.class, true)
                : (Deserializer<K>) new StringDeserializer();
    }

    // --- Flink -------------------------------------------------------------------------------

    /** Flink value serialization schema of {@code topic} deployed as {@code topicName}. */
    public <T extends SpecificRecord> SerializationSchema<T> valueSerializationSchema(
            Topic topic, String topicName, Class<T> valueClass) {
        checkValueClass(topic, valueClass);
        return new ConfluentAvroSerializationSchema<>(
                valueClass, Topic.valueSubject(topicName), registryConfig);
    }

    /** Flink value deserialization schema of {@code topic} deployed as {@code topicName}. */
    public <T extends SpecificRecord> DeserializationSchema<T> valueDeserializationSchema(
            Topic topic, String topicName, Class<T> valueClass) {
        checkValueClass(topic, valueClass);
        return new ConfluentAvroDeserializationSchema<>(
                valueClass, Topic.valueSubject(topicName), registryConfig);
    }

    /**
     * Flink key serialization schema of {@code topic}; {@code keyClass} must be {@link #keyClass}.
     */
    @SuppressWarnings("unchecked")
    public <K> SerializationSchema<K> keySerializationSchema(
            Topic topic, String topicName, Class<K> keyClass) {
        checkKeyClass(topic, keyClass);
        return topic.keyFormat() == Topic.KeyFormat.WINDOW_KEY
                ? (SerializationSchema<K>)
                        new ConfluentAvroSerializationSchema<>(
                                WindowKey.class, Topic.keySubject(topicName), registryConfig)
                : (SerializationSchema<K>) new SimpleStringSchema();
    }

    /**
     * Flink key deserialization schema of {@code topic}; {@code keyClass} must be {@link
     * #keyClass}.
     */
    @SuppressWarnings("unchecked")
    public <K> DeserializationSchema<K> keyDeserializationSchema(
            Topic topic, String topicName, Class<K> keyClass) {
        checkKeyClass(topic, keyClass);
        return topic.keyFormat() == Topic.KeyFormat.WINDOW_KEY
                ? (DeserializationSchema<K>)
                        new ConfluentAvroDeserializationSchema<>(
                                WindowKey.class, Topic.keySubject(topicName), registryConfig)
                : (DeserializationSchema<K>) new SimpleStringSchema();
    }

    @Override
    public String toString() {
        return "TopicSerdes[" + registry.url() + "]";
    }

    private static void checkValueClass(Topic topic, Class<?> valueClass) {
        Objects.requireNonNull(topic, "topic");
        if (topic.valueClass() != valueClass) {
            throw new IllegalArgumentException(
                    "Topic "
                            + topic
                            + " carries "
                            + topic.valueClass().getSimpleName()
                            + " values, not "
                            + (valueClass == null ? "null" : valueClass.getSimpleName())
                            + ": ask for the topic's own value class (Topic.valueClass())");
        }
    }

    private static void checkKeyClass(Topic topic, Class<?> keyClass) {
        Objects.requireNonNull(topic, "topic");
        Class<?> expected = keyClass(topic.keyFormat());
        if (expected != keyClass) {
            throw new IllegalArgumentException(
                    "Topic "
                            + topic
                            + " has "
                            + topic.keyFormat()
                            + " keys of type "
                            + expected.getSimpleName()
                            + ", not "
                            + (keyClass == null ? "null" : keyClass.getSimpleName())
                            + ": ask for TopicSerdes.keyClass(topic.keyFormat())");
        }
    }
}
