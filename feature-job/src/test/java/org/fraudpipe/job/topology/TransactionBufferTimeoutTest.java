package org.fraudpipe.job.topology;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Map;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.streaming.api.graph.StreamEdge;
import org.apache.flink.streaming.api.graph.StreamGraph;
import org.apache.flink.streaming.api.graph.StreamNode;
import org.fraudpipe.job.config.JobConfig;
import org.fraudpipe.job.kafka.KafkaIO;
import org.fraudpipe.job.scoring.OnnxPaneScorer;
import org.fraudpipe.job.transaction.OnnxTransactionScorer;
import org.fraudpipe.job.window.FeatureWindowSpec;
import org.junit.jupiter.api.Test;

/**
 * The per-transaction path's one network edge (filter to keyed trailing features) sends its buffers
 * after {@code --transaction-buffer-timeout}; every other edge keeps Flink's default.
 */
class TransactionBufferTimeoutTest {

    private static StreamGraph graph(JobConfig config) {
        Configuration conf = JobEnvironment.flinkConfiguration(config);
        StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment(conf);
        FeatureJobTopology.build(
                env,
                KafkaIO.source(config),
                new FeatureWindowSpec(config.windowSize(), config.allowedLateness()),
                new FeatureJobTopology.Scoring(
                        OnnxPaneScorer.Factory.of(config),
                        config.scoringBatchSize(),
                        config.scoringMaxDelay(),
                        new FeatureJobTopology.PerTransaction(
                                OnnxTransactionScorer.Factory.of(config),
                                config.trailingWindow(),
                                config.scoringBatchSize(),
                                config.transactionScoringMaxDelay(),
                                config.transactionBufferTimeout())),
                KafkaIO.sinks(config));
        return env.getStreamGraph();
    }

    private static StreamNode node(StreamGraph g, String name) {
        return g.getStreamNodes().stream()
                .filter(n -> n.getOperatorName().equals(name))
                .findFirst()
                .orElseThrow(() -> new AssertionError("no operator " + name));
    }

    @Test
    void onlyThePerTransactionEdgeHasTheShortTimeout() {
        StreamGraph g = graph(JobConfig.of(Map.of()));
        StreamNode filter = node(g, OperatorNames.TRANSACTIONS_TO_SCORE);
        assertThat(filter.getOutEdges()).isNotEmpty();
        for (StreamEdge e : filter.getOutEdges()) {
            assertThat(e.getBufferTimeout()).as("edge %s", e).isEqualTo(2L);
        }
        StreamNode router = node(g, OperatorNames.INGEST_ROUTER);
        for (StreamEdge e : router.getOutEdges()) {
            assertThat(e.getBufferTimeout()).as("edge %s", e).isNotEqualTo(2L);
        }

        StreamGraph zero = graph(JobConfig.of(Map.of("transaction-buffer-timeout", "0ms")));
        for (StreamEdge e : node(zero, OperatorNames.TRANSACTIONS_TO_SCORE).getOutEdges()) {
            assertThat(e.getBufferTimeout()).isZero();
        }
    }
}
