package org.fraudpipe.job.testing;

import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import org.apache.flink.api.common.RuntimeExecutionMode;
import org.apache.flink.api.common.eventtime.WatermarkStrategy;
import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.ExecutionOptions;
import org.apache.flink.streaming.api.datastream.DataStream;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.util.CloseableIterator;
import org.fraudpipe.job.window.FeatureWindowSpec;
import org.fraudpipe.job.window.FeatureWindows;
import org.fraudpipe.schemas.avro.FeatureRecord;
import org.fraudpipe.schemas.avro.Transaction;

/**
 * The features recomputed over the complete input with the product's own feature code: {@link
 * FeatureWindows#apply} in Flink BATCH execution mode (on the test's MiniCluster), where every
 * window fires once over all of its records. What a streaming run must end up with when none of its
 * records was too late, quarantined or dead-lettered. (The parity module does this for real, with
 * explanations of every difference; tests only need the ideal values.)
 */
public final class BatchRecomputation {

    private BatchRecomputation() {}

    /** The ideal features of every (user, window) of {@code transactions}. */
    public static Map<Panes.Key, Panes.Features> features(
            Collection<Transaction> transactions, FeatureWindowSpec spec) throws Exception {
        Configuration conf = new Configuration();
        conf.set(ExecutionOptions.RUNTIME_MODE, RuntimeExecutionMode.BATCH);
        StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment(conf);
        env.setParallelism(2);
        DataStream<Transaction> input =
                env.fromData(new ArrayList<>(transactions), TypeInformation.of(Transaction.class))
                        .assignTimestampsAndWatermarks(
                                WatermarkStrategy.<Transaction>forMonotonousTimestamps()
                                        .withTimestampAssigner(
                                                (tx, previous) ->
                                                        tx.getEventTime().toEpochMilli()));
        List<FeatureRecord> panes = new ArrayList<>();
        try (CloseableIterator<FeatureRecord> it =
                FeatureWindows.apply(input, spec).features().executeAndCollect("batch recompute")) {
            it.forEachRemaining(panes::add);
        }
        Panes.assertEachPaneOnce(panes);
        return Panes.finalFeatures(panes);
    }
}
