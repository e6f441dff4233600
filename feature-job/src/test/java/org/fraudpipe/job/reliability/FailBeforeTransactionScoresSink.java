package org.fraudpipe.job.reliability;

import org.apache.flink.api.common.functions.FlatMapFunction;
import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.streaming.api.datastream.DataStream;
import org.apache.flink.util.Collector;
import org.fraudpipe.job.topology.OutputSinks;
import org.fraudpipe.schemas.avro.DeadLetter;
import org.fraudpipe.schemas.avro.FeatureRecord;
import org.fraudpipe.schemas.avro.LateRecord;
import org.fraudpipe.schemas.avro.ScoreRecord;
import org.fraudpipe.schemas.avro.TransactionScore;

/**
 * Injects one task failure into the per-transaction path, just before the transaction-scores sink
 * (chained to the scoring, the trailing features and that sink: the whole chain fails and the job
 * restarts from its last completed checkpoint). Once its {@link FailureSwitch} is armed, the first
 * subtask with a score hands it to the sink and then throws: everything the path answered since the
 * checkpoint is answered again after the restart, from the restored state.
 */
final class FailBeforeTransactionScoresSink
        implements FlatMapFunction<TransactionScore, TransactionScore> {

    private static final long serialVersionUID = 1L;

    private final String switchName;

    private FailBeforeTransactionScoresSink(String switchName) {
        this.switchName = switchName;
    }

    /** The job's sinks, with the failure injected before the transaction-scores sink. */
    static OutputSinks wrap(OutputSinks sinks, String switchName) {
        return new OutputSinks() {
            @Override
            public void features(DataStream<FeatureRecord> features) {
                sinks.features(features);
            }

            @Override
            public void scores(DataStream<ScoreRecord> scores) {
                sinks.scores(scores);
            }

            @Override
            public void late(DataStream<LateRecord> late) {
                sinks.late(late);
            }

            @Override
            public void deadLetters(DataStream<DeadLetter> deadLetters) {
                sinks.deadLetters(deadLetters);
            }

            @Override
            public void transactionScores(DataStream<TransactionScore> transactionScores) {
                sinks.transactionScores(
                        transactionScores
                                .flatMap(
                                        new FailBeforeTransactionScoresSink(switchName),
                                        TypeInformation.of(TransactionScore.class))
                                .uid("test-failure-before-transaction-scores-sink")
                                .name("Inject failure"));
            }
        };
    }

    @Override
    public void flatMap(TransactionScore score, Collector<TransactionScore> out) throws Exception {
        out.collect(score);
        if (FailureSwitch.named(switchName).trip()) {
            throw new FailBeforeFeaturesSink.InjectedFailure(
                    "injected failure after transaction score " + score.getTransactionId());
        }
    }
}
