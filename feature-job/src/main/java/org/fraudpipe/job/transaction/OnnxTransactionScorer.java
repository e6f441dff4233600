package org.fraudpipe.job.transaction;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import org.fraudpipe.job.config.JobConfig;
import org.fraudpipe.job.config.JobOption;
import org.fraudpipe.job.scoring.BatchScoringOperator;
import org.fraudpipe.job.scoring.ScorerContext;
import org.fraudpipe.job.scoring.release.ModelReleases;
import org.fraudpipe.job.scoring.release.ServingScorer;
import org.fraudpipe.schemas.avro.ChallengerScore;
import org.fraudpipe.schemas.avro.ModelKind;
import org.fraudpipe.schemas.avro.TransactionFeatures;
import org.fraudpipe.schemas.avro.TransactionScore;
import org.fraudpipe.scoring.DecisionThresholds;
import org.fraudpipe.scoring.FeatureLayout;
import org.fraudpipe.scoring.ModelLoadException;
import org.fraudpipe.scoring.ModelMetadata;
import org.fraudpipe.scoring.OnnxScorer;

/**
 * The job's {@link TransactionScorer}: the per-transaction ONNX model ({@link
 * FeatureLayout#TRANSACTION_V1}) that serves each transaction's coordinate ({@link ServingScorer}:
 * a release of the registry, or the start-up model) scores a batch of transactions, the
 * per-transaction thresholds turn each probability into a decision, and each score carries the
 * exact features scored, the model's name and version, the Kafka record timestamp of the
 * transaction, and the challenger's score if one is assigned.
 *
 * <p>Deterministic: the score of a row does not depend on the other rows of its batch (a linear or
 * factorization-machine model scores each row on its own; {@code TransactionScoringTest} checks
 * that a row scores the same bits alone and in batches), and the release that scores it is a
 * function of its coordinate; so a retry answered with the original's features, or a replay after a
 * failover, gets the same score from the same release.
 */
public final class OnnxTransactionScorer implements TransactionScorer {

    private final ServingScorer<TransactionFeatures> models;
    private final DecisionThresholds thresholds;
    private final List<TransactionFeatures> rows = new ArrayList<>();

    private OnnxTransactionScorer(
            ServingScorer<TransactionFeatures> models, DecisionThresholds thresholds) {
        this.models = models;
        this.thresholds = thresholds;
    }

    /**
     * A transaction's coordinate, which decides the release that scores it: its first arrival's
     * Kafka record timestamp (a retry's answer is the original's, so is its release), or where it
     * has none (a replay of a file) its first arrival's time ({@link ArrivalFeatures#coordinate}).
     */
    public static long coordinateOf(ArrivalFeatures a) {
        return a.coordinate;
    }

    @Override
    public List<TransactionScore> score(List<ArrivalFeatures> batch, long scoredAt) {
        rows.clear();
        long[] coordinates = new long[batch.size()];
        for (int i = 0; i < batch.size(); i++) {
            ArrivalFeatures a = batch.get(i);
            rows.add(a.features);
            coordinates[i] = coordinateOf(a);
        }
        ServingScorer.Scored scored = models.score(rows, coordinates);
        rows.clear();
        List<TransactionScore> out = new ArrayList<>(batch.size());
        for (int i = 0; i < batch.size(); i++) {
            ArrivalFeatures a = batch.get(i);
            TransactionFeatures f = a.features;
            ModelMetadata model = scored.models[i];
            ModelMetadata challenger = scored.challengers[i];
            out.add(
                    TransactionScore.newBuilder()
                            .setTransactionId(f.getTransactionId())
                            .setUserId(f.getUserId())
                            .setEventTime(f.getEventTime())
                            .setFeatures(f)
                            .setScore(scored.scores[i])
                            .setDecision(thresholds.decide(scored.scores[i]))
                            .setModelName(model.name())
                            .setModelVersion(model.version())
                            .setRecordTimestamp(
                                    a.recordTimestamp == ReceivedTransaction.NO_TIMESTAMP
                                            ? null
                                            : Instant.ofEpochMilli(a.recordTimestamp))
                            .setSourcePartition(a.sourcePartition)
                            .setSourceOffset(a.sourceOffset)
                            .setScoredAt(
                                    Instant.ofEpochMilli(
                                            scoredAt == BatchScoringOperator.SCORED_AT_EMITTED_AT
                                                    ? a.receivedAt
                                                    : scoredAt))
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
    public static final class Factory implements TransactionScorer.Factory {
        private static final long serialVersionUID = 1L;

        private static final String DEFAULT_SOURCE =
                "classpath:" + OnnxScorer.DEFAULT_TRANSACTION_MODEL_RESOURCE;

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
         * The same start-up model, with the releases of the transaction kind from {@code releases}
         * serving beside it ({@link ServingScorer}).
         */
        public Factory withReleases(ModelReleases releases) {
            return new Factory(model, source, thresholds, releases);
        }

        /** The releases of this kind that may serve beside the start-up model, where known. */
        public java.util.List<String> releaseIds() {
            return releases.releaseIds(ModelKind.TRANSACTION);
        }

        /** The per-transaction model and thresholds the job's configuration asks for. */
        public static Factory of(JobConfig config) {
            return of(
                    config.transactionModel().orElse(null),
                    new DecisionThresholds(
                            config.transactionReviewThreshold(),
                            config.transactionBlockThreshold()));
        }

        /**
         * The model at {@code path}, or the default per-transaction model shipped in the scoring
         * jar if null.
         */
        public static Factory of(Path path, DecisionThresholds thresholds) {
            if (path == null) {
                try {
                    return new Factory(
                            OnnxScorer.resourceBytes(OnnxScorer.DEFAULT_TRANSACTION_MODEL_RESOURCE),
                            DEFAULT_SOURCE,
                            thresholds);
                } catch (ModelLoadException e) {
                    throw new IllegalStateException(e.getMessage(), e);
                }
            }
            try {
                return new Factory(Files.readAllBytes(path), path.toString(), thresholds);
            } catch (IOException e) {
                throw new IllegalStateException(
                        "cannot read the per-transaction model file "
                                + path
                                + " ("
                                + e
                                + "): check "
                                + JobOption.TRANSACTION_MODEL.flag()
                                + ", or leave it out to use the default per-transaction model",
                        e);
            }
        }

        /** Loads and checks the model, returning its metadata; throws naming the problem. */
        public ModelMetadata check() {
            try (OnnxScorer<TransactionFeatures> scorer =
                    OnnxScorer.fromBytes(model, source, FeatureLayout.TRANSACTION_V1)) {
                return scorer.metadata();
            } catch (ModelLoadException e) {
                throw new IllegalStateException(
                        e.getMessage()
                                + " ("
                                + JobOption.TRANSACTION_MODEL.flag()
                                + " takes a per-transaction model: ./fraud train"
                                + " --per-transaction)",
                        e);
            }
        }

        @Override
        public void validate() {
            check();
        }

        @Override
        public TransactionScorer create(ScorerContext context) {
            OnnxScorer<TransactionFeatures> startup;
            try {
                startup = OnnxScorer.fromBytes(model, source, FeatureLayout.TRANSACTION_V1);
            } catch (ModelLoadException e) {
                throw new IllegalStateException(e.getMessage(), e);
            }
            ServingScorer<TransactionFeatures> models =
                    new ServingScorer<>(
                            ModelKind.TRANSACTION,
                            startup,
                            releases.open(),
                            releases.holdTimeout(),
                            context.metrics(),
                            context.subtask());
            try {
                // When the task opens, not with its first transaction: that one must not wait.
                models.awaitFirstView(System.currentTimeMillis());
            } catch (RuntimeException e) {
                models.close();
                throw e;
            }
            return new OnnxTransactionScorer(models, thresholds);
        }
    }
}
