package org.fraudpipe.schemas.registry;

/**
 * The registry refused to register the schema under the subject because it breaks the subject's
 * compatibility level (HTTP 409): the level configured for the subject, else the registry's global
 * one. The message names the level when it is known (our registries always know it; after a real
 * registry's refusal the client asks it).
 */
public final class IncompatibleSchemaException extends SchemaRegistryException {
    private static final long serialVersionUID = 1L;

    private final String subject;
    private final String compatibilityLevel;
    private final String details;

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
                        + ". To pass FULL_TRANSITIVE, the level the project's subjects should"
                        + " have: add fields only with defaults, remove only fields that have"
                        + " defaults, add enum symbols only to enums with a default, change no"
                        + " type (an Avro promotion such as int->long is only BACKWARD"
                        + " compatible); see schemas/README.md.",
                409,
                errorCode);
        this.subject = subject;
        this.compatibilityLevel = compatibilityLevel;
        this.details = details;
    }

    /** The subject the schema was registered under. */
    public String subject() {
        return subject;
    }

    /** The compatibility level the registry checked, e.g. {@code BACKWARD}, or null if unknown. */
    public String compatibilityLevel() {
        return compatibilityLevel;
    }

    /** What is incompatible, as the registry (or Avro) said it; may be null. */
    public String details() {
        return details;
    }

    private static String describe(String level) {
        if (level == null) {
            return "under the compatibility level the registry has for the subject";
        }
        try {
            return CompatibilityLevel.parse(level).meaning();
        } catch (IllegalArgumentException unknown) {
            return "compatibility level " + level;
        }
    }
}
