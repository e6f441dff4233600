package org.fraudpipe.job.replay;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.stream.Stream;
import org.apache.avro.file.DataFileReader;
import org.apache.avro.specific.SpecificDatumReader;
import org.apache.avro.specific.SpecificRecordBase;
import org.fraudpipe.job.io.AtomicFiles;

/**
 * The client side of a replay's output: reads what {@link ReplaySinks} staged, puts it in the
 * output's canonical order and writes the final JSON Lines file atomically.
 *
 * <p>Invariants: the final file is either absent, the previous version, or complete (written to a
 * hidden temporary file in the same directory, then renamed over the target); its bytes depend only
 * on the multiset of staged records, not on file names, subtasks or their order. Everything is held
 * in memory while sorting (known limit: replays are sized for tests and incidents, not for
 * backfills).
 */
final class StagedOutput {

    static final String PART_PREFIX = "part";
    static final String PART_SUFFIX = ".avro";

    private StagedOutput() {}

    /** One record with its JSON line. */
    record Line<T>(T record, String json) {}

    /**
     * Every record the sinks committed for {@code output} under {@code staging}.
     *
     * @throws IOException if a part file was left unfinished (the job did not complete)
     */
    static <T extends SpecificRecordBase> List<T> read(ReplayOutput<T> output, Path staging)
            throws IOException {
        Path dir = ReplaySinks.stagingDir(staging, output);
        List<T> records = new ArrayList<>();
        if (!Files.isDirectory(dir)) {
            return records; // the sink received nothing, so it created nothing
        }
        List<Path> files;
        try (Stream<Path> listing = Files.list(dir)) {
            files = listing.sorted().toList();
        }
        for (Path file : files) {
            String name = file.getFileName().toString();
            if (!name.startsWith(PART_PREFIX) || !name.endsWith(PART_SUFFIX)) {
                throw new IOException(
                        "unfinished or unexpected file "
                                + file
                                + " in the replay's staging directory: the job did not complete"
                                + " its "
                                + output.name()
                                + " output");
            }
            try (DataFileReader<T> reader =
                    new DataFileReader<>(file.toFile(), new SpecificDatumReader<>(output.type()))) {
                while (reader.hasNext()) {
                    records.add(reader.next());
                }
            }
        }
        return records;
    }

    /** The records as JSON lines in the output's canonical order, whole line breaking ties. */
    static <T extends SpecificRecordBase> List<Line<T>> canonical(
            ReplayOutput<T> output, List<T> records) {
        List<Line<T>> lines = new ArrayList<>(records.size());
        for (T r : records) {
            lines.add(new Line<>(r, AvroJson.toJsonLine(r)));
        }
        Comparator<Line<T>> byRecord = Comparator.comparing(Line::record, output.order());
        lines.sort(byRecord.thenComparing(Line::json));
        return lines;
    }

    /**
     * Writes the lines ({@code \n}-terminated, UTF-8) to {@code dir/fileName}, replacing it
     * atomically.
     */
    static Path writeAtomically(Path dir, String fileName, List<? extends Line<?>> lines)
            throws IOException {
        return AtomicFiles.write(
                dir.resolve(fileName),
                out -> {
                    for (Line<?> line : lines) {
                        out.write(line.json());
                        out.write('\n');
                    }
                });
    }
}
