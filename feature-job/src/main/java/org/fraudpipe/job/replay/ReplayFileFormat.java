package org.fraudpipe.job.replay;

import java.io.IOException;
import java.util.Objects;
import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.connector.file.src.reader.SimpleStreamFormat;
import org.apache.flink.connector.file.src.reader.StreamFormat;
import org.apache.flink.core.fs.FSDataInputStream;
import org.fraudpipe.job.ingest.IngestedRecord;
import org.fraudpipe.job.ingest.RecordIngestor;

/**
 * The replay file as a Flink {@link StreamFormat}: one {@link IngestedRecord} per line, in file
 * order ({@link LineSplitter}, {@link ReplayLineIngestor}).
 *
 * <p>Not splittable (a {@link SimpleStreamFormat}): one reader reads the whole file from its first
 * line, which is what makes line numbers, the replay's clock and the order of records exact. On a
 * restore Flink re-reads the file and skips the records already emitted, so line numbers stay
 * right; the replay itself runs without checkpoints.
 *
 * <p>Files ending in {@code .gz}, {@code .bz2}, {@code .xz} or {@code .deflate} are decompressed by
 * Flink's file source before they reach this format.
 */
public final class ReplayFileFormat extends SimpleStreamFormat<IngestedRecord> {

    private static final long serialVersionUID = 1L;

    private final String sourceName;
    private final RecordIngestor ingestor;

    /**
     * @param sourceName the file's name (without directories), the dead letters' topic
     * @param ingestor the job's ingest rules (future tolerance)
     */
    public ReplayFileFormat(String sourceName, RecordIngestor ingestor) {
        this.sourceName = Objects.requireNonNull(sourceName, "sourceName");
        this.ingestor = Objects.requireNonNull(ingestor, "ingestor");
    }

    @Override
    public Reader<IngestedRecord> createReader(Configuration config, FSDataInputStream stream) {
        LineSplitter lines = new LineSplitter(stream);
        ReplayLineIngestor lineIngestor = new ReplayLineIngestor(sourceName, ingestor);
        return new Reader<>() {
            @Override
            public IngestedRecord read() throws IOException {
                byte[] line = lines.next();
                return line == null ? null : lineIngestor.ingest(line);
            }

            @Override
            public void close() throws IOException {
                stream.close();
            }
        };
    }

    @Override
    public TypeInformation<IngestedRecord> getProducedType() {
        return TypeInformation.of(IngestedRecord.class);
    }
}
