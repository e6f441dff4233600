package org.fraudpipe.job.replay;

import java.time.Duration;
import org.apache.flink.connector.file.src.FileSource;
import org.apache.flink.connector.file.src.enumerate.NonSplittingRecursiveEnumerator;
import org.apache.flink.core.fs.Path;
import org.apache.flink.streaming.api.datastream.DataStream;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.fraudpipe.job.ingest.IngestWatermarks;
import org.fraudpipe.job.ingest.IngestedRecord;
import org.fraudpipe.job.ingest.RecordIngestor;
import org.fraudpipe.job.topology.OperatorNames;
import org.fraudpipe.job.topology.TransactionSource;
import org.fraudpipe.job.topology.Uids;

/**
 * The replay's {@link TransactionSource}: a bounded {@link FileSource} over one JSON Lines file
 * ({@link ReplayFileFormat}) with a watermark after every record ({@link
 * IngestWatermarks#perRecord}), at parallelism 1.
 *
 * <p>Why parallelism 1: one reader emits every record and every watermark in file order, and the
 * ingest router (which runs at its source's parallelism) forwards them on; each window subtask then
 * has exactly one input channel, so what it sees (records, watermarks, and their interleaving) is
 * fixed by the file, whatever the window parallelism. That makes panes, revisions and late
 * decisions deterministic.
 */
public final class ReplaySource implements TransactionSource {

    private final java.nio.file.Path file;
    private final Duration outOfOrderness;
    private final Duration futureTolerance;

    public ReplaySource(
            java.nio.file.Path file, Duration outOfOrderness, Duration futureTolerance) {
        this.file = file;
        this.outOfOrderness = outOfOrderness;
        this.futureTolerance = futureTolerance;
    }

    @Override
    public DataStream<IngestedRecord> create(StreamExecutionEnvironment env) {
        ReplayFileFormat format =
                new ReplayFileFormat(
                        file.getFileName().toString(), new RecordIngestor(futureTolerance));
        FileSource<IngestedRecord> source =
                FileSource.forRecordStreamFormat(format, Path.fromLocalFile(file.toFile()))
                        // The default filter skips names starting with '.' or '_', even when the
                        // path is the file itself: a replay reads the file it is given.
                        .setFileEnumerator(() -> new NonSplittingRecursiveEnumerator(p -> true))
                        .build();
        return env.fromSource(
                        source,
                        IngestWatermarks.perRecord(outOfOrderness),
                        OperatorNames.REPLAY_SOURCE)
                .uid(Uids.REPLAY_SOURCE)
                .setParallelism(1);
    }
}
