package org.fraudpipe.job.topology;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;
import java.util.Map;
import org.apache.flink.streaming.api.graph.StreamGraph;
import org.apache.flink.streaming.api.graph.StreamNode;
import org.fraudpipe.job.config.JobConfig;
import org.junit.jupiter.api.Test;

/**
 * {@code --transaction-source}: with {@code own} (the default) the per-transaction path reads the
 * topic with a source of its own, so nothing the window path does can hold it back; with {@code
 * shared} both paths hang off the one source.
 */
class TransactionSourceTest {

    private static List<StreamNode> sources(StreamGraph g) {
        return g.getSourceIDs().stream().map(g::getStreamNode).toList();
    }

    /** The operator feeding the per-transaction path's filter. */
    private static StreamNode upstreamOfTheFilter(StreamGraph g) {
        StreamNode filter = ProductionGraph.node(g, OperatorNames.TRANSACTIONS_TO_SCORE);
        assertThat(filter.getInEdges()).hasSize(1);
        return g.getStreamNode(filter.getInEdges().get(0).getSourceId());
    }

    @Test
    void byDefaultThePerTransactionPathHasASourceOfItsOwn() {
        StreamGraph g = ProductionGraph.of(JobConfig.of(Map.of()));

        assertThat(sources(g))
                .extracting(StreamNode::getTransformationUID)
                .containsExactlyInAnyOrder(Uids.KAFKA_SOURCE, Uids.KAFKA_SOURCE_TRANSACTIONS);
        assertThat(upstreamOfTheFilter(g).getTransformationUID())
                .isEqualTo(Uids.KAFKA_SOURCE_TRANSACTIONS);
        // The window path's source feeds the router (and so the windows) and nothing of the
        // per-transaction path.
        StreamNode router = ProductionGraph.node(g, OperatorNames.INGEST_ROUTER);
        assertThat(g.getStreamNode(router.getInEdges().get(0).getSourceId()).getTransformationUID())
                .isEqualTo(Uids.KAFKA_SOURCE);
    }

    @Test
    void sharedHangsBothPathsOffTheOneSource() {
        StreamGraph g = ProductionGraph.of(JobConfig.of(Map.of("transaction-source", "shared")));

        assertThat(sources(g))
                .extracting(StreamNode::getTransformationUID)
                .containsExactly(Uids.KAFKA_SOURCE);
        assertThat(upstreamOfTheFilter(g).getTransformationUID()).isEqualTo(Uids.KAFKA_SOURCE);
    }

    @Test
    void anUnknownModeIsRefusedNamingTheChoices() {
        assertThatThrownBy(() -> JobConfig.of(Map.of("transaction-source", "both")))
                .hasMessageContaining("transaction-source")
                .hasMessageContaining("own, shared");
    }
}
