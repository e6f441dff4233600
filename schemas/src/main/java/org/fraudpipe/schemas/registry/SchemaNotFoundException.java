package org.fraudpipe.schemas.registry;

/** The registry has no schema with the id (HTTP 404, Confluent error code 40403). */
public final class SchemaNotFoundException extends SchemaRegistryException {
    private static final long serialVersionUID = 1L;

    private final int schemaId;

    /**
     * @param schemaId the id asked for
     * @param registryUrl where it was asked
     * @param registryMessage the registry's own message, or null
     */
    public SchemaNotFoundException(int schemaId, String registryUrl, String registryMessage) {
        super(
                "Schema id "
                        + schemaId
                        + " not found in the schema registry at "
                        + registryUrl
                        + SubjectNotFoundException.suffix(registryMessage)
                        + ". The data was written against another registry, or the schema was"
                        + " deleted: check that producers and consumers use the same"
                        + " schema.registry.url.",
                404,
                SCHEMA_NOT_FOUND);
        this.schemaId = schemaId;
    }

    /** The id that was not found. */
    public int schemaId() {
        return schemaId;
    }
}
