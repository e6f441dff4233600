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
import org.fraudpipe.job.scoring.release.ModelReleases;
import org.fraudpipe.job.scoring.release.ServingScorer;
import org.fraudpipe.schemas.avro.ChallengerScore;
import org.fraudpipe.schemas.avro.FeatureRecord;
import org.fraudpipe.schemas.avro.ModelKind;
import org.fraudpipe.schemas.avro.ScoreRecord;
import org.fraudpipe.scoring.DecisionThresholds;
import org.fraudpipe.scoring.FeatureLayout;
import org.fraudpipe.scoring.ModelLoadException;
import org.fraudpipe.scoring.ModelMetadata;
import org.fraudpipe.scoring.OnnxScorer;

/**
 * The job's {@link PaneScorer}: the ONNX model that serves each pane's window start ({@link
 * ServingScorer}: a release of the registry, or the start-up model) scores a batch of panes, the
 * job's thresholds turn each probability into a decision, and each score carries the exact features
 * scored, the model's name and version, and the challenger's score if one is assigned.
 */
public final class OnnxPaneScorer implements PaneScorer {

    private final ServingScorer<FeatureRecord> models;
    private final DecisionThresholds thresholds;

    private OnnxPaneScorer(ServingScorer<FeatureRecord> models, DecisionThresholds thresholds) {
        this.models = models;
        this.thresholds = thresholds;
    }

    /** A pane's coordinate, which decides the release that scores it: its window's start. */
    public static long coordinateOf(FeatureRecord pane) {
        return pane.getWindowStart().toEpochMilli();
    }

    @Override
    public List<ScoreRecord> score(List<FeatureRecord> panes, long scoredAt) {
        long[] coordinates = new long[panes.size()];
        for (int i = 0; i < coordinates.length; i++) {
            coordinates[i] = coordinateOf(panes.get(i));
        }
        ServingScorer.Scored scored = models.score(panes, coordinates);
        List<ScoreRecord> out = new ArrayList<>(panes.size());
        for (int i = 0; i < panes.size(); i++) {
            FeatureRecord f = panes.get(i);
            ModelMetadata model = scored.models[i];
            ModelMetadata challenger = scored.challengers[i];
            out.add(
                    ScoreRecord.newBuilder()
                            .setUserId(f.getUserId())
                            .setWindowStart(f.getWindowStart())
                            .setWindowEnd(f.getWindowEnd())
                            .setFeatures(f)
                            .setScore(scored.scores[i])
                            .setDecision(thresholds.decide(scored.scores[i]))
                            .setModelName(model.name())
                            .setModelVersion(model.version())
                            .setRevision(f.getRevision())
                            .setTiming(f.getTiming())
                            .setScoredAt(
                                    scoredAt == BatchScoringOperator.SCORED_AT_EMITTED_AT
                                            ? f.getEmittedAt()
                                            : Instant.ofEpochMilli(scoredAt))
                            .setChallenger(
                                    challenger == null
                                            ? null
                                            : new ChallengerScore(
                                                    challenger.name(),
                                                    challenger.version(),
                                                    scored.challengerScores[i],
                                                    thresholds.decide(scored.challengerScores[i])))
                            .build());
        }
        return out;
    }

    @Override
    public void close() {
        models.close();
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
        private final ModelReleases releases;

        private Factory(
                byte[] model,
                String source,
                DecisionThresholds thresholds,
                ModelReleases releases) {
            this.model = model;
            this.source = source;
            this.thresholds = thresholds;
            this.releases = releases;
        }

        private Factory(byte[] model, String source, DecisionThresholds thresholds) {
            this(model, source, thresholds, ModelReleases.startupOnly());
        }

        /**
         * The same start-up model, with the releases of the window kind from {@code releases}
         * serving beside it ({@link ServingScorer}).
         */
        public Factory withReleases(ModelReleases releases) {
            return new Factory(model, source, thresholds, releases);
        }

        /** The releases of this kind that may serve beside the start-up model, where known. */
        public java.util.List<String> releaseIds() {
            return releases.releaseIds(ModelKind.WINDOW);
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
        public PaneScorer create(ScorerContext context) {
            OnnxScorer<FeatureRecord> startup;
            try {
                startup = OnnxScorer.fromBytes(model, source, FeatureLayout.V1);
            } catch (ModelLoadException e) {
                throw new IllegalStateException(e.getMessage(), e);
            }
            ServingScorer<FeatureRecord> models =
                    new ServingScorer<>(
                            ModelKind.WINDOW,
                            startup,
                            releases.open(),
                            releases.holdTimeout(),
                            context.metrics(),
                            context.subtask());
            try {
                // Window starts are minutes behind the clock: any current view covers them.
                models.awaitFirstView(System.currentTimeMillis());
            } catch (RuntimeException e) {
                models.close();
                throw e;
            }
            return new OnnxPaneScorer(models, thresholds);
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
