package org.fraudpipe.job.replay;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.function.LongSupplier;
import java.util.stream.Stream;
import org.apache.avro.specific.SpecificRecordBase;
import org.apache.flink.api.common.JobExecutionResult;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.CoreOptions;
import org.apache.flink.configuration.PipelineOptions;
import org.apache.flink.configuration.StateBackendOptions;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.fraudpipe.job.archive.ArchivePolicy;
import org.fraudpipe.job.archive.FileArchive;
import org.fraudpipe.job.cli.JobCounters;
import org.fraudpipe.job.cli.ProgressLine;
import org.fraudpipe.job.ingest.IngestRouter;
import org.fraudpipe.job.topology.FeatureJobTopology;
import org.fraudpipe.schemas.avro.Decision;
import org.fraudpipe.schemas.avro.LateReason;
import org.fraudpipe.schemas.avro.ScoreRecord;
import org.fraudpipe.schemas.avro.Timing;
import org.fraudpipe.schemas.avro.TransactionScore;

/**
 * Runs a deterministic replay: the feature job's one topology ({@link FeatureJobTopology}) over a
 * file ({@link ReplaySource}) into staging files ({@link ReplaySinks}), in a local MiniCluster in
 * this JVM, then writes the canonical output files ({@link StagedOutput}).
 *
 * <p>With {@link ReplayConfig#archive()} it also writes the streaming job's archive ({@link
 * FileArchive}: the same sinks, layout and records as the job's), e.g. to give the batch parity
 * check an archive built from a file. The archive's part files have random names and record orders
 * (like any archive the job writes); the JSON Lines outputs are the same with or without it.
 *
 * <p>Invariants: the output files depend only on the input file and the {@link ReplayConfig}'s
 * event-time options, not on the parallelism, the state backend, timing or the machine; they are
 * written only after the job succeeded, each replaced atomically; the staging directory is removed
 * whatever happens; the MiniCluster is shut down when {@link #run} returns or throws (no thread of
 * it is left running).
 */
public final class Replay {

    public static final String JOB_NAME = "fraudpipe replay";

    private static final String STAGING_PREFIX = ".replay-staging-";

    private Replay() {}

    /**
     * The Flink configuration of a replay: no checkpoints (the file sinks, the replay's and the
     * archive's, still commit everything: at the end of the bounded input the sink writers flush
     * and, with checkpointing disabled, Flink's committer commits all it holds; so nothing needs
     * enabling for that, and the integration test checks that no hidden file is left), no periodic
     * watermarks (the source emits one per record; a timer-driven emission could only repeat it,
     * but the replay should not depend on a wall-clock timer at all), the state backend and
     * parallelism of the config.
     */
    public static Configuration flinkConfiguration(ReplayConfig config) {
        Configuration conf = new Configuration();
        conf.set(CoreOptions.DEFAULT_PARALLELISM, config.parallelism());
        conf.set(PipelineOptions.MAX_PARALLELISM, config.maxParallelism());
        conf.set(PipelineOptions.AUTO_WATERMARK_INTERVAL, Duration.ZERO);
        conf.set(
                StateBackendOptions.STATE_BACKEND,
                switch (config.stateBackend()) {
                    case ROCKSDB -> "rocksdb";
                    case HASHMAP -> "hashmap";
                });
        return conf;
    }

    /**
     * Runs the replay and writes its output files.
     *
     * @throws Exception if the job fails (nothing is written then) or the files cannot be written
     */
    public static ReplaySummary run(ReplayConfig config) throws Exception {
        return run(config, ProgressLine.off());
    }

    /**
     * {@link #run(ReplayConfig)}, showing its stages and the records read on {@code progress} (the
     * job's {@code fraudRecordsIn}, against the input's line count).
     */
    public static ReplaySummary run(ReplayConfig config, ProgressLine progress) throws Exception {
        long began = System.nanoTime();
        Path output = config.output();
        Files.createDirectories(output);
        config.scoring().scorer().validate();
        config.transactions().scorer().validate();
        Configuration conf = flinkConfiguration(config);
        if (progress.isOn()) {
            JobCounters.liveOn(conf);
        }
        try (Staging staging = new Staging(Files.createTempDirectory(output, STAGING_PREFIX));
                StreamExecutionEnvironment env =
                        StreamExecutionEnvironment.createLocalEnvironment(conf)) {
            if (progress.isOn()) {
                LongSupplier lines =
                        ProgressLine.countInBackground(
                                "lines", () -> ProgressLine.lines(config.input()));
                String replaying = "replaying " + config.input().getFileName();
                new JobCounters(
                                List.of(IngestRouter.RECORDS_IN),
                                read -> progress.stage(replaying, read::read, lines))
                        .listenTo(env);
            }
            FeatureJobTopology.build(
                    env,
                    new ReplaySource(
                            config.input(), config.outOfOrderness(), config.futureTolerance()),
                    config.windows(),
                    config.topologyScoring(),
                    new ReplaySinks(staging.dir()),
                    config.archive() == null
                            ? null
                            : FileArchive.forReplay(config.archive(), config.policy()));
            progress.stage("starting a local Flink cluster");
            JobExecutionResult result =
                    env.execute(JOB_NAME + " of " + config.input().getFileName());
            progress.stage("writing the output files");
            return writeOutputs(config, staging.dir(), result, began);
        }
    }

    private static ReplaySummary writeOutputs(
            ReplayConfig config, Path staging, JobExecutionResult result, long began)
            throws IOException {
        var features = canonical(ReplayOutput.FEATURES, staging);
        var scores = canonical(ReplayOutput.SCORES, staging);
        var late = canonical(ReplayOutput.LATE, staging);
        var deadLetters = canonical(ReplayOutput.DEAD_LETTERS, staging);
        var transactionScores = canonical(ReplayOutput.TRANSACTION_SCORES, staging);

        long in = counter(result, IngestRouter.RECORDS_IN);
        long valid = counter(result, IngestRouter.RECORDS_VALID);
        long quarantined =
                late.stream()
                        .filter(l -> l.record().getReason() == LateReason.FUTURE_DATED)
                        .count();
        long tooLate =
                late.stream().filter(l -> l.record().getReason() == LateReason.TOO_LATE).count();
        long latePanes =
                features.stream().filter(f -> f.record().getTiming() == Timing.LATE).count();
        requireSame(
                "dead letters",
                counter(result, IngestRouter.RECORDS_DEAD_LETTERED),
                deadLetters.size());
        if (scores.size() != features.size()) {
            throw new IllegalStateException(
                    features.size()
                            + " panes but "
                            + scores.size()
                            + " scores: every pane is scored");
        }
        requireSame(
                "quarantined records",
                counter(result, IngestRouter.RECORDS_QUARANTINED),
                quarantined);
        // Every valid, not future-dated record gets one answer (a retry too). A replay starts
        // without state, so the router's valid records are exactly those.
        if (transactionScores.size() != valid) {
            throw new IllegalStateException(
                    valid
                            + " valid records but "
                            + transactionScores.size()
                            + " transaction scores: every valid transaction is scored on"
                            + " arrival");
        }

        // Only now, with every output read and checked, is anything replaced.
        List<Path> files = new ArrayList<>();
        Path out = config.output();
        files.add(StagedOutput.writeAtomically(out, ReplayOutput.FEATURES.fileName(), features));
        files.add(StagedOutput.writeAtomically(out, ReplayOutput.SCORES.fileName(), scores));
        files.add(StagedOutput.writeAtomically(out, ReplayOutput.LATE.fileName(), late));
        files.add(
                StagedOutput.writeAtomically(
                        out, ReplayOutput.DEAD_LETTERS.fileName(), deadLetters));
        files.add(
                StagedOutput.writeAtomically(
                        out, ReplayOutput.TRANSACTION_SCORES.fileName(), transactionScores));
        files.add(writePolicy(out, config.policy()));
        return new ReplaySummary(
                config.input(),
                in,
                valid,
                deadLetters.size(),
                quarantined,
                tooLate,
                features.size(),
                latePanes,
                decisionCounts(scores, ScoreRecord::getDecision),
                transactionScores.stream()
                        .map(l -> l.record().getTransactionId())
                        .distinct()
                        .count(),
                decisionCounts(transactionScores, TransactionScore::getDecision),
                transactionScores.stream()
                        .filter(l -> !l.record().getFeatures().getHistoryComplete())
                        .count(),
                files,
                Duration.ofNanos(System.nanoTime() - began));
    }

    /**
     * The replay's event-time policy next to its outputs ({@link ArchivePolicy#FILE}), so the
     * parity check judges late and quarantine labels by the policy that made them.
     */
    private static Path writePolicy(Path out, ArchivePolicy policy) throws IOException {
        Path file = out.resolve(ArchivePolicy.FILE);
        Path tmp = Files.createTempFile(out, ".policy", ".tmp");
        Files.writeString(tmp, policy.toJson(null));
        return Files.move(
                tmp,
                file,
                java.nio.file.StandardCopyOption.REPLACE_EXISTING,
                java.nio.file.StandardCopyOption.ATOMIC_MOVE);
    }

    private static <T extends SpecificRecordBase> List<StagedOutput.Line<T>> canonical(
            ReplayOutput<T> output, Path staging) throws IOException {
        return StagedOutput.canonical(output, StagedOutput.read(output, staging));
    }

    private static <T> Map<Decision, Long> decisionCounts(
            List<StagedOutput.Line<T>> scores, java.util.function.Function<T, Decision> decision) {
        Map<Decision, Long> counts = new EnumMap<>(Decision.class);
        for (StagedOutput.Line<T> s : scores) {
            counts.merge(decision.apply(s.record()), 1L, Long::sum);
        }
        return counts;
    }

    private static long counter(JobExecutionResult result, String name) {
        Object value = result.getAccumulatorResult(name);
        return value == null ? 0 : ((Number) value).longValue();
    }

    /** The router's count and the file's must agree; if not, records were lost on the way. */
    private static void requireSame(String what, long routed, long written) {
        if (routed != written) {
            throw new IllegalStateException(
                    "the ingest router routed "
                            + routed
                            + " "
                            + what
                            + " but "
                            + written
                            + " were written: records were lost between router and sink");
        }
    }

    /** The replay's private staging directory, removed on close. */
    private record Staging(Path dir) implements AutoCloseable {
        @Override
        public void close() throws IOException {
            if (!Files.exists(dir)) {
                return;
            }
            try (Stream<Path> walk = Files.walk(dir)) {
                for (Path p : walk.sorted(Comparator.reverseOrder()).toList()) {
                    Files.delete(p);
                }
            }
        }
    }
}
