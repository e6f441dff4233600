package org.fraudpipe.schemas.registry;

/**
 * The registry could not be reached or did not answer in time (connection refused, unknown host,
 * connect or request timeout). No HTTP status. This is never a problem of the data: callers must
 * not dead-letter records because of it, but fail (and let the job restart) or retry.
 */
public final class SchemaRegistryUnavailableException extends SchemaRegistryException {
    private static final long serialVersionUID = 1L;

    private final String registryUrl;

    /**
     * @param registryUrl the registry's URL
     * @param what the call that failed, e.g. {@code GET /schemas/ids/3}
     * @param problem what went wrong, e.g. {@code connection refused}
     * @param cause the I/O failure
     */
    public SchemaRegistryUnavailableException(
            String registryUrl, String what, String problem, Throwable cause) {
        super(
                "Cannot reach the schema registry at "
                        + registryUrl
                        + " ("
                        + what
                        + ": "
                        + problem
                        + "). Check schema.registry.url="
                        + registryUrl
                        + " and that the registry is running and reachable from this host.",
                NO_HTTP_STATUS,
                NO_ERROR_CODE,
                cause);
        this.registryUrl = registryUrl;
    }

    /** The URL that could not be reached. */
    public String registryUrl() {
        return registryUrl;
    }
}
