package org.fraudpipe.parity;

import java.time.Duration;
import org.apache.flink.api.common.RuntimeExecutionMode;
import org.apache.flink.api.common.accumulators.LongCounter;
import org.apache.flink.api.common.eventtime.WatermarkStrategy;
import org.apache.flink.api.common.functions.OpenContext;
import org.apache.flink.api.common.functions.RichFilterFunction;
import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.api.common.typeinfo.Types;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.ExecutionOptions;
import org.apache.flink.configuration.PipelineOptions;
import org.apache.flink.formats.avro.typeutils.AvroTypeInfo;
import org.apache.flink.streaming.api.datastream.DataStream;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.fraudpipe.job.archive.ArchivePolicy;
import org.fraudpipe.job.features.WindowAssignment;
import org.fraudpipe.job.position.ReadPositions;
import org.fraudpipe.job.scoring.PaneScorer;
import org.fraudpipe.job.transaction.TransactionScorer;
import org.fraudpipe.job.window.FeatureWindowSpec;
import org.fraudpipe.job.window.FeatureWindows;
import org.fraudpipe.job.window.ProcessingTimeSource;
import org.fraudpipe.parity.transaction.TransactionJudgeOperator;
import org.fraudpipe.parity.transaction.TransactionVerdictFunction;
import org.fraudpipe.schemas.avro.ArchivedTransaction;
import org.fraudpipe.schemas.avro.DeadLetter;
import org.fraudpipe.schemas.avro.Transaction;
import org.fraudpipe.scoring.DecisionThresholds;

/**
 * The parity check as a Flink BATCH job: the ideal features recomputed by the streaming job's own
 * window stage ({@link FeatureWindows#apply}: the same assigner, trigger and aggregate), then every
 * piece of evidence about a window brought together by (user, window start) and judged.
 *
 * <pre>
 * transactions (period) --+--> event time --> FeatureWindows.apply (BATCH) --> IDEAL ----+
 * transactions (+ horizon) --+--> by partition, offset order --> ARCHIVED (watermark bound) -+
 * dead letters --------------+                               +-> DEAD_LETTER (attributed) ---+--> by window
 * served panes, scores, late records (period) ---------------------------------------------+    |
 * served panes, scores in Kafka (with --served-from kafka) ---------------------------------+    |
 *                                                                           WindowVerdictFunction
 *                                                                                 |  (judge)
 *                                                                           VerdictScoring (model)
 * </pre>
 *
 * <p>Invariant: only windows whose start is in the {@link ParityPeriod} are judged; every input is
 * filtered by the window its record belongs to, with the job's {@link WindowAssignment}. The
 * transactions may reach past the period (up to {@code readEndMillis} of event time): those only
 * bound the watermark of the period's records ({@link PartitionWatermarkBounds}).
 */
public final class ParityPipeline {

    static final TypeInformation<Evidence> EVIDENCE = TypeInformation.of(Evidence.class);
    static final TypeInformation<WindowVerdict> VERDICT = TypeInformation.of(WindowVerdict.class);

    /** A subtask's partial per-transaction report, serialized. */
    static final TypeInformation<byte[]> PARTIAL_REPORT =
            org.apache.flink.api.common.typeinfo.PrimitiveArrayTypeInfo
                    .BYTE_PRIMITIVE_ARRAY_TYPE_INFO;

    /** Accumulator: the transactions the sources have read so far (every one, in period or not). */
    public static final String TRANSACTIONS_READ = "parityTransactionsRead";

    private ParityPipeline() {}

    /**
     * The configuration of a parity job: BATCH execution, with object reuse. Without it, Flink
     * copies every record between chained operators (Avro's deep copy of each transaction, pane and
     * verdict: a tenth of a run's CPU). Safe because no function here mutates a record it was given
     * or holds one after returning unless it came fresh from a deserializer (the BATCH sorts and
     * the archive's readers return a new object per record; the judges' and the bounds' state keeps
     * only those), and every function emits a new object per record.
     */
    public static Configuration batchConfiguration() {
        Configuration conf = new Configuration();
        conf.set(ExecutionOptions.RUNTIME_MODE, RuntimeExecutionMode.BATCH);
        conf.set(PipelineOptions.OBJECT_REUSE, true);
        return conf;
    }

    /**
     * Builds the check on {@code env}, which must run in BATCH mode.
     *
     * @param scorerFactory the model to re-score the ideal features with, or null for none
     */
    public static DataStream<WindowVerdict> build(
            StreamExecutionEnvironment env,
            ParityStreams in,
            ArchivePolicy policy,
            ParityPeriod period,
            long readEndMillis,
            PaneScorer.Factory scorerFactory) {
        if (env.getConfiguration().get(ExecutionOptions.RUNTIME_MODE)
                != RuntimeExecutionMode.BATCH) {
            throw new IllegalStateException(
                    "the parity check runs in BATCH execution mode (execution.runtime-mode: BATCH)");
        }
        // Allowed lateness is irrelevant in BATCH mode (nothing is ever late): every window fires
        // once, ON_TIME, over all of its records.
        FeatureWindowSpec spec =
                new FeatureWindowSpec(
                        policy.windowSize(), Duration.ZERO, ProcessingTimeSource.WATERMARK);
        WindowAssignment windows = spec.assignment();

        DataStream<ArchivedTransaction> transactions =
                in.transactions()
                        .filter(new InPeriod(period, windows))
                        .name("transactions in period");

        DataStream<Transaction> withTimestamps =
                transactions
                        .map(
                                ArchivedTransaction::getTransaction,
                                new AvroTypeInfo<>(Transaction.class))
                        .name("transaction")
                        .assignTimestampsAndWatermarks(
                                WatermarkStrategy.<Transaction>forMonotonousTimestamps()
                                        .withTimestampAssigner((tx, ts) -> eventTime(tx)))
                        .name("event time");
        DataStream<Evidence> ideal =
                FeatureWindows.apply(withTimestamps, spec)
                        .features()
                        .map(Evidence::ideal, EVIDENCE)
                        .name("ideal");

        // Every record read (past the period too: a later record of a partition may bound the
        // watermark of a record in it), in offset order per partition, with the dead letters at
        // the positions of the period's records.
        DataStream<Evidence> archived =
                withWatermarkBounds(
                        in.transactions(),
                        in.deadLetters(),
                        new PartitionWatermarkBounds(policy, readEndMillis, period, windows),
                        "archived, with watermark bounds and dead letters");

        DataStream<Evidence> served =
                in.served()
                        .filter(r -> period.containsWindowStart(r.getWindowStart().toEpochMilli()))
                        .map(Evidence::served, EVIDENCE)
                        .name("served");
        DataStream<Evidence> evidence = ideal.union(archived, served);
        if (in.kafka() != null) {
            evidence =
                    evidence.union(
                            in.kafka()
                                    .filter(e -> period.containsWindowStart(e.windowStart))
                                    .name("served in Kafka"));
        }
        if (in.late() != null) {
            evidence =
                    evidence.union(
                            in.late()
                                    .filter(
                                            r ->
                                                    period.containsWindowStart(
                                                            r.getWindowStart().toEpochMilli()))
                                    .map(Evidence::late, EVIDENCE)
                                    .name("late"));
        }
        if (in.scores() != null) {
            evidence =
                    evidence.union(
                            in.scores()
                                    .filter(
                                            r ->
                                                    period.containsWindowStart(
                                                            r.getWindowStart().toEpochMilli()))
                                    .map(Evidence::score, EVIDENCE)
                                    .name("served scores"));
        }

        DataStream<WindowVerdict> verdicts =
                evidence.keyBy(e -> SortKeys.window(e.userId, e.windowStart), Types.LONG)
                        .process(new WindowVerdictFunction(policy, in.kafka() != null), VERDICT)
                        .name("judge window");
        if (scorerFactory != null) {
            verdicts = verdicts.map(new VerdictScoring(scorerFactory), VERDICT).name("score ideal");
        }
        return verdicts;
    }

    /**
     * The window verdicts folded on the cluster: one partial report per subtask, serialized ({@link
     * org.fraudpipe.parity.report.ReportBuilder#fromBytes}), what the client merges.
     */
    public static DataStream<byte[]> foldWindows(DataStream<WindowVerdict> verdicts) {
        return verdicts.transform("fold window verdicts", PARTIAL_REPORT, new WindowReportFold());
    }

    /**
     * Builds the per-transaction check (scores at arrival) on {@code env}, beside {@link #build}:
     * every archived transaction of the period's trailing windows with the watermark bound its
     * partition proves, the dead letters at their positions, the served transaction scores of the
     * period and the labels, keyed by user and judged per user ({@link
     * org.fraudpipe.parity.transaction.TransactionJudge}); each subtask folds its users' verdicts
     * and emits its partial report once, serialized ({@link
     * org.fraudpipe.parity.report.TransactionReportBuilder#fromBytes}).
     *
     * <pre>
     * transactions (history + period + horizon) --+--> by partition, offset order --> ARCHIVED ---+
     * dead letters --------------------------------+                              +-> DEAD_LETTER --+--> by user
     * transaction scores (period) --------------------------------------------------------------+    |
     * labels -----------------------------------------------------------------------------------+  judge,
     *                                                                       re-score, fold per subtask
     * </pre>
     *
     * @param trailing T, the trailing window the scores were computed over
     * @param scorerFactory the serving per-transaction model, or null not to re-score
     * @param thresholds its decision thresholds (with a model), else null
     * @param labelsGiven whether {@code in.labels()} carries the run's labels
     * @param positions where the job's readers stood ({@link ReadPositions#NONE}: unknown)
     */
    public static DataStream<byte[]> buildTransactions(
            StreamExecutionEnvironment env,
            ParityStreams in,
            ArchivePolicy policy,
            ParityPeriod period,
            long readEndMillis,
            Duration trailing,
            TransactionScorer.Factory scorerFactory,
            DecisionThresholds thresholds,
            boolean labelsGiven,
            ReadPositions positions) {
        if (env.getConfiguration().get(ExecutionOptions.RUNTIME_MODE)
                != RuntimeExecutionMode.BATCH) {
            throw new IllegalStateException(
                    "the parity check runs in BATCH execution mode (execution.runtime-mode: BATCH)");
        }
        long from = period.isBounded() ? period.from().toEpochMilli() : Long.MIN_VALUE;
        long to = period.isBounded() ? period.to().toEpochMilli() : Long.MAX_VALUE;
        DataStream<Evidence> evidence =
                transactionEvidence(in, policy, period, readEndMillis, trailing);
        return evidence.keyBy(e -> SortKeys.user(e.userId), Types.LONG)
                .transform(
                        "judge transactions",
                        PARTIAL_REPORT,
                        new TransactionJudgeOperator(
                                new TransactionVerdictFunction(
                                        policy,
                                        trailing,
                                        from,
                                        to,
                                        scorerFactory,
                                        thresholds,
                                        labelsGiven,
                                        positions)));
    }

    /**
     * The evidence of the per-transaction check, not yet keyed: the archived transactions of the
     * period's trailing windows with their partitions' watermark bounds, the dead letters at their
     * positions, the served transaction scores of the period and the labels. Shared by {@link
     * #buildTransactions} and the training export from an archive ({@link
     * org.fraudpipe.parity.transaction.ArchivedTransactionRows}).
     */
    public static DataStream<Evidence> transactionEvidence(
            ParityStreams in,
            ArchivePolicy policy,
            ParityPeriod period,
            long readEndMillis,
            Duration trailing) {
        WindowAssignment windows = WindowAssignment.tumbling(policy.windowSize());
        long from = period.isBounded() ? period.from().toEpochMilli() : Long.MIN_VALUE;
        long to = period.isBounded() ? period.to().toEpochMilli() : Long.MAX_VALUE;
        long historyFrom = period.isBounded() ? from - trailing.toMillis() : Long.MIN_VALUE;

        DataStream<ArchivedTransaction> transactions = in.transactions();
        if (in.transactionHistory() != null) {
            transactions = transactions.union(in.transactionHistory());
        }
        DataStream<Evidence> evidence =
                withWatermarkBounds(
                        transactions,
                        in.deadLetters(),
                        new PartitionWatermarkBounds(
                                policy,
                                readEndMillis,
                                PartitionWatermarkBounds.Selection.eventTimes(historyFrom, to),
                                windows),
                        "trailing windows' transactions, with watermark bounds and dead letters");
        if (in.transactionScores() != null) {
            evidence =
                    evidence.union(
                            in.transactionScores()
                                    .filter(
                                            s -> {
                                                long t = s.getEventTime().toEpochMilli();
                                                return t >= from && t < to;
                                            })
                                    .name("transaction scores in period")
                                    .map(Evidence::transactionScore, EVIDENCE)
                                    .name("served transaction scores"));
        }
        if (in.labels() != null) {
            evidence = evidence.union(in.labels());
        }
        return evidence;
    }

    /**
     * The archived records (all of them, in offset order per partition) through {@code bounds},
     * with the dead letters (if any) attributed in the same pass: both inputs keyed by source
     * partition with their source offset as timestamp, so BATCH execution sorts them into one
     * offset order.
     */
    private static DataStream<Evidence> withWatermarkBounds(
            DataStream<ArchivedTransaction> transactions,
            DataStream<DeadLetter> deadLetters,
            PartitionWatermarkBounds bounds,
            String name) {
        DataStream<ArchivedTransaction> byOffset =
                transactions
                        .assignTimestampsAndWatermarks(
                                WatermarkStrategy.<ArchivedTransaction>noWatermarks()
                                        .withTimestampAssigner((a, ts) -> a.getSourceOffset()))
                        .name("offset order");
        if (deadLetters == null) {
            return byOffset.keyBy(PartitionWatermarkBounds::partitionOf, Types.INT)
                    .process(new PartitionWatermarkBounds.ArchivedOnly(bounds), EVIDENCE)
                    .name(name);
        }
        DataStream<DeadLetter> deadLettersByOffset =
                deadLetters
                        .assignTimestampsAndWatermarks(
                                WatermarkStrategy.<DeadLetter>noWatermarks()
                                        .withTimestampAssigner((d, ts) -> d.getSourceOffset()))
                        .name("offset order (dead letters)");
        return byOffset.connect(deadLettersByOffset)
                .keyBy(
                        PartitionWatermarkBounds::partitionOf,
                        PartitionWatermarkBounds::partitionOf,
                        Types.INT)
                .process(bounds, EVIDENCE)
                .name(name);
    }

    private static long eventTime(Transaction tx) {
        return tx.getEventTime().toEpochMilli();
    }

    /**
     * The transactions whose window starts in the period; counts every transaction read in the
     * accumulator {@value #TRANSACTIONS_READ} (the progress of {@code ./fraud parity}).
     */
    static final class InPeriod extends RichFilterFunction<ArchivedTransaction> {
        private final ParityPeriod period;
        private final WindowAssignment windows;
        private transient LongCounter read;

        InPeriod(ParityPeriod period, WindowAssignment windows) {
            this.period = period;
            this.windows = windows;
        }

        @Override
        public void open(OpenContext context) {
            read = getRuntimeContext().getLongCounter(TRANSACTIONS_READ);
        }

        @Override
        public boolean filter(ArchivedTransaction a) {
            read.add(1L);
            return period.containsWindowStart(windows.startOf(eventTime(a.getTransaction())));
        }
    }
}
