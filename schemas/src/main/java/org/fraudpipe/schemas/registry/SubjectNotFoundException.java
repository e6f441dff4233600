package org.fraudpipe.schemas.registry;

/**
 * Nothing is registered under the subject (HTTP 404, Confluent error code 40401; Apicurio answers
 * 40402, version not found, and {@link #errorCode()} says what the registry said).
 */
public final class SubjectNotFoundException extends SchemaRegistryException {
    private static final long serialVersionUID = 1L;

    private final String subject;

    /**
     * @param subject the subject asked for
     * @param registryUrl where it was asked
     * @param registryMessage the registry's own message, or null
     */
    public SubjectNotFoundException(String subject, String registryUrl, String registryMessage) {
        this(subject, registryUrl, registryMessage, SUBJECT_NOT_FOUND);
    }

    /** As the REST client saw it: with the registry's own error code (Apicurio: 40402). */
    SubjectNotFoundException(
            String subject, String registryUrl, String registryMessage, int errorCode) {
        super(
                "Subject '"
                        + subject
                        + "' not found in the schema registry at "
                        + registryUrl
                        + suffix(registryMessage)
                        + ". Nothing has been registered under it yet: register the schema first"
                        + " (producers register on their first send), or check the topic name"
                        + " (subjects are <topic>-value / <topic>-key) and schema.registry.url.",
                404,
                errorCode);
        this.subject = subject;
    }

    /** The subject that was not found. */
    public String subject() {
        return subject;
    }

    static String suffix(String registryMessage) {
        return registryMessage == null || registryMessage.isBlank()
                ? ""
                : " (registry said: " + registryMessage + ")";
    }
}
