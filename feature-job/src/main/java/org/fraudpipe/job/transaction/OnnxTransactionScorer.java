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
import org.fraudpipe.schemas.avro.TransactionFeatures;
import org.fraudpipe.schemas.avro.TransactionScore;
import org.fraudpipe.scoring.DecisionThresholds;
import org.fraudpipe.scoring.FeatureLayout;
import org.fraudpipe.scoring.ModelLoadException;
import org.fraudpipe.scoring.ModelMetadata;
import org.fraudpipe.scoring.OnnxScorer;

/**
 * The job's {@link TransactionScorer}: the per-transaction ONNX model ({@link
 * FeatureLayout#TRANSACTION_V1}) scores a batch of transactions, the per-transaction thresholds
 * turn each probability into a decision, and each score carries the exact features scored, the
 * model's name and version and the Kafka record timestamp of the transaction.
 *
 * <p>Deterministic: the score of a row does not depend on the other rows of its batch (a linear or
 * factorization-machine model scores each row on its own; {@code TransactionScoringTest} checks
 * that a row scores the same bits alone and in batches), so a retry answered with the original's
 * features, or a replay after a failover, gets the same score from the same model.
 */
public final class OnnxTransactionScorer implements TransactionScorer {

    private final OnnxScorer<TransactionFeatures> scorer;
    private final DecisionThresholds thresholds;
    private final ModelMetadata model;
    private final List<TransactionFeatures> rows = new ArrayList<>();

    private OnnxTransactionScorer(
            OnnxScorer<TransactionFeatures> scorer, DecisionThresholds thresholds) {
        this.scorer = scorer;
        this.thresholds = thresholds;
        this.model = scorer.metadata();
    }

    @Override
    public List<TransactionScore> score(List<ArrivalFeatures> batch, long scoredAt) {
        rows.clear();
        for (ArrivalFeatures a : batch) {
            rows.add(a.features);
        }
        double[] probabilities = scorer.score(rows);
        rows.clear();
        List<TransactionScore> out = new ArrayList<>(batch.size());
        for (int i = 0; i < batch.size(); i++) {
            ArrivalFeatures a = batch.get(i);
            TransactionFeatures f = a.features;
            out.add(
                    TransactionScore.newBuilder()
                            .setTransactionId(f.getTransactionId())
                            .setUserId(f.getUserId())
                            .setEventTime(f.getEventTime())
                            .setFeatures(f)
                            .setScore(probabilities[i])
                            .setDecision(thresholds.decide(probabilities[i]))
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
                            .build());
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
    public static final class Factory implements TransactionScorer.Factory {
        private static final long serialVersionUID = 1L;

        private static final String DEFAULT_SOURCE =
                "classpath:" + OnnxScorer.DEFAULT_TRANSACTION_MODEL_RESOURCE;

        private final byte[] model;
        private final String source;
        private final DecisionThresholds thresholds;

        private Factory(byte[] model, String source, DecisionThresholds thresholds) {
            this.model = model;
            this.source = source;
            this.thresholds = thresholds;
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
        public TransactionScorer create() {
            try {
                return new OnnxTransactionScorer(
                        OnnxScorer.fromBytes(model, source, FeatureLayout.TRANSACTION_V1),
                        thresholds);
            } catch (ModelLoadException e) {
                throw new IllegalStateException(e.getMessage(), e);
            }
        }
    }
}
