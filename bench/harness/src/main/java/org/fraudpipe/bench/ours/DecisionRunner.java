package org.fraudpipe.bench.ours;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.core.execution.JobClient;
import org.apache.flink.core.execution.SavepointFormatType;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.fraudpipe.bench.probe.ParentWatch;
import org.fraudpipe.bench.probe.RunnerArgs;
import org.fraudpipe.job.KafkaFeatureJob;
import org.fraudpipe.job.config.JobConfig;
import org.fraudpipe.job.metrics.LatencyHistogram;
import org.fraudpipe.job.scoring.OnnxPaneScorer;
import org.fraudpipe.job.topology.FeatureJobTopology;
import org.fraudpipe.job.topology.JobEnvironment;
import org.fraudpipe.job.transaction.OnnxTransactionScorer;
import org.fraudpipe.job.transaction.TrailingFeatureFunction;
import org.fraudpipe.job.transaction.TransactionScoring;

/**
 * The decision job of a split benchmark run ({@code ours-split}), in a JVM of its own as on a
 * cluster: {@link OursRunner} starts it beside the window job and counts its CPU time with its own.
 * It runs exactly the production plan of {@code --paths decisions} ({@link KafkaFeatureJob#plan}),
 * and talks to its parent through files:
 *
 * <ul>
 *   <li>{@code ready-file}: written once the job was submitted;
 *   <li>{@code measure-file} (created by the harness at the first record of the measured interval):
 *       the job's latency accumulator is noted then;
 *   <li>{@code stop-file} (created by the parent once the window job stopped): the job stops with a
 *       canonical savepoint and {@code result-file} gets its figures (latency over the whole run
 *       and over the measured interval, transactions scored, retries answered).
 * </ul>
 *
 * Every other option is a job option, as for {@code ./fraud job}; {@code flink-conf} ({@code
 * key=value;...}) is put on top of the job's Flink configuration.
 */
public final class DecisionRunner {

    private DecisionRunner() {}

    public static void main(String[] argv) throws Exception {
        ParentWatch.fromSystemProperty();
        RunnerArgs args = RunnerArgs.parse(argv);
        Path resultFile = Path.of(args.required("result-file"));
        Path readyFile = Path.of(args.required("ready-file"));
        Path measureFile = Path.of(args.required("measure-file"));
        Path stopFile = Path.of(args.required("stop-file"));
        Path savepointDir = Path.of(args.required("savepoint-dir")).toAbsolutePath();
        Duration timeout = args.duration("timeout", "30m");
        String flinkConf = args.get("flink-conf", "");
        JobConfig config = JobConfig.of(args.unread());
        if (config.paths() != JobConfig.Paths.DECISIONS) {
            throw new IllegalArgumentException("the decision runner runs --paths decisions");
        }
        OnnxPaneScorer.Factory scorer = OnnxPaneScorer.Factory.of(config);
        OnnxTransactionScorer.Factory transactionScorer = OnnxTransactionScorer.Factory.of(config);
        transactionScorer.check();
        Configuration conf = JobEnvironment.flinkConfiguration(config);
        conf.addAll(Configuration.fromMap(OursRunner.flinkOverrides(flinkConf)));
        RestCheckpoints rest = RestCheckpoints.onFreePort();
        conf.addAll(Configuration.fromMap(rest.settings()));
        StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment(conf);
        FeatureJobTopology.build(env, KafkaFeatureJob.plan(config, scorer, transactionScorer));
        JobClient client = env.executeAsync(KafkaFeatureJob.jobName(JobConfig.Paths.DECISIONS));
        Files.writeString(readyFile, client.getJobID().toString());

        long deadline = System.nanoTime() + timeout.toNanos();
        LatencyHistogram.Distribution atMeasureStart = null;
        long measureSnapshotWall = -1;
        while (!Files.exists(stopFile) && System.nanoTime() < deadline) {
            if (atMeasureStart == null && Files.exists(measureFile)) {
                atMeasureStart = OursRunner.transactionLatency(client.getAccumulators().get());
                measureSnapshotWall = System.currentTimeMillis();
            }
            Thread.sleep(50);
        }
        List<List<Object>> checkpoints = rest.history(client.getJobID());
        client.stopWithSavepoint(
                        false, savepointDir.toUri().toString(), SavepointFormatType.CANONICAL)
                .get();
        Map<String, Object> accumulators =
                client.getJobExecutionResult().get().getAllAccumulatorResults();
        Map<String, Object> result = new LinkedHashMap<>();
        result.put("pid", ProcessHandle.current().pid());
        result.put("stateBackend", config.stateBackend().name().toLowerCase(java.util.Locale.ROOT));
        result.put("checkpointIntervalMillis", config.checkpointInterval().toMillis());
        LatencyHistogram.Distribution whole = OursRunner.transactionLatency(accumulators);
        result.put("jobTransactionLatencyWholeRun", whole.summary());
        if (atMeasureStart != null) {
            result.put("jobTransactionLatencySnapshotWallMillis", measureSnapshotWall);
            result.put("jobTransactionLatencyMeasured", whole.minus(atMeasureStart).summary());
        }
        result.put("transactionsScored", accumulators.get(TransactionScoring.METRICS.scored()));
        result.put("transactionRetriesAnswered", accumulators.get(TrailingFeatureFunction.RETRIES));
        result.put(
                "transactionsHistoryIncomplete",
                accumulators.get(TrailingFeatureFunction.HISTORY_INCOMPLETE));
        result.put("checkpoints", checkpoints);
        result.put("timedOut", !Files.exists(stopFile));
        RunnerArgs.writeResult(resultFile, result);
        System.exit(0);
    }
}
