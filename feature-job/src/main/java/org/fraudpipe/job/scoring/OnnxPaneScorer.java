package org.fraudpipe.job.scoring;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import org.fraudpipe.job.config.JobConfig;
import org.fraudpipe.schemas.avro.FeatureRecord;
import org.fraudpipe.schemas.avro.ScoreRecord;
import org.fraudpipe.scoring.DecisionThresholds;
import org.fraudpipe.scoring.FeatureLayout;
import org.fraudpipe.scoring.ModelLoadException;
import org.fraudpipe.scoring.ModelMetadata;
import org.fraudpipe.scoring.OnnxScorer;

/**
 * The job's {@link PaneScorer}: the ONNX model scores a batch of panes, thresholds turn each
 * probability into a decision, and each score carries the exact features scored and the model's
 * name and version.
 */
public final class OnnxPaneScorer implements PaneScorer {

    private final OnnxScorer<FeatureRecord> scorer;
    private final DecisionThresholds thresholds;
    private final ModelMetadata model;

    private OnnxPaneScorer(OnnxScorer<FeatureRecord> scorer, DecisionThresholds thresholds) {
        this.scorer = scorer;
        this.thresholds = thresholds;
        this.model = scorer.metadata();
    }

    @Override
    public List<ScoreRecord> score(List<FeatureRecord> panes, long scoredAt) {
        double[] probabilities = scorer.score(panes);
        List<ScoreRecord> out = new ArrayList<>(panes.size());
        for (int i = 0; i < panes.size(); i++) {
            FeatureRecord f = panes.get(i);
            // The all-arguments constructor: the builder validates and flags every field.
            out.add(
                    new ScoreRecord(
                            f.getUserId(),
                            f.getWindowStart(),
                            f.getWindowEnd(),
                            f,
                            probabilities[i],
                            thresholds.decide(probabilities[i]),
                            model.name(),
                            model.version(),
                            f.getRevision(),
                            f.getTiming(),
                            scoredAt == BatchScoringOperator.SCORED_AT_EMITTED_AT
                                    ? f.getEmittedAt()
                                    : Instant.ofEpochMilli(scoredAt)));
        }
        return out;
    }

    @Override
    public void close() {
        scorer.close();
    }

    /**
     * Ships the model's bytes with the job graph, so TaskManagers need no access to the file the
     * client read, and every subtask scores with exactly the model validated at start-up.
     */
    public static final class Factory implements PaneScorer.Factory {
        private static final long serialVersionUID = 1L;

        private final byte[] model;
        private final String source;
        private final DecisionThresholds thresholds;

        private Factory(byte[] model, String source, DecisionThresholds thresholds) {
            this.model = model;
            this.source = source;
            this.thresholds = thresholds;
        }

        /** The model and thresholds the job's configuration asks for. */
        public static Factory of(JobConfig config) {
            return of(
                    config.model().orElse(null),
                    new DecisionThresholds(config.reviewThreshold(), config.blockThreshold()));
        }

        /** The model at {@code path}, or the default model shipped in the scoring jar if null. */
        public static Factory of(Path path, DecisionThresholds thresholds) {
            if (path == null) {
                return new Factory(defaultModel(), DEFAULT_SOURCE, thresholds);
            }
            try {
                return new Factory(Files.readAllBytes(path), path.toString(), thresholds);
            } catch (IOException e) {
                throw new IllegalStateException(
                        "cannot read the model file "
                                + path
                                + " ("
                                + e
                                + "): check --model, or leave it out to use the default model",
                        e);
            }
        }

        /** Loads and checks the model, returning its metadata; throws naming the problem. */
        public ModelMetadata check() {
            try (OnnxScorer<FeatureRecord> scorer =
                    OnnxScorer.fromBytes(model, source, FeatureLayout.V1)) {
                return scorer.metadata();
            } catch (ModelLoadException e) {
                throw new IllegalStateException(e.getMessage(), e);
            }
        }

        @Override
        public void validate() {
            check();
        }

        @Override
        public PaneScorer create() {
            try {
                return new OnnxPaneScorer(
                        OnnxScorer.fromBytes(model, source, FeatureLayout.V1), thresholds);
            } catch (ModelLoadException e) {
                throw new IllegalStateException(e.getMessage(), e);
            }
        }

        private static final String DEFAULT_SOURCE =
                "classpath:" + OnnxScorer.DEFAULT_MODEL_RESOURCE;

        private static byte[] defaultModel() {
            try (InputStream in =
                    OnnxScorer.class
                            .getClassLoader()
                            .getResourceAsStream(OnnxScorer.DEFAULT_MODEL_RESOURCE)) {
                if (in == null) {
                    throw new IllegalStateException(
                            "the default model "
                                    + DEFAULT_SOURCE
                                    + " is not on the classpath: is the scoring jar missing?");
                }
                return in.readAllBytes();
            } catch (IOException e) {
                throw new UncheckedIOException("cannot read " + DEFAULT_SOURCE, e);
            }
        }
    }
}
