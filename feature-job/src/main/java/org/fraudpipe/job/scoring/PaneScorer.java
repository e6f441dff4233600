package org.fraudpipe.job.scoring;

import java.util.List;
import org.fraudpipe.schemas.avro.FeatureRecord;
import org.fraudpipe.schemas.avro.ScoreRecord;

/**
 * Scores window panes in batches: one {@link ScoreRecord} per {@link FeatureRecord}, in the same
 * order. Created on a task by a {@link Factory}; used by one thread; closed with the task.
 */
public interface PaneScorer extends AutoCloseable {

    /**
     * Scores {@code panes}.
     *
     * @param scoredAt processing time to stamp the scores with, or {@link
     *     BatchScoringOperator#SCORED_AT_EMITTED_AT} to stamp each with its pane's {@code
     *     emittedAt}
     * @return one score per pane, in the order of {@code panes}
     */
    List<ScoreRecord> score(List<FeatureRecord> panes, long scoredAt);

    @Override
    void close();

    /**
     * What the job graph carries to the tasks (serializable); creates the scorer on the task. Model
     * loading and validation happen in {@link #validate()} on the client first, so a missing or
     * incompatible model stops the job at start-up, not at the first record.
     */
    interface Factory extends java.io.Serializable {
        PaneScorer create();

        /** Loads and checks the model once, throwing with a clear message if it is unusable. */
        void validate();
    }
}
