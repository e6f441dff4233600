package org.fraudpipe.scoring;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.Optional;

/**
 * A model's test vectors: feature rows with the fraud probability the model must give them, written
 * into the model file's metadata ({@value #METADATA_KEY}) by {@code ./fraud train} from the
 * trainer's own predictions (Tribuo's, not ONNX Runtime's: an independent reference). A release is
 * served only where ONNX Runtime reproduces every one of them within {@link #TOLERANCE}: the check
 * that the file scores, on the machine that will serve it, what was trained and measured.
 *
 * <p>Format of the metadata value, one row per line: the expected score, a tab, then the row's
 * float32 features separated by spaces, each written so that it reads back to the same float
 * ({@link Float#toString}).
 *
 * @param rows the vectors, at least one
 */
public record TestVectors(List<Vector> rows) {

    /** The ONNX metadata key that holds them. */
    public static final String METADATA_KEY = "fraudpipe.test_vectors";

    /** Largest accepted difference between a vector's expected and scored probability. */
    public static final double TOLERANCE = 1e-5;

    /** How many vectors {@code ./fraud train} writes. */
    public static final int DEFAULT_COUNT = 16;

    /**
     * One row and its expected fraud probability.
     *
     * @param features the model's input row, in the layout's column order
     * @param score the expected fraud probability
     */
    public record Vector(float[] features, double score) {
        public Vector {
            features = features.clone();
        }

        @Override
        public float[] features() {
            return features.clone();
        }
    }

    /** A row whose score is off. */
    public record Mismatch(int row, double expected, double scored) {
        public String describe() {
            return String.format(
                    Locale.ROOT,
                    "test vector %d scores %.7f, expected %.7f (tolerance %s)",
                    row,
                    scored,
                    expected,
                    TOLERANCE);
        }
    }

    public TestVectors {
        rows = List.copyOf(rows);
        if (rows.isEmpty()) {
            throw new IllegalArgumentException("test vectors: none");
        }
        int width = rows.get(0).features.length;
        for (Vector v : rows) {
            if (v.features.length != width) {
                throw new IllegalArgumentException(
                        "test vectors: rows of "
                                + width
                                + " and "
                                + v.features.length
                                + " columns");
            }
        }
    }

    /** The vectors of a model's metadata, if it has any. */
    public static Optional<TestVectors> of(ModelMetadata metadata) {
        String text = metadata.custom().get(METADATA_KEY);
        return text == null ? Optional.empty() : Optional.of(parse(text));
    }

    /**
     * Reads the metadata value.
     *
     * @throws IllegalArgumentException naming the malformed line
     */
    public static TestVectors parse(String text) {
        List<Vector> rows = new ArrayList<>();
        String[] lines = text.strip().split("\n");
        for (int i = 0; i < lines.length; i++) {
            String line = lines[i];
            int tab = line.indexOf('\t');
            try {
                if (tab < 0) {
                    throw new NumberFormatException("no tab after the score");
                }
                double score = Double.parseDouble(line.substring(0, tab));
                String[] cells = line.substring(tab + 1).strip().split(" ");
                float[] features = new float[cells.length];
                for (int c = 0; c < cells.length; c++) {
                    features[c] = Float.parseFloat(cells[c]);
                }
                rows.add(new Vector(features, score));
            } catch (NumberFormatException e) {
                throw new IllegalArgumentException(
                        "metadata `"
                                + METADATA_KEY
                                + "` line "
                                + (i + 1)
                                + " is not `score<TAB>f0 f1 ...`: "
                                + e.getMessage(),
                        e);
            }
        }
        return new TestVectors(rows);
    }

    /** The metadata value. */
    public String encode() {
        StringBuilder s = new StringBuilder(rows.size() * 128);
        for (Vector v : rows) {
            s.append(v.score).append('\t');
            for (int c = 0; c < v.features.length; c++) {
                if (c > 0) {
                    s.append(' ');
                }
                s.append(v.features[c]);
            }
            s.append('\n');
        }
        return s.toString();
    }

    /**
     * {@code count} of the rows, spread over the range of their scores: the rows at evenly spaced
     * ranks of the expected score (lowest and highest included), so that the vectors test the model
     * across its output, not only where most rows are. Deterministic (ties by row order).
     *
     * @param rows feature rows
     * @param scores the expected score of each row
     */
    public static TestVectors select(List<float[]> rows, double[] scores, int count) {
        if (rows.size() != scores.length || rows.isEmpty() || count < 1) {
            throw new IllegalArgumentException(
                    "test vectors: " + rows.size() + " rows, " + scores.length + " scores");
        }
        Integer[] byScore = new Integer[rows.size()];
        for (int i = 0; i < byScore.length; i++) {
            byScore[i] = i;
        }
        Arrays.sort(byScore, (a, b) -> Double.compare(scores[a], scores[b]));
        int n = Math.min(count, rows.size());
        List<Vector> picked = new ArrayList<>(n);
        for (int k = 0; k < n; k++) {
            int rank = n == 1 ? 0 : (int) Math.round((double) k * (rows.size() - 1) / (n - 1));
            int row = byScore[rank];
            picked.add(new Vector(rows.get(row), scores[row]));
        }
        return new TestVectors(picked);
    }

    /** Scores every vector with {@code scorer}; the first one off by more than the tolerance. */
    public Optional<Mismatch> check(OnnxScorer<?> scorer) {
        int width = rows.get(0).features.length;
        float[] flat = new float[rows.size() * width];
        for (int i = 0; i < rows.size(); i++) {
            System.arraycopy(rows.get(i).features, 0, flat, i * width, width);
        }
        double[] scored = scorer.scoreVectors(flat, rows.size());
        for (int i = 0; i < rows.size(); i++) {
            double expected = rows.get(i).score;
            if (!(Math.abs(scored[i] - expected) <= TOLERANCE)) {
                return Optional.of(new Mismatch(i, expected, scored[i]));
            }
        }
        return Optional.empty();
    }

    /** The number of columns of each row. */
    public int width() {
        return rows.get(0).features.length;
    }
}
