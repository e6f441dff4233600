package org.fraudpipe.schemas.wire;

import java.util.Map;
import org.apache.avro.specific.SpecificRecord;
import org.apache.kafka.common.serialization.Serializer;
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

    private final TopicCodecs<T> codecs;

    /** For Kafka's reflective instantiation: {@link #configure} must be called before use. */
    public ConfluentAvroSerializer() {
        this.codecs = new TopicCodecs<>("ConfluentAvroSerializer");
    }

    /**
     * A ready serializer.
     *
     * @param registry the registry to register the class's schema in
     * @param recordClass the generated class
     * @param isKey whether it serializes keys (subject {@code <topic>-key}) or values
     */
    public ConfluentAvroSerializer(
            SchemaRegistryClient registry, Class<T> recordClass, boolean isKey) {
        this.codecs = new TopicCodecs<>("ConfluentAvroSerializer", registry, recordClass, isKey);
    }

    @Override
    public void configure(Map<String, ?> configs, boolean isKey) {
        codecs.configure(configs, isKey);
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
        return codecs.forTopic(topic);
    }
}
