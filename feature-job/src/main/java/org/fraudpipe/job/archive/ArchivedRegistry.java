package org.fraudpipe.job.archive;

import java.io.IOException;
import java.io.InputStream;
import java.util.ArrayList;
import java.util.List;
import java.util.TreeMap;
import org.apache.avro.file.DataFileStream;
import org.apache.avro.specific.SpecificDatumReader;
import org.apache.flink.core.fs.FileStatus;
import org.apache.flink.core.fs.FileSystem;
import org.apache.flink.core.fs.Path;
import org.fraudpipe.job.scoring.release.FixedRegistry;
import org.fraudpipe.job.scoring.release.ModelReleases;
import org.fraudpipe.schemas.archive.ArchiveStream;
import org.fraudpipe.schemas.avro.ArchivedModelEvent;

/**
 * Rebuilds the model registry the job followed from an archive's {@code model-events/} (what the
 * parity check and a replay score with), on the client: every committed record, one per registry
 * offset (an event archived twice, by both jobs of a split or after a restart without a checkpoint,
 * counts once), in the topic's order. The parity check re-scores each record with the release the
 * same rule picks for it ({@link ModelReleases.Fixed}). An archive without the directory (a job
 * with {@code --model-registry off}, or written before releases) gives {@link
 * ModelReleases#startupOnly()}.
 */
public final class ArchivedRegistry {

    private ArchivedRegistry() {}

    /**
     * The registry archived under {@code archiveRoot}.
     *
     * @throws java.io.UncheckedIOException naming the directory if it cannot be read
     */
    public static ModelReleases read(String archiveRoot) {
        Path dir = new Path(archiveRoot, ArchiveStream.MODEL_EVENTS.directory());
        try {
            FileSystem fs = dir.getFileSystem();
            if (!fs.exists(dir)) {
                return ModelReleases.startupOnly();
            }
            TreeMap<Long, ArchivedModelEvent> byOffset = new TreeMap<>();
            collect(fs, dir, byOffset);
            if (byOffset.isEmpty()) {
                return ModelReleases.startupOnly();
            }
            List<FixedRegistry.Entry> entries = new ArrayList<>(byOffset.size());
            for (ArchivedModelEvent e : byOffset.values()) {
                entries.add(
                        new FixedRegistry.Entry(e.getEvent(), e.getAppendTime().toEpochMilli()));
            }
            return ModelReleases.Fixed.of(entries);
        } catch (IOException e) {
            throw new java.io.UncheckedIOException(
                    "cannot read the model registry archived under " + dir + ": " + e.getMessage(),
                    e);
        }
    }

    /** Every committed record under {@code dir}, its date and hour partitions included. */
    private static void collect(FileSystem fs, Path dir, TreeMap<Long, ArchivedModelEvent> out)
            throws IOException {
        FileStatus[] children = fs.listStatus(dir);
        if (children == null) {
            return;
        }
        for (FileStatus f : children) {
            String name = f.getPath().getName();
            if (name.startsWith(".") || name.startsWith("_")) {
                continue; // in progress or pending: not committed
            }
            if (f.isDir()) {
                collect(fs, f.getPath(), out);
                continue;
            }
            try (InputStream in = fs.open(f.getPath());
                    DataFileStream<ArchivedModelEvent> records =
                            new DataFileStream<>(
                                    in, new SpecificDatumReader<>(ArchivedModelEvent.class))) {
                for (ArchivedModelEvent e : records) {
                    out.putIfAbsent(e.getSourceOffset(), e);
                }
            }
        }
    }
}
