package org.fraudpipe.parity;

import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.LongSupplier;
import org.apache.flink.api.common.RuntimeExecutionMode;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.ExecutionOptions;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.util.CloseableIterator;
import org.fraudpipe.job.cli.JobCounters;
import org.fraudpipe.job.cli.ProgressLine;
import org.fraudpipe.job.scoring.OnnxPaneScorer;
import org.fraudpipe.parity.input.InputCounts;
import org.fraudpipe.parity.input.KafkaServed;
import org.fraudpipe.parity.input.ParitySources;
import org.fraudpipe.parity.input.PolicyResolver;
import org.fraudpipe.parity.input.StreamInput;
import org.fraudpipe.parity.report.ParityReport;
import org.fraudpipe.parity.report.ParityThresholds;
import org.fraudpipe.parity.report.ReportBuilder;
import org.fraudpipe.schemas.archive.ArchiveStream;
import org.fraudpipe.scoring.ModelMetadata;

/**
 * One parity run: the BATCH job over resolved inputs, its verdicts folded into a report on the
 * client. The Flink environment is the one the caller's context gives ({@code
 * getExecutionEnvironment()}): a local MiniCluster from {@code ./fraud parity}, the cluster under
 * {@code flink run}.
 *
 * @param inputs what to read, per stream (resolved and checked)
 * @param policy the job's event-time policy (recorded with the inputs, see {@link
 *     org.fraudpipe.parity.input.PolicyResolver})
 * @param readEndMillis how far the transactions read reach in event time ({@link Long#MAX_VALUE}:
 *     every record of the inputs)
 * @param kafka where served values are read in Kafka, or null to judge the archive's copy
 * @param scorer the model to re-score ideal features with, or null to skip score-level skew
 * @param parallelism the job's parallelism, or 0 for the environment's default
 */
public record ParityRun(
        ParityPeriod period,
        String periodLabel,
        Map<ArchiveStream, StreamInput> inputs,
        PolicyResolver.Resolved policy,
        long readEndMillis,
        KafkaServed kafka,
        OnnxPaneScorer.Factory scorer,
        ParityThresholds thresholds,
        int parallelism,
        java.util.List<String> quietHours) {

    /** Runs the check and returns its report (not yet written). */
    public ParityReport execute() throws Exception {
        return execute(ProgressLine.off());
    }

    /**
     * {@link #execute()}, showing on {@code progress} the transactions read so far (the accumulator
     * {@link ParityPipeline#TRANSACTIONS_READ}) against their total, counted from the input files
     * meanwhile.
     */
    public ParityReport execute(ProgressLine progress) throws Exception {
        Configuration conf = new Configuration();
        conf.set(ExecutionOptions.RUNTIME_MODE, RuntimeExecutionMode.BATCH);
        if (progress.isOn()) {
            JobCounters.liveOn(conf);
        }
        StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment(conf);
        if (parallelism > 0) {
            env.setParallelism(parallelism);
        }
        if (progress.isOn()) {
            StreamInput tx = inputs.get(ArchiveStream.TRANSACTIONS);
            LongSupplier total =
                    ProgressLine.countInBackground("transactions", () -> InputCounts.records(tx));
            String stage = "checking " + periodLabel + ", transactions read";
            new JobCounters(
                            List.of(ParityPipeline.TRANSACTIONS_READ),
                            read -> progress.stage(stage, read::read, total))
                    .listenTo(env);
            progress.stage("starting the batch job");
        }
        ModelMetadata model = scorer == null ? null : scorer.check();
        ParityStreams streams =
                ParitySources.create(
                        env, inputs, policy.policy().futureTolerance(), scorer != null);
        if (kafka != null) {
            streams = streams.withKafka(kafka.read(env));
        }
        ReportBuilder report = new ReportBuilder();
        try (CloseableIterator<WindowVerdict> verdicts =
                ParityPipeline.build(env, streams, policy.policy(), period, readEndMillis, scorer)
                        .executeAndCollect("fraud parity " + periodLabel)) {
            AtomicLong judged = new AtomicLong();
            while (verdicts.hasNext()) {
                report.add(verdicts.next());
                if (judged.incrementAndGet() == 1 && progress.isOn()) {
                    // BATCH: verdicts come once every transaction is read and sorted by window.
                    progress.stage(
                            "checking " + periodLabel + ", windows judged",
                            judged::get,
                            () -> ProgressLine.UNKNOWN);
                }
            }
        }
        return report.build(describe(model), thresholds);
    }

    private Map<String, Object> describe(ModelMetadata model) {
        Map<String, Object> run = new LinkedHashMap<>();
        run.put("period", periodLabel);
        run.put("windowSize", policy.policy().windowSize().toString());
        run.put("policy", policy.policy().describe());
        run.put("policySource", policy.source());
        inputs.forEach((s, in) -> run.put("input." + s.directory(), in.described()));
        run.put("servedFrom", kafka == null ? "archive" : kafka.describe());
        run.put("model", model == null ? "none (score skew not measured)" : model.id());
        run.put(
                "thresholds",
                "max-unexplained="
                        + thresholds.maxUnexplained()
                        + " max-mismatch-rate="
                        + thresholds.maxMismatchRate()
                        + " max-flipped-decisions="
                        + thresholds.maxFlippedDecisions()
                        + " max-flipped-rate="
                        + thresholds.maxFlippedRate());
        run.put("quietHours", quietHours.isEmpty() ? "none" : String.join(" ", quietHours));
        return run;
    }

    /** Where the HTML report of a run writing into {@code dir} is. */
    public static Path htmlReport(Path dir) {
        return dir.resolve(org.fraudpipe.parity.report.ReportFiles.HTML);
    }
}
