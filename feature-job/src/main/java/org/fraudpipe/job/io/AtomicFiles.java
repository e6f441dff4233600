package org.fraudpipe.job.io;

import java.io.BufferedWriter;
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
        Path dir = target.toAbsolutePath().getParent();
        Files.createDirectories(dir);
        Path tmp = dir.resolve("." + target.getFileName() + "." + UUID.randomUUID() + ".tmp");
        try {
            try (Writer out =
                    new BufferedWriter(
                            new OutputStreamWriter(
                                    Files.newOutputStream(tmp, StandardOpenOption.CREATE_NEW),
                                    StandardCharsets.UTF_8),
                            1 << 16)) {
                content.writeTo(out);
            }
            Files.move(
                    tmp,
                    target,
                    StandardCopyOption.ATOMIC_MOVE,
                    StandardCopyOption.REPLACE_EXISTING);
            return target;
        } finally {
            Files.deleteIfExists(tmp);
        }
    }

    /** Writes {@code text} to {@code target}, replacing it atomically. */
    public static Path write(Path target, String text) throws IOException {
        return write(target, out -> out.write(text));
    }
}
