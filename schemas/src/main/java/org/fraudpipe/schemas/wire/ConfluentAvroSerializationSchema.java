package org.fraudpipe.schemas.wire;

import java.util.Map;
import org.apache.avro.specific.SpecificRecord;
import org.apache.flink.api.common.serialization.SerializationSchema;
import org.fraudpipe.schemas.registry.SchemaRegistries;

/**
 * Flink {@link SerializationSchema} writing a generated Avro class in the Confluent wire format
 * under a fixed subject (Flink gives a serialization schema no topic), e.g. for a {@code
 * KafkaRecordSerializationSchema}.
 *
 * <p>Serializable: it carries only the class, the subject and the registry configuration; the
 * registry client and codec are built in {@link #open} (or on first use) in the task, from {@link
 * SchemaRegistries#forConfig}, so all tasks of a JVM share one client per URL. The configuration is
 * validated when the schema is constructed, so a wrong URL fails at job build time. Not thread-safe
 * beyond what Flink needs (one instance per task).
 */
public final class ConfluentAvroSerializationSchema<T extends SpecificRecord>
        implements SerializationSchema<T> {
    private static final long serialVersionUID = 1L;

    private final CodecSpec<T> spec;

    /** For {@code schema.registry.url=registryUrl} without authentication. */
    public ConfluentAvroSerializationSchema(
            Class<T> recordClass, String subject, String registryUrl) {
        this(recordClass, subject, Map.of(SchemaRegistries.URL_CONFIG, registryUrl));
    }

    /**
     * @param registryConfig {@value SchemaRegistries#URL_CONFIG} and the optional keys of {@link
     *     SchemaRegistries#forConfig}
     */
    public ConfluentAvroSerializationSchema(
            Class<T> recordClass, String subject, Map<String, String> registryConfig) {
        this.spec = new CodecSpec<>(recordClass, subject, registryConfig);
    }

    @Override
    public void open(InitializationContext context) {
        spec.codec();
    }

    @Override
    public byte[] serialize(T element) {
        return spec.codec().encode(element);
    }

    /** The subject the records are registered under. */
    public String subject() {
        return spec.subject();
    }
}
