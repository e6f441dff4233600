package org.fraudpipe.parity;

import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.LongSupplier;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.streaming.api.datastream.DataStream;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.util.CloseableIterator;
import org.fraudpipe.job.cli.JobCounters;
import org.fraudpipe.job.cli.ProgressLine;
import org.fraudpipe.job.config.Durations;
import org.fraudpipe.job.scoring.OnnxPaneScorer;
import org.fraudpipe.parity.input.InputCounts;
import org.fraudpipe.parity.input.KafkaServed;
import org.fraudpipe.parity.input.ParityInputException;
import org.fraudpipe.parity.input.ParitySources;
import org.fraudpipe.parity.input.PolicyResolver;
import org.fraudpipe.parity.input.StreamInput;
import org.fraudpipe.parity.report.ParityReport;
import org.fraudpipe.parity.report.ParityThresholds;
import org.fraudpipe.parity.report.ReportBuilder;
import org.fraudpipe.parity.report.TransactionReportBuilder;
import org.fraudpipe.parity.report.TransactionSection;
import org.fraudpipe.schemas.archive.ArchiveStream;
import org.fraudpipe.scoring.ModelMetadata;

/**
 * One parity run: the BATCH job over resolved inputs, its window verdicts folded into a report on
 * the client, and (scores at arrival) its per-transaction verdicts folded on the cluster, one
 * partial report per subtask merged here. The Flink environment is the one the caller's context
 * gives ({@code getExecutionEnvironment()}): a local MiniCluster from {@code ./fraud parity}, the
 * cluster under {@code flink run}.
 *
 * @param inputs what to read, per stream (resolved and checked)
 * @param policy the job's event-time policy (recorded with the inputs, see {@link
 *     org.fraudpipe.parity.input.PolicyResolver})
 * @param readEndMillis how far the transactions read reach in event time ({@link Long#MAX_VALUE}:
 *     every record of the inputs)
 * @param kafka where served values are read in Kafka, or null to judge the archive's copy
 * @param scorer the model to re-score ideal features with, or null to skip score-level skew
 * @param parallelism the job's parallelism, or 0 for the environment's default
 * @param transactions the per-transaction check (scores at arrival), or why there is none
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
        java.util.List<String> quietHours,
        TransactionCheck transactions) {

    /** A run without the per-transaction check (replay files without transaction scores). */
    public ParityRun(
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
        this(
                period,
                periodLabel,
                inputs,
                policy,
                readEndMillis,
                kafka,
                scorer,
                thresholds,
                parallelism,
                quietHours,
                TransactionCheck.off("no per-transaction scores given"));
    }

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
        Configuration conf = ParityPipeline.batchConfiguration();
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
        // Both checks fold their verdicts on the cluster; the client merges one partial report
        // per judging subtask and never holds a verdict per window or transaction.
        DataStream<ParityOutput> outputs =
                ParityOutput.tag(
                        ParityPipeline.foldWindows(
                                ParityPipeline.build(
                                        env,
                                        streams,
                                        policy.policy(),
                                        period,
                                        readEndMillis,
                                        scorer)),
                        true);
        ModelMetadata transactionModel = null;
        TransactionReportBuilder merged = null;
        if (transactions.checked()) {
            if (transactions.scorer() != null) {
                transactionModel = transactions.scorer().check();
            }
            streams =
                    ParitySources.withTransactions(
                            env,
                            streams,
                            transactions.history(),
                            transactions.scores(),
                            transactions.labels());
            DataStream<byte[]> partials =
                    ParityPipeline.buildTransactions(
                            env,
                            streams,
                            policy.policy(),
                            period,
                            readEndMillis,
                            transactions.trailing(),
                            transactions.scorer(),
                            transactions.scorer() == null ? null : transactions.thresholds(),
                            transactions.labels() != null,
                            transactions.positions());
            merged = new TransactionReportBuilder(transactions.labels() != null);
            outputs = outputs.union(ParityOutput.tag(partials, false));
        }
        ReportBuilder report = new ReportBuilder();
        ParityOutput.Completeness windowPartials = new ParityOutput.Completeness("window");
        ParityOutput.Completeness transactionPartials =
                new ParityOutput.Completeness("transaction");
        try (CloseableIterator<ParityOutput> all =
                outputs.executeAndCollect("fraud parity " + periodLabel)) {
            while (all.hasNext()) {
                ParityOutput o = all.next();
                if (o.windowReport != null) {
                    windowPartials.received(o);
                    report.merge(ReportBuilder.fromBytes(o.windowReport));
                } else {
                    transactionPartials.received(o);
                    merged.merge(TransactionReportBuilder.fromBytes(o.transactionReport));
                }
            }
        }
        windowPartials.verify();
        if (merged != null) {
            transactionPartials.verify();
        }
        TransactionSection section;
        if (merged == null) {
            section = TransactionSection.notChecked(transactions.notChecked());
        } else {
            checkServing(merged, transactionModel);
            section =
                    merged.section(true, "", transactionModel == null ? "" : transactionModel.id());
        }
        return report.build(describe(model, transactionModel), thresholds, section);
    }

    /**
     * The answers must come from what the run re-scores with and recomputes over: the same model,
     * the same trailing window, decisions by the same thresholds. Otherwise the comparison would
     * price another model's skew: bad input (exit 2), naming both.
     */
    private void checkServing(TransactionReportBuilder merged, ModelMetadata model)
            throws ParityInputException {
        long trailing = transactions.trailing().toMillis();
        for (long t : merged.trailingWindows()) {
            if (t != trailing) {
                throw new ParityInputException(
                        "transaction scores were computed over a trailing window of "
                                + Durations.format(java.time.Duration.ofMillis(t))
                                + ", but the check recomputes over "
                                + Durations.format(transactions.trailing())
                                + " (--trailing-window; default: the recorded window size): give"
                                + " the job's --trailing-window");
            }
        }
        if (model == null) {
            return;
        }
        java.util.List<String> releases = transactions.scorer().releaseIds();
        for (String served : merged.servedModels()) {
            if (!served.equals(model.id()) && !releases.contains(served)) {
                throw new ParityInputException(
                        "transaction scores were served by model "
                                + served
                                + ", but the check re-scores with "
                                + model.id()
                                + (releases.isEmpty()
                                        ? ""
                                        : " and the archived releases " + releases)
                                + " (--transaction-model; default: the shipped per-transaction"
                                + " model): give the model that served, or --no-score-skew");
            }
        }
        if (merged.offThresholds() > 0) {
            throw new ParityInputException(
                    merged.offThresholds()
                            + " transaction score(s) carry a decision that the thresholds review "
                            + transactions.thresholds().review()
                            + ", block "
                            + transactions.thresholds().block()
                            + " do not give their score (e.g. "
                            + merged.offThresholdExamples().get(0)
                            + "): give the job's --transaction-review-threshold and"
                            + " --transaction-block-threshold");
        }
    }

    private Map<String, Object> describe(ModelMetadata model, ModelMetadata transactionModel) {
        Map<String, Object> run = describe(model);
        run.put(
                "perTransaction",
                transactions.checked()
                        ? "checked: trailing window "
                                + Durations.format(transactions.trailing())
                                + (transactions.history() == null
                                        ? ""
                                        : ", history before the period read from "
                                                + transactions.history().described())
                        : "not checked: " + transactions.notChecked());
        if (transactions.checked()) {
            run.put(
                    "transactionModel",
                    transactionModel == null
                            ? "none (score skew not measured)"
                            : transactionModel.id()
                                    + " (review "
                                    + transactions.thresholds().review()
                                    + ", block "
                                    + transactions.thresholds().block()
                                    + ")");
            run.put("labels", transactions.labels() == null ? "none" : transactions.labels());
        }
        return run;
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
                        + thresholds.maxFlippedRate()
                        + " max-transaction-flipped-rate="
                        + thresholds.maxTransactionFlippedRate());
        run.put("quietHours", quietHours.isEmpty() ? "none" : String.join(" ", quietHours));
        return run;
    }

    /** Where the HTML report of a run writing into {@code dir} is. */
    public static Path htmlReport(Path dir) {
        return dir.resolve(org.fraudpipe.parity.report.ReportFiles.HTML);
    }
}
