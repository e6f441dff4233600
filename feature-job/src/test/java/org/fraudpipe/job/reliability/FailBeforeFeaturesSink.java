package org.fraudpipe.job.reliability;

import org.apache.flink.api.common.functions.MapFunction;
import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.streaming.api.datastream.DataStream;
import org.fraudpipe.job.topology.OutputSinks;
import org.fraudpipe.schemas.avro.DeadLetter;
import org.fraudpipe.schemas.avro.FeatureRecord;
import org.fraudpipe.schemas.avro.LateRecord;
import org.fraudpipe.schemas.avro.ScoreRecord;

/**
 * Injects one task failure into the features path, just before the exactly-once features sink
 * (chained to the window operator and its sinks, so the whole chain fails and the job restarts from
 * its last completed checkpoint).
 *
 * <p>Once its {@link FailureSwitch} is armed, a subtask lets its first pane through to the sink
 * (into the sink's open Kafka transaction) and trips the switch on its second: it then blocks, so
 * no checkpoint can complete and the open transactions stay open, until the test releases it, and
 * throws. The records written since the last checkpoint must then be aborted and written again by
 * the restarted job; a {@code read_committed} reader must see each pane once.
 */
final class FailBeforeFeaturesSink implements MapFunction<FeatureRecord, FeatureRecord> {

    private static final long serialVersionUID = 1L;

    private final String switchName;
    private transient int panesSinceArmed;

    private FailBeforeFeaturesSink(String switchName) {
        this.switchName = switchName;
    }

    /** The job's sinks, with the failure injected before the features sink. */
    static OutputSinks wrap(OutputSinks sinks, String switchName) {
        return new OutputSinks() {
            @Override
            public void features(DataStream<FeatureRecord> features) {
                sinks.features(
                        features.map(
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
        };
    }

    @Override
    public FeatureRecord map(FeatureRecord pane) throws Exception {
        FailureSwitch failure = FailureSwitch.named(switchName);
        if (failure.isArmed() && ++panesSinceArmed >= 2 && failure.trip()) {
            failure.awaitRelease();
            throw new InjectedFailure(
                    "injected failure after a completed checkpoint, at pane "
                            + pane.getUserId()
                            + "@"
                            + pane.getWindowStart());
        }
        return pane;
    }

    /** The injected failure (so logs show it is the test's). */
    static final class InjectedFailure extends Exception {
        private static final long serialVersionUID = 1L;

        InjectedFailure(String message) {
            super(message);
        }
    }
}
