package org.fraudpipe.job;

import java.util.Optional;
import org.apache.flink.api.common.JobExecutionResult;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.StateRecoveryOptions;
import org.apache.flink.core.execution.JobClient;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.fraudpipe.job.archive.FileArchive;
import org.fraudpipe.job.config.Durations;
import org.fraudpipe.job.config.JobConfig;
import org.fraudpipe.job.config.JobOption;
import org.fraudpipe.job.kafka.KafkaIO;
import org.fraudpipe.job.kafka.StartupChecks;
import org.fraudpipe.job.savepoint.SavepointGuard;
import org.fraudpipe.job.scoring.OnnxPaneScorer;
import org.fraudpipe.job.scoring.release.ModelReleases;
import org.fraudpipe.job.topology.FeatureJobTopology;
import org.fraudpipe.job.topology.JobEnvironment;
import org.fraudpipe.job.transaction.OnnxTransactionScorer;
import org.fraudpipe.job.window.FeatureWindowSpec;
import org.fraudpipe.scoring.ModelMetadata;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The streaming feature job against Kafka, checked and built, ready to run: what {@code ./fraud
 * job} and {@code flink run ... FeatureJob} execute, and what {@code ./fraud demo} starts in its
 * local MiniCluster. One place, so the demo runs exactly the production job.
 *
 * <p>{@link #prepare} checks in the order that fails fastest and cheapest: the model (no network),
 * the archive directory (no network), a savepoint to restore from that needs a migration, then
 * Kafka, the topics and the schema registry ({@link StartupChecks}); only then is the topology
 * built. Nothing runs until {@link #execute} or {@link #executeAsync}.
 */
public final class KafkaFeatureJob {

    private static final Logger LOG = LoggerFactory.getLogger(KafkaFeatureJob.class);

    public static final String JOB_NAME = "fraudpipe feature job";

    /**
     * The job's name for the paths it runs: {@value #JOB_NAME}, or with {@code (windows)} or {@code
     * (decisions)} when it runs one path, so that the two jobs of a split deployment are told apart
     * in the web UI, {@code flink list} and the logs.
     */
    public static String jobName(JobConfig.Paths paths) {
        return switch (paths) {
            case BOTH -> JOB_NAME;
            case WINDOWS -> JOB_NAME + " (windows)";
            case DECISIONS -> JOB_NAME + " (decisions)";
        };
    }

    private final StreamExecutionEnvironment env;
    private final JobConfig config;
    private final ModelMetadata model;
    private final ModelMetadata transactionModel;
    private final Optional<FileArchive> archive;

    private KafkaFeatureJob(
            StreamExecutionEnvironment env,
            JobConfig config,
            ModelMetadata model,
            ModelMetadata transactionModel,
            Optional<FileArchive> archive) {
        this.env = env;
        this.config = config;
        this.model = model;
        this.transactionModel = transactionModel;
        this.archive = archive;
    }

    /**
     * The job's scoring as its configuration says: every pane by the window model, every valid
     * transaction at arrival by the per-transaction model (both models checked by the caller).
     */
    public static FeatureJobTopology.Scoring scoring(
            JobConfig config,
            OnnxPaneScorer.Factory panes,
            OnnxTransactionScorer.Factory transactions) {
        return new FeatureJobTopology.Scoring(
                panes,
                config.scoringBatchSize(),
                config.scoringMaxDelay(),
                new FeatureJobTopology.PerTransaction(
                        transactions,
                        config.trailingWindow(),
                        config.scoringBatchSize(),
                        config.transactionScoringMaxDelay(),
                        config.transactionBufferTimeout()));
    }

    /** Checks everything the job needs and builds it, in the environment its context gives. */
    public static KafkaFeatureJob prepare(JobConfig config) {
        return prepare(config, new Configuration());
    }

    /**
     * As {@link #prepare(JobConfig)}, with Flink settings on top of the job's own ({@link
     * JobEnvironment#flinkConfiguration}): e.g. the demo's REST port and faster metric updates.
     *
     * @throws IllegalArgumentException or {@link IllegalStateException} naming what is wrong
     */
    public static KafkaFeatureJob prepare(JobConfig config, Configuration flinkOverrides) {
        // The model first: no network needed, and a bad model must stop the job before it runs.
        OnnxPaneScorer.Factory scorer = OnnxPaneScorer.Factory.of(config);
        ModelMetadata model = scorer.check();
        OnnxTransactionScorer.Factory transactionScorer = OnnxTransactionScorer.Factory.of(config);
        ModelMetadata transactionModel = transactionScorer.check();
        warnIfTrainedForAnotherTrailingWindow(transactionModel, config);
        StreamExecutionEnvironment env = JobEnvironment.create(config, flinkOverrides);
        // A first-release savepoint to restore from: refused with the migration to run.
        env.getConfiguration()
                .getOptional(StateRecoveryOptions.SAVEPOINT_PATH)
                .ifPresent(SavepointGuard::refuseUnmigrated);
        // Then the archive (no network either): a local path is refused on a cluster.
        Optional<FileArchive> archive = FileArchive.forJob(config, !JobEnvironment.isLocal(env));
        StartupChecks.verify(config);
        FeatureJobTopology.build(
                env, plan(config, scorer, transactionScorer).archivedIn(archive.orElse(null)));
        return new KafkaFeatureJob(env, config, model, transactionModel, archive);
    }

    /**
     * The production job's plan for {@code config}: the paths it names ({@code --paths}), the Kafka
     * source and sinks, the windows and the scoring ({@link #scoring}, the start-up models with the
     * registry's releases unless {@code --model-registry off}); no archive (the caller adds its
     * own, checked for where the job runs).
     */
    public static FeatureJobTopology.Plan plan(
            JobConfig config,
            OnnxPaneScorer.Factory panes,
            OnnxTransactionScorer.Factory transactions) {
        ModelReleases releases = KafkaIO.modelReleases(config);
        return new FeatureJobTopology.Plan(
                config.paths(),
                KafkaIO.source(config),
                new FeatureWindowSpec(config.windowSize(), config.allowedLateness()),
                scoring(config, panes.withReleases(releases), transactions.withReleases(releases)),
                KafkaIO.sinks(config),
                null);
    }

    /**
     * A per-transaction model trained on another trailing window than the job computes serves
     * features it never saw in training (counts over a longer or shorter window): allowed (the demo
     * runs 1-minute windows with the 10-minute default model), but said.
     */
    private static void warnIfTrainedForAnotherTrailingWindow(
            ModelMetadata transactionModel, JobConfig config) {
        transactionModel
                .windowSize()
                .filter(trained -> !trained.equals(config.trailingWindow()))
                .ifPresent(
                        trained ->
                                LOG.warn(
                                        "the per-transaction model {} was trained on a trailing"
                                                + " window of {} but the job computes {} ({}):"
                                                + " its scores are off by the difference; train"
                                                + " one for {} (./fraud features --per-transaction"
                                                + " --window-size ..., ./fraud train"
                                                + " --per-transaction)",
                                        transactionModel.id(),
                                        Durations.format(trained),
                                        Durations.format(config.trailingWindow()),
                                        JobOption.TRAILING_WINDOW.flag(),
                                        Durations.format(config.trailingWindow())));
    }

    /** Runs the job and waits for its end (on a cluster: until it is stopped or cancelled). */
    public JobExecutionResult execute() throws Exception {
        return env.execute(jobName(config.paths()));
    }

    /** Submits the job and returns at once; the client controls it (stop, cancel, counters). */
    public JobClient executeAsync() throws Exception {
        return env.executeAsync(jobName(config.paths()));
    }

    /** Whether the job runs in a MiniCluster in this JVM ({@link JobEnvironment#isLocal}). */
    public boolean isLocal() {
        return JobEnvironment.isLocal(env);
    }

    public ModelMetadata model() {
        return model;
    }

    /** The per-transaction model's metadata. */
    public ModelMetadata transactionModel() {
        return transactionModel;
    }

    /** The archive the job writes, empty with {@code --archive-dir none}. */
    public Optional<FileArchive> archive() {
        return archive;
    }

    public JobConfig config() {
        return config;
    }

    /** One line for the console: the job, its model, its archive and every option's value. */
    public String describe() {
        return "Starting "
                + jobName(config.paths())
                + " with model "
                + model.name()
                + " "
                + model.version()
                + ", per-transaction model "
                + transactionModel.name()
                + " "
                + transactionModel.version()
                + ", archive "
                + archive.map(a -> a.root().toString()).orElse(JobConfig.NO_ARCHIVE)
                + " and "
                + config.asMap();
    }
}
