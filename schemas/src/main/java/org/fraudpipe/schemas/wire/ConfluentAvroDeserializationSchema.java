package org.fraudpipe.schemas.wire;

import java.util.Map;
import org.apache.avro.specific.SpecificRecord;
import org.apache.flink.api.common.serialization.DeserializationSchema;
import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.fraudpipe.schemas.avro.DeadLetterReason;
import org.fraudpipe.schemas.registry.SchemaRegistries;

/**
 * Flink {@link DeserializationSchema} reading Confluent-framed Avro of a fixed subject into a
 * generated class (resolving older writer schemas, see {@link ConfluentAvroCodec#decode}).
 *
 * <p>Bad bytes throw {@link WireFormatException}; a null message is bad bytes too ({@link
 * DeadLetterReason#NOT_CONFLUENT_FRAMED}): this schema never returns null, so Flink never skips a
 * record silently. Used directly in a Kafka source, a bad record therefore fails the job; the
 * streaming job instead wraps a {@link ConfluentAvroCodec} in its own Kafka record deserializer
 * that catches {@link WireFormatException} and emits a dead letter with topic, partition and
 * offset.
 *
 * <p>Serializable: carries only the class, the subject and the registry configuration; the client
 * is built in {@link #open} (or on first use). The produced type is {@code TypeInformation.of} the
 * class when {@code flink-avro} is on the classpath, Flink's generic type otherwise (see {@link
 * FlinkTypes}).
 */
public final class ConfluentAvroDeserializationSchema<T extends SpecificRecord>
        implements DeserializationSchema<T> {
    private static final long serialVersionUID = 1L;

    private final CodecSpec<T> spec;

    /** For {@code schema.registry.url=registryUrl} without authentication. */
    public ConfluentAvroDeserializationSchema(
            Class<T> recordClass, String subject, String registryUrl) {
        this(recordClass, subject, Map.of(SchemaRegistries.URL_CONFIG, registryUrl));
    }

    /**
     * @param registryConfig {@value SchemaRegistries#URL_CONFIG} and the optional keys of {@link
     *     SchemaRegistries#forConfig}
     */
    public ConfluentAvroDeserializationSchema(
            Class<T> recordClass, String subject, Map<String, String> registryConfig) {
        this.spec = new CodecSpec<>(recordClass, subject, registryConfig);
    }

    @Override
    public void open(InitializationContext context) {
        spec.codec();
    }

    @Override
    public T deserialize(byte[] message) {
        return spec.codec().decode(message);
    }

    @Override
    public boolean isEndOfStream(T nextElement) {
        return false;
    }

    @Override
    public TypeInformation<T> getProducedType() {
        return FlinkTypes.of(spec.recordClass());
    }

    /** The subject the records are read for. */
    public String subject() {
        return spec.subject();
    }
}
