package org.fraudpipe.job.topology;

import java.time.Duration;
import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.streaming.api.datastream.DataStream;
import org.apache.flink.streaming.api.datastream.SingleOutputStreamOperator;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.fraudpipe.job.archive.ReceivedTransactions;
import org.fraudpipe.job.config.JobConfig;
import org.fraudpipe.job.ingest.IngestRouter;
import org.fraudpipe.job.ingest.IngestedRecord;
import org.fraudpipe.job.position.ReadPositions;
import org.fraudpipe.job.position.ReadPositionsOperator;
import org.fraudpipe.job.scoring.BatchScoringOperator;
import org.fraudpipe.job.scoring.PaneScorer;
import org.fraudpipe.job.transaction.TransactionScorer;
import org.fraudpipe.job.transaction.TransactionScoring;
import org.fraudpipe.job.window.FeatureWindowSpec;
import org.fraudpipe.job.window.FeatureWindows;
import org.fraudpipe.job.window.WindowedFeatures;
import org.fraudpipe.schemas.avro.ArchivedModelEvent;
import org.fraudpipe.schemas.avro.ArchivedTransaction;
import org.fraudpipe.schemas.avro.DeadLetter;
import org.fraudpipe.schemas.avro.FeatureRecord;
import org.fraudpipe.schemas.avro.LateRecord;
import org.fraudpipe.schemas.avro.ReadPosition;
import org.fraudpipe.schemas.avro.ScoreRecord;
import org.fraudpipe.schemas.avro.Transaction;
import org.fraudpipe.schemas.avro.TransactionScore;

/**
 * The one topology of the feature job, with its source and sinks injected: Kafka in production,
 * files in a replay, test sources and sinks in tests. Nothing here knows where data comes from or
 * goes to.
 *
 * <pre>
 *   source (decode, validate, classify; timestamps + watermarks per partition)
 *     -> ingest router ----------------------------------> dead letters
 *          | \--------------------------------------------> late (FUTURE_DATED)
 *          v
 *     keyBy(userId) -> tumbling window + allowed lateness -> features (every pane)
 *                          |                                  \-> batch scoring -> scores
 *                          \-> too-late side output -------> late (TOO_LATE)
 *
 *   source (or a reading of its own) -> valid, not future-dated -> keyBy(userId) -> trailing features as of arrival
 *                                       -> per-transaction scoring -> transaction scores
 *
 *   source -> received transactions (valid, quarantined included) -> archive: transactions
 *   features, scores, late, dead letters, transaction scores --------> archive: the same streams
 *   each path's reader -> read position (windows | decisions) -------> archive: read positions
 * </pre>
 *
 * <p>Read positions ({@link ReadPositionsOperator}) are tracked on both readers whether or not the
 * job archives: a client that drains the job waits on them ({@link
 * org.fraudpipe.job.position.DrainGate}).
 *
 * <p>The ingest router runs at its source's parallelism (a forward, chained edge), so it sees every
 * source subtask's records and watermarks in their order. A replay relies on that: source and
 * router at parallelism 1 give every window subtask one ordered input channel.
 *
 * <p>Scoring is optional ({@link Scoring}): chained to the window operator, it scores every pane,
 * on time and late, in batches ({@link BatchScoringOperator}). With {@link Scoring#transactions()}
 * the topology also scores every valid transaction when it arrives ({@link TransactionScoring}): a
 * second path beside the windows, from the same source records, sharing the feature core; the
 * window path's operators, uids and outputs are the same with or without it.
 *
 * <p>The archive is optional too ({@link Archive}): a second set of sinks attached here, next to
 * the output sinks, to the very same streams (so the archive holds exactly what was served), plus
 * the received transactions, mapped from the source's records by a stateless operator chained to
 * the source (so it sees every valid record once, whatever the router decides for it). Why an
 * argument rather than a decorator of the output sinks: see {@link Archive}.
 */
public final class FeatureJobTopology {

    /**
     * The job's output streams, before sinks.
     *
     * @param scores every pane's score, or null when the topology does not score
     * @param received every valid transaction received, as archived; null when the topology does
     *     not archive
     * @param transactionScores every valid transaction's score at arrival, or null when the
     *     topology does not score transactions
     * @param readPositions where each path's reader stood, at every checkpoint and at the end
     */
    public record Streams(
            DataStream<FeatureRecord> features,
            DataStream<ScoreRecord> scores,
            DataStream<LateRecord> late,
            DataStream<DeadLetter> deadLetters,
            DataStream<ArchivedTransaction> received,
            DataStream<TransactionScore> transactionScores,
            DataStream<ReadPosition> readPositions) {}

    /**
     * The scoring stage: the model (validated on the client before the job is built) and how panes
     * are batched; and the per-transaction path, or null for none.
     */
    public record Scoring(
            PaneScorer.Factory scorer,
            int maxBatchSize,
            Duration maxDelay,
            PerTransaction transactions) {

        /** Panes only, no per-transaction path. */
        public Scoring(PaneScorer.Factory scorer, int maxBatchSize, Duration maxDelay) {
            this(scorer, maxBatchSize, maxDelay, null);
        }
    }

    /**
     * The per-transaction path: its model (validated on the client first), its trailing window, how
     * transactions are batched and how long a record may wait in a network buffer on its way to the
     * path's keyed operator (null: Flink's buffer timeout). Its allowed lateness (how long received
     * transactions outlive their trailing window) and its clock are the windows'.
     */
    public record PerTransaction(
            TransactionScorer.Factory scorer,
            Duration trailingWindow,
            int maxBatchSize,
            Duration maxDelay,
            Duration bufferTimeout) {

        /** With Flink's buffer timeout (a replay, tests). */
        public PerTransaction(
                TransactionScorer.Factory scorer,
                Duration trailingWindow,
                int maxBatchSize,
                Duration maxDelay) {
            this(scorer, trailingWindow, maxBatchSize, maxDelay, null);
        }
    }

    /**
     * What one job runs: which paths ({@link JobConfig.Paths}), from which source, with which
     * windows, scoring, sinks and archive. The one value {@link #build} takes.
     *
     * @param paths both paths, the window path only, or the per-transaction path only (the decision
     *     job): the latter needs {@code scoring} with {@link Scoring#transactions()}
     * @param scoring the models; null scores nothing (tests of the window path alone)
     * @param sinks where the outputs go, or null to attach none (tests that read the streams)
     * @param archive the archive's sinks, or null to archive nothing
     */
    public record Plan(
            JobConfig.Paths paths,
            TransactionSource source,
            FeatureWindowSpec spec,
            Scoring scoring,
            OutputSinks sinks,
            Archive archive) {

        public Plan {
            java.util.Objects.requireNonNull(paths, "paths");
            java.util.Objects.requireNonNull(source, "source");
            java.util.Objects.requireNonNull(spec, "spec");
            if (paths.decisions() && (scoring == null || scoring.transactions() == null)) {
                throw new IllegalArgumentException(
                        "the per-transaction path ("
                                + paths
                                + ") needs its model: Scoring with"
                                + " PerTransaction");
            }
        }

        /**
         * The paths {@code scoring} asks for: both with a per-transaction model, else the windows.
         */
        public static Plan of(TransactionSource source, FeatureWindowSpec spec, Scoring scoring) {
            return new Plan(
                    scoring != null && scoring.transactions() != null
                            ? JobConfig.Paths.BOTH
                            : JobConfig.Paths.WINDOWS,
                    source,
                    spec,
                    scoring,
                    null,
                    null);
        }

        /** The same plan running {@code paths}. */
        public Plan running(JobConfig.Paths paths) {
            return new Plan(paths, source, spec, scoring, sinks, archive);
        }

        /** The same plan writing its outputs to {@code sinks}. */
        public Plan to(OutputSinks sinks) {
            return new Plan(paths, source, spec, scoring, sinks, archive);
        }

        /** The same plan archiving in {@code archive} (null: nothing). */
        public Plan archivedIn(Archive archive) {
            return new Plan(paths, source, spec, scoring, sinks, archive);
        }
    }

    private FeatureJobTopology() {}

    /**
     * Builds the streams {@code plan} runs and attaches its sinks and archive (the archive's to the
     * very streams the output sinks get, and to the received transactions).
     */
    public static Streams build(StreamExecutionEnvironment env, Plan plan) {
        Streams streams = streams(env, plan);
        if (plan.sinks() != null) {
            attach(streams, plan.sinks());
        }
        Archive archive = plan.archive();
        if (archive != null) {
            if (streams.received() != null) {
                archive.transactions(streams.received());
            }
            archive.readPositions(streams.readPositions());
            DataStream<ArchivedModelEvent> models = plan.source().createModelEvents(env);
            if (models != null) {
                archive.modelEvents(models);
            }
            attach(streams, archive);
        }
        return streams;
    }

    private static void attach(Streams streams, OutputSinks sinks) {
        if (streams.features() != null) {
            sinks.features(streams.features());
            sinks.late(streams.late());
            sinks.deadLetters(streams.deadLetters());
        }
        if (streams.scores() != null) {
            sinks.scores(streams.scores());
        }
        if (streams.transactionScores() != null) {
            sinks.transactionScores(streams.transactionScores());
        }
    }

    /** The per-transaction path's input: the source's second reading if it has one. */
    private static DataStream<IngestedRecord> forTransactions(
            StreamExecutionEnvironment env,
            TransactionSource source,
            DataStream<IngestedRecord> ingested) {
        DataStream<IngestedRecord> own = source.createForTransactions(env);
        return own == null ? ingested : own;
    }

    private static Streams streams(StreamExecutionEnvironment env, Plan plan) {
        JobConfig.Paths paths = plan.paths();
        Scoring scoring = plan.scoring();
        if (!paths.windows()) {
            return decisionsOnly(env, plan);
        }
        TransactionSource source = plan.source();
        FeatureWindowSpec spec = plan.spec();
        boolean archiveReceived = plan.archive() != null;
        DataStream<IngestedRecord> ingested = source.create(env);
        SingleOutputStreamOperator<Transaction> valid =
                ingested.process(new IngestRouter(spec), TypeInformation.of(Transaction.class))
                        .uid(Uids.INGEST_ROUTER)
                        .name(OperatorNames.INGEST_ROUTER)
                        .setParallelism(ingested.getParallelism());
        WindowedFeatures windowed = FeatureWindows.apply(valid, spec);
        DataStream<FeatureRecord> features =
                windowed.features()
                        .map(new PaneMetrics(), TypeInformation.of(FeatureRecord.class))
                        .uid(Uids.PANE_METRICS)
                        .name(OperatorNames.PANE_METRICS);
        DataStream<LateRecord> late =
                windowed.tooLate().union(valid.getSideOutput(IngestRouter.LATE));
        DataStream<ScoreRecord> scores =
                scoring == null
                        ? null
                        : features.transform(
                                        OperatorNames.SCORING,
                                        TypeInformation.of(ScoreRecord.class),
                                        BatchScoringOperator.panes(
                                                scoring.scorer(),
                                                scoring.maxBatchSize(),
                                                scoring.maxDelay().toMillis(),
                                                spec.processingTime()))
                                .uid(Uids.SCORING);
        // Built only when archived: an operator without a consumer would still run.
        DataStream<ArchivedTransaction> received =
                archiveReceived
                        ? ingested.flatMap(
                                        new ReceivedTransactions(),
                                        TypeInformation.of(ArchivedTransaction.class))
                                .uid(Uids.ARCHIVE_RECEIVED)
                                .name(OperatorNames.ARCHIVE_RECEIVED)
                                .setParallelism(ingested.getParallelism())
                        : null;
        DataStream<ReadPosition> readPositions =
                ReadPositionsOperator.track(ingested, ReadPositions.Reader.WINDOWS);
        DataStream<TransactionScore> transactionScores = null;
        if (paths.decisions()) {
            DataStream<IngestedRecord> decisions = forTransactions(env, source, ingested);
            readPositions =
                    readPositions.union(
                            ReadPositionsOperator.track(decisions, ReadPositions.Reader.DECISIONS));
            transactionScores =
                    TransactionScoring.apply(
                            decisions,
                            new TransactionScoring.Spec(
                                    scoring.transactions().scorer(),
                                    scoring.transactions().trailingWindow(),
                                    spec.allowedLateness(),
                                    scoring.transactions().maxBatchSize(),
                                    scoring.transactions().maxDelay(),
                                    spec.processingTime(),
                                    scoring.transactions().bufferTimeout()));
        }
        return new Streams(
                features,
                scores,
                late,
                valid.getSideOutput(IngestRouter.DEAD_LETTERS),
                received,
                transactionScores,
                readPositions);
    }

    /**
     * The decision job: the per-transaction path alone, on the source's reading for it (its own uid
     * and consumers, {@link TransactionSource#createForTransactions}; the main reading if the
     * source has no second one), with its read position.
     */
    private static Streams decisionsOnly(StreamExecutionEnvironment env, Plan plan) {
        DataStream<IngestedRecord> decisions = plan.source().createForTransactions(env);
        if (decisions == null) {
            decisions = plan.source().create(env);
        }
        return new Streams(
                null,
                null,
                null,
                null,
                null,
                transactionScores(decisions, plan),
                ReadPositionsOperator.track(decisions, ReadPositions.Reader.DECISIONS));
    }

    private static DataStream<TransactionScore> transactionScores(
            DataStream<IngestedRecord> decisions, Plan plan) {
        PerTransaction t = plan.scoring().transactions();
        return TransactionScoring.apply(
                decisions,
                new TransactionScoring.Spec(
                        t.scorer(),
                        t.trailingWindow(),
                        plan.spec().allowedLateness(),
                        t.maxBatchSize(),
                        t.maxDelay(),
                        plan.spec().processingTime(),
                        t.bufferTimeout()));
    }
}
