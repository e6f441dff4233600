package org.fraudpipe.local;

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
 * What the local runtime's background JVMs (broker, schema registry) record in their data directory
 * so that later {@code ./fraud} processes find them: a small properties file, written atomically,
 * and the rule for trusting a recorded pid.
 */
final class StateFile {

    private StateFile() {}

    /** Writes {@code values} to {@code file} atomically (temp file + rename). */
    static void write(Path file, Properties values, String comment) {
        Path tmp = file.resolveSibling(file.getFileName() + ".tmp");
        try (Writer w = Files.newBufferedWriter(tmp, StandardCharsets.UTF_8)) {
            values.store(w, comment);
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

    /**
     * The values in {@code file}, or empty if there is none; an unreadable file says to delete it.
     */
    static Optional<Properties> read(Path file) {
        if (!Files.isRegularFile(file)) {
            return Optional.empty();
        }
        Properties p = new Properties();
        try (Reader r = Files.newBufferedReader(file, StandardCharsets.UTF_8)) {
            p.load(r);
            return Optional.of(p);
        } catch (IOException | RuntimeException e) {
            throw new IllegalStateException(
                    "state file " + file + " is unreadable (" + e + "): delete it", e);
        }
    }

    /**
     * The recorded process, if it is alive and started at the recorded instant (the OS's start time
     * of that process), so a pid reused after a crash or reboot is never trusted. Where the OS
     * hides start times, the pid is trusted.
     */
    static Optional<ProcessHandle> process(long pid, Instant startedAt) {
        return ProcessHandle.of(pid)
                .filter(ProcessHandle::isAlive)
                .filter(
                        p ->
                                p.info()
                                        .startInstant()
                                        .map(
                                                start ->
                                                        Math.abs(
                                                                        start.toEpochMilli()
                                                                                - startedAt
                                                                                        .toEpochMilli())
                                                                < 1000)
                                        .orElse(true));
    }
}
