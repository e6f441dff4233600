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
 * its arrival ({@link TrailingFeatureFunction}) and is scored at once by the per-transaction model
 * ({@link BatchScoringOperator}, chained; live, {@link BatchScoringOperator.Flush#WHEN_IDLE}: as
 * soon as the task has no other input in hand; {@code maxDelay} is only the upper bound).
 *
 * <p>Its input is the source's ingested records, not the ingest router's output: the same valid,
 * not future-dated transactions the windows get (plus the records the router sets aside as too late
 * after a restore: too late for the windows, still scored here), with their Kafka record timestamp,
 * which the router's output no longer carries. The filter runs at the source's parallelism, chained
 * to it, so it sees each source subtask's records and watermarks in order, as the router does.
 *
 * <p>Latency: the shuffle from the filter to the keyed operator is the path's one network edge.
 * Flink ships records between tasks in buffers that are sent when full or when the edge's buffer
 * timeout passes (100 ms by default): at a few thousand transactions per second a buffer of 32 KB
 * takes tens of milliseconds to fill, which a transaction would wait for. The filter's output (so
 * that edge alone) gets {@link Spec#bufferTimeout} ({@code --transaction-buffer-timeout}, 2 ms);
 * the scoring operator and the sink are chained to the keyed operator (no buffer).
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
     * @param maxDelay longest a transaction waits for its batch (live, an upper bound: it is scored
     *     as soon as the task is idle)
     * @param clock {@code scoredAt} from the wall clock, or in a replay from each arrival's time
     * @param bufferTimeout longest a record waits in a network buffer on the way to the keyed
     *     operator, or null for Flink's ({@code execution.buffer-timeout.interval}, 100 ms)
     */
    public record Spec(
            TransactionScorer.Factory scorer,
            Duration trailing,
            Duration allowedLateness,
            int maxBatchSize,
            Duration maxDelay,
            ProcessingTimeSource clock,
            Duration bufferTimeout) {

        /** With Flink's buffer timeout. */
        public Spec(
                TransactionScorer.Factory scorer,
                Duration trailing,
                Duration allowedLateness,
                int maxBatchSize,
                Duration maxDelay,
                ProcessingTimeSource clock) {
            this(scorer, trailing, allowedLateness, maxBatchSize, maxDelay, clock, null);
        }
    }

    private TransactionScoring() {}

    /** Applies the path to the source's ingested records. */
    public static DataStream<TransactionScore> apply(
            DataStream<IngestedRecord> ingested, Spec spec) {
        SingleOutputStreamOperator<IngestedRecord> valid =
                ingested.filter(IngestedRecord::isWindowable)
                        .uid(Uids.TRANSACTIONS_TO_SCORE)
                        .name(OperatorNames.TRANSACTIONS_TO_SCORE)
                        .setParallelism(ingested.getParallelism());
        if (spec.bufferTimeout() != null) {
            // The timeout of the edges this operator sends into: the keyBy below.
            valid.setBufferTimeout(spec.bufferTimeout().toMillis());
        }
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
                                METRICS,
                                // Live, a transaction is scored as soon as the task is idle;
                                // a replay (deterministic clock) keeps its batches.
                                spec.clock() == ProcessingTimeSource.WALL_CLOCK
                                        ? BatchScoringOperator.Flush.WHEN_IDLE
                                        : BatchScoringOperator.Flush.WHEN_DUE))
                .uid(Uids.TRANSACTION_SCORING);
    }
}
