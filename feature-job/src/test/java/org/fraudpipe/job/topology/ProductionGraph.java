package org.fraudpipe.job.topology;

import java.util.function.Consumer;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.streaming.api.graph.StreamGraph;
import org.apache.flink.streaming.api.graph.StreamNode;
import org.fraudpipe.job.KafkaFeatureJob;
import org.fraudpipe.job.config.JobConfig;
import org.fraudpipe.job.scoring.OnnxPaneScorer;
import org.fraudpipe.job.transaction.OnnxTransactionScorer;

/** The production job's stream graph (Kafka source and sinks, both paths), built but not run. */
final class ProductionGraph {

    private ProductionGraph() {}

    static StreamGraph of(JobConfig config) {
        return of(config, conf -> {});
    }

    /** As {@code ./fraud job} builds it, with {@code tweak} applied to its Flink configuration. */
    static StreamGraph of(JobConfig config, Consumer<Configuration> tweak) {
        Configuration conf = JobEnvironment.flinkConfiguration(config);
        tweak.accept(conf);
        StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment(conf);
        FeatureJobTopology.build(
                env,
                KafkaFeatureJob.plan(
                        config,
                        OnnxPaneScorer.Factory.of(config),
                        OnnxTransactionScorer.Factory.of(config)));
        return env.getStreamGraph();
    }

    static StreamNode node(StreamGraph g, String name) {
        return g.getStreamNodes().stream()
                .filter(n -> n.getOperatorName().equals(name))
                .findFirst()
                .orElseThrow(() -> new AssertionError("no operator " + name));
    }
}
