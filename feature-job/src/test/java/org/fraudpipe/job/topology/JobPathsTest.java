package org.fraudpipe.job.topology;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;
import java.util.Map;
import org.apache.flink.streaming.api.graph.StreamGraph;
import org.apache.flink.streaming.api.graph.StreamNode;
import org.fraudpipe.job.KafkaFeatureJob;
import org.fraudpipe.job.config.JobConfig;
import org.junit.jupiter.api.Test;

/**
 * {@code --paths}: one job runs both paths (the default), or one of them, so that the decision path
 * can be deployed as a job of its own (issue #29). Each path's operators keep their uids whichever
 * way it runs, so a split deployment restores each job's state from the one-job savepoint (with the
 * other path's state left unrestored).
 */
class JobPathsTest {

    private static List<String> uids(StreamGraph g) {
        return g.getStreamNodes().stream().map(StreamNode::getTransformationUID).toList();
    }

    private static StreamGraph graph(String paths) {
        return ProductionGraph.of(JobConfig.of(Map.of("paths", paths)));
    }

    @Test
    void theDecisionJobRunsThePerTransactionPathAloneWithItsOwnSource() {
        List<String> decisions = uids(graph("decisions"));

        assertThat(decisions)
                .contains(
                        Uids.KAFKA_SOURCE_TRANSACTIONS,
                        Uids.READ_POSITIONS_DECISIONS,
                        Uids.TRANSACTIONS_TO_SCORE,
                        Uids.TRAILING_FEATURES,
                        Uids.TRANSACTION_SCORING,
                        Uids.TRANSACTION_SCORES_SINK)
                .doesNotContain(
                        Uids.KAFKA_SOURCE,
                        Uids.INGEST_ROUTER,
                        Uids.FEATURE_WINDOW,
                        Uids.SCORING,
                        Uids.FEATURES_SINK,
                        Uids.READ_POSITIONS_WINDOWS);
    }

    @Test
    void theWindowJobRunsEverythingButThePerTransactionPath() {
        List<String> windows = uids(graph("windows"));

        assertThat(windows)
                .contains(
                        Uids.KAFKA_SOURCE,
                        Uids.READ_POSITIONS_WINDOWS,
                        Uids.INGEST_ROUTER,
                        Uids.FEATURE_WINDOW,
                        Uids.SCORING,
                        Uids.FEATURES_SINK,
                        Uids.SCORES_SINK,
                        Uids.LATE_SINK,
                        Uids.DEAD_LETTERS_SINK)
                .doesNotContain(
                        Uids.KAFKA_SOURCE_TRANSACTIONS,
                        Uids.TRAILING_FEATURES,
                        Uids.TRANSACTION_SCORES_SINK,
                        Uids.READ_POSITIONS_DECISIONS);
    }

    @Test
    void bothJobsTogetherHaveTheOneJobsOperatorsWithTheSameUids() {
        List<String> both = uids(graph("both"));
        List<String> split =
                java.util.stream.Stream.concat(
                                uids(graph("windows")).stream(), uids(graph("decisions")).stream())
                        .toList();

        assertThat(split).containsExactlyInAnyOrderElementsOf(both);
    }

    @Test
    void eachJobIsNamedForItsPathsAndAnUnknownValueIsRefused() {
        assertThat(KafkaFeatureJob.jobName(JobConfig.Paths.BOTH))
                .isEqualTo(KafkaFeatureJob.JOB_NAME);
        assertThat(KafkaFeatureJob.jobName(JobConfig.Paths.DECISIONS)).endsWith("(decisions)");
        assertThatThrownBy(() -> JobConfig.of(Map.of("paths", "scores")))
                .hasMessageContaining("paths")
                .hasMessageContaining("both, windows, decisions");
    }
}
