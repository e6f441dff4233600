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
 * Injects one task failure into the features path, just before the exactly-once features sink
 * (chained to the window operator and its sinks, so the whole chain fails and the job restarts from
 * its last completed checkpoint).
 *
 * <p>Once its {@link FailureSwitch} is armed, the first subtask with a pane passes it to the sink
 * (the sink writes it into its open Kafka transaction, synchronously, in the same call) and trips
 * the switch: it then blocks, so no checkpoint can complete and the open transactions stay open,
 * until the test releases it, and throws. The records written since the last checkpoint must then
 * be aborted and written again by the restarted job; a {@code read_committed} reader must see each
 * pane once.
 */
final class FailBeforeFeaturesSink implements FlatMapFunction<FeatureRecord, FeatureRecord> {

    private static final long serialVersionUID = 1L;

    private final String switchName;

    private FailBeforeFeaturesSink(String switchName) {
        this.switchName = switchName;
    }

    /** The job's sinks, with the failure injected before the features sink. */
    static OutputSinks wrap(OutputSinks sinks, String switchName) {
        return new OutputSinks() {
            @Override
            public void features(DataStream<FeatureRecord> features) {
                sinks.features(
                        features.flatMap(
                                        new FailBeforeFeaturesSink(switchName),
                                        TypeInformation.of(FeatureRecord.class))
                                .uid("test-failure-before-features-sink")
                                .name("Inject failure"));
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
                sinks.transactionScores(transactionScores);
            }
        };
    }

    @Override
    public void flatMap(FeatureRecord pane, Collector<FeatureRecord> out) throws Exception {
        out.collect(pane);
        FailureSwitch failure = FailureSwitch.named(switchName);
        if (failure.trip()) {
            // The pane is in the sink's open transaction now, and nothing can commit it.
            failure.awaitRelease();
            throw new InjectedFailure(
                    "injected failure after a completed checkpoint, after pane "
                            + pane.getUserId()
                            + "@"
                            + pane.getWindowStart());
        }
    }

    /** The injected failure (so logs show it is the test's). */
    static final class InjectedFailure extends Exception {
        private static final long serialVersionUID = 1L;

        InjectedFailure(String message) {
            super(message);
        }
    }
}
