package org.fraudpipe.local;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.Optional;
import java.util.Properties;

/**
 * What a started broker records in its data directory ({@value LocalKafkaBroker#STATE_FILE}) so
 * that {@code ./fraud kafka status|stop} find it later from another process.
 *
 * <p>Invariant: a recorded pid is only trusted while that process is alive and started at the
 * recorded instant ({@code startedAt} is the OS's start time of the broker process), so a pid
 * reused by the OS after a crash or reboot is never signalled.
 */
public record BrokerState(
        long pid,
        String bootstrapServers,
        int port,
        int controllerPort,
        Path dataDir,
        Instant startedAt,
        boolean secure) {

    /** The client settings of {@code principal} on a secured broker; none on a plaintext one. */
    public org.fraudpipe.schemas.security.ClientProperties client(String principal) {
        return secure
                ? LocalSecurity.prepare(dataDir).client(principal)
                : org.fraudpipe.schemas.security.ClientProperties.none();
    }

    /** The broker's process, if it is alive and is the one recorded. */
    public Optional<ProcessHandle> process() {
        return StateFile.process(pid, startedAt);
    }

    void write() {
        Properties p = new Properties();
        p.setProperty("pid", Long.toString(pid));
        p.setProperty("bootstrap.servers", bootstrapServers);
        p.setProperty("port", Integer.toString(port));
        p.setProperty("controller.port", Integer.toString(controllerPort));
        p.setProperty("started.at", startedAt.toString());
        p.setProperty("secure", Boolean.toString(secure));
        StateFile.write(
                dataDir.resolve(LocalKafkaBroker.STATE_FILE),
                p,
                "local Kafka broker started by ./fraud; removed when it is stopped");
    }

    static Optional<BrokerState> read(Path dataDir) {
        return StateFile.read(dataDir.resolve(LocalKafkaBroker.STATE_FILE))
                .map(
                        p ->
                                new BrokerState(
                                        Long.parseLong(p.getProperty("pid")),
                                        p.getProperty("bootstrap.servers"),
                                        Integer.parseInt(p.getProperty("port")),
                                        Integer.parseInt(p.getProperty("controller.port")),
                                        dataDir,
                                        Instant.parse(p.getProperty("started.at")),
                                        Boolean.parseBoolean(p.getProperty("secure", "false"))));
    }

    static void delete(Path dataDir) {
        try {
            Files.deleteIfExists(dataDir.resolve(LocalKafkaBroker.STATE_FILE));
        } catch (IOException e) {
            throw new UncheckedIOException("cannot delete the broker state file in " + dataDir, e);
        }
    }
}
