package org.fraudpipe.scoring.train;

import java.util.HashMap;
import java.util.Map;

/**
 * What training-serving skew costs a model: the same training run on ideal features (every record
 * of the window, however late it arrived) instead of the served ones, measured on the served
 * features of the same holdout users. For the model card.
 *
 * @param ideal the model trained on ideal features (its own holdout measurement is on ideal ones)
 * @param idealOnServed that model measured on the served features of the holdout users
 * @param holdoutRows holdout rows of the served set
 * @param differingHoldoutRows of them, rows whose served vector differs from the ideal one (or that
 *     have no ideal row)
 * @param idealFeaturesFile name of the ideal features file
 * @param idealFeaturesSha256 hex SHA-256 of it
 */
public record SkewCost(
        TrainingResult ideal,
        Trainer.Evaluation idealOnServed,
        long holdoutRows,
        long differingHoldoutRows,
        String idealFeaturesFile,
        String idealFeaturesSha256) {

    /**
     * Measures it: trains the model of {@code served} again on {@code ideal} (same configuration,
     * restricted to the algorithm {@code served} chose) and evaluates that on {@code served}'s
     * holdout rows.
     */
    public static SkewCost measure(
            TrainingResult served,
            TrainingSet ideal,
            String idealFeaturesFile,
            String idealFeaturesSha256) {
        Trainer.Config c = served.config();
        Trainer.Config same =
                new Trainer.Config(
                        c.seed(),
                        c.epochs(),
                        c.validationFraction(),
                        c.holdoutFraction(),
                        java.util.List.of(served.algorithm()),
                        c.modelName(),
                        c.modelVersion() + "-ideal",
                        c.thresholds());
        TrainingResult idealModel = Trainer.train(ideal, same);
        Trainer.Evaluation onServed = Trainer.evaluate(idealModel, served.set());
        Map<String, double[]> idealVectors = new HashMap<>();
        for (TrainingSet.Row row : ideal.rows()) {
            idealVectors.put(row.id(), row.values());
        }
        long differing = 0;
        for (TrainingSet.Row row : onServed.rows()) {
            double[] v = idealVectors.get(row.id());
            if (v == null || !java.util.Arrays.equals(v, row.values())) {
                differing++;
            }
        }
        return new SkewCost(
                idealModel,
                onServed,
                onServed.rows().size(),
                differing,
                idealFeaturesFile,
                idealFeaturesSha256);
    }
}
