package org.fraudpipe.parity.input;

import java.time.Duration;
import org.apache.flink.api.common.eventtime.WatermarkStrategy;
import org.apache.flink.connector.file.src.FileSource;
import org.apache.flink.connector.file.src.enumerate.NonSplittingRecursiveEnumerator;
import org.apache.flink.core.fs.Path;
import org.apache.flink.formats.avro.typeutils.AvroTypeInfo;
import org.apache.flink.streaming.api.datastream.DataStream;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.fraudpipe.job.archive.ReceivedTransactions;
import org.fraudpipe.job.ingest.IngestedRecord;
import org.fraudpipe.job.ingest.RecordIngestor;
import org.fraudpipe.job.replay.ReplayFileFormat;
import org.fraudpipe.schemas.avro.ArchivedTransaction;

/**
 * Transactions from files in the replay's input format (the simulator's JSON Lines, arrival order),
 * read exactly as {@code ./fraud replay} reads them ({@link ReplayFileFormat}, the same {@link
 * RecordIngestor}): each valid line becomes the {@link ArchivedTransaction} the replay's archive
 * would hold (position = file name, partition 0, line number; received at its arrival time;
 * quarantined by the same future-dated rule). Lines the replay dead-letters are not transactions
 * and are skipped.
 */
final class ReplayTransactions {

    private ReplayTransactions() {}

    static DataStream<ArchivedTransaction> read(
            StreamExecutionEnvironment env, StreamInput input, Duration futureTolerance) {
        DataStream<ArchivedTransaction> out = null;
        for (Path file : input.paths()) {
            ReplayFileFormat format =
                    new ReplayFileFormat(file.getName(), new RecordIngestor(futureTolerance));
            FileSource<IngestedRecord> source =
                    FileSource.forRecordStreamFormat(format, file)
                            .setFileEnumerator(() -> new NonSplittingRecursiveEnumerator(p -> true))
                            .build();
            DataStream<ArchivedTransaction> one =
                    env.fromSource(
                                    source,
                                    WatermarkStrategy.noWatermarks(),
                                    "replay transactions " + file.getName())
                            .filter(r -> r.transaction != null)
                            .map(
                                    ReceivedTransactions::toArchived,
                                    new AvroTypeInfo<>(ArchivedTransaction.class))
                            .name("as archived");
            out = out == null ? one : out.union(one);
        }
        return out;
    }
}
