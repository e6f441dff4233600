package org.fraudpipe.job.replay;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.connector.file.src.FileSource;
import org.apache.flink.connector.file.src.enumerate.NonSplittingRecursiveEnumerator;
import org.apache.flink.core.fs.Path;
import org.apache.flink.streaming.api.datastream.DataStream;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.fraudpipe.job.ingest.IngestWatermarks;
import org.fraudpipe.job.ingest.IngestedRecord;
import org.fraudpipe.job.ingest.RecordIngestor;
import org.fraudpipe.job.scoring.release.FixedRegistry;
import org.fraudpipe.job.scoring.release.ModelReleases;
import org.fraudpipe.job.topology.OperatorNames;
import org.fraudpipe.job.topology.TransactionSource;
import org.fraudpipe.job.topology.Uids;
import org.fraudpipe.schemas.avro.ArchivedModelEvent;

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
    private final ModelReleases releases;

    /**
     * @param releases the registry the replay scores with: its events go to the archive too, so
     *     that the parity check over the replay's archive re-scores with the same releases
     */
    public ReplaySource(
            java.nio.file.Path file,
            Duration outOfOrderness,
            Duration futureTolerance,
            ModelReleases releases) {
        this.file = file;
        this.outOfOrderness = outOfOrderness;
        this.futureTolerance = futureTolerance;
        this.releases = releases;
    }

    public ReplaySource(
            java.nio.file.Path file, Duration outOfOrderness, Duration futureTolerance) {
        this(file, outOfOrderness, futureTolerance, ModelReleases.startupOnly());
    }

    @Override
    public DataStream<ArchivedModelEvent> createModelEvents(StreamExecutionEnvironment env) {
        if (!(releases instanceof ModelReleases.Fixed fixed)) {
            return null;
        }
        List<FixedRegistry.Entry> entries = fixed.entries();
        List<ArchivedModelEvent> events = new ArrayList<>(entries.size());
        for (int i = 0; i < entries.size(); i++) {
            events.add(
                    new ArchivedModelEvent(
                            entries.get(i).event(),
                            file.getFileName().toString(),
                            (long) i,
                            Instant.ofEpochMilli(entries.get(i).appendTime())));
        }
        return env.fromData(events, TypeInformation.of(ArchivedModelEvent.class))
                .uid(Uids.MODEL_EVENTS_SOURCE)
                .name(OperatorNames.MODEL_EVENTS_SOURCE)
                .setParallelism(1);
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
