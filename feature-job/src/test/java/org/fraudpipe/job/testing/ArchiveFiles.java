package org.fraudpipe.job.testing;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;
import org.apache.avro.file.DataFileReader;
import org.apache.avro.specific.SpecificDatumReader;
import org.apache.avro.specific.SpecificRecord;
import org.fraudpipe.schemas.archive.ArchivePartition;
import org.fraudpipe.schemas.archive.ArchiveStream;

/**
 * Reads an archive on the local file system the way its readers must: the committed Avro container
 * files of a stream (names not starting with {@code .} or {@code _}), each record with the
 * partition directory it was found in. Also lists what a reader must skip.
 */
public final class ArchiveFiles {

    private ArchiveFiles() {}

    /** One archived record and where it lies. */
    public record Archived<T>(T record, ArchivePartition partition, Path file) {}

    /** Every record of the committed files of {@code stream} under {@code root}. */
    public static <T extends SpecificRecord> List<Archived<T>> read(
            Path root, ArchiveStream stream, Class<T> type) {
        if (!stream.recordClass().equals(type)) {
            throw new IllegalArgumentException(stream + " holds " + stream.recordClass());
        }
        Path dir = root.resolve(stream.directory());
        List<Archived<T>> out = new ArrayList<>();
        for (Path file : files(dir)) {
            if (isHidden(file)) {
                continue;
            }
            ArchivePartition partition =
                    ArchivePartition.parse(dir.relativize(file.getParent()).toString());
            try (DataFileReader<T> reader =
                    new DataFileReader<>(file.toFile(), new SpecificDatumReader<>(type))) {
                for (T record : reader) {
                    out.add(new Archived<>(record, partition, file));
                }
            } catch (IOException e) {
                throw new UncheckedIOException("cannot read " + file, e);
            }
        }
        return out;
    }

    /** The records alone. */
    public static <T extends SpecificRecord> List<T> records(
            Path root, ArchiveStream stream, Class<T> type) {
        return read(root, stream, type).stream().map(Archived::record).toList();
    }

    /** Every regular file under {@code root}, sorted. */
    public static List<Path> files(Path root) {
        if (!Files.isDirectory(root)) {
            return List.of();
        }
        try (Stream<Path> walk = Files.walk(root)) {
            return walk.filter(Files::isRegularFile).sorted().toList();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** Whether a reader skips {@code file}: in progress, pending or otherwise hidden. */
    public static boolean isHidden(Path file) {
        String name = file.getFileName().toString();
        return name.startsWith(".") || name.startsWith("_");
    }
}
