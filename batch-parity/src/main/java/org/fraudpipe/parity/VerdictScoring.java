package org.fraudpipe.parity;

import java.util.List;
import org.apache.flink.api.common.functions.OpenContext;
import org.apache.flink.api.common.functions.RichMapFunction;
import org.fraudpipe.job.scoring.PaneScorer;
import org.fraudpipe.schemas.avro.ScoreRecord;

/**
 * Scores each verdict's ideal features with the model the checker was given (the same ONNX scorer
 * and thresholds as the job), so that the score-level cost of skew can be measured: the served
 * score against the ideal score, same model version.
 */
final class VerdictScoring extends RichMapFunction<WindowVerdict, WindowVerdict> {

    private static final long serialVersionUID = 1L;

    private final PaneScorer.Factory scorerFactory;
    private transient PaneScorer scorer;

    VerdictScoring(PaneScorer.Factory scorerFactory) {
        this.scorerFactory = scorerFactory;
    }

    @Override
    public void open(OpenContext context) {
        scorer =
                scorerFactory.create(
                        org.fraudpipe.job.scoring.ScorerContext.of(
                                getRuntimeContext(), getRuntimeContext().getMetricGroup()));
    }

    @Override
    public WindowVerdict map(WindowVerdict v) {
        if (v.ideal != null) {
            ScoreRecord s =
                    scorer.score(List.of(v.ideal), v.ideal.getEmittedAt().toEpochMilli()).get(0);
            v.idealScore = s.getScore();
            v.idealDecision = s.getDecision().name();
            v.idealModelVersion = s.getModelVersion();
        }
        return v;
    }

    @Override
    public void close() {
        if (scorer != null) {
            scorer.close();
        }
    }
}
