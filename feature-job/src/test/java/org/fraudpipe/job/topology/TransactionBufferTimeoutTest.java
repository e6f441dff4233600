package org.fraudpipe.job.topology;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Map;
import org.apache.flink.streaming.api.graph.StreamEdge;
import org.apache.flink.streaming.api.graph.StreamGraph;
import org.apache.flink.streaming.api.graph.StreamNode;
import org.fraudpipe.job.config.JobConfig;
import org.junit.jupiter.api.Test;

/**
 * The per-transaction path's one network edge (filter to keyed trailing features) sends its buffers
 * after {@code --transaction-buffer-timeout}; every other edge keeps Flink's default.
 */
class TransactionBufferTimeoutTest {

    @Test
    void onlyThePerTransactionEdgeHasTheShortTimeout() {
        StreamGraph g = ProductionGraph.of(JobConfig.of(Map.of()));
        StreamNode filter = ProductionGraph.node(g, OperatorNames.TRANSACTIONS_TO_SCORE);
        assertThat(filter.getOutEdges()).isNotEmpty();
        for (StreamEdge e : filter.getOutEdges()) {
            assertThat(e.getBufferTimeout()).as("edge %s", e).isEqualTo(2L);
        }
        StreamNode router = ProductionGraph.node(g, OperatorNames.INGEST_ROUTER);
        for (StreamEdge e : router.getOutEdges()) {
            assertThat(e.getBufferTimeout()).as("edge %s", e).isNotEqualTo(2L);
        }

        StreamGraph zero =
                ProductionGraph.of(JobConfig.of(Map.of("transaction-buffer-timeout", "0ms")));
        for (StreamEdge e :
                ProductionGraph.node(zero, OperatorNames.TRANSACTIONS_TO_SCORE).getOutEdges()) {
            assertThat(e.getBufferTimeout()).isZero();
        }
    }
}
