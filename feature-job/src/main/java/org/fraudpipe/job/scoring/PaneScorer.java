package org.fraudpipe.job.scoring;

import org.fraudpipe.schemas.avro.Decision;
import org.fraudpipe.schemas.avro.FeatureRecord;
import org.fraudpipe.schemas.avro.ScoreRecord;

/**
 * Scores window panes in batches: one {@link ScoreRecord} per {@link FeatureRecord}, in the same
 * order ({@link BatchScorer}); {@code scoredAt} {@link BatchScoringOperator#SCORED_AT_EMITTED_AT}
 * stamps each score with its pane's {@code emittedAt}.
 */
public interface PaneScorer extends BatchScorer<FeatureRecord, ScoreRecord> {

    @Override
    default Decision decisionOf(ScoreRecord score) {
        return score.getDecision();
    }

    /** Creates a {@link PaneScorer} on the task ({@link BatchScorer.Factory}). */
    interface Factory extends BatchScorer.Factory<FeatureRecord, ScoreRecord> {
        @Override
        PaneScorer create(ScorerContext context);
    }
}
