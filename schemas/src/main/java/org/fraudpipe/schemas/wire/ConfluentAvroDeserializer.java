package org.fraudpipe.schemas.wire;

import java.util.Map;
import org.apache.avro.specific.SpecificRecord;
import org.apache.kafka.common.serialization.Deserializer;
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

    private final TopicCodecs<T> codecs;

    /** For Kafka's reflective instantiation: {@link #configure} must be called before use. */
    public ConfluentAvroDeserializer() {
        this.codecs = new TopicCodecs<>("ConfluentAvroDeserializer");
    }

    /**
     * A ready deserializer.
     *
     * @param registry the registry to fetch writer schemas from
     * @param recordClass the generated class to decode into
     * @param isKey whether it deserializes keys (subject {@code <topic>-key}) or values
     */
    public ConfluentAvroDeserializer(
            SchemaRegistryClient registry, Class<T> recordClass, boolean isKey) {
        this.codecs = new TopicCodecs<>("ConfluentAvroDeserializer", registry, recordClass, isKey);
    }

    @Override
    public void configure(Map<String, ?> configs, boolean isKey) {
        codecs.configure(configs, isKey);
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
        return codecs.forTopic(topic);
    }
}
