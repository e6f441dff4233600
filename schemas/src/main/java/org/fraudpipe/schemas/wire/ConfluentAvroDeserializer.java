package org.fraudpipe.schemas.wire;

import java.util.Map;
import java.util.Objects;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentMap;
import org.apache.avro.specific.SpecificRecord;
import org.apache.kafka.common.serialization.Deserializer;
import org.fraudpipe.schemas.Topic;
import org.fraudpipe.schemas.registry.SchemaRegistries;
import org.fraudpipe.schemas.registry.SchemaRegistryClient;

/**
 * Kafka {@link Deserializer} reading Confluent-framed Avro into a generated class, resolving older
 * writer schemas to the class's schema (see {@link ConfluentAvroCodec#decode}). The subject is
 * {@code <topic>-value} (or {@code <topic>-key} for keys).
 *
 * <p>Configured like {@link ConfluentAvroSerializer} (same keys). Bad bytes throw {@link
 * WireFormatException}, which the Kafka consumer wraps in a {@code RecordDeserializationException}
 * naming partition and offset; nothing is skipped silently. A null value deserializes to null (a
 * tombstone), as Kafka's contract recommends.
 *
 * <p>Thread-safe (a consumer uses it from its polling thread only, but sharing is safe).
 */
public final class ConfluentAvroDeserializer<T extends SpecificRecord> implements Deserializer<T> {

    private final ConcurrentMap<String, ConfluentAvroCodec<T>> codecs = new ConcurrentHashMap<>();
    private volatile SchemaRegistryClient registry;
    private volatile Class<T> recordClass;
    private volatile boolean isKey;

    /** For Kafka's reflective instantiation: {@link #configure} must be called before use. */
    public ConfluentAvroDeserializer() {}

    /**
     * A ready deserializer.
     *
     * @param registry the registry to fetch writer schemas from
     * @param recordClass the generated class to decode into
     * @param isKey whether it deserializes keys (subject {@code <topic>-key}) or values
     */
    public ConfluentAvroDeserializer(
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
    public T deserialize(String topic, byte[] data) {
        if (data == null) {
            return null;
        }
        return codec(topic).decode(data);
    }

    /** The codec this deserializer uses for {@code topic}. */
    ConfluentAvroCodec<T> codec(String topic) {
        SchemaRegistryClient client = registry;
        if (client == null) {
            throw new IllegalStateException(
                    "ConfluentAvroDeserializer is not configured: call configure() with "
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
