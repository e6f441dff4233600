package org.fraudpipe.schemas.wire;

import java.io.Serializable;
import java.util.HashMap;
import java.util.Map;
import java.util.Objects;
import org.apache.avro.specific.SpecificRecord;
import org.fraudpipe.schemas.registry.SchemaRegistries;

/**
 * A {@link ConfluentAvroCodec} as Flink ships it: serializable, it carries only the record class,
 * the subject and the registry configuration (checked when constructed), and builds the codec and
 * its registry client lazily on the task.
 */
final class CodecSpec<T extends SpecificRecord> implements Serializable {
    private static final long serialVersionUID = 1L;

    private final Class<T> recordClass;
    private final String subject;
    private final HashMap<String, String> registryConfig;
    private transient ConfluentAvroCodec<T> codec;

    CodecSpec(Class<T> recordClass, String subject, Map<String, String> registryConfig) {
        this.recordClass = Objects.requireNonNull(recordClass, "recordClass");
        this.subject = Objects.requireNonNull(subject, "subject");
        this.registryConfig = new HashMap<>(registryConfig);
        SchemaRegistries.forConfig(this.registryConfig);
    }

    Class<T> recordClass() {
        return recordClass;
    }

    String subject() {
        return subject;
    }

    ConfluentAvroCodec<T> codec() {
        if (codec == null) {
            codec =
                    new ConfluentAvroCodec<>(
                            SchemaRegistries.forConfig(registryConfig), subject, recordClass);
        }
        return codec;
    }
}
