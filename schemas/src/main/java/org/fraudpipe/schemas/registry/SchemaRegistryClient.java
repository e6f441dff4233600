package org.fraudpipe.schemas.registry;

import org.apache.avro.Schema;

/**
 * The subset of a Confluent-compatible schema registry the pipeline needs: register a schema under
 * a subject, fetch a schema by its global id, read a subject's latest version, test a schema
 * against it, and read and set a subject's compatibility level.
 *
 * <p>Invariants every implementation keeps:
 *
 * <ul>
 *   <li>Ids are global and immutable: once {@link #getSchemaById(int)} returned a schema for an id,
 *       it returns the same schema for that id forever (so callers and implementations may cache by
 *       id without expiry).
 *   <li>{@link #register} is idempotent: registering the same schema text under the same subject
 *       again returns the same id and creates no new version.
 *   <li>A new version is checked under the subject's {@linkplain #compatibilityLevel effective
 *       compatibility level}: its own, else the registry's global one (BACKWARD in ours and in
 *       Confluent's by default, NONE in Apicurio's). A subject without versions accepts any schema.
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
     * @throws IncompatibleSchemaException if the schema breaks the subject's compatibility level
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
     * Whether {@code schema} is compatible with {@code subject}'s latest version under the
     * subject's compatibility level, as the registry answers it ({@code POST
     * /compatibility/subjects/{subject}/versions/latest}; our own registries check exactly what
     * {@link #register} would, every version for a transitive level). True for a subject without
     * versions (there is nothing to be incompatible with), as Confluent Schema Registry 7.x
     * answers.
     */
    boolean testCompatibility(String subject, Schema schema);

    /**
     * The compatibility level the registry applies to new versions of {@code subject}: the
     * subject's own if it has one, else the registry's global level. Works for a subject without
     * versions (its level may be set before anything is registered).
     *
     * @throws SchemaRegistryException if the registry does not tell (e.g. HTTP 403 for a user
     *     without the right to read configuration, 404 for a registry without the endpoint)
     */
    CompatibilityLevel compatibilityLevel(String subject);

    /**
     * Sets {@code subject}'s own compatibility level ({@code PUT /config/{subject}}); it applies to
     * the next registrations, not to the versions already registered. Idempotent.
     *
     * @throws SchemaRegistryException if the registry refuses (e.g. HTTP 403)
     */
    void setCompatibilityLevel(String subject, CompatibilityLevel level);
}
