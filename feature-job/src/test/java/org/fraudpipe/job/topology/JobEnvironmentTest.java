package org.fraudpipe.job.topology;

import static org.assertj.core.api.Assertions.assertThat;

import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.DeploymentOptions;
import org.apache.flink.state.rocksdb.PredefinedOptions;
import org.apache.flink.state.rocksdb.RocksDBResourceContainer;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.fraudpipe.job.config.JobConfig;
import org.junit.jupiter.api.Test;
import org.rocksdb.BlockBasedTableConfig;
import org.rocksdb.BloomFilter;

/**
 * Where the job runs decides whether a local archive path is acceptable; the RocksDB settings the
 * benchmarks chose reach RocksDB.
 */
class JobEnvironmentTest {

    @Test
    void rocksDbWindowStateIsReadThroughBloomFilters() throws Exception {
        Configuration conf = JobEnvironment.flinkConfiguration(JobConfig.defaults());
        // The column family options Flink's RocksDB backend builds from the job's configuration.
        try (RocksDBResourceContainer rocksDb =
                new RocksDBResourceContainer(
                        conf, PredefinedOptions.DEFAULT, null, null, null, false)) {
            BlockBasedTableConfig table =
                    (BlockBasedTableConfig) rocksDb.getColumnOptions().tableFormatConfig();
            assertThat(table.filterPolicy()).isInstanceOf(BloomFilter.class);
        }
    }

    @Test
    void restartAttemptsBoundFlinksRestartStrategyAndNoneLeavesItsDefault() {
        assertThat(
                        JobEnvironment.flinkConfiguration(JobConfig.defaults())
                                .getOptional(
                                        org.apache.flink.configuration.RestartStrategyOptions
                                                .RESTART_STRATEGY))
                .as("no --restart-attempts: Flink's (or the cluster's) default")
                .isEmpty();
        Configuration three =
                JobEnvironment.flinkConfiguration(
                        JobConfig.of(java.util.Map.of("restart-attempts", "3")));
        assertThat(
                        three.get(
                                org.apache.flink.configuration.RestartStrategyOptions
                                        .RESTART_STRATEGY))
                .isEqualTo("exponential-delay");
        assertThat(
                        three.get(
                                org.apache.flink.configuration.RestartStrategyOptions
                                        .RESTART_STRATEGY_EXPONENTIAL_DELAY_ATTEMPTS))
                .isEqualTo(3);
        assertThat(
                        JobEnvironment.flinkConfiguration(
                                        JobConfig.of(java.util.Map.of("restart-attempts", "0")))
                                .get(
                                        org.apache.flink.configuration.RestartStrategyOptions
                                                .RESTART_STRATEGY))
                .as("0: the first failure is final")
                .isEqualTo("none");
        org.assertj.core.api.Assertions.assertThatThrownBy(
                        () -> JobConfig.of(java.util.Map.of("restart-attempts", "-1")))
                .hasMessageContaining("--restart-attempts")
                .hasMessageContaining("at least 0");
    }

    @Test
    void theJobsOwnEnvironmentOutsideFlinkRunIsALocalMiniCluster() throws Exception {
        try (StreamExecutionEnvironment env = JobEnvironment.create(JobConfig.defaults())) {
            assertThat(JobEnvironment.isLocal(env)).isTrue();
        }
    }

    @Test
    void anEnvironmentSubmittingToAClusterIsNotLocal() throws Exception {
        for (String target : new String[] {"remote", "embedded", "kubernetes-application"}) {
            Configuration conf = new Configuration();
            conf.set(DeploymentOptions.TARGET, target);
            try (StreamExecutionEnvironment env = new StreamExecutionEnvironment(conf)) {
                assertThat(JobEnvironment.isLocal(env)).as(target).isFalse();
            }
        }
        try (StreamExecutionEnvironment env = new StreamExecutionEnvironment(new Configuration())) {
            assertThat(JobEnvironment.isLocal(env)).as("no target").isFalse();
        }
    }
}
