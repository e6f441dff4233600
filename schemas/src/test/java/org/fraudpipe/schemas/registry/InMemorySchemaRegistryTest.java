package org.fraudpipe.schemas.registry;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.fraudpipe.schemas.registry.ConfluentSchemaRegistryClientTest.withOptionalField;

import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.apache.avro.Schema;
import org.fraudpipe.schemas.avro.FeatureRecord;
import org.fraudpipe.schemas.avro.Transaction;
import org.fraudpipe.schemas.avro.WindowKey;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

class InMemorySchemaRegistryTest {
    private static final Schema TX = Transaction.getClassSchema();

    private final String scope = "test-" + UUID.randomUUID();
    private final InMemorySchemaRegistry registry = InMemorySchemaRegistry.forScope(scope);

    @AfterEach
    void drop() {
        InMemorySchemaRegistry.dropScope(scope);
    }

    @Test
    void idsAreSequentialFromOneAndStableForTheSameSchema() {
        int tx = registry.register("transactions-value", TX);
        int features = registry.register("features-value", FeatureRecord.getClassSchema());
        int txAgain = registry.register("transactions-value", TX);

        assertThat(tx).isEqualTo(1);
        assertThat(features).isEqualTo(2);
        assertThat(txAgain).isEqualTo(1);
        assertThat(registry.latestSchema("transactions-value").version())
                .as("re-registering adds no version")
                .isEqualTo(1);
        assertThat(registry.getSchemaById(1)).isEqualTo(TX);
        assertThat(registry.getSchemaById(2)).isEqualTo(FeatureRecord.getClassSchema());
    }

    @Test
    void theSameSchemaUnderAnotherSubjectKeepsItsIdAndStartsThatSubjectAtVersionOne() {
        int id = registry.register("transactions-value", TX);

        int archived = registry.register("transactions-archive-value", TX);

        assertThat(archived).isEqualTo(id);
        assertThat(registry.latestSchema("transactions-archive-value"))
                .isEqualTo(new RegisteredSchema("transactions-archive-value", id, 1, TX));
    }

    @Test
    void aBackwardCompatibleSchemaBecomesTheNextVersion() {
        registry.register("transactions-value", TX);
        Schema v2 = withOptionalField(TX, "channel");

        int id = registry.register("transactions-value", v2);

        assertThat(id).isEqualTo(2);
        assertThat(registry.latestSchema("transactions-value"))
                .isEqualTo(new RegisteredSchema("transactions-value", 2, 2, v2));
    }

    @Test
    void aSchemaThatCannotReadTheLatestIsRejectedLikeTheRealRegistry() {
        registry.register("transactions-value", TX);

        // Data written with TX has no "channel": a reader that requires it cannot read that data.
        Schema requiredField = withRequiredField(TX, "channel");
        assertThatThrownBy(() -> registry.register("transactions-value", requiredField))
                .isInstanceOfSatisfying(
                        IncompatibleSchemaException.class,
                        e -> {
                            assertThat(e.httpStatus()).isEqualTo(409);
                            assertThat(e.errorCode()).isEqualTo(409);
                        })
                .hasMessageContaining("transactions-value")
                .hasMessageContaining("READER_FIELD_MISSING_DEFAULT_VALUE")
                .hasMessageContaining("channel")
                .hasMessageContaining("mock://" + scope);
        assertThat(registry.latestSchema("transactions-value").schema()).isEqualTo(TX);
        assertThat(registry.testCompatibility("transactions-value", requiredField)).isFalse();
        assertThat(registry.testCompatibility("transactions-value", withOptionalField(TX, "c")))
                .isTrue();
    }

    @Test
    void compatibilityIsCheckedAgainstTheLatestVersionOnly() {
        Schema v1 = withOptionalField(TX, "channel");
        Schema v2 = withOptionalField(v1, "terminal");
        registry.register("s", v1);
        registry.register("s", v2);

        // Dropping both optional fields is fine against the latest (BACKWARD, not transitive).
        assertThat(registry.testCompatibility("s", TX)).isTrue();
        assertThat(registry.register("s", TX)).isEqualTo(3);
        assertThat(registry.latestSchema("s").version()).isEqualTo(3);
    }

    @Test
    void aSchemaTheSubjectHadInAnEarlierVersionKeepsItsIdAndAddsNoVersion() {
        registry.register("s", TX);
        registry.register("s", withOptionalField(TX, "channel"));

        assertThat(registry.register("s", TX)).isEqualTo(1);
        assertThat(registry.latestSchema("s").version()).isEqualTo(2);
    }

    @Test
    void aSubjectWithoutVersionsAcceptsAnySchema() {
        assertThat(registry.testCompatibility("new-value", WindowKey.getClassSchema())).isTrue();
    }

    @Test
    void unknownIdGivesSchemaNotFound() {
        assertThatThrownBy(() -> registry.getSchemaById(99))
                .isInstanceOfSatisfying(
                        SchemaNotFoundException.class,
                        e -> {
                            assertThat(e.errorCode()).isEqualTo(40403);
                            assertThat(e.schemaId()).isEqualTo(99);
                        })
                .hasMessageContaining("mock://" + scope);
    }

    @Test
    void unknownSubjectGivesSubjectNotFound() {
        assertThatThrownBy(() -> registry.latestSchema("nope-value"))
                .isInstanceOfSatisfying(
                        SubjectNotFoundException.class,
                        e -> assertThat(e.errorCode()).isEqualTo(40401))
                .hasMessageContaining("nope-value");
    }

    @Test
    void oneInstancePerScopeAndScopesAreIsolated() {
        String otherScope = scope + "-other";
        try {
            InMemorySchemaRegistry other = InMemorySchemaRegistry.forScope(otherScope);
            registry.register("a", FeatureRecord.getClassSchema());

            assertThat(InMemorySchemaRegistry.forScope(scope)).isSameAs(registry);
            assertThat(other).isNotSameAs(registry);
            assertThat(other.register("b", TX)).as("ids restart per scope").isEqualTo(1);
            assertThat(other.subjects()).containsExactly("b");
            assertThatThrownBy(() -> other.latestSchema("a"))
                    .isInstanceOf(SubjectNotFoundException.class);
            assertThat(registry.url()).isEqualTo("mock://" + scope);
        } finally {
            InMemorySchemaRegistry.dropScope(otherScope);
        }
    }

    @Test
    void droppingAScopeStartsItAfreshForTheNextCaller() {
        registry.register("a", TX);

        assertThat(InMemorySchemaRegistry.dropScope(scope)).isTrue();
        InMemorySchemaRegistry fresh = InMemorySchemaRegistry.forScope(scope);

        assertThat(fresh).isNotSameAs(registry);
        assertThat(fresh.subjects()).isEmpty();
        assertThat(InMemorySchemaRegistry.dropScope("never-created-" + scope)).isFalse();
    }

    @Test
    void concurrentRegistrationsOfOneSchemaGetOneId() throws Exception {
        ExecutorService pool = Executors.newFixedThreadPool(4);
        try {
            Set<Integer> ids = ConcurrentHashMap.newKeySet();
            List<Future<?>> futures = new ArrayList<>();
            for (int i = 0; i < 16; i++) {
                futures.add(pool.submit(() -> ids.add(registry.register("tx-value", TX))));
            }
            for (Future<?> f : futures) {
                f.get();
            }
            assertThat(ids).containsExactly(1);
            assertThat(registry.latestSchema("tx-value").version()).isEqualTo(1);
        } finally {
            pool.shutdownNow();
        }
    }

    private static Schema withRequiredField(Schema record, String name) {
        List<Schema.Field> fields = new ArrayList<>();
        for (Schema.Field f : record.getFields()) {
            fields.add(new Schema.Field(f, f.schema()));
        }
        fields.add(new Schema.Field(name, Schema.create(Schema.Type.STRING)));
        return Schema.createRecord(
                record.getName(), record.getDoc(), record.getNamespace(), false, fields);
    }
}
