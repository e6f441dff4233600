package org.fraudpipe.tools.advise;

import java.io.IOException;
import java.io.InputStream;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.avro.file.DataFileStream;
import org.apache.avro.specific.SpecificDatumReader;
import org.apache.flink.api.common.io.InputStreamFSInputWrapper;
import org.apache.flink.api.common.io.compression.InflaterInputStreamFactory;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.connector.file.src.compression.StandardDeCompressors;
import org.apache.flink.connector.file.src.reader.StreamFormat;
import org.apache.flink.core.fs.FSDataInputStream;
import org.apache.flink.core.fs.FileStatus;
import org.apache.flink.core.fs.FileSystem;
import org.apache.flink.core.fs.Path;
import org.fraudpipe.job.ingest.IngestedRecord;
import org.fraudpipe.job.ingest.RecordIngestor;
import org.fraudpipe.job.replay.ReplayFileFormat;
import org.fraudpipe.parity.input.StreamInput;
import org.fraudpipe.schemas.avro.ArchivedTransaction;
import org.fraudpipe.schemas.avro.Transaction;

/**
 * Reads recorded traffic into a {@link RecordedTraffic}, with the job's own ingest rules: a replay
 * file through the replay's own format ({@link ReplayFileFormat}: the same line splitting,
 * decoding, validation and future-dated rule, {@link RecordIngestor}, with the line's {@code
 * arrivalTime} as arrival), an archive's transactions with {@link RecordIngestor#arrivalTime} and
 * {@link RecordIngestor#isFutureDated}.
 */
final class TrafficReader {

    private TrafficReader() {}

    /**
     * A replay input file, in file order (the replay's arrival order), decompressed by extension as
     * Flink's file source does.
     *
     * @param read counts the lines read, for the progress line
     */
    static RecordedTraffic replayFile(
            java.nio.file.Path file, Duration futureTolerance, AtomicLong read) throws IOException {
        String name = file.getFileName().toString();
        RecordedTraffic.Builder b = new RecordedTraffic.Builder(name);
        int partition = b.partition(name);
        ReplayFileFormat format = new ReplayFileFormat(name, new RecordIngestor(futureTolerance));
        Path path = Path.fromLocalFile(file.toFile());
        FSDataInputStream in = path.getFileSystem().open(path);
        InflaterInputStreamFactory<?> inflater =
                StandardDeCompressors.getDecompressorForFileName(path.getPath());
        if (inflater != null) {
            in = new InputStreamFSInputWrapper(inflater.create(in));
        }
        try (StreamFormat.Reader<IngestedRecord> reader =
                format.createReader(new Configuration(), in)) {
            IngestedRecord r;
            long line = 0;
            while ((r = reader.read()) != null) {
                line++;
                read.set(line);
                if (r.transaction == null) {
                    b.deadLetter();
                    continue;
                }
                Transaction tx = r.transaction;
                b.add(
                        tx.getTransactionId(),
                        tx.getUserId(),
                        tx.getEventTime().toEpochMilli(),
                        r.arrivalTime(),
                        partition,
                        line,
                        r.futureDated);
            }
        }
        return b.inReadOrder();
    }

    /**
     * The transactions of an archive (the files {@code input} names: hour partitions of the period
     * plus the arrival horizon), in arrival order: per Kafka partition by offset, across partitions
     * by arrival time ({@link RecordedTraffic.Builder#inArrivalOrder}).
     *
     * @param read counts the records read, for the progress line
     */
    static RecordedTraffic archive(
            StreamInput input, String described, Duration futureTolerance, AtomicLong read)
            throws IOException {
        RecordedTraffic.Builder b = new RecordedTraffic.Builder(described);
        long tolerance = futureTolerance.toMillis();
        List<Path> files = new ArrayList<>();
        for (Path p : input.paths()) {
            collect(p, files);
        }
        files.sort(Comparator.comparing(Path::toString));
        SpecificDatumReader<ArchivedTransaction> datum =
                new SpecificDatumReader<>(ArchivedTransaction.class);
        for (Path file : files) {
            try (InputStream in = file.getFileSystem().open(file);
                    DataFileStream<ArchivedTransaction> records = new DataFileStream<>(in, datum)) {
                ArchivedTransaction a = null;
                while (records.hasNext()) {
                    a = records.next(a);
                    Transaction tx = a.getTransaction();
                    long arrival =
                            RecordIngestor.arrivalTime(
                                    a.getRecordTimestamp() == null
                                            ? null
                                            : a.getRecordTimestamp().toEpochMilli(),
                                    a.getReceivedAt().toEpochMilli());
                    long eventTime = tx.getEventTime().toEpochMilli();
                    b.add(
                            tx.getTransactionId(),
                            tx.getUserId(),
                            eventTime,
                            arrival,
                            b.partition(a.getSourceTopic() + "-" + a.getSourcePartition()),
                            a.getSourceOffset(),
                            RecordIngestor.isFutureDated(eventTime, arrival, tolerance));
                    read.incrementAndGet();
                }
            }
        }
        return b.inArrivalOrder(TrafficReader::comparePartitionNames);
    }

    /** {@code topic-N} names by topic, then partition number. */
    static int comparePartitionNames(String a, String c) {
        int da = a.lastIndexOf('-');
        int dc = c.lastIndexOf('-');
        int byTopic = a.substring(0, Math.max(0, da)).compareTo(c.substring(0, Math.max(0, dc)));
        if (byTopic != 0) {
            return byTopic;
        }
        try {
            return Integer.compare(
                    Integer.parseInt(a.substring(da + 1)), Integer.parseInt(c.substring(dc + 1)));
        } catch (NumberFormatException e) {
            return a.compareTo(c);
        }
    }

    /** Committed files under {@code p} (names starting with {@code .} or {@code _} skipped). */
    private static void collect(Path p, List<Path> files) throws IOException {
        FileSystem fs = p.getFileSystem();
        FileStatus status = fs.getFileStatus(p);
        if (!status.isDir()) {
            files.add(p);
            return;
        }
        FileStatus[] children = fs.listStatus(p);
        if (children == null) {
            return;
        }
        for (FileStatus child : children) {
            String name = child.getPath().getName();
            if (!name.startsWith(".") && !name.startsWith("_")) {
                collect(child.getPath(), files);
            }
        }
    }
}
