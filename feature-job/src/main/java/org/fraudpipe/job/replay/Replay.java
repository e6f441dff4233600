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
import org.fraudpipe.job.io.AtomicFiles;
import org.fraudpipe.job.topology.FeatureJobTopology;
import org.fraudpipe.schemas.avro.Decision;
import org.fraudpipe.schemas.avro.FeatureRecord;
import org.fraudpipe.schemas.avro.LateReason;
import org.fraudpipe.schemas.avro.LateRecord;
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
                    FeatureJobTopology.Plan.of(
                                    new ReplaySource(
                                            config.input(),
                                            config.outOfOrderness(),
                                            config.futureTolerance(),
                                            config.releases()),
                                    config.windows(),
                                    config.topologyScoring())
                            .to(new ReplaySinks(staging.dir()))
                            .archivedIn(
                                    config.archive() == null
                                            ? null
                                            : FileArchive.forReplay(
                                                    config.archive(), config.policy())));
            progress.stage("starting a local Flink cluster");
            JobExecutionResult result =
                    env.execute(JOB_NAME + " of " + config.input().getFileName());
            return writeOutputs(config, staging.dir(), result, began, progress);
        }
    }

    private static ReplaySummary writeOutputs(
            ReplayConfig config,
            Path staging,
            JobExecutionResult result,
            long began,
            ProgressLine progress)
            throws IOException {
        Path out = config.output();
        Tally tally = new Tally();
        List<AtomicFiles.Pending> pending = new ArrayList<>();
        try {
            pending.add(
                    StagedOutput.prepareCanonical(
                            ReplayOutput.FEATURES,
                            staging,
                            out,
                            (f, json) -> tally.pane(f),
                            progress));
            pending.add(
                    StagedOutput.prepareCanonical(
                            ReplayOutput.SCORES,
                            staging,
                            out,
                            (s, json) -> tally.score(s),
                            progress));
            pending.add(
                    StagedOutput.prepareCanonical(
                            ReplayOutput.LATE, staging, out, (l, json) -> tally.late(l), progress));
            pending.add(
                    StagedOutput.prepareCanonical(
                            ReplayOutput.DEAD_LETTERS,
                            staging,
                            out,
                            (d, json) -> tally.deadLetters++,
                            progress));
            pending.add(
                    StagedOutput.prepareCanonical(
                            ReplayOutput.TRANSACTION_SCORES,
                            staging,
                            out,
                            (t, json) -> tally.transactionScore(t),
                            progress));
            long in = counter(result, IngestRouter.RECORDS_IN);
            long valid = counter(result, IngestRouter.RECORDS_VALID);
            tally.check(result, valid);

            // Only now, with every output written aside and checked, is anything replaced.
            List<Path> files = new ArrayList<>();
            for (AtomicFiles.Pending file : pending) {
                files.add(file.commit());
            }
            files.add(writePolicy(out, config.policy()));
            return new ReplaySummary(
                    config.input(),
                    in,
                    valid,
                    tally.deadLetters,
                    tally.quarantined,
                    tally.tooLate,
                    tally.panes,
                    tally.latePanes,
                    tally.decisions,
                    tally.transactionIds,
                    tally.transactionDecisions,
                    tally.historyIncomplete,
                    files,
                    Duration.ofNanos(System.nanoTime() - began));
        } finally {
            for (AtomicFiles.Pending file : pending) {
                file.close();
            }
        }
    }

    /** What the summary reports and the checks compare, counted as the output files are written. */
    private static final class Tally {
        long panes;
        long latePanes;
        long deadLetters;
        long quarantined;
        long tooLate;
        long transactionIds;
        long historyIncomplete;
        final Map<Decision, Long> decisions = new EnumMap<>(Decision.class);
        final Map<Decision, Long> transactionDecisions = new EnumMap<>(Decision.class);
        private String lastTransactionId;

        void pane(FeatureRecord f) {
            panes++;
            if (f.getTiming() == Timing.LATE) {
                latePanes++;
            }
        }

        void score(ScoreRecord s) {
            decisions.merge(s.getDecision(), 1L, Long::sum);
        }

        void late(LateRecord l) {
            if (l.getReason() == LateReason.FUTURE_DATED) {
                quarantined++;
            } else if (l.getReason() == LateReason.TOO_LATE) {
                tooLate++;
            }
        }

        /** Relies on the canonical order: a transaction's answers are adjacent (by id first). */
        void transactionScore(TransactionScore t) {
            if (!t.getTransactionId().equals(lastTransactionId)) {
                transactionIds++;
                lastTransactionId = t.getTransactionId();
            }
            transactionDecisions.merge(t.getDecision(), 1L, Long::sum);
            if (!t.getFeatures().getHistoryComplete()) {
                historyIncomplete++;
            }
        }

        private static long total(Map<Decision, Long> counts) {
            return counts.values().stream().mapToLong(Long::longValue).sum();
        }

        /** The files against the router's counters: a record lost on the way fails the replay. */
        void check(JobExecutionResult result, long valid) {
            requireSame(
                    "dead letters",
                    counter(result, IngestRouter.RECORDS_DEAD_LETTERED),
                    deadLetters);
            long scores = total(decisions);
            if (scores != panes) {
                throw new IllegalStateException(
                        panes + " panes but " + scores + " scores: every pane is scored");
            }
            requireSame(
                    "quarantined records",
                    counter(result, IngestRouter.RECORDS_QUARANTINED),
                    quarantined);
            // Every valid, not future-dated record gets one answer (a retry too). A replay starts
            // without state, so the router's valid records are exactly those.
            long transactionScores = total(transactionDecisions);
            if (transactionScores != valid) {
                throw new IllegalStateException(
                        valid
                                + " valid records but "
                                + transactionScores
                                + " transaction scores: every valid transaction is scored on"
                                + " arrival");
            }
        }
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
