package org.fraudpipe.schemas.wire;

import java.util.Map;
import java.util.Objects;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentMap;
import org.apache.avro.specific.SpecificRecord;
import org.fraudpipe.schemas.Topic;
import org.fraudpipe.schemas.registry.SchemaRegistries;
import org.fraudpipe.schemas.registry.SchemaRegistryClient;

/**
 * What the Kafka serializer and deserializer share: the registry, the record class, key or value,
 * and one {@link ConfluentAvroCodec} per topic (subject {@code <topic>-key} or {@code
 * <topic>-value}), configured either by constructor or by Kafka's {@code configure}.
 *
 * <p>Thread-safe.
 */
final class TopicCodecs<T extends SpecificRecord> {

    private final String owner;
    private final ConcurrentMap<String, ConfluentAvroCodec<T>> codecs = new ConcurrentHashMap<>();
    private volatile SchemaRegistryClient registry;
    private volatile Class<T> recordClass;
    private volatile boolean isKey;

    /** Unconfigured: {@link #configure} must be called before use. */
    TopicCodecs(String owner) {
        this.owner = owner;
    }

    TopicCodecs(String owner, SchemaRegistryClient registry, Class<T> recordClass, boolean isKey) {
        this.owner = owner;
        this.registry = Objects.requireNonNull(registry, "registry");
        this.recordClass = Objects.requireNonNull(recordClass, "recordClass");
        this.isKey = isKey;
    }

    void configure(Map<String, ?> configs, boolean isKey) {
        this.recordClass = AvroTypeConfig.recordClass(configs, isKey, recordClass);
        this.registry = SchemaRegistries.forConfig(configs);
        this.isKey = isKey;
        codecs.clear();
    }

    /** The codec for {@code topic}. */
    ConfluentAvroCodec<T> forTopic(String topic) {
        SchemaRegistryClient client = registry;
        if (client == null) {
            throw new IllegalStateException(
                    owner
                            + " is not configured: call configure() with "
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
