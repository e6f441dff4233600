package org.fraudpipe.job.replay;

import java.nio.file.Path;
import org.apache.avro.specific.SpecificRecordBase;
import org.apache.flink.connector.file.sink.FileSink;
import org.apache.flink.formats.avro.AvroWriters;
import org.apache.flink.streaming.api.datastream.DataStream;
import org.apache.flink.streaming.api.functions.sink.filesystem.OutputFileConfig;
import org.apache.flink.streaming.api.functions.sink.filesystem.bucketassigners.BasePathBucketAssigner;
import org.fraudpipe.job.topology.OperatorNames;
import org.fraudpipe.job.topology.OutputSinks;
import org.fraudpipe.job.topology.Uids;
import org.fraudpipe.schemas.avro.DeadLetter;
import org.fraudpipe.schemas.avro.FeatureRecord;
import org.fraudpipe.schemas.avro.LateRecord;
import org.fraudpipe.schemas.avro.ScoreRecord;
import org.fraudpipe.schemas.avro.TransactionScore;

/**
 * The replay's {@link OutputSinks}: each output stream goes through a {@link FileSink} into its own
 * staging directory, {@code <staging>/<output name>/}, as Avro container files (one per sink
 * subtask, {@code part-*.avro}), in whatever order the subtasks produce. {@link StagedOutput} then
 * sorts them into the final JSON Lines file.
 *
 * <p>Without checkpoints a {@link FileSink} commits its files when its input ends (end of the
 * bounded replay); a staging directory holding unfinished (hidden, in-progress) files after the job
 * therefore means the job did not finish, and {@link StagedOutput} refuses it.
 */
public final class ReplaySinks implements OutputSinks {

    private final Path staging;

    /**
     * @param staging an empty directory, private to one replay
     */
    public ReplaySinks(Path staging) {
        this.staging = staging;
    }

    @Override
    public void features(DataStream<FeatureRecord> features) {
        features.sinkTo(fileSink(ReplayOutput.FEATURES))
                .uid(Uids.REPLAY_FEATURES_SINK)
                .name(OperatorNames.REPLAY_FEATURES_SINK);
    }

    @Override
    public void scores(DataStream<ScoreRecord> scores) {
        scores.sinkTo(fileSink(ReplayOutput.SCORES))
                .uid(Uids.REPLAY_SCORES_SINK)
                .name(OperatorNames.REPLAY_SCORES_SINK);
    }

    @Override
    public void late(DataStream<LateRecord> late) {
        late.sinkTo(fileSink(ReplayOutput.LATE))
                .uid(Uids.REPLAY_LATE_SINK)
                .name(OperatorNames.REPLAY_LATE_SINK);
    }

    @Override
    public void deadLetters(DataStream<DeadLetter> deadLetters) {
        deadLetters
                .sinkTo(fileSink(ReplayOutput.DEAD_LETTERS))
                .uid(Uids.REPLAY_DEAD_LETTERS_SINK)
                .name(OperatorNames.REPLAY_DEAD_LETTERS_SINK);
    }

    @Override
    public void transactionScores(DataStream<TransactionScore> transactionScores) {
        transactionScores
                .sinkTo(fileSink(ReplayOutput.TRANSACTION_SCORES))
                .uid(Uids.REPLAY_TRANSACTION_SCORES_SINK)
                .name(OperatorNames.REPLAY_TRANSACTION_SCORES_SINK);
    }

    /** The staging directory of one output. */
    public static Path stagingDir(Path staging, ReplayOutput<?> output) {
        return staging.resolve(output.name());
    }

    private <T extends SpecificRecordBase> FileSink<T> fileSink(ReplayOutput<T> output) {
        return FileSink.forBulkFormat(
                        org.apache.flink.core.fs.Path.fromLocalFile(
                                stagingDir(staging, output).toFile()),
                        AvroWriters.forSpecificRecord(output.type()))
                .withBucketAssigner(new BasePathBucketAssigner<>())
                .withOutputFileConfig(
                        OutputFileConfig.builder()
                                .withPartPrefix(StagedOutput.PART_PREFIX)
                                .withPartSuffix(StagedOutput.PART_SUFFIX)
                                .build())
                .build();
    }
}
