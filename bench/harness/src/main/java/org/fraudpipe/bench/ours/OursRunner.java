package org.fraudpipe.bench.ours;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.core.execution.JobClient;
import org.apache.flink.core.execution.SavepointFormatType;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.fraudpipe.bench.probe.RunProbe;
import org.fraudpipe.bench.probe.RunnerArgs;
import org.fraudpipe.job.KafkaFeatureJob;
import org.fraudpipe.job.archive.FileArchive;
import org.fraudpipe.job.config.JobConfig;
import org.fraudpipe.job.config.JobOption;
import org.fraudpipe.job.kafka.KafkaIO;
import org.fraudpipe.job.kafka.StartupChecks;
import org.fraudpipe.job.metrics.LatencyHistogram;
import org.fraudpipe.job.scoring.OnnxPaneScorer;
import org.fraudpipe.job.topology.FeatureJobTopology;
import org.fraudpipe.job.topology.JobEnvironment;
import org.fraudpipe.job.topology.Uids;
import org.fraudpipe.job.transaction.OnnxTransactionScorer;
import org.fraudpipe.job.transaction.TrailingFeatureFunction;
import org.fraudpipe.job.transaction.TransactionScoring;
import org.fraudpipe.job.window.FeatureWindowSpec;

/**
 * The feature job as a benchmark run, in a JVM of its own: exactly what {@code ./fraud job} runs
 * (same {@link JobConfig}, model check, environment, archive, start-up checks, topology, Kafka
 * source and exactly-once sinks), with the {@link RunProbe} wrapped around the source's
 * deserializer. Once the probe counted the expected records it waits {@code settle} (so the
 * periodic watermark of the last records is out), optionally takes a native savepoint, stops with a
 * canonical savepoint (which commits the last transactions), and writes the result file: the
 * probe's figures plus savepoint and state sizes.
 *
 * <p>Options ({@code --name value}): expect-records, result-file, savepoint-dir, and optionally
 * native-savepoint-dir, settle (2s), timeout (30m), flink-conf ({@code key=value;...} on top of the
 * job's Flink configuration: a benchmark variant), score (true: the window path scores its panes),
 * per-transaction (false: true adds the per-transaction path, scores at arrival, as {@code ./fraud
 * job} runs it), split (false: true runs the per-transaction path as a decision job of its own,
 * {@code --paths decisions}, in a JVM of its own ({@link DecisionRunner}, its CPU time counted with
 * this JVM's), beside the window job, {@code --paths windows}, in this one: two processes as on a
 * cluster), decisions ({@code key=value;...}: the decision job's own job options, e.g. {@code
 * state-backend=hashmap;checkpoint-interval=30s}) and windows-nice (0: with a split, the window
 * job's threads run at this nice value, so that the kernel gives the decision job the cores first:
 * what a cluster's CPU shares or own cores give it) and decision-jvm-options (with a split, JVM
 * options of the decision job's JVM after this one's; default: those of {@code ./fraud job
 * --split}, {@code LocalSplit.DECISION_JVM_OPTIONS}); every other option is a job option, as for
 * {@code ./fraud job} ({@code --state-backend hashmap}, {@code --topic.features NAME}, ...).
 *
 * <p>Live-paced runs add live-file (the probe's samples, for the harness), stop-file (the harness
 * ends the run early by creating it) and measure-file: when the harness creates it, at the first
 * record of the measured interval, the runner notes the job's latency accumulator ({@code
 * fraudTransactionScoreLatencyMs}); the result then has the job's own latency figures over the
 * measured interval (final value minus that snapshot). Accumulators reach the client with the
 * TaskManager's heartbeats, so live runs set {@code heartbeat.interval} to 1 s (the demo does the
 * same): the snapshot is at most about a second old.
 */
public final class OursRunner {

    private OursRunner() {}

    /** {@code key=value;key=value} (a benchmark variant's Flink settings) as a map. */
    static Map<String, String> flinkOverrides(String spec) {
        Map<String, String> m = new LinkedHashMap<>();
        for (String pair : spec.split(";")) {
            if (pair.isBlank()) {
                continue;
            }
            int eq = pair.indexOf('=');
            if (eq <= 0) {
                throw new IllegalArgumentException("--flink-conf wants key=value;...: " + spec);
            }
            m.put(pair.substring(0, eq).trim(), pair.substring(eq + 1).trim());
        }
        return m;
    }

    public static void main(String[] argv) throws Exception {
        org.fraudpipe.bench.probe.ParentWatch.fromSystemProperty();
        RunnerArgs args = RunnerArgs.parse(argv);
        long expected = args.longValue("expect-records");
        Path resultFile = Path.of(args.required("result-file"));
        Path savepointDir = Path.of(args.required("savepoint-dir")).toAbsolutePath();
        String nativeDir = args.get("native-savepoint-dir", null);
        Duration settle = args.duration("settle", "2s");
        Duration timeout = args.duration("timeout", "30m");
        String flinkConf = args.get("flink-conf", "");
        boolean score = Boolean.parseBoolean(args.get("score", "true"));
        boolean perTransaction = Boolean.parseBoolean(args.get("per-transaction", "false"));
        String liveFile = args.get("live-file", null);
        String stopFile = args.get("stop-file", null);
        String measureFile = args.get("measure-file", null);
        boolean split = Boolean.parseBoolean(args.get("split", "false"));
        String decisionOptions = args.get("decisions", "");
        int windowsNice = args.intValue("windows-nice", 0);
        // By default the decision JVM's options of ./fraud job --split (a short GC pause goal).
        String decisionJvmOptions =
                args.get(
                        "decision-jvm-options",
                        String.join(" ", org.fraudpipe.job.cli.LocalSplit.DECISION_JVM_OPTIONS));
        Map<String, String> options = args.unread();
        JobConfig config = JobConfig.of(split ? pathsOf(options, "windows", "") : options);
        if (perTransaction && !score) {
            throw new IllegalArgumentException("--per-transaction true needs --score true");
        }
        if (split && !perTransaction) {
            throw new IllegalArgumentException("--split true needs --per-transaction true");
        }
        // The split deployment: the decision job in a JVM of its own beside this one's window job
        // (two processes: two checkpoint coordinators, state backends, heaps and restarts).
        Map<String, String> decisionJobOptions =
                split ? pathsOf(options, "decisions", decisionOptions) : null;
        JobConfig decisions = split ? JobConfig.of(decisionJobOptions) : null;

        OnnxPaneScorer.Factory scorer = OnnxPaneScorer.Factory.of(config);
        scorer.check();
        OnnxTransactionScorer.Factory transactionScorer = OnnxTransactionScorer.Factory.of(config);
        if (perTransaction) {
            transactionScorer.check();
        }
        // The job's own environment (JobEnvironment.create), plus a variant's overrides if any.
        Configuration conf = JobEnvironment.flinkConfiguration(config);
        Map<String, String> overrides = new LinkedHashMap<>();
        if (measureFile != null) {
            overrides.put("heartbeat.interval", "1000");
        }
        overrides.putAll(flinkOverrides(flinkConf));
        conf.addAll(Configuration.fromMap(overrides));
        DecisionJvm decisionJvm =
                decisions == null
                        ? null
                        : DecisionJvm.start(
                                decisionJobOptions,
                                overrides,
                                resultFile.toAbsolutePath().getParent(),
                                savepointDir.resolve("decisions"),
                                measureFile,
                                timeout,
                                decisionJvmOptions.isBlank()
                                        ? List.of()
                                        : List.of(decisionJvmOptions.trim().split("\\s+")));
        if (decisionJvm != null && windowsNice != 0) {
            String notReniced = org.fraudpipe.job.cli.LocalSplit.reniceThisJvm(windowsNice);
            if (notReniced != null) {
                throw new IllegalStateException("--windows-nice: " + notReniced);
            }
        }
        // This JVM's own REST endpoint (not in the overrides the decision JVM gets too).
        RestCheckpoints rest = RestCheckpoints.onFreePort();
        conf.addAll(Configuration.fromMap(rest.settings()));
        StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment(conf);
        Optional<FileArchive> archive = FileArchive.forJob(config, false);
        StartupChecks.verify(config);
        FeatureJobTopology.build(
                env,
                FeatureJobTopology.Plan.of(
                                KafkaIO.source(
                                        config,
                                        new ProbedDeserializer(KafkaIO.deserializer(config))),
                                new FeatureWindowSpec(
                                        config.windowSize(), config.allowedLateness()),
                                !score
                                        ? null
                                        : perTransaction
                                                ? KafkaFeatureJob.scoring(
                                                        config, scorer, transactionScorer)
                                                : new FeatureJobTopology.Scoring(
                                                        scorer,
                                                        config.scoringBatchSize(),
                                                        config.scoringMaxDelay()))
                        .running(perTransaction ? config.paths() : JobConfig.Paths.WINDOWS)
                        .to(KafkaIO.sinks(config))
                        .archivedIn(archive.orElse(null)));

        if (liveFile != null) {
            RunProbe.liveFile(Path.of(liveFile));
        }
        RunProbe.expect(expected);
        JobClient client = env.executeAsync(KafkaFeatureJob.jobName(config.paths()));
        LatencyHistogram.Distribution atMeasureStart = null;
        long measureSnapshotWall = -1;
        Path stop = stopFile == null ? null : Path.of(stopFile);
        boolean complete;
        if (measureFile == null) {
            complete = RunProbe.awaitOrStop(timeout, stop);
        } else {
            long deadline = System.nanoTime() + timeout.toNanos();
            while (!Files.exists(Path.of(measureFile)) && System.nanoTime() < deadline) {
                if (RunProbe.awaitOrStop(Duration.ofMillis(100), stop)
                        || (stop != null && Files.exists(stop))) {
                    break;
                }
            }
            if (Files.exists(Path.of(measureFile)) && decisionJvm == null) {
                atMeasureStart = transactionLatency(client.getAccumulators().get());
                measureSnapshotWall = System.currentTimeMillis();
            }
            complete =
                    RunProbe.awaitOrStop(
                            Duration.ofNanos(Math.max(0, deadline - System.nanoTime())), stop);
        }
        Thread.sleep(settle.toMillis());
        Map<String, Object> result = new LinkedHashMap<>();
        result.put("system", "ours");
        result.put("stateBackend", config.stateBackend().name().toLowerCase(java.util.Locale.ROOT));
        result.put("parallelism", config.parallelism());
        result.put("archive", archive.map(a -> a.root().toString()).orElse(JobConfig.NO_ARCHIVE));
        result.put("allowedLatenessMillis", config.allowedLateness().toMillis());
        result.put("flinkConfOverrides", overrides);
        result.put("scoring", score);
        List<String> uids = List.of(Uids.FEATURE_WINDOW, Uids.KAFKA_SOURCE, Uids.INGEST_ROUTER);
        if (nativeDir != null) {
            long t = System.nanoTime();
            String nativeSavepoint =
                    client.triggerSavepoint(
                                    Path.of(nativeDir).toAbsolutePath().toUri().toString(),
                                    SavepointFormatType.NATIVE)
                            .get();
            Path dir = Path.of(java.net.URI.create(nativeSavepoint));
            result.put("nativeSavepointSeconds", (System.nanoTime() - t) / 1e9);
            result.put("nativeSavepointBytes", SavepointSizes.directoryBytes(dir));
            result.put("nativeOperatorStateBytes", SavepointSizes.operatorStateBytes(dir, uids));
        }
        result.put("checkpoints", rest.history(client.getJobID()));
        long stopStart = System.nanoTime();
        String savepoint =
                client.stopWithSavepoint(
                                false,
                                savepointDir.toUri().toString(),
                                SavepointFormatType.CANONICAL)
                        .get();
        Map<String, Object> accumulators =
                client.getJobExecutionResult().get().getAllAccumulatorResults();
        result.putAll(RunProbe.result());
        result.put("perTransaction", perTransaction);
        if (decisionJvm != null) {
            Map<String, Object> decisionResult = decisionJvm.stop(Duration.ofMinutes(3));
            result.put("split", true);
            result.put("windowsNice", windowsNice);
            result.put("decisionJob", decisionResult);
            result.put("decisionJobOptions", decisionOptions);
            result.put("decisionJvmOptions", decisionJvmOptions);
            for (String key :
                    List.of(
                            "jobTransactionLatencyWholeRun",
                            "jobTransactionLatencySnapshotWallMillis",
                            "jobTransactionLatencyMeasured",
                            "transactionsScored",
                            "transactionRetriesAnswered",
                            "transactionsHistoryIncomplete")) {
                if (decisionResult.containsKey(key)) {
                    result.put(key, decisionResult.get(key));
                }
            }
        } else if (perTransaction) {
            LatencyHistogram.Distribution whole = transactionLatency(accumulators);
            result.put("jobTransactionLatencyWholeRun", whole.summary());
            if (atMeasureStart != null) {
                result.put("jobTransactionLatencySnapshotWallMillis", measureSnapshotWall);
                result.put("jobTransactionLatencyMeasured", whole.minus(atMeasureStart).summary());
            }
            result.put("transactionsScored", accumulators.get(TransactionScoring.METRICS.scored()));
            result.put(
                    "transactionRetriesAnswered",
                    accumulators.get(TrailingFeatureFunction.RETRIES));
            result.put(
                    "transactionsHistoryIncomplete",
                    accumulators.get(TrailingFeatureFunction.HISTORY_INCOMPLETE));
        }
        result.put("stopWithSavepointSeconds", (System.nanoTime() - stopStart) / 1e9);
        Path canonical = Path.of(java.net.URI.create(savepoint));
        result.put("savepoint", canonical.toString());
        result.put("canonicalSavepointBytes", SavepointSizes.directoryBytes(canonical));
        result.put(
                "canonicalOperatorStateBytes", SavepointSizes.operatorStateBytes(canonical, uids));
        result.put("timedOut", !complete);
        RunnerArgs.writeResult(resultFile, result);
        System.exit(0);
    }

    /**
     * The job options for one job of the split deployment: {@code paths}, and for the decision job
     * its own transactional ids and the {@code --decisions} options ({@code key=value;...}, e.g.
     * {@code state-backend=hashmap;checkpoint-interval=30s}).
     */
    static Map<String, String> pathsOf(
            Map<String, String> options, String paths, String decisionOptions) {
        Map<String, String> m = new LinkedHashMap<>(options);
        m.put("paths", paths);
        if (paths.equals("decisions")) {
            m.put(
                    "transactional-id-prefix",
                    options.getOrDefault(
                                    JobOption.TRANSACTIONAL_ID_PREFIX.key(),
                                    JobOption.TRANSACTIONAL_ID_PREFIX.defaultValue())
                            + "-decisions");
            m.putAll(flinkOverrides(decisionOptions));
        }
        return m;
    }

    /** The job's per-transaction latency accumulator in {@code accumulators}, or empty. */
    static LatencyHistogram.Distribution transactionLatency(Map<String, Object> accumulators) {
        return accumulators.get(TransactionScoring.METRICS.latency())
                        instanceof LatencyHistogram.Distribution d
                ? d
                : LatencyHistogram.Distribution.EMPTY;
    }
}
