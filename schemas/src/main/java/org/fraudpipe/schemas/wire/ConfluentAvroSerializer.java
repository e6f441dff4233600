package org.fraudpipe.schemas.wire;

import java.util.Map;
import java.util.Objects;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentMap;
import org.apache.avro.specific.SpecificRecord;
import org.apache.kafka.common.serialization.Serializer;
import org.fraudpipe.schemas.Topic;
import org.fraudpipe.schemas.registry.SchemaRegistries;
import org.fraudpipe.schemas.registry.SchemaRegistryClient;

/**
 * Kafka {@link Serializer} writing generated Avro records in the Confluent wire format, with the
 * subject of Confluent's TopicNameStrategy ({@code <topic>-value}, or {@code <topic>-key} for
 * keys), so one instance can serve several topics.
 *
 * <p>Either constructed ready to use, or created by Kafka from {@code value.serializer} and then
 * {@link #configure configured} with {@value SchemaRegistries#URL_CONFIG} (plus optional {@value
 * SchemaRegistries#BASIC_AUTH_USER_INFO_CONFIG}) and {@value #VALUE_TYPE_CONFIG} / {@value
 * #KEY_TYPE_CONFIG} (the generated class, as a {@code Class} or a class name).
 *
 * <p>Thread-safe: a Kafka producer's {@code send} may be called from many threads; codecs are
 * created once per topic and are themselves thread-safe. A null record serializes to null (a
 * tombstone).
 */
public final class ConfluentAvroSerializer<T extends SpecificRecord> implements Serializer<T> {

    /** The generated class of the values, for {@link #configure}. */
    public static final String VALUE_TYPE_CONFIG = "specific.avro.value.type";

    /** The generated class of the keys, for {@link #configure}. */
    public static final String KEY_TYPE_CONFIG = "specific.avro.key.type";

    private final ConcurrentMap<String, ConfluentAvroCodec<T>> codecs = new ConcurrentHashMap<>();
    private volatile SchemaRegistryClient registry;
    private volatile Class<T> recordClass;
    private volatile boolean isKey;

    /** For Kafka's reflective instantiation: {@link #configure} must be called before use. */
    public ConfluentAvroSerializer() {}

    /**
     * A ready serializer.
     *
     * @param registry the registry to register the class's schema in
     * @param recordClass the generated class
     * @param isKey whether it serializes keys (subject {@code <topic>-key}) or values
     */
    public ConfluentAvroSerializer(
            SchemaRegistryClient registry, Class<T> recordClass, boolean isKey) {
        this.registry = Objects.requireNonNull(registry, "registry");
        this.recordClass = Objects.requireNonNull(recordClass, "recordClass");
        this.isKey = isKey;
    }

    @Override
    public void configure(Map<String, ?> configs, boolean isKey) {
        this.recordClass = AvroTypeConfig.recordClass(configs, isKey, recordClass);
        this.registry = SchemaRegistries.forConfig(configs);
        this.isKey = isKey;
        codecs.clear();
    }

    @Override
    public byte[] serialize(String topic, T data) {
        if (data == null) {
            return null;
        }
        return codec(topic).encode(data);
    }

    /** The codec this serializer uses for {@code topic}. */
    ConfluentAvroCodec<T> codec(String topic) {
        SchemaRegistryClient client = registry;
        if (client == null) {
            throw new IllegalStateException(
                    "ConfluentAvroSerializer is not configured: call configure() with "
                            + SchemaRegistries.URL_CONFIG
                            + " and "
                            + AvroTypeConfig.key(isKey)
                            + ", or use the constructor that takes a registry");
        }
        return codecs.computeIfAbsent(
                topic,
                t ->
                        new ConfluentAvroCodec<>(
                                client,
                                isKey ? Topic.keySubject(t) : Topic.valueSubject(t),
                                recordClass));
    }
}
