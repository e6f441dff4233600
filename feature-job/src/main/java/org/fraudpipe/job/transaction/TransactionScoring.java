package org.fraudpipe.job.transaction;

import java.time.Duration;
import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.api.common.typeinfo.Types;
import org.apache.flink.streaming.api.datastream.DataStream;
import org.apache.flink.streaming.api.datastream.SingleOutputStreamOperator;
import org.fraudpipe.job.ingest.IngestedRecord;
import org.fraudpipe.job.scoring.BatchScoringOperator;
import org.fraudpipe.job.topology.OperatorNames;
import org.fraudpipe.job.topology.Uids;
import org.fraudpipe.job.window.ProcessingTimeSource;
import org.fraudpipe.schemas.avro.TransactionScore;

/**
 * The per-transaction path of the feature job, as one piece of topology: every valid transaction
 * (future-dated ones and dead letters never enter), keyed by user, gets its trailing features as of
 * its arrival ({@link TrailingFeatureFunction}) and is scored at once by the per-transaction model,
 * micro-batched for at most a few milliseconds ({@link BatchScoringOperator}, chained).
 *
 * <p>Its input is the source's ingested records, not the ingest router's output: the same valid,
 * not future-dated transactions the windows get (plus the records the router sets aside as too late
 * after a restore: too late for the windows, still scored here), with their Kafka record timestamp,
 * which the router's output no longer carries. The filter runs at the source's parallelism, chained
 * to it, so it sees each source subtask's records and watermarks in order, as the router does.
 */
public final class TransactionScoring {

    /** Metric names of the per-transaction scoring stage. */
    public static final BatchScoringOperator.MetricNames METRICS =
            new BatchScoringOperator.MetricNames(
                    "fraudTransactionsScored",
                    "fraudTransactionDecisionsAllow",
                    "fraudTransactionDecisionsReview",
                    "fraudTransactionDecisionsBlock",
                    "fraudTransactionScoringBatchSize",
                    "fraudTransactionScoringBatchMicros",
                    "fraudTransactionScoreLatencyMs");

    /**
     * How the path runs.
     *
     * @param scorer the per-transaction model and thresholds (validated on the client first)
     * @param trailing T, the trailing window
     * @param allowedLateness L, the job's allowed lateness (how long entries outlive T)
     * @param maxBatchSize most transactions per model call
     * @param maxDelay longest a transaction waits for its batch
     * @param clock {@code scoredAt} from the wall clock, or in a replay from each arrival's time
     */
    public record Spec(
            TransactionScorer.Factory scorer,
            Duration trailing,
            Duration allowedLateness,
            int maxBatchSize,
            Duration maxDelay,
            ProcessingTimeSource clock) {}

    private TransactionScoring() {}

    /** Applies the path to the source's ingested records. */
    public static DataStream<TransactionScore> apply(
            DataStream<IngestedRecord> ingested, Spec spec) {
        SingleOutputStreamOperator<IngestedRecord> valid =
                ingested.filter(IngestedRecord::isWindowable)
                        .uid(Uids.TRANSACTIONS_TO_SCORE)
                        .name(OperatorNames.TRANSACTIONS_TO_SCORE)
                        .setParallelism(ingested.getParallelism());
        SingleOutputStreamOperator<ArrivalFeatures> features =
                valid.keyBy(r -> r.transaction.getUserId(), Types.STRING)
                        .process(
                                new TrailingFeatureFunction(
                                        spec.trailing(), spec.allowedLateness()),
                                TypeInformation.of(ArrivalFeatures.class))
                        .uid(Uids.TRAILING_FEATURES)
                        .name(OperatorNames.TRAILING_FEATURES);
        return features.transform(
                        OperatorNames.TRANSACTION_SCORING,
                        TypeInformation.of(TransactionScore.class),
                        new BatchScoringOperator<>(
                                spec.scorer(),
                                spec.maxBatchSize(),
                                spec.maxDelay().toMillis(),
                                spec.clock(),
                                METRICS))
                .uid(Uids.TRANSACTION_SCORING);
    }
}
