package org.fraudpipe.parity.input;

import java.io.IOException;
import java.io.InputStream;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import org.apache.avro.file.DataFileStream;
import org.apache.avro.specific.SpecificDatumReader;
import org.apache.flink.core.fs.FileStatus;
import org.apache.flink.core.fs.FileSystem;
import org.apache.flink.core.fs.Path;
import org.fraudpipe.job.position.ReadPositions;
import org.fraudpipe.schemas.archive.ArchiveStream;
import org.fraudpipe.schemas.avro.ReadPosition;

/**
 * Reads where the job's readers stood from an archive's {@code read-positions/}, on the client,
 * newest hour partition first: each job records every partition of its readers at every checkpoint,
 * so the newest hour that holds a reader's records holds its latest position (older ones add
 * nothing: positions only grow). Hours are read until both readers were found or {@value
 * #MAX_HOURS} hours back: a split deployment's two jobs checkpoint at their own intervals, so the
 * newest hour may hold only one of them. An archive without the directory (written before positions
 * were recorded, or by hand) gives {@link ReadPositions#NONE}: nothing is then excused as not yet
 * read.
 */
public final class ReadPositionsReader {

    /** How far back to look for a reader that recorded nothing in the newer hours. */
    static final int MAX_HOURS = 48;

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
            List<ReadPosition> recorded = new ArrayList<>();
            java.util.Set<String> readers = new java.util.HashSet<>();
            int hours = 0;
            for (Path day : newestFirst(fs, dir, "date=")) {
                for (Path hour : newestFirst(fs, day, "hour=")) {
                    if (hours++ == MAX_HOURS
                            || readers.size() == ReadPositions.Reader.values().length) {
                        return ReadPositions.of(recorded);
                    }
                    for (ReadPosition p : readHour(fs, hour)) {
                        recorded.add(p);
                        readers.add(p.getReader());
                    }
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

    private static List<ReadPosition> readHour(FileSystem fs, Path hour) throws IOException {
        List<ReadPosition> recorded = new ArrayList<>();
        for (FileStatus f : list(fs, hour)) {
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
        return recorded;
    }

    private static List<Path> newestFirst(FileSystem fs, Path dir, String prefix)
            throws IOException {
        return list(fs, dir).stream()
                .filter(FileStatus::isDir)
                .map(FileStatus::getPath)
                .filter(p -> p.getName().startsWith(prefix))
                .sorted(Comparator.comparing(Path::getName).reversed())
                .toList();
    }

    private static List<FileStatus> list(FileSystem fs, Path dir) throws IOException {
        FileStatus[] children = fs.listStatus(dir);
        return children == null ? List.of() : List.of(children);
    }
}
