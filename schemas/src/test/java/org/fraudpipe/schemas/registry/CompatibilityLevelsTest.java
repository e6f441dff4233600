package org.fraudpipe.schemas.registry;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.fraudpipe.schemas.registry.CompatibilityLevel.BACKWARD;
import static org.fraudpipe.schemas.registry.CompatibilityLevel.BACKWARD_TRANSITIVE;
import static org.fraudpipe.schemas.registry.CompatibilityLevel.FORWARD;
import static org.fraudpipe.schemas.registry.CompatibilityLevel.FORWARD_TRANSITIVE;
import static org.fraudpipe.schemas.registry.CompatibilityLevel.FULL;
import static org.fraudpipe.schemas.registry.CompatibilityLevel.FULL_TRANSITIVE;
import static org.fraudpipe.schemas.registry.CompatibilityLevel.NONE;

import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import java.util.Set;
import java.util.UUID;
import java.util.stream.Stream;
import org.apache.avro.Schema;
import org.fraudpipe.schemas.avro.Transaction;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Each compatibility level as Confluent defines it, in {@link InMemorySchemaRegistry} (and so in
 * {@link LocalSchemaRegistryServer}): for a set of schema changes, which levels accept the change
 * as the next version and which refuse it. Every change is accepted by some level and refused by
 * another, so each row tells the levels apart.
 */
class CompatibilityLevelsTest {
    private static final Schema TX = Transaction.getClassSchema();
    private static final String SUBJECT = "transactions-value";

    private final String scope = "levels-" + UUID.randomUUID();
    private final InMemorySchemaRegistry registry = InMemorySchemaRegistry.forScope(scope);

    @AfterEach
    void drop() {
        InMemorySchemaRegistry.dropScope(scope);
    }

    /**
     * A change: the versions registered before it (oldest first) and the new schema.
     *
     * @param accepting the levels under which the new schema becomes the next version
     */
    record Change(
            String name, List<Schema> before, Schema next, Set<CompatibilityLevel> accepting) {
        @Override
        public String toString() {
            return name;
        }
    }

    static List<Change> changes() {
        Schema deviceIdDefaulted = SchemaChanges.withDefault(TX, "deviceId", "unknown");
        Schema channelDefaulted =
                SchemaChanges.withField(TX, "channel", Schema.create(Schema.Type.STRING), "POS");
        return List.of(
                // Old data lacks it (BACKWARD fails); old readers skip it (FORWARD holds).
                new Change(
                        "a field without default added",
                        List.of(TX),
                        SchemaChanges.withRequiredString(TX, "channel"),
                        EnumSet.of(NONE, FORWARD, FORWARD_TRANSITIVE)),
                // The job's reader needs deviceId: the change of the issue.
                new Change(
                        "a field without default dropped",
                        List.of(TX),
                        SchemaChanges.without(TX, "deviceId"),
                        EnumSet.of(NONE, BACKWARD, BACKWARD_TRANSITIVE)),
                new Change(
                        "a type promoted (long to double)",
                        List.of(TX),
                        SchemaChanges.withType(TX, "amountMinor", Schema.Type.DOUBLE),
                        EnumSet.of(NONE, BACKWARD, BACKWARD_TRANSITIVE)),
                new Change(
                        "a field removed that the latest has a default for, version 1 none",
                        List.of(TX, deviceIdDefaulted),
                        SchemaChanges.without(TX, "deviceId"),
                        EnumSet.of(NONE, BACKWARD, BACKWARD_TRANSITIVE, FORWARD, FULL)),
                new Change(
                        "a default dropped from a field that version 1 lacks",
                        List.of(TX, channelDefaulted),
                        SchemaChanges.withRequiredString(TX, "channel"),
                        EnumSet.of(NONE, BACKWARD, FORWARD, FORWARD_TRANSITIVE, FULL)),
                new Change(
                        "a field of another type than the latest's, unreadable both ways",
                        List.of(SchemaChanges.withRequiredString(TX, "channel")),
                        SchemaChanges.withField(
                                TX, "channel", Schema.create(Schema.Type.INT), null),
                        EnumSet.of(NONE)));
    }

    static Stream<Arguments> everyChangeUnderEveryLevel() {
        List<Arguments> cases = new ArrayList<>();
        for (Change change : changes()) {
            for (CompatibilityLevel level : CompatibilityLevel.values()) {
                cases.add(Arguments.of(change, level));
            }
        }
        return cases.stream();
    }

    @ParameterizedTest(name = "{0} under {1}")
    @MethodSource("everyChangeUnderEveryLevel")
    void aLevelAcceptsExactlyTheChangesItsDefinitionAllows(
            Change change, CompatibilityLevel level) {
        registerUnchecked(change.before());
        registry.setCompatibilityLevel(SUBJECT, level);
        boolean accepted = change.accepting().contains(level);

        assertThat(registry.testCompatibility(SUBJECT, change.next()))
                .as("testCompatibility of %s under %s", change, level)
                .isEqualTo(accepted);
        if (accepted) {
            int id = registry.register(SUBJECT, change.next());
            assertThat(registry.latestSchema(SUBJECT))
                    .isEqualTo(
                            new RegisteredSchema(
                                    SUBJECT, id, change.before().size() + 1, change.next()));
        } else {
            assertThatThrownBy(() -> registry.register(SUBJECT, change.next()))
                    .isInstanceOfSatisfying(
                            IncompatibleSchemaException.class,
                            e -> {
                                assertThat(e.compatibilityLevel()).isEqualTo(level.name());
                                assertThat(e.subject()).isEqualTo(SUBJECT);
                            })
                    .hasMessageContaining(level.meaning());
            assertThat(registry.latestSchema(SUBJECT).version())
                    .as("a refusal adds no version")
                    .isEqualTo(change.before().size());
        }
    }

    @Test
    void everyLevelIsToldApartByTheChanges() {
        // No two levels accept the same set of changes: the table above pins each one down.
        List<Set<Change>> acceptedByLevel = new ArrayList<>();
        for (CompatibilityLevel level : CompatibilityLevel.values()) {
            Set<Change> accepted =
                    new java.util.HashSet<>(
                            changes().stream().filter(c -> c.accepting().contains(level)).toList());
            assertThat(acceptedByLevel)
                    .as("changes accepted by %s", level)
                    .doesNotContain(accepted);
            acceptedByLevel.add(accepted);
        }
    }

    @Test
    void theRefusalNamesTheVersionAndTheDirectionThatFailed() {
        registerUnchecked(List.of(TX, SchemaChanges.withDefault(TX, "deviceId", "unknown")));
        registry.setCompatibilityLevel(SUBJECT, FULL_TRANSITIVE);

        assertThatThrownBy(() -> registry.register(SUBJECT, SchemaChanges.without(TX, "deviceId")))
                .isInstanceOf(IncompatibleSchemaException.class)
                .hasMessageContaining("version 1 cannot read data written with the new schema")
                .hasMessageContaining("deviceId")
                .hasMessageNotContaining("version 2 cannot read");
    }

    @Test
    void withoutALevelOfItsOwnASubjectIsBackwardAndALevelCanBeSetBeforeAnyVersion() {
        assertThat(registry.compatibilityLevel(SUBJECT)).isEqualTo(BACKWARD);
        assertThat(registry.subjectCompatibilityLevel(SUBJECT)).isEmpty();

        registry.setCompatibilityLevel(SUBJECT, FULL_TRANSITIVE);
        registry.register(SUBJECT, TX);

        assertThat(registry.compatibilityLevel(SUBJECT)).isEqualTo(FULL_TRANSITIVE);
        assertThat(registry.subjectCompatibilityLevel(SUBJECT)).hasValue(FULL_TRANSITIVE);
        assertThat(registry.compatibilityLevel("other-value")).isEqualTo(BACKWARD);
        assertThat(registry.testCompatibility(SUBJECT, SchemaChanges.without(TX, "deviceId")))
                .isFalse();
    }

    @Test
    void underNoneAnythingIsAcceptedEvenAnotherRecordType() {
        registry.setCompatibilityLevel(SUBJECT, NONE);
        registry.register(SUBJECT, TX);

        assertThat(registry.register(SUBJECT, Schema.create(Schema.Type.STRING))).isPositive();
        assertThat(registry.latestSchema(SUBJECT).version()).isEqualTo(2);
    }

    @Test
    void levelsParseCaseInsensitivelyAndAnUnknownOneNamesTheAcceptedOnes() {
        assertThat(CompatibilityLevel.parse(" full_transitive ")).isEqualTo(FULL_TRANSITIVE);
        assertThatThrownBy(() -> CompatibilityLevel.parse("STRICT"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("'STRICT'")
                .hasMessageContaining("FORWARD_TRANSITIVE");
    }

    /** Registers {@code versions} in order under NONE, whatever they are, then forgets NONE. */
    private void registerUnchecked(List<Schema> versions) {
        registry.setCompatibilityLevel(SUBJECT, NONE);
        for (Schema version : versions) {
            registry.register(SUBJECT, version);
        }
        assertThat(registry.latestSchema(SUBJECT).version()).isEqualTo(versions.size());
    }
}
