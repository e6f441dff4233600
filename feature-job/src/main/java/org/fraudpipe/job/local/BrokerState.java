package org.fraudpipe.job.local;

import java.io.IOException;
import java.io.Reader;
import java.io.UncheckedIOException;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
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
        Instant startedAt) {

    /** The broker's process, if it is alive and is our broker. */
    public Optional<ProcessHandle> process() {
        return ProcessHandle.of(pid)
                .filter(ProcessHandle::isAlive)
                .filter(
                        p ->
                                p.info()
                                        .startInstant()
                                        .map(start -> sameSecond(start, startedAt))
                                        // Where the OS hides start times, trust the pid.
                                        .orElse(true));
    }

    private static boolean sameSecond(Instant a, Instant b) {
        return Math.abs(a.toEpochMilli() - b.toEpochMilli()) < 1000;
    }

    void write() {
        Properties p = new Properties();
        p.setProperty("pid", Long.toString(pid));
        p.setProperty("bootstrap.servers", bootstrapServers);
        p.setProperty("port", Integer.toString(port));
        p.setProperty("controller.port", Integer.toString(controllerPort));
        p.setProperty("started.at", startedAt.toString());
        Path file = dataDir.resolve(LocalKafkaBroker.STATE_FILE);
        Path tmp = dataDir.resolve(LocalKafkaBroker.STATE_FILE + ".tmp");
        try (Writer w = Files.newBufferedWriter(tmp, StandardCharsets.UTF_8)) {
            p.store(w, "local Kafka broker started by ./fraud; removed when it is stopped");
        } catch (IOException e) {
            throw new UncheckedIOException("cannot write " + tmp, e);
        }
        try {
            Files.move(
                    tmp, file, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot write " + file, e);
        }
    }

    static Optional<BrokerState> read(Path dataDir) {
        Path file = dataDir.resolve(LocalKafkaBroker.STATE_FILE);
        if (!Files.isRegularFile(file)) {
            return Optional.empty();
        }
        Properties p = new Properties();
        try (Reader r = Files.newBufferedReader(file, StandardCharsets.UTF_8)) {
            p.load(r);
            return Optional.of(
                    new BrokerState(
                            Long.parseLong(p.getProperty("pid")),
                            p.getProperty("bootstrap.servers"),
                            Integer.parseInt(p.getProperty("port")),
                            Integer.parseInt(p.getProperty("controller.port")),
                            dataDir,
                            Instant.parse(p.getProperty("started.at"))));
        } catch (IOException | RuntimeException e) {
            throw new IllegalStateException(
                    "broker state file " + file + " is unreadable (" + e + "): delete it", e);
        }
    }

    static void delete(Path dataDir) {
        try {
            Files.deleteIfExists(dataDir.resolve(LocalKafkaBroker.STATE_FILE));
        } catch (IOException e) {
            throw new UncheckedIOException("cannot delete the broker state file in " + dataDir, e);
        }
    }
}
