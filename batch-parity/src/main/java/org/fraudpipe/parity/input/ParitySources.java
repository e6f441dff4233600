package org.fraudpipe.parity.input;

import java.time.Duration;
import java.util.Map;
import org.apache.avro.specific.SpecificRecordBase;
import org.apache.flink.api.common.eventtime.WatermarkStrategy;
import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.connector.file.src.FileSource;
import org.apache.flink.connector.file.src.reader.TextLineInputFormat;
import org.apache.flink.core.fs.Path;
import org.apache.flink.formats.avro.typeutils.AvroTypeInfo;
import org.apache.flink.streaming.api.datastream.DataStream;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.fraudpipe.job.replay.AvroJson;
import org.fraudpipe.parity.AvroContainerFormat;
import org.fraudpipe.parity.ParityStreams;
import org.fraudpipe.schemas.archive.ArchiveStream;
import org.fraudpipe.schemas.avro.ArchivedTransaction;
import org.fraudpipe.schemas.avro.DeadLetter;
import org.fraudpipe.schemas.avro.FeatureRecord;
import org.fraudpipe.schemas.avro.LateRecord;
import org.fraudpipe.schemas.avro.ScoreRecord;
import org.fraudpipe.schemas.avro.TransactionScore;

/**
 * Bounded Flink sources over resolved {@link StreamInput}s: Flink's {@link FileSource} with the
 * archive's Avro container format, or JSON Lines (the replay's output representation) parsed by
 * {@link AvroJson}. Transactions in the replay's input format go through the replay's own ingest
 * ({@link ReplayTransactions}), so they get the positions and arrival times the job gives them.
 */
public final class ParitySources {

    private ParitySources() {}

    /**
     * @param futureTolerance the job's future tolerance, to flag quarantined records of a JSON
     *     Lines transactions file
     * @param withScores whether to read scores (null stream otherwise)
     */
    public static ParityStreams create(
            StreamExecutionEnvironment env,
            Map<ArchiveStream, StreamInput> inputs,
            Duration futureTolerance,
            boolean withScores) {
        StreamInput tx = inputs.get(ArchiveStream.TRANSACTIONS);
        DataStream<ArchivedTransaction> transactions =
                tx.format() == StreamInput.Format.JSON_LINES
                        ? ReplayTransactions.read(env, tx, futureTolerance)
                        : read(env, tx, ArchivedTransaction.class);
        DataStream<FeatureRecord> served =
                read(env, inputs.get(ArchiveStream.FEATURES), FeatureRecord.class);
        if (transactions == null || served == null) {
            throw new IllegalArgumentException(
                    "nothing to read for "
                            + (transactions == null ? "--transactions" : "--served")
                            + " in the period: no partition of it exists");
        }
        StreamInput scores = inputs.get(ArchiveStream.SCORES);
        return new ParityStreams(
                transactions,
                served,
                withScores && scores != null ? read(env, scores, ScoreRecord.class) : null,
                read(env, inputs.get(ArchiveStream.LATE), LateRecord.class),
                read(env, inputs.get(ArchiveStream.DEAD_LETTERS), DeadLetter.class));
    }

    /**
     * Adds the inputs of the per-transaction check to {@code streams}.
     *
     * @param history the transactions before the period within the trailing window, or null
     * @param transactionScores the served per-transaction scores (possibly without any file)
     * @param labels a labels file ({@link TransactionLabels}), or null
     */
    public static ParityStreams withTransactions(
            StreamExecutionEnvironment env,
            ParityStreams streams,
            StreamInput history,
            StreamInput transactionScores,
            String labels) {
        return streams.withTransactionInputs(
                history == null ? null : read(env, history, ArchivedTransaction.class),
                read(env, transactionScores, TransactionScore.class),
                labels == null ? null : TransactionLabels.read(env, labels));
    }

    /** The stream of {@code input}'s files, or null if there is nothing to read. */
    static <T extends SpecificRecordBase> DataStream<T> read(
            StreamExecutionEnvironment env, StreamInput input, Class<T> type) {
        TypeInformation<T> typeInfo = new AvroTypeInfo<>(type);
        String name = input == null ? type.getSimpleName() : input.stream().directory();
        if (input == null || input.paths().isEmpty()) {
            return null; // Flink has no empty bounded source; ParityStreams allows null
        }
        Path[] paths = input.paths().toArray(Path[]::new);
        if (input.format() == StreamInput.Format.AVRO) {
            FileSource<T> source =
                    FileSource.forRecordStreamFormat(new AvroContainerFormat<>(type), paths)
                            .build();
            return env.fromSource(source, WatermarkStrategy.noWatermarks(), "archive " + name);
        }
        FileSource<String> lines =
                FileSource.forRecordStreamFormat(new TextLineInputFormat(), paths).build();
        return env.fromSource(lines, WatermarkStrategy.noWatermarks(), "json lines " + name)
                .filter(line -> !line.isBlank())
                .map(line -> AvroJson.fromJsonLine(line, type), typeInfo)
                .name("parse " + name);
    }
}
