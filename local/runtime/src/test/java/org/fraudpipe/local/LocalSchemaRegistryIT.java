package org.fraudpipe.local;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.apache.avro.Schema;
import org.fraudpipe.schemas.Topic;
import org.fraudpipe.schemas.TopicNames;
import org.fraudpipe.schemas.avro.Transaction;
import org.fraudpipe.schemas.registry.CompatibilityLevel;
import org.fraudpipe.schemas.registry.ConfluentSchemaRegistryClient;
import org.fraudpipe.schemas.registry.IncompatibleSchemaException;
import org.fraudpipe.schemas.registry.SchemaRegistryClient;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The local schema registry runs as its own JVM, is found again through its state file, keeps ids
 * across restarts, sets the project's subjects to their compatibility level and leaves no process
 * behind.
 */
class LocalSchemaRegistryIT {

    @TempDir Path dir;

    @AfterEach
    void stop() {
        LocalSchemaRegistry.stop(dir, Duration.ofSeconds(5));
    }

    private LocalSchemaRegistry.State start() {
        return LocalSchemaRegistry.start(
                new LocalSchemaRegistry.Settings(dir, 0, true, Duration.ofSeconds(30)));
    }

    @Test
    void startsAnswersStopsAndKeepsIdsAcrossRestarts() {
        LocalSchemaRegistry.State state = start();

        assertThat(LocalSchemaRegistry.running(dir)).contains(state);
        assertThat(state.process()).isPresent();
        assertThat(LocalSchemaRegistry.answers(state.url())).isTrue();
        int id =
                new ConfluentSchemaRegistryClient(state.url())
                        .register("transactions-value", Transaction.getClassSchema());
        assertThatThrownBy(this::start)
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("already running");

        assertThat(LocalSchemaRegistry.stop(dir, Duration.ofSeconds(10))).isTrue();
        assertThat(LocalSchemaRegistry.running(dir)).isEmpty();
        assertThat(ProcessHandle.of(state.pid()).filter(ProcessHandle::isAlive)).isEmpty();
        assertThat(LocalSchemaRegistry.stop(dir, Duration.ofSeconds(1))).isFalse();
        assertThat(dir.resolve(LocalSchemaRegistry.JOURNAL_FILE)).isRegularFile();

        LocalSchemaRegistry.State again = start();
        ConfluentSchemaRegistryClient client = new ConfluentSchemaRegistryClient(again.url());
        assertThat(client.getSchemaById(id)).isEqualTo(Transaction.getClassSchema());
        assertThat(client.latestSchema("transactions-value").id()).isEqualTo(id);
    }

    @Test
    void everySubjectOfTheProjectIsFullTransitiveFromTheStartAndAfterARestart() throws Exception {
        LocalSchemaRegistry.State state = start();
        SchemaRegistryClient client = new ConfluentSchemaRegistryClient(state.url());
        Path journal = dir.resolve(LocalSchemaRegistry.JOURNAL_FILE);

        for (String subject :
                new String[] {
                    "transactions-value",
                    "features-value",
                    "features-key",
                    "scores-value",
                    "scores-key",
                    "transactions-late-value",
                    "transactions-dead-letters-value",
                    "transaction-scores-value",
                    "model-releases-value"
                }) {
            assertThat(client.compatibilityLevel(subject))
                    .as("level of %s", subject)
                    .isEqualTo(CompatibilityLevel.FULL_TRANSITIVE);
        }
        assertThat(client.compatibilityLevel("other-value"))
                .as("anything else keeps the registry's default")
                .isEqualTo(CompatibilityLevel.BACKWARD);
        // The job's reader needs deviceId: a producer dropping it is refused before it writes.
        client.register("transactions-value", Transaction.getClassSchema());
        assertThatThrownBy(() -> client.register("transactions-value", withoutField("deviceId")))
                .isInstanceOfSatisfying(
                        IncompatibleSchemaException.class,
                        e -> assertThat(e.compatibilityLevel()).isEqualTo("FULL_TRANSITIVE"));
        long lines = Files.readAllLines(journal, StandardCharsets.UTF_8).size();
        assertThat(lines).as("nine levels and one registration journaled").isEqualTo(10);
        // Changed by hand, then restarted: the start puts the level back, and journals only that.
        client.setCompatibilityLevel("features-value", CompatibilityLevel.NONE);
        LocalSchemaRegistry.stop(dir, Duration.ofSeconds(10));

        LocalSchemaRegistry.State again = start();

        SchemaRegistryClient restarted = new ConfluentSchemaRegistryClient(again.url());
        assertThat(restarted.compatibilityLevel("transactions-value"))
                .isEqualTo(CompatibilityLevel.FULL_TRANSITIVE);
        assertThat(restarted.compatibilityLevel("features-value"))
                .isEqualTo(CompatibilityLevel.FULL_TRANSITIVE);
        assertThat(Files.readAllLines(journal, StandardCharsets.UTF_8)).hasSize((int) lines + 2);
    }

    @Test
    void theSubjectsAreThoseOfTheTopicsItIsGiven() {
        TopicNames renamed = TopicNames.withOverrides(Map.of(Topic.TRANSACTIONS, "payments"));
        LocalSchemaRegistry.State state =
                LocalSchemaRegistry.start(
                        new LocalSchemaRegistry.Settings(
                                dir, 0, true, Duration.ofSeconds(30), renamed));
        SchemaRegistryClient client = new ConfluentSchemaRegistryClient(state.url());

        assertThat(client.compatibilityLevel("payments-value"))
                .isEqualTo(CompatibilityLevel.FULL_TRANSITIVE);
        assertThat(client.compatibilityLevel("transactions-value"))
                .isEqualTo(CompatibilityLevel.BACKWARD);
    }

    /** The project's Transaction without the field {@code name}: a producer's change. */
    private static Schema withoutField(String name) {
        Schema tx = Transaction.getClassSchema();
        List<Schema.Field> fields = new ArrayList<>();
        for (Schema.Field f : tx.getFields()) {
            if (!f.name().equals(name)) {
                fields.add(new Schema.Field(f, f.schema()));
            }
        }
        return Schema.createRecord(tx.getName(), tx.getDoc(), tx.getNamespace(), false, fields);
    }

    @Test
    void aRegistryThatCannotStartIsReportedWithItsLog() throws Exception {
        Files.writeString(dir.resolve(LocalSchemaRegistry.JOURNAL_FILE), "not json\n");

        assertThatThrownBy(this::start)
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("exited during start-up")
                .hasMessageContaining("corrupt at line 1");
        assertThat(LocalSchemaRegistry.running(dir)).isEmpty();
    }
}
