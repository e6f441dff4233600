package org.fraudpipe.schemas.registry;

/**
 * The registry has a schema with the id, but it is not a usable Avro schema (a Protobuf or JSON
 * schema, or text Avro cannot parse). For the records that carry the id, this is a data problem:
 * the producer did not write Avro of this contract.
 */
public final class NotAvroSchemaException extends SchemaRegistryException {
    private static final long serialVersionUID = 1L;

    private final int schemaId;

    /**
     * @param schemaId the id asked for
     * @param registryUrl where it was asked
     * @param problem what is wrong with it, e.g. {@code it is a PROTOBUF schema}
     * @param cause the parse failure, or null
     */
    public NotAvroSchemaException(
            int schemaId, String registryUrl, String problem, Throwable cause) {
        super(
                "Schema id "
                        + schemaId
                        + " in the schema registry at "
                        + registryUrl
                        + " is not a usable Avro schema ("
                        + problem
                        + "): the data was not written by an Avro serializer of this contract;"
                        + " check the producer of the topic.",
                200,
                NO_ERROR_CODE,
                cause);
        this.schemaId = schemaId;
    }

    /** The id of the unusable schema. */
    public int schemaId() {
        return schemaId;
    }
}
