package org.fraudpipe.job.topology;

import org.apache.flink.configuration.CheckpointingOptions;
import org.apache.flink.configuration.ConfigConstants;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.CoreOptions;
import org.apache.flink.configuration.DeploymentOptions;
import org.apache.flink.configuration.ExternalizedCheckpointRetention;
import org.apache.flink.configuration.GlobalConfiguration;
import org.apache.flink.configuration.PipelineOptions;
import org.apache.flink.configuration.RestartStrategyOptions;
import org.apache.flink.configuration.StateBackendOptions;
import org.apache.flink.core.execution.CheckpointingMode;
import org.apache.flink.core.fs.FileSystem;
import org.apache.flink.core.plugin.PluginUtils;
import org.apache.flink.state.rocksdb.EmbeddedRocksDBStateBackend;
import org.apache.flink.state.rocksdb.RocksDBConfigurableOptions;
import org.apache.flink.state.rocksdb.RocksDBOptions;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.fraudpipe.job.config.JobConfig;

/**
 * The Flink configuration the feature job runs with, derived from its {@link JobConfig}:
 * exactly-once checkpoints retained on cancellation, the chosen state backend (RocksDB with
 * incremental checkpoints, heap timers and bloom filters by default), parallelism and a fixed max
 * parallelism, object reuse between chained operators.
 */
public final class JobEnvironment {

    private JobEnvironment() {}

    /** The job-level Flink configuration. */
    public static Configuration flinkConfiguration(JobConfig config) {
        Configuration conf = new Configuration();
        conf.set(CoreOptions.DEFAULT_PARALLELISM, config.parallelism());
        conf.set(PipelineOptions.MAX_PARALLELISM, config.maxParallelism());
        // Object reuse: chained operators hand records on instead of deep-copying them (Avro's
        // reflective deepCopy of every pane and score was ~10 % of the window thread's CPU,
        // docs/BENCHMARKS.md). Safe because no operator of the job mutates a record it received
        // or emitted: every record is built new (the deserializer, the router, the window
        // function, the scorer), and the one operator that keeps records across calls
        // (BatchScoringOperator's buffer) only reads them.
        conf.set(PipelineOptions.OBJECT_REUSE, true);
        config.restartAttempts()
                .ifPresent(
                        attempts -> {
                            if (attempts == 0) {
                                conf.set(RestartStrategyOptions.RESTART_STRATEGY, "none");
                                return;
                            }
                            // Flink's own default strategy with checkpoints, bounded.
                            conf.set(RestartStrategyOptions.RESTART_STRATEGY, "exponential-delay");
                            conf.set(
                                    RestartStrategyOptions
                                            .RESTART_STRATEGY_EXPONENTIAL_DELAY_ATTEMPTS,
                                    attempts);
                        });
        conf.set(CheckpointingOptions.CHECKPOINTING_INTERVAL, config.checkpointInterval());
        conf.set(
                CheckpointingOptions.CHECKPOINTING_CONSISTENCY_MODE,
                CheckpointingMode.EXACTLY_ONCE);
        conf.set(CheckpointingOptions.CHECKPOINTS_DIRECTORY, config.checkpointDir().toString());
        conf.set(
                CheckpointingOptions.EXTERNALIZED_CHECKPOINT_RETENTION,
                ExternalizedCheckpointRetention.RETAIN_ON_CANCELLATION);
        switch (config.stateBackend()) {
            case ROCKSDB -> {
                conf.set(StateBackendOptions.STATE_BACKEND, "rocksdb");
                conf.set(CheckpointingOptions.INCREMENTAL_CHECKPOINTS, true);
                // Heap timers measured ~1.7x faster than RocksDB timers for this job (VERSIONS.md).
                conf.set(
                        RocksDBOptions.TIMER_SERVICE_FACTORY,
                        EmbeddedRocksDBStateBackend.PriorityQueueStateType.HEAP);
                // Bloom filters (10 bits per key, in the block cache): most window-state reads
                // are for a window the user has no state in yet (a new window, one or two
                // transactions per user and window), and a filter answers "absent" without
                // reading SST blocks. +6 % events per CPU-second over a whole run, +15 % in its
                // second half, in three balanced pairs (docs/BENCHMARKS.md).
                conf.set(RocksDBConfigurableOptions.USE_BLOOM_FILTER, true);
            }
            case HASHMAP -> conf.set(StateBackendOptions.STATE_BACKEND, "hashmap");
        }
        return conf;
    }

    /**
     * Flink's file systems for the commands whose Flink runs in this JVM ({@code ./fraud job}, the
     * demo, parity, replay, advise, the savepoint tools), initialized as a cluster initializes its
     * own: with the settings of {@code $FLINK_CONF_DIR/config.yaml} when that is set, and the
     * plugins under {@code $FLINK_PLUGINS_DIR} ({@code ./fraud} points it at Flink's S3 file
     * systems: {@code s3p://} Presto, {@code s3a://} Hadoop, each in a class loader of its own).
     * Neither set: Flink's defaults, local files only. Under {@code flink run} the cluster's client
     * has done this already; it is not called there.
     */
    public static void initializeFileSystems() {
        initializeFileSystems(System.getenv(ConfigConstants.ENV_FLINK_CONF_DIR));
    }

    /** As {@link #initializeFileSystems()}, with the settings of {@code dir} (null: none). */
    public static void initializeFileSystems(String dir) {
        Configuration conf =
                dir == null || dir.isBlank()
                        ? new Configuration()
                        : GlobalConfiguration.loadConfiguration(dir);
        FileSystem.initialize(conf, PluginUtils.createPluginManagerFromRootFolder(conf));
    }

    /**
     * Whether {@code env} runs the job in a MiniCluster in this JVM ({@code execution.target:
     * local}), rather than on a cluster ({@code flink run}: remote, application, ...), where
     * TaskManagers do not share this machine's disk.
     */
    public static boolean isLocal(StreamExecutionEnvironment env) {
        return "local".equals(env.getConfiguration().get(DeploymentOptions.TARGET));
    }

    /**
     * Whether a job of this JVM would run in a local MiniCluster ({@link #isLocal}): not under
     * {@code flink run}, whose context environment submits to a cluster.
     */
    public static boolean runsLocally() {
        return isLocal(StreamExecutionEnvironment.getExecutionEnvironment());
    }

    /** An environment (local MiniCluster, or the cluster's under {@code flink run}) for the job. */
    public static StreamExecutionEnvironment create(JobConfig config) {
        return create(config, new Configuration());
    }

    /**
     * As {@link #create(JobConfig)}, with {@code overrides} applied on top of the job's settings
     * (for settings of the environment rather than the job, such as a local MiniCluster's REST
     * port).
     */
    public static StreamExecutionEnvironment create(JobConfig config, Configuration overrides) {
        Configuration conf = flinkConfiguration(config);
        conf.addAll(overrides);
        return StreamExecutionEnvironment.getExecutionEnvironment(conf);
    }
}
