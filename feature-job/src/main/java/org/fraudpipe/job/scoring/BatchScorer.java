package org.fraudpipe.job.scoring;

import java.util.List;
import org.fraudpipe.schemas.avro.Decision;

/**
 * Scores records in batches: one output per input, in the same order. What {@link
 * BatchScoringOperator} calls; created on a task by a {@link Factory}; used by one thread; closed
 * with the task. Two kinds: window panes ({@link PaneScorer}) and transactions as of their arrival
 * ({@link org.fraudpipe.job.transaction.TransactionScorer}).
 *
 * @param <I> what is scored
 * @param <O> the score record
 */
public interface BatchScorer<I, O> extends AutoCloseable {

    /** {@link #recordTimestampOf} of an input without a Kafka record timestamp. */
    long NO_TIMESTAMP = Long.MIN_VALUE;

    /**
     * Scores {@code batch}.
     *
     * @param scoredAt processing time to stamp the scores with, or {@link
     *     BatchScoringOperator#SCORED_AT_EMITTED_AT} to stamp each with its input's own
     *     deterministic time (a replay: a pane's {@code emittedAt}, a transaction's arrival)
     * @return one score per input, in the order of {@code batch}
     */
    List<O> score(List<I> batch, long scoredAt);

    /** The decision of a score (counted per decision by the operator). */
    Decision decisionOf(O score);

    /**
     * The Kafka record timestamp (epoch millis) from which the latency of {@code input}'s score is
     * measured, or {@link #NO_TIMESTAMP}.
     */
    default long recordTimestampOf(I input) {
        return NO_TIMESTAMP;
    }

    @Override
    void close();

    /**
     * What the job graph carries to the tasks (serializable); creates the scorer on the task. Model
     * loading and validation happen in {@link #validate()} on the client first, so a missing or
     * incompatible model stops the job at start-up, not at the first record.
     */
    interface Factory<I, O> extends java.io.Serializable {
        /** Creates the scorer on a task (its models loaded, its registry feed open). */
        BatchScorer<I, O> create(ScorerContext context);

        /** Loads and checks the model once, throwing with a clear message if it is unusable. */
        void validate();
    }
}
