package org.fraudpipe.parity.input;

import java.io.IOException;
import java.io.InputStream;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Optional;
import org.apache.avro.file.DataFileStream;
import org.apache.avro.specific.SpecificDatumReader;
import org.apache.flink.core.fs.FileStatus;
import org.apache.flink.core.fs.FileSystem;
import org.apache.flink.core.fs.Path;
import org.fraudpipe.job.position.ReadPositions;
import org.fraudpipe.schemas.archive.ArchiveStream;
import org.fraudpipe.schemas.avro.ReadPosition;

/**
 * Reads where the job's readers stood from an archive's {@code read-positions/}, on the client: the
 * newest hour partition only. The job records every partition of both readers at every checkpoint,
 * so the newest committed files hold the latest position of each; older hours add nothing
 * (positions only grow). An archive without the directory (written before positions were recorded,
 * or by hand) gives {@link ReadPositions#NONE}: nothing is then excused as not yet read.
 */
public final class ReadPositionsReader {

    private ReadPositionsReader() {}

    /**
     * The positions recorded under {@code archiveRoot}.
     *
     * @throws ParityInputException if the directory cannot be read or holds positions of two topics
     */
    public static ReadPositions read(String archiveRoot) throws ParityInputException {
        Path dir = new Path(archiveRoot, ArchiveStream.READ_POSITIONS.directory());
        try {
            FileSystem fs = dir.getFileSystem();
            if (!fs.exists(dir)) {
                return ReadPositions.NONE;
            }
            Optional<Path> day = newestChild(fs, dir, "date=");
            Optional<Path> hour =
                    day.isEmpty() ? Optional.empty() : newestChild(fs, day.get(), "hour=");
            if (hour.isEmpty()) {
                return ReadPositions.NONE;
            }
            List<ReadPosition> recorded = new ArrayList<>();
            for (FileStatus f : list(fs, hour.get())) {
                String name = f.getPath().getName();
                if (f.isDir() || name.startsWith(".") || name.startsWith("_")) {
                    continue; // in progress or pending: not committed
                }
                try (InputStream in = fs.open(f.getPath());
                        DataFileStream<ReadPosition> records =
                                new DataFileStream<>(
                                        in, new SpecificDatumReader<>(ReadPosition.class))) {
                    records.forEach(recorded::add);
                }
            }
            return ReadPositions.of(recorded);
        } catch (IOException e) {
            throw new ParityInputException(
                    "cannot read the read positions under " + dir + ": " + e.getMessage(), e);
        } catch (IllegalArgumentException e) {
            throw new ParityInputException(dir + ": " + e.getMessage(), e);
        }
    }

    private static Optional<Path> newestChild(FileSystem fs, Path dir, String prefix)
            throws IOException {
        return list(fs, dir).stream()
                .filter(FileStatus::isDir)
                .map(FileStatus::getPath)
                .filter(p -> p.getName().startsWith(prefix))
                .max(Comparator.comparing(Path::getName));
    }

    private static List<FileStatus> list(FileSystem fs, Path dir) throws IOException {
        FileStatus[] children = fs.listStatus(dir);
        return children == null ? List.of() : List.of(children);
    }
}
