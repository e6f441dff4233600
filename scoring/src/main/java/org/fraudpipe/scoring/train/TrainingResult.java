package org.fraudpipe.scoring.train;

import java.util.List;
import java.util.Map;
import java.util.TreeSet;
import org.fraudpipe.scoring.ModelMetadata;
import org.fraudpipe.scoring.train.Trainer.Algorithm;
import org.fraudpipe.scoring.train.Trainer.Candidate;
import org.fraudpipe.scoring.train.Trainer.Config;
import org.fraudpipe.scoring.train.Trainer.PartCounts;
import org.fraudpipe.scoring.train.UserSplit.Part;
import org.tribuo.Model;
import org.tribuo.classification.Label;

/**
 * What {@link Trainer#train} produced: the chosen model (Tribuo and ONNX), how it was chosen, and
 * its holdout measurements (scores of the exported ONNX model in ONNX Runtime).
 *
 * @param set the training data
 * @param config how it was trained
 * @param algorithm the chosen algorithm
 * @param model the chosen Tribuo model
 * @param onnx the exported ONNX file, metadata included
 * @param metadata the metadata as the scorer reads it back from {@code onnx}
 * @param candidates validation AUC of every algorithm tried
 * @param parts users and windows per part of the split
 * @param holdoutAuc ROC AUC of the ONNX scores on the holdout users
 * @param holdoutScores the ONNX scores of the holdout windows (sorted by user, window)
 * @param holdoutLabels their labels
 * @param maxOnnxTribuoDifference largest |ONNX Runtime - Tribuo| fraud probability on the holdout
 */
public record TrainingResult(
        TrainingSet set,
        Config config,
        Algorithm algorithm,
        Model<Label> model,
        byte[] onnx,
        ModelMetadata metadata,
        List<Candidate> candidates,
        Map<Part, PartCounts> parts,
        double holdoutAuc,
        double[] holdoutScores,
        boolean[] holdoutLabels,
        double maxOnnxTribuoDifference) {

    /** Thresholds of the card's table, besides the configured review and block thresholds. */
    public static final List<Double> TABLE_THRESHOLDS =
            List.of(0.05, 0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 0.95, 0.99);

    /** Holdout counts at one threshold. */
    public Metrics.AtThreshold at(double threshold) {
        return Metrics.at(threshold, holdoutScores, holdoutLabels);
    }

    /** Holdout counts at the table's thresholds and the configured ones, ascending. */
    public List<Metrics.AtThreshold> thresholdTable() {
        TreeSet<Double> ts = new TreeSet<>(TABLE_THRESHOLDS);
        ts.add(config.thresholds().review());
        ts.add(config.thresholds().block());
        return ts.stream().map(this::at).toList();
    }
}
