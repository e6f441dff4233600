package org.fraudpipe.job.topology;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import org.apache.flink.configuration.PipelineOptions;
import org.apache.flink.runtime.jobgraph.JobGraph;
import org.apache.flink.runtime.jobgraph.JobVertex;
import org.fraudpipe.job.config.JobConfig;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/**
 * What a savepoint depends on, checked on the production job graph (Kafka source, scoring, Kafka
 * sinks) without running it: every operator has an explicit uid, and max parallelism is fixed by
 * the job, not derived from the parallelism. The restore of a committed savepoint of an earlier
 * build is {@code SavepointReliabilityIT}.
 */
class UpgradeSafetyTest {

    private static JobGraph productionJobGraph(JobConfig config) {
        // Flink refuses to build a graph with an operator whose uid it would have to generate
        // (such a uid changes with the topology, orphaning the operator's state).
        return ProductionGraph.of(
                        config, conf -> conf.set(PipelineOptions.AUTO_GENERATE_UIDS, false))
                .getJobGraph();
    }

    @Test
    @DisplayName(
            "#7.2 upgrade safety: every operator of the production job has an explicit uid, and"
                    + " max parallelism is fixed (128) whatever the parallelism")
    void everyOperatorHasAnExplicitUidAndMaxParallelismIsFixed() {
        for (String parallelism : List.of("1", "2", "8")) {
            JobGraph graph =
                    productionJobGraph(JobConfig.of(java.util.Map.of("parallelism", parallelism)));

            List<String> vertices = new ArrayList<>();
            for (JobVertex v : graph.getVertices()) {
                vertices.add(v.getName());
                assertThat(v.getMaxParallelism())
                        .as("max parallelism of %s", v.getName())
                        .isEqualTo(128);
            }
            assertThat(vertices).isNotEmpty();
        }
    }
}
