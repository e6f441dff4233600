package org.fraudpipe.job.transaction;

import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import org.fraudpipe.job.scoring.BatchScoringOperator;
import org.fraudpipe.schemas.avro.Decision;
import org.fraudpipe.schemas.avro.TransactionFeatures;
import org.fraudpipe.schemas.avro.TransactionScore;

/**
 * A model-free {@link TransactionScorer} for operator tests: score = txCount / 100, REVIEW from
 * 0.1, BLOCK from 0.5; records the sizes of the batches it was given.
 */
final class TestScorer implements TransactionScorer {

    static final List<Integer> BATCHES = new ArrayList<>();

    @Override
    public List<TransactionScore> score(List<ArrivalFeatures> batch, long scoredAt) {
        BATCHES.add(batch.size());
        List<TransactionScore> out = new ArrayList<>();
        for (ArrivalFeatures a : batch) {
            TransactionFeatures f = a.features;
            double score = Math.min(1.0, f.getTxCount() / 100.0);
            out.add(
                    TransactionScore.newBuilder()
                            .setTransactionId(f.getTransactionId())
                            .setUserId(f.getUserId())
                            .setEventTime(f.getEventTime())
                            .setFeatures(f)
                            .setScore(score)
                            .setDecision(
                                    score >= 0.5
                                            ? Decision.BLOCK
                                            : score >= 0.1 ? Decision.REVIEW : Decision.ALLOW)
                            .setModelName("test")
                            .setModelVersion("1")
                            .setRecordTimestamp(
                                    a.recordTimestamp == ReceivedTransaction.NO_TIMESTAMP
                                            ? null
                                            : Instant.ofEpochMilli(a.recordTimestamp))
                            .setScoredAt(
                                    Instant.ofEpochMilli(
                                            scoredAt == BatchScoringOperator.SCORED_AT_EMITTED_AT
                                                    ? a.receivedAt
                                                    : scoredAt))
                            .build());
        }
        return out;
    }

    @Override
    public void close() {}

    static final class Factory implements TransactionScorer.Factory {
        private static final long serialVersionUID = 1L;

        @Override
        public TransactionScorer create(org.fraudpipe.job.scoring.ScorerContext context) {
            return new TestScorer();
        }

        @Override
        public void validate() {}
    }
}
