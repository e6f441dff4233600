package org.fraudpipe.scoring.train;

import java.util.Arrays;
import java.util.Comparator;
import java.util.stream.IntStream;

/**
 * Classification metrics of fraud scores, computed here (not by Tribuo's evaluator) so that the
 * model card's numbers are those of the exported ONNX model's own scores.
 */
public final class Metrics {

    private Metrics() {}

    /**
     * Area under the ROC curve: the probability that a random fraudulent window scores higher than
     * a random legitimate one, ties counting one half (Mann-Whitney U with average ranks).
     *
     * @throws IllegalArgumentException unless both classes are present
     */
    public static double auc(double[] scores, boolean[] fraud) {
        if (scores.length != fraud.length) {
            throw new IllegalArgumentException("scores and labels differ in length");
        }
        Integer[] order = IntStream.range(0, scores.length).boxed().toArray(Integer[]::new);
        Arrays.sort(order, Comparator.comparingDouble(i -> scores[i]));
        double positiveRankSum = 0;
        long positives = 0;
        int i = 0;
        while (i < order.length) {
            int j = i;
            while (j + 1 < order.length && scores[order[j + 1]] == scores[order[i]]) {
                j++;
            }
            double averageRank = (i + j) / 2.0 + 1; // ranks are 1-based
            for (int k = i; k <= j; k++) {
                if (fraud[order[k]]) {
                    positiveRankSum += averageRank;
                    positives++;
                }
            }
            i = j + 1;
        }
        long negatives = scores.length - positives;
        if (positives == 0 || negatives == 0) {
            throw new IllegalArgumentException(
                    "AUC needs fraudulent and legitimate windows, got "
                            + positives
                            + " and "
                            + negatives);
        }
        double u = positiveRankSum - positives * (positives + 1) / 2.0;
        return u / ((double) positives * negatives);
    }

    /**
     * Counts at one threshold: a window is flagged iff {@code score >= threshold} (the rule of
     * {@link org.fraudpipe.scoring.DecisionThresholds}).
     */
    public record AtThreshold(
            double threshold,
            long flagged,
            long truePositives,
            long falsePositives,
            long positives,
            long negatives) {

        /** Share of flagged windows that are fraudulent; NaN if none is flagged. */
        public double precision() {
            return flagged == 0 ? Double.NaN : (double) truePositives / flagged;
        }

        /** Share of fraudulent windows that are flagged; NaN if there are none. */
        public double recall() {
            return positives == 0 ? Double.NaN : (double) truePositives / positives;
        }

        /** Share of legitimate windows that are flagged; NaN if there are none. */
        public double falsePositiveRate() {
            return negatives == 0 ? Double.NaN : (double) falsePositives / negatives;
        }
    }

    /** The counts at {@code threshold}. */
    public static AtThreshold at(double threshold, double[] scores, boolean[] fraud) {
        long flagged = 0;
        long tp = 0;
        long positives = 0;
        for (int i = 0; i < scores.length; i++) {
            if (fraud[i]) {
                positives++;
            }
            if (scores[i] >= threshold) {
                flagged++;
                if (fraud[i]) {
                    tp++;
                }
            }
        }
        return new AtThreshold(
                threshold, flagged, tp, flagged - tp, positives, scores.length - positives);
    }
}
