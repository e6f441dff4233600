package org.fraudpipe.job.replay;

import java.io.Closeable;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.PriorityQueue;
import java.util.concurrent.atomic.AtomicLong;
import java.util.stream.Stream;
import org.apache.avro.file.DataFileReader;
import org.apache.avro.file.DataFileWriter;
import org.apache.avro.specific.SpecificData;
import org.apache.avro.specific.SpecificDatumReader;
import org.apache.avro.specific.SpecificDatumWriter;
import org.apache.avro.specific.SpecificRecordBase;
import org.fraudpipe.job.cli.ProgressLine;
import org.fraudpipe.job.io.AtomicFiles;

/**
 * The client side of a replay's output: reads what {@link ReplaySinks} staged, puts it in the
 * output's canonical order and writes the final JSON Lines file.
 *
 * <p>Invariants: the final file's bytes depend only on the multiset of staged records, not on file
 * names, subtasks or their order; it is written next to its target and put in place only by the
 * caller's commit ({@link AtomicFiles#prepare}). Memory is bounded whatever the output's size: the
 * records are sorted in runs of at most {@link #RUN_LINES} lines; when there is more than one run,
 * each is spilled, sorted, to an Avro file in the staging directory, and the runs are merged.
 */
final class StagedOutput {

    static final String PART_PREFIX = "part";
    static final String PART_SUFFIX = ".avro";

    /**
     * Lines sorted in memory at a time: a run holds the records (about 1 KB for a feature pane on
     * the heap; their JSON is made only to break ties), so a run stays within a few hundred MB.
     */
    static final int RUN_LINES = 100_000;

    private StagedOutput() {}

    /**
     * One record and its JSON line, made when first needed: once per line when it is written, and
     * for the few records whose sort keys are equal.
     */
    static final class Line<T extends SpecificRecordBase> {
        private final T record;
        private String json;

        Line(T record) {
            this.record = record;
        }

        T record() {
            return record;
        }

        String json() {
            if (json == null) {
                json = AvroJson.toJsonLine(record);
            }
            return json;
        }
    }

    /** Receives an output's lines, in canonical order. */
    @FunctionalInterface
    interface LineSink<T> {
        void accept(T record, String json) throws IOException;
    }

    /**
     * Writes {@code output}'s canonical file for the records staged under {@code staging} next to
     * {@code outDir/<name>.jsonl}, handing each line to {@code observer} as it is written; the
     * caller commits the file when every output has been checked.
     */
    static <T extends SpecificRecordBase> AtomicFiles.Pending prepareCanonical(
            ReplayOutput<T> output,
            Path staging,
            Path outDir,
            LineSink<T> observer,
            ProgressLine progress)
            throws IOException {
        return AtomicFiles.prepare(
                outDir.resolve(output.fileName()),
                out ->
                        sort(
                                output,
                                staging,
                                RUN_LINES,
                                (record, json) -> {
                                    observer.accept(record, json);
                                    out.write(json);
                                    out.write('\n');
                                },
                                progress));
    }

    /**
     * Hands every record the sinks committed for {@code output} under {@code staging} to {@code
     * sink} in canonical order (the output's order, then the whole line), sorting at most {@code
     * runLines} in memory at a time; the records read, then the lines written, are shown on {@code
     * progress}.
     *
     * @throws IOException if a part file was left unfinished (the job did not complete)
     */
    static <T extends SpecificRecordBase> void sort(
            ReplayOutput<T> output,
            Path staging,
            int runLines,
            LineSink<T> sink,
            ProgressLine progress)
            throws IOException {
        Comparator<Line<T>> order = lineOrder(output);
        Path spill = staging.resolve(".sort-" + output.name());
        List<Path> runs = new ArrayList<>();
        List<Line<T>> run = new ArrayList<>();
        AtomicLong read = new AtomicLong();
        AtomicLong written = new AtomicLong();
        LineSink<T> counted =
                (record, json) -> {
                    sink.accept(record, json);
                    written.incrementAndGet();
                };
        progress.stage("sorting " + output.fileName(), read::get, () -> ProgressLine.UNKNOWN);
        try {
            for (Path part : parts(output, staging)) {
                try (DataFileReader<T> reader = reader(output, part)) {
                    while (reader.hasNext()) {
                        T record = reader.next();
                        read.incrementAndGet();
                        run.add(new Line<>(record));
                        if (run.size() == runLines) {
                            runs.add(spill(output, run, order, spill, runs.size()));
                        }
                    }
                }
            }
            if (runs.isEmpty()) {
                run.sort(order);
                progress.stage("writing " + output.fileName(), written::get, read::get);
                for (Line<T> line : run) {
                    counted.accept(line.record(), line.json());
                }
                return;
            }
            if (!run.isEmpty()) {
                runs.add(spill(output, run, order, spill, runs.size()));
            }
            progress.stage(
                    "writing " + output.fileName() + " (merging " + runs.size() + " sorted runs)",
                    written::get,
                    read::get);
            merge(output, runs, order, counted);
        } finally {
            for (Path file : runs) {
                Files.deleteIfExists(file);
            }
            Files.deleteIfExists(spill);
        }
    }

    private static <T extends SpecificRecordBase> Comparator<Line<T>> lineOrder(
            ReplayOutput<T> output) {
        Comparator<Line<T>> byRecord = Comparator.comparing(Line::record, output.order());
        return byRecord.thenComparing(Line::json);
    }

    /** The committed part files of {@code output}, none if the sink received nothing. */
    private static List<Path> parts(ReplayOutput<?> output, Path staging) throws IOException {
        Path dir = ReplaySinks.stagingDir(staging, output);
        if (!Files.isDirectory(dir)) {
            return List.of(); // the sink received nothing, so it created nothing
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
        }
        return files;
    }

    private static <T extends SpecificRecordBase> DataFileReader<T> reader(
            ReplayOutput<T> output, Path file) throws IOException {
        return new DataFileReader<>(file.toFile(), new SpecificDatumReader<>(output.type()));
    }

    /** Sorts {@code run}, writes it to a new run file under {@code dir} and empties it. */
    private static <T extends SpecificRecordBase> Path spill(
            ReplayOutput<T> output, List<Line<T>> run, Comparator<Line<T>> order, Path dir, int n)
            throws IOException {
        run.sort(order);
        Files.createDirectories(dir);
        Path file = dir.resolve("run-" + n + ".avro");
        try (DataFileWriter<T> writer =
                new DataFileWriter<>(new SpecificDatumWriter<>(output.type()))) {
            writer.create(SpecificData.get().getSchema(output.type()), file.toFile());
            for (Line<T> line : run) {
                writer.append(line.record());
            }
        }
        run.clear();
        return file;
    }

    /** A k-way merge of sorted run files: each file is read once, one block at a time. */
    private static <T extends SpecificRecordBase> void merge(
            ReplayOutput<T> output, List<Path> runs, Comparator<Line<T>> order, LineSink<T> sink)
            throws IOException {
        PriorityQueue<RunCursor<T>> heads =
                new PriorityQueue<>(runs.size(), Comparator.comparing(c -> c.head, order));
        List<RunCursor<T>> open = new ArrayList<>(runs.size());
        try {
            for (Path run : runs) {
                RunCursor<T> cursor = new RunCursor<>(reader(output, run));
                open.add(cursor);
                if (cursor.advance()) {
                    heads.add(cursor);
                }
            }
            while (!heads.isEmpty()) {
                RunCursor<T> first = heads.poll();
                sink.accept(first.head.record(), first.head.json());
                if (first.advance()) {
                    heads.add(first);
                }
            }
        } finally {
            for (RunCursor<T> cursor : open) {
                cursor.close();
            }
        }
    }

    /** A sorted run file being merged, with its next line. */
    private static final class RunCursor<T extends SpecificRecordBase> implements Closeable {
        private final DataFileReader<T> reader;
        private Line<T> head;

        RunCursor(DataFileReader<T> reader) {
            this.reader = reader;
        }

        /** Reads the next line into {@link #head}; false at the end of the run. */
        boolean advance() {
            if (!reader.hasNext()) {
                head = null;
                return false;
            }
            T record = reader.next();
            head = new Line<>(record);
            return true;
        }

        @Override
        public void close() throws IOException {
            reader.close();
        }
    }
}
