package org.fraudpipe.schemas.registry;

/**
 * The registry refused to register the schema under the subject because it breaks the subject's
 * compatibility level (HTTP 409). The in-memory and local registries always check BACKWARD; a real
 * registry checks the level configured for the subject (or its global default), which the message
 * names when the registry tells it.
 */
public final class IncompatibleSchemaException extends SchemaRegistryException {
    private static final long serialVersionUID = 1L;

    private final String subject;
    private final String compatibilityLevel;

    /**
     * A refusal under BACKWARD, the level of {@link InMemorySchemaRegistry}.
     *
     * @param subject the subject registered under
     * @param registryUrl the registry
     * @param details what is incompatible (the registry's message or Avro's incompatibilities)
     */
    public IncompatibleSchemaException(String subject, String registryUrl, String details) {
        this(subject, registryUrl, details, "BACKWARD");
    }

    /**
     * @param subject the subject registered under
     * @param registryUrl the registry
     * @param details what is incompatible (the registry's message or Avro's incompatibilities)
     * @param compatibilityLevel the level the registry checked (e.g. {@code FORWARD}), or null if
     *     it is not known
     */
    public IncompatibleSchemaException(
            String subject, String registryUrl, String details, String compatibilityLevel) {
        this(subject, registryUrl, details, compatibilityLevel, INCOMPATIBLE_SCHEMA);
    }

    /** As the REST client saw it: with the registry's own error code (Apicurio: 0). */
    IncompatibleSchemaException(
            String subject,
            String registryUrl,
            String details,
            String compatibilityLevel,
            int errorCode) {
        super(
                "Schema for subject '"
                        + subject
                        + "' is incompatible with the versions registered before it at "
                        + registryUrl
                        + " ("
                        + describe(compatibilityLevel)
                        + ")"
                        + SubjectNotFoundException.suffix(details)
                        + ". The pipeline's schemas evolve BACKWARD compatibly: add fields only with"
                        + " defaults, remove only fields that have defaults, change types only by"
                        + " Avro promotion (int->long->float->double, string<->bytes); see"
                        + " schemas/README.md.",
                409,
                errorCode);
        this.subject = subject;
        this.compatibilityLevel = compatibilityLevel;
    }

    /** The subject the schema was registered under. */
    public String subject() {
        return subject;
    }

    /** The compatibility level the registry checked, e.g. {@code BACKWARD}, or null if unknown. */
    public String compatibilityLevel() {
        return compatibilityLevel;
    }

    private static String describe(String level) {
        if (level == null) {
            return "under the compatibility level the registry has for the subject";
        }
        return switch (level) {
            case "BACKWARD" -> "BACKWARD: the new schema must read data written with the latest";
            case "BACKWARD_TRANSITIVE" ->
                    "BACKWARD_TRANSITIVE: the new schema must read data written with every earlier"
                            + " version";
            case "FORWARD" ->
                    "FORWARD: data written with the new schema must be readable with the latest";
            case "FORWARD_TRANSITIVE" ->
                    "FORWARD_TRANSITIVE: data written with the new schema must be readable with"
                            + " every earlier version";
            case "FULL" -> "FULL: BACKWARD and FORWARD against the latest";
            case "FULL_TRANSITIVE" ->
                    "FULL_TRANSITIVE: BACKWARD and FORWARD against every earlier version";
            default -> "compatibility level " + level;
        };
    }
}
