package org.fraudpipe.schemas.registry;

import org.apache.avro.Schema;

/**
 * The subset of a Confluent-compatible schema registry the pipeline needs: register a schema under
 * a subject, fetch a schema by its global id, read a subject's latest version and test a schema
 * against it.
 *
 * <p>Invariants every implementation keeps:
 *
 * <ul>
 *   <li>Ids are global and immutable: once {@link #getSchemaById(int)} returned a schema for an id,
 *       it returns the same schema for that id forever (so callers and implementations may cache by
 *       id without expiry).
 *   <li>{@link #register} is idempotent: registering the same schema text under the same subject
 *       again returns the same id and creates no new version.
 *   <li>Compatibility is BACKWARD against the latest version: a new version must be able to read
 *       data written with the latest one. A subject without versions accepts any schema.
 *   <li>Implementations are thread-safe.
 *   <li>Failures are unchecked {@link SchemaRegistryException}s with a message that says what to
 *       do; the specific cases are {@link SubjectNotFoundException}, {@link
 *       SchemaNotFoundException}, {@link IncompatibleSchemaException} and {@link
 *       SchemaRegistryUnavailableException}.
 * </ul>
 *
 * <p>Obtain one with {@link SchemaRegistries#forUrl(String)}.
 */
public interface SchemaRegistryClient {

    /**
     * The URL this client talks to, as given in {@code schema.registry.url} (never with
     * credentials); used in error messages.
     */
    String url();

    /**
     * Registers {@code schema} under {@code subject} (a new version if the subject does not have it
     * yet) and returns its global id. Idempotent.
     *
     * @throws IncompatibleSchemaException if the schema cannot read data written with the subject's
     *     latest version
     */
    int register(String subject, Schema schema);

    /**
     * The schema with the global id {@code id}.
     *
     * @throws SchemaNotFoundException if the registry has no schema with that id
     * @throws NotAvroSchemaException if the schema with that id is not usable Avro
     */
    Schema getSchemaById(int id);

    /**
     * The latest version registered under {@code subject}.
     *
     * @throws SubjectNotFoundException if nothing is registered under the subject
     */
    RegisteredSchema latestSchema(String subject);

    /**
     * Whether {@code schema} could be registered as the next version of {@code subject}, i.e.
     * whether it can read data written with the subject's latest version. True for a subject
     * without versions (there is nothing to be incompatible with), as Confluent Schema Registry 7.x
     * answers.
     */
    boolean testCompatibility(String subject, Schema schema);
}
