package org.fraudpipe.schemas.registry;

import java.util.Objects;
import org.apache.avro.Schema;

/**
 * One version of a subject, as the registry holds it.
 *
 * @param subject the subject, e.g. {@code transactions-value}
 * @param id the schema's global id (the one written into the Confluent wire format)
 * @param version the version number within the subject, starting at 1
 * @param schema the schema
 */
public record RegisteredSchema(String subject, int id, int version, Schema schema) {
    public RegisteredSchema {
        Objects.requireNonNull(subject, "subject");
        Objects.requireNonNull(schema, "schema");
        if (id < 0) {
            throw new IllegalArgumentException("schema id must not be negative: " + id);
        }
        if (version < 1) {
            throw new IllegalArgumentException("version must be at least 1: " + version);
        }
    }
}
