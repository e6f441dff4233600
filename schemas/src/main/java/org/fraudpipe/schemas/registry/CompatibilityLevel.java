package org.fraudpipe.schemas.registry;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.Objects;
import java.util.stream.Collectors;
import org.apache.avro.Schema;

/**
 * A subject's compatibility level, as Confluent Schema Registry defines it (Apicurio's Confluent
 * API, Karapace and Redpanda use the same names): which earlier versions a new schema is checked
 * against, and in which direction.
 *
 * <ul>
 *   <li>BACKWARD: the new schema can read data written with the checked versions (consumers upgrade
 *       first);
 *   <li>FORWARD: the checked versions can read data written with the new schema (producers upgrade
 *       first; a consumer on an older schema keeps reading);
 *   <li>FULL: both;
 *   <li>{@code _TRANSITIVE}: checked against every registered version, not only the latest;
 *   <li>NONE: no check.
 * </ul>
 *
 * <p>The streaming job reads producers' data with the schema it was built with, which may be
 * several versions behind theirs: only FORWARD_TRANSITIVE and FULL_TRANSITIVE guarantee that every
 * schema the registry accepts can be read by it.
 */
public enum CompatibilityLevel {
    NONE(false, false, false),
    BACKWARD(true, false, false),
    BACKWARD_TRANSITIVE(true, false, true),
    FORWARD(false, true, false),
    FORWARD_TRANSITIVE(false, true, true),
    FULL(true, true, false),
    FULL_TRANSITIVE(true, true, true);

    private final boolean backward;
    private final boolean forward;
    private final boolean transitive;

    CompatibilityLevel(boolean backward, boolean forward, boolean transitive) {
        this.backward = backward;
        this.forward = forward;
        this.transitive = transitive;
    }

    /** Whether a new schema must read data written with the checked versions. */
    public boolean backward() {
        return backward;
    }

    /** Whether the checked versions must read data written with a new schema. */
    public boolean forward() {
        return forward;
    }

    /** Whether every registered version is checked (else only the latest). */
    public boolean transitive() {
        return transitive;
    }

    /**
     * The level named {@code text} (case-insensitive, as registries accept it).
     *
     * @throws IllegalArgumentException naming the accepted levels
     */
    public static CompatibilityLevel parse(String text) {
        Objects.requireNonNull(text, "text");
        try {
            return valueOf(text.trim().toUpperCase(Locale.ROOT));
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException(
                    "'"
                            + text
                            + "' is not a compatibility level; accepted: "
                            + Arrays.stream(values())
                                    .map(Enum::name)
                                    .collect(Collectors.joining(", ")),
                    e);
        }
    }

    /** One line saying what the level checks, e.g. for a refusal. */
    public String meaning() {
        return switch (this) {
            case NONE -> "NONE: no check";
            case BACKWARD -> "BACKWARD: the new schema must read data written with the latest";
            case BACKWARD_TRANSITIVE ->
                    "BACKWARD_TRANSITIVE: the new schema must read data written with every earlier"
                            + " version";
            case FORWARD ->
                    "FORWARD: data written with the new schema must be readable with the latest";
            case FORWARD_TRANSITIVE ->
                    "FORWARD_TRANSITIVE: data written with the new schema must be readable with"
                            + " every earlier version";
            case FULL -> "FULL: BACKWARD and FORWARD against the latest";
            case FULL_TRANSITIVE ->
                    "FULL_TRANSITIVE: BACKWARD and FORWARD against every earlier version";
        };
    }

    /**
     * Why {@code candidate} may not become the next version of a subject that has {@code
     * registered} (oldest first) under this level: one line per problem, naming the version and the
     * direction; empty if it may. Versions are numbered from 1 in list order.
     */
    public List<String> incompatibilities(Schema candidate, List<Schema> registered) {
        Objects.requireNonNull(candidate, "candidate");
        List<String> problems = new ArrayList<>();
        if (this == NONE || registered.isEmpty()) {
            return problems;
        }
        int first = transitive ? 0 : registered.size() - 1;
        for (int i = first; i < registered.size(); i++) {
            Schema earlier = registered.get(i);
            int version = i + 1;
            if (backward) {
                for (String p : AvroCompatibility.readerIncompatibilities(candidate, earlier)) {
                    problems.add(
                            "the new schema cannot read data written with version "
                                    + version
                                    + ": "
                                    + p);
                }
            }
            if (forward) {
                for (String p : AvroCompatibility.readerIncompatibilities(earlier, candidate)) {
                    problems.add(
                            "version "
                                    + version
                                    + " cannot read data written with the new schema: "
                                    + p);
                }
            }
        }
        return problems;
    }
}
