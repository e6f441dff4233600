package org.fraudpipe.schemas.registry;

/**
 * The schema cannot be registered under the subject because it cannot read data written with the
 * subject's latest version (HTTP 409, error code 409).
 */
public final class IncompatibleSchemaException extends SchemaRegistryException {
    private static final long serialVersionUID = 1L;

    private final String subject;

    /**
     * @param subject the subject registered under
     * @param registryUrl the registry
     * @param details what is incompatible (the registry's message or Avro's incompatibilities)
     */
    public IncompatibleSchemaException(String subject, String registryUrl, String details) {
        super(
                "Schema for subject '"
                        + subject
                        + "' is incompatible with the latest version registered at "
                        + registryUrl
                        + " (BACKWARD: the new schema must read data written with the latest)"
                        + SubjectNotFoundException.suffix(details)
                        + ". Evolve the schema compatibly: add fields only with defaults, remove"
                        + " only fields that have defaults, change types only by Avro promotion"
                        + " (int->long->float->double, string<->bytes); see schemas/README.md.",
                409,
                INCOMPATIBLE_SCHEMA);
        this.subject = subject;
    }

    /** The subject the schema was registered under. */
    public String subject() {
        return subject;
    }
}
