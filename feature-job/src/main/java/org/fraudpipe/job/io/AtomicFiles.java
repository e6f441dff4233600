package org.fraudpipe.job.io;

import java.io.BufferedWriter;
import java.io.Closeable;
import java.io.IOException;
import java.io.OutputStreamWriter;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.util.UUID;

/**
 * Writes a local file so that a reader sees either the old content or the complete new one, never a
 * half-written file: the content goes to a hidden temporary file next to the target, which is then
 * renamed over it ({@code ATOMIC_MOVE}). A failed write leaves the old file and no temporary file.
 *
 * <p>The temporary file is created with the default permissions (not {@code Files.createTempFile},
 * whose owner-only permissions would stay on the final file).
 */
public final class AtomicFiles {

    /** What goes into the file, written as UTF-8 text. */
    @FunctionalInterface
    public interface Content {
        void writeTo(Writer out) throws IOException;
    }

    private AtomicFiles() {}

    /**
     * Writes {@code content} to {@code target}, replacing it atomically; returns {@code target}.
     */
    public static Path write(Path target, Content content) throws IOException {
        try (Pending pending = prepare(target, content)) {
            return pending.commit();
        }
    }

    /**
     * Writes {@code content} next to {@code target} without replacing it yet: several files can be
     * prepared, checked, and only then put in place ({@link Pending#commit}). A pending file that
     * is closed without a commit is removed, as is the temporary file of a failed write.
     */
    public static Pending prepare(Path target, Content content) throws IOException {
        Path dir = target.toAbsolutePath().getParent();
        Files.createDirectories(dir);
        Path tmp = dir.resolve("." + target.getFileName() + "." + UUID.randomUUID() + ".tmp");
        Pending pending = new Pending(tmp, target);
        try (Writer out =
                new BufferedWriter(
                        new OutputStreamWriter(
                                Files.newOutputStream(tmp, StandardOpenOption.CREATE_NEW),
                                StandardCharsets.UTF_8),
                        1 << 16)) {
            content.writeTo(out);
        } catch (IOException | RuntimeException | Error e) {
            pending.close();
            throw e;
        }
        return pending;
    }

    /**
     * A complete file written next to its target, not yet in place. Invariant: until {@link
     * #commit}, the target is untouched; after {@link #close}, no temporary file is left.
     */
    public static final class Pending implements Closeable {
        private final Path tmp;
        private final Path target;

        private Pending(Path tmp, Path target) {
            this.tmp = tmp;
            this.target = target;
        }

        /** Renames the file over its target ({@code ATOMIC_MOVE}); returns the target. */
        public Path commit() throws IOException {
            Files.move(
                    tmp,
                    target,
                    StandardCopyOption.ATOMIC_MOVE,
                    StandardCopyOption.REPLACE_EXISTING);
            return target;
        }

        /** Removes the temporary file if it was not committed. */
        @Override
        public void close() throws IOException {
            Files.deleteIfExists(tmp);
        }
    }

    /** Writes {@code text} to {@code target}, replacing it atomically. */
    public static Path write(Path target, String text) throws IOException {
        return write(target, out -> out.write(text));
    }
}
