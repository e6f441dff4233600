package org.fraudpipe.job.replay;

import java.nio.file.Path;
import java.time.Duration;
import java.util.Objects;
import org.fraudpipe.job.config.JobConfig;
import org.fraudpipe.job.scoring.OnnxPaneScorer;
import org.fraudpipe.job.scoring.release.ModelReleases;
import org.fraudpipe.job.topology.FeatureJobTopology;
import org.fraudpipe.job.transaction.OnnxTransactionScorer;
import org.fraudpipe.job.window.FeatureWindowSpec;
import org.fraudpipe.job.window.ProcessingTimeSource;

/**
 * What one replay runs with. The event-time options mean exactly what they mean for the streaming
 * job (same names, same validation: {@link JobConfig}).
 *
 * <p>Invariant: the windows' processing-time fields come from the watermark ({@link
 * ProcessingTimeSource#WATERMARK}); a replay never reads the wall clock into its output.
 *
 * @param input the JSON Lines file of transactions, in arrival order
 * @param output the directory that receives {@code features.jsonl}, {@code late.jsonl} and {@code
 *     dead-letters.jsonl}
 * @param windows window size and allowed lateness, processing time from the watermark
 * @param outOfOrderness the watermark bound
 * @param futureTolerance how far beyond its arrival an event time may be before quarantine
 * @param parallelism of the windows and sinks (the source and the ingest router run at 1)
 * @param maxParallelism key groups
 * @param stateBackend of the windows
 * @param scoring the model that scores every pane, and its batching
 * @param transactions the per-transaction path: its model, trailing window and batching
 * @param archive the root of the archive the replay writes (the streaming job's layout, any Flink
 *     file system), or null for none
 * @param releases the model releases that serve beside the start-up models (a registry read from an
 *     archive: {@link org.fraudpipe.job.archive.ArchivedRegistry}), each record scored by the
 *     release of its coordinate as the streaming job scored it; or none
 */
public record ReplayConfig(
        Path input,
        Path output,
        FeatureWindowSpec windows,
        Duration outOfOrderness,
        Duration futureTolerance,
        int parallelism,
        int maxParallelism,
        JobConfig.StateBackend stateBackend,
        FeatureJobTopology.Scoring scoring,
        FeatureJobTopology.PerTransaction transactions,
        org.apache.flink.core.fs.Path archive,
        ModelReleases releases) {

    public ReplayConfig {
        Objects.requireNonNull(input, "input");
        Objects.requireNonNull(output, "output");
        Objects.requireNonNull(outOfOrderness, "outOfOrderness");
        Objects.requireNonNull(futureTolerance, "futureTolerance");
        Objects.requireNonNull(stateBackend, "stateBackend");
        Objects.requireNonNull(scoring, "scoring");
        Objects.requireNonNull(transactions, "transactions");
        Objects.requireNonNull(releases, "releases");
        if (windows.processingTime() != ProcessingTimeSource.WATERMARK) {
            throw new IllegalArgumentException(
                    "a replay's windows must take processing time from the watermark, got "
                            + windows.processingTime());
        }
        if (parallelism < 1 || parallelism > maxParallelism) {
            throw new IllegalArgumentException(
                    "parallelism must be in 1.." + maxParallelism + ", got " + parallelism);
        }
    }

    /**
     * A replay of {@code input} into {@code output} with the event-time options of {@code job}.
     *
     * @throws IllegalArgumentException naming the option, if the windows are not whole milliseconds
     */
    public static ReplayConfig of(Path input, Path output, JobConfig job) {
        return new ReplayConfig(
                input,
                output,
                new FeatureWindowSpec(job.windowSize(), job.allowedLateness())
                        .withProcessingTime(ProcessingTimeSource.WATERMARK),
                job.outOfOrderness(),
                job.futureTolerance(),
                job.parallelism(),
                job.maxParallelism(),
                job.stateBackend(),
                new FeatureJobTopology.Scoring(
                        OnnxPaneScorer.Factory.of(job),
                        job.scoringBatchSize(),
                        job.scoringMaxDelay()),
                perTransaction(job),
                null,
                ModelReleases.startupOnly());
    }

    /** The per-transaction path as {@code job} configures it. */
    public static FeatureJobTopology.PerTransaction perTransaction(JobConfig job) {
        return new FeatureJobTopology.PerTransaction(
                OnnxTransactionScorer.Factory.of(job),
                job.trailingWindow(),
                job.scoringBatchSize(),
                job.transactionScoringMaxDelay());
    }

    /** The scoring the topology runs: panes and the per-transaction path. */
    public FeatureJobTopology.Scoring topologyScoring() {
        if (releases instanceof ModelReleases.StartupOnly) {
            return new FeatureJobTopology.Scoring(
                    scoring.scorer(), scoring.maxBatchSize(), scoring.maxDelay(), transactions);
        }
        if (!(scoring.scorer() instanceof OnnxPaneScorer.Factory panes)
                || !(transactions.scorer() instanceof OnnxTransactionScorer.Factory perTx)) {
            throw new IllegalStateException(
                    "model releases need the ONNX scorers, not " + scoring.scorer());
        }
        return new FeatureJobTopology.Scoring(
                panes.withReleases(releases),
                scoring.maxBatchSize(),
                scoring.maxDelay(),
                new FeatureJobTopology.PerTransaction(
                        perTx.withReleases(releases),
                        transactions.trailingWindow(),
                        transactions.maxBatchSize(),
                        transactions.maxDelay(),
                        transactions.bufferTimeout()));
    }

    /** This replay, also archiving under {@code root} (null: archiving nothing). */
    /**
     * The replay's event-time policy, as recorded for the parity check: one watermark per record,
     * so no idleness.
     */
    public org.fraudpipe.job.archive.ArchivePolicy policy() {
        return new org.fraudpipe.job.archive.ArchivePolicy(
                windows.windowSize(),
                windows.allowedLateness(),
                outOfOrderness,
                null,
                futureTolerance);
    }

    public ReplayConfig withArchive(org.apache.flink.core.fs.Path root) {
        return new ReplayConfig(
                input,
                output,
                windows,
                outOfOrderness,
                futureTolerance,
                parallelism,
                maxParallelism,
                stateBackend,
                scoring,
                transactions,
                root,
                releases);
    }

    /** This replay, scored with {@code registry}'s releases beside the start-up models. */
    public ReplayConfig withReleases(ModelReleases registry) {
        return new ReplayConfig(
                input,
                output,
                windows,
                outOfOrderness,
                futureTolerance,
                parallelism,
                maxParallelism,
                stateBackend,
                scoring,
                transactions,
                archive,
                registry);
    }
}
