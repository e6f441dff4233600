package org.fraudpipe.job.transaction;

import org.fraudpipe.job.scoring.BatchScorer;
import org.fraudpipe.schemas.avro.Decision;
import org.fraudpipe.schemas.avro.TransactionScore;

/**
 * Scores transactions as of their arrival in batches: one {@link TransactionScore} per {@link
 * ArrivalFeatures}, in the same order ({@link BatchScorer}). {@code scoredAt} {@link
 * org.fraudpipe.job.scoring.BatchScoringOperator#SCORED_AT_EMITTED_AT} stamps each score with its
 * arrival's {@code receivedAt} (a replay's arrival time). The latency of a score is measured from
 * the Kafka record timestamp of the arrival it answers.
 */
public interface TransactionScorer extends BatchScorer<ArrivalFeatures, TransactionScore> {

    @Override
    default Decision decisionOf(TransactionScore score) {
        return score.getDecision();
    }

    @Override
    default long recordTimestampOf(ArrivalFeatures input) {
        return input.arrivalRecordTimestamp;
    }

    /** Creates a {@link TransactionScorer} on the task ({@link BatchScorer.Factory}). */
    interface Factory extends BatchScorer.Factory<ArrivalFeatures, TransactionScore> {
        @Override
        TransactionScorer create(org.fraudpipe.job.scoring.ScorerContext context);
    }
}
