package org.fraudpipe.schemas.wire;

import java.util.Objects;
import org.fraudpipe.schemas.avro.DeadLetterReason;

/**
 * A record's bytes could not be turned into a record: the data is bad, not the infrastructure.
 * Carries the {@link DeadLetterReason} the streaming job writes into the dead-letter record, the
 * subject and (once read from the bytes) the writer schema id.
 *
 * <p>Reasons: {@link DeadLetterReason#NOT_CONFLUENT_FRAMED} (null, shorter than 5 bytes, or first
 * byte not 0), {@link DeadLetterReason#UNKNOWN_SCHEMA} (the id is not in the registry), {@link
 * DeadLetterReason#UNDECODABLE} (the body does not decode with the writer schema, or bytes are left
 * over), {@link DeadLetterReason#INCOMPATIBLE_SCHEMA} (the writer schema cannot be resolved to the
 * reader's).
 *
 * <p>Unchecked so it passes through Kafka's and Flink's interfaces unchanged; it is never swallowed
 * by this module. A registry that cannot be reached is not a data problem and is reported as {@link
 * org.fraudpipe.schemas.registry.SchemaRegistryException} instead, never as this.
 */
public final class WireFormatException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    /** {@link #schemaId()} when the bytes did not get as far as a schema id. */
    public static final int NO_SCHEMA_ID = -1;

    private final DeadLetterReason reason;
    private final String subject;
    private final int schemaId;

    public WireFormatException(
            DeadLetterReason reason,
            String subject,
            int schemaId,
            String message,
            Throwable cause) {
        super(message, cause);
        this.reason = Objects.requireNonNull(reason, "reason");
        this.subject = subject;
        this.schemaId = schemaId;
    }

    /** Why the record is dead-lettered. */
    public DeadLetterReason reason() {
        return reason;
    }

    /** The subject the record was read for, or null if not known. */
    public String subject() {
        return subject;
    }

    /** The writer schema id in the record's header, or {@link #NO_SCHEMA_ID}. */
    public int schemaId() {
        return schemaId;
    }
}
