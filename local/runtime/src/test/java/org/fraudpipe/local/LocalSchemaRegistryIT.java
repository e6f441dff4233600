package org.fraudpipe.local;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import org.fraudpipe.schemas.avro.Transaction;
import org.fraudpipe.schemas.registry.ConfluentSchemaRegistryClient;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The local schema registry runs as its own JVM, is found again through its state file, keeps ids
 * across restarts and leaves no process behind.
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
    void aRegistryThatCannotStartIsReportedWithItsLog() throws Exception {
        Files.writeString(dir.resolve(LocalSchemaRegistry.JOURNAL_FILE), "not json\n");

        assertThatThrownBy(this::start)
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("exited during start-up")
                .hasMessageContaining("corrupt at line 1");
        assertThat(LocalSchemaRegistry.running(dir)).isEmpty();
    }
}
