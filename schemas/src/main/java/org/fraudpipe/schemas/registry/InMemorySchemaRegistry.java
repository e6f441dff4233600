package org.fraudpipe.schemas.registry;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentMap;
import org.apache.avro.Schema;

/**
 * A schema registry held in memory, for {@code schema.registry.url=mock://<scope>} (the URL form
 * Confluent's serializers use for the same purpose): tests, the deterministic replay and the local
 * demo, where producer and job run in one JVM.
 *
 * <p>Semantics match Confluent Schema Registry's:
 *
 * <ul>
 *   <li>One shared instance per scope within the JVM ({@link #forScope}); scopes are isolated.
 *   <li>Ids are global within the scope, assigned sequentially from 1, and never change; the same
 *       schema text gets the same id under every subject.
 *   <li>Versions are numbered per subject from 1; registering a schema the subject already has
 *       returns its id and adds no version.
 *   <li>Each subject has a {@link CompatibilityLevel}: its own once {@link #setCompatibilityLevel
 *       set}, else the registry's global {@link #DEFAULT_COMPATIBILITY} (BACKWARD, Confluent's
 *       default). A new version must pass it ({@link CompatibilityLevel#incompatibilities}, Avro's
 *       {@link org.apache.avro.SchemaCompatibility}: BACKWARD and FORWARD against the latest
 *       version, or every version when transitive, NONE no check); otherwise {@link
 *       IncompatibleSchemaException} naming the level. A level set applies to later registrations,
 *       and may be set before a subject has versions.
 *   <li>Unknown id: {@link SchemaNotFoundException}; unknown subject: {@link
 *       SubjectNotFoundException}.
 * </ul>
 *
 * <p>Thread-safe (all state is guarded by the instance's monitor). Nothing is persisted; {@link
 * #dropScope} forgets a scope (clients that still hold the old instance keep using it).
 */
public final class InMemorySchemaRegistry implements SchemaRegistryClient {

    /** The URL prefix that selects this registry in {@code schema.registry.url}. */
    public static final String URL_PREFIX = "mock://";

    /**
     * The global level, for subjects without one of their own: BACKWARD, as in Confluent Schema
     * Registry. It does not protect a consumer that reads with an older schema (the streaming job
     * refuses to start on it): set a subject's level where it matters.
     */
    public static final CompatibilityLevel DEFAULT_COMPATIBILITY = CompatibilityLevel.BACKWARD;

    private static final ConcurrentMap<String, InMemorySchemaRegistry> SCOPES =
            new ConcurrentHashMap<>();

    private final String scope;
    private final Map<String, Integer> idsBySchemaText = new HashMap<>();
    private final Map<Integer, Schema> schemasById = new HashMap<>();
    private final Map<String, List<Integer>> idsBySubject = new HashMap<>();
    private final Map<String, CompatibilityLevel> levelsBySubject = new HashMap<>();
    private int nextId = 1;

    private InMemorySchemaRegistry(String scope) {
        this.scope = scope;
    }

    /** The registry of {@code scope}, created on first use; the same instance for the JVM. */
    public static InMemorySchemaRegistry forScope(String scope) {
        Objects.requireNonNull(scope, "scope");
        if (scope.isBlank()) {
            throw new IllegalArgumentException(
                    "the scope of an in-memory schema registry must not be blank: use"
                            + " schema.registry.url=mock://<scope>, e.g. mock://demo");
        }
        return SCOPES.computeIfAbsent(scope, InMemorySchemaRegistry::new);
    }

    /**
     * Forgets {@code scope}: the next {@link #forScope} call for it starts empty.
     *
     * @return whether the scope existed
     */
    public static boolean dropScope(String scope) {
        return SCOPES.remove(scope) != null;
    }

    /** The scope's name. */
    public String scope() {
        return scope;
    }

    @Override
    public String url() {
        return URL_PREFIX + scope;
    }

    @Override
    public synchronized int register(String subject, Schema schema) {
        Objects.requireNonNull(subject, "subject");
        Objects.requireNonNull(schema, "schema");
        String text = schema.toString();
        Integer existingId = idsBySchemaText.get(text);
        List<Integer> versions = idsBySubject.get(subject);
        if (existingId != null && versions != null && versions.contains(existingId)) {
            return existingId;
        }
        CompatibilityLevel level = compatibilityLevel(subject);
        List<String> problems = level.incompatibilities(schema, registered(subject));
        if (!problems.isEmpty()) {
            throw new IncompatibleSchemaException(
                    subject, url(), String.join("; ", problems), level.name());
        }
        int id;
        if (existingId != null) {
            id = existingId;
        } else {
            id = nextId++;
            idsBySchemaText.put(text, id);
            schemasById.put(id, new Schema.Parser().parse(text));
        }
        idsBySubject.computeIfAbsent(subject, s -> new ArrayList<>()).add(id);
        return id;
    }

    @Override
    public synchronized Schema getSchemaById(int id) {
        Schema schema = schemasById.get(id);
        if (schema == null) {
            throw new SchemaNotFoundException(id, url(), null);
        }
        return schema;
    }

    @Override
    public synchronized RegisteredSchema latestSchema(String subject) {
        List<Integer> versions = idsBySubject.get(subject);
        if (versions == null || versions.isEmpty()) {
            throw new SubjectNotFoundException(subject, url(), null);
        }
        int id = versions.get(versions.size() - 1);
        return new RegisteredSchema(subject, id, versions.size(), schemasById.get(id));
    }

    /** Whether {@link #register} would accept {@code schema}: the same check, nothing added. */
    @Override
    public synchronized boolean testCompatibility(String subject, Schema schema) {
        return compatibilityLevel(subject).incompatibilities(schema, registered(subject)).isEmpty();
    }

    @Override
    public synchronized CompatibilityLevel compatibilityLevel(String subject) {
        return subjectCompatibilityLevel(subject).orElse(DEFAULT_COMPATIBILITY);
    }

    /** The subject's own level, empty if it has none (then {@link #DEFAULT_COMPATIBILITY}). */
    public synchronized Optional<CompatibilityLevel> subjectCompatibilityLevel(String subject) {
        Objects.requireNonNull(subject, "subject");
        return Optional.ofNullable(levelsBySubject.get(subject));
    }

    @Override
    public synchronized void setCompatibilityLevel(String subject, CompatibilityLevel level) {
        Objects.requireNonNull(subject, "subject");
        levelsBySubject.put(subject, Objects.requireNonNull(level, "level"));
    }

    /** The subject's schemas, version 1 first; empty for a subject without versions. */
    private List<Schema> registered(String subject) {
        List<Integer> versions = idsBySubject.getOrDefault(subject, List.of());
        List<Schema> schemas = new ArrayList<>(versions.size());
        for (int id : versions) {
            schemas.add(schemasById.get(id));
        }
        return schemas;
    }

    /** The subjects that have at least one version, in no particular order. */
    public synchronized List<String> subjects() {
        return List.copyOf(idsBySubject.keySet());
    }

    @Override
    public String toString() {
        return "InMemorySchemaRegistry[" + url() + "]";
    }
}
