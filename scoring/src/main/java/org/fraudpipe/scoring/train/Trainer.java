package org.fraudpipe.scoring.train;

import ai.onnx.proto.OnnxMl;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import org.fraudpipe.scoring.DecisionThresholds;
import org.fraudpipe.scoring.FeatureLayout;
import org.fraudpipe.scoring.ModelLoadException;
import org.fraudpipe.scoring.ModelMetadata;
import org.fraudpipe.scoring.OnnxScorer;
import org.fraudpipe.scoring.TestVectors;
import org.fraudpipe.scoring.train.UserSplit.Part;
import org.tribuo.Example;
import org.tribuo.ImmutableFeatureMap;
import org.tribuo.ImmutableOutputInfo;
import org.tribuo.Model;
import org.tribuo.MutableDataset;
import org.tribuo.ONNXExportable;
import org.tribuo.Prediction;
import org.tribuo.Tribuo;
import org.tribuo.classification.Label;
import org.tribuo.classification.LabelFactory;
import org.tribuo.classification.sgd.fm.FMClassificationTrainer;
import org.tribuo.classification.sgd.linear.LinearSGDTrainer;
import org.tribuo.classification.sgd.objectives.LogMulticlass;
import org.tribuo.impl.ArrayExample;
import org.tribuo.math.optimisers.AdaGrad;
import org.tribuo.provenance.SimpleDataSourceProvenance;

/**
 * Trains the fraud model with Tribuo, picks the better of logistic regression and a factorization
 * machine on validation users, exports it to ONNX with fraudpipe's metadata, and measures the
 * exported model on holdout users through {@link OnnxScorer}, the same code that serves it.
 *
 * <p>Deterministic: the same {@link TrainingSet} and {@link Config} give the same ONNX bytes. Each
 * candidate is trained by a fresh Tribuo trainer seeded with {@link Config#seed()} (a Tribuo
 * trainer changes its random stream on every {@code train} call, so trainers are never reused),
 * Tribuo's provenance (which records wall-clock times and the host) is left out of the exported
 * file, and the user split is a hash of the seed and the user id ({@link UserSplit}).
 *
 * <p>Invariants checked before anything is returned: the trained model numbers its features exactly
 * like the layout (so ONNX input column {@code i} is layout feature {@code i}); the ONNX file loads
 * through {@link OnnxScorer} (signature and metadata); ONNX Runtime's holdout probabilities equal
 * Tribuo's within {@value #PARITY_TOLERANCE}.
 */
public final class Trainer {

    /** Largest accepted difference between ONNX Runtime's and Tribuo's fraud probability. */
    public static final double PARITY_TOLERANCE = 1e-5;

    /** ONNX {@code domain} of exported models. */
    public static final String ONNX_DOMAIN = "org.fraudpipe.scoring";

    /** Custom metadata keys written besides the required ones of {@link ModelMetadata}. */
    public static final String ALGORITHM_KEY = "fraudpipe.algorithm";

    public static final String PERIOD_KEY = "fraudpipe.training.period";
    public static final String TRAINER_KEY = "fraudpipe.trainer";

    private static final double LEARNING_RATE = 0.5;
    private static final double ADAGRAD_EPSILON = 0.1;
    private static final int FM_FACTORS = 4;
    private static final double FM_INIT_VARIANCE = 0.1;

    /** The model families the trainer compares. */
    public enum Algorithm {
        LOGISTIC_REGRESSION("logistic-regression"),
        FACTORIZATION_MACHINE("factorization-machine");

        private final String id;

        Algorithm(String id) {
            this.id = id;
        }

        /** The name used on the command line and in metadata. */
        public String id() {
            return id;
        }

        /** The algorithm with this {@link #id()}. */
        public static Algorithm fromId(String id) {
            for (Algorithm a : values()) {
                if (a.id.equals(id)) {
                    return a;
                }
            }
            throw new IllegalArgumentException(
                    "unknown algorithm `"
                            + id
                            + "`: use logistic-regression or"
                            + " factorization-machine");
        }
    }

    /**
     * How to train.
     *
     * @param seed seed of Tribuo's SGD and of the user split
     * @param epochs passes over the training users' windows
     * @param validationFraction share of users for model selection
     * @param holdoutFraction share of users for the model card's numbers
     * @param candidates algorithms to compare (the first wins ties)
     * @param modelName written to metadata
     * @param modelVersion written to metadata
     * @param thresholds the decision thresholds the card reports precision and recall at
     */
    public record Config(
            long seed,
            int epochs,
            double validationFraction,
            double holdoutFraction,
            List<Algorithm> candidates,
            String modelName,
            String modelVersion,
            DecisionThresholds thresholds) {

        public Config {
            if (epochs < 1) {
                throw new IllegalArgumentException("--epochs must be >= 1, got " + epochs);
            }
            new UserSplit(validationFraction, holdoutFraction, seed); // validates
            candidates = List.copyOf(candidates);
            if (candidates.isEmpty()) {
                throw new IllegalArgumentException("at least one algorithm is needed");
            }
            requireName("--model-name", modelName);
            requireName("--model-version", modelVersion);
            Objects.requireNonNull(thresholds, "thresholds");
        }

        private static void requireName(String option, String value) {
            if (value == null || !value.matches("[A-Za-z0-9._+-]+")) {
                throw new IllegalArgumentException(
                        option + " must be non-empty [A-Za-z0-9._+-], got `" + value + "`");
            }
        }
    }

    /** Validation result of one candidate. */
    public record Candidate(Algorithm algorithm, double validationAuc) {}

    /** Users, windows and fraudulent windows of one part of the split. */
    public record PartCounts(long users, long windows, long fraudulent) {}

    private Trainer() {}

    /**
     * Trains, selects, exports and measures.
     *
     * @throws IllegalArgumentException if a part of the split lacks a class (too little data)
     * @throws IllegalStateException if an invariant of the class comment does not hold
     */
    public static TrainingResult train(TrainingSet set, Config config) {
        FeatureLayout<?> layout = set.layout();
        UserSplit split =
                new UserSplit(config.validationFraction(), config.holdoutFraction(), config.seed());
        Map<Part, List<TrainingSet.Row>> parts = new EnumMap<>(Part.class);
        for (Part p : Part.values()) {
            parts.put(p, new ArrayList<>());
        }
        for (TrainingSet.Row row : set.rows()) {
            parts.get(split.partOf(row.userId())).add(row);
        }
        Map<Part, PartCounts> counts = new EnumMap<>(Part.class);
        for (Part p : Part.values()) {
            List<TrainingSet.Row> rows = parts.get(p);
            long fraud = rows.stream().filter(TrainingSet.Row::fraud).count();
            if (fraud == 0 || fraud == rows.size()) {
                throw new IllegalArgumentException(
                        "the "
                                + p.name().toLowerCase(Locale.ROOT)
                                + " users have "
                                + fraud
                                + " fraudulent of "
                                + rows.size()
                                + " "
                                + set.unit().plural()
                                + ": training, validation and holdout each need both"
                                + " classes; simulate more users or more fraud");
            }
            counts.put(
                    p,
                    new PartCounts(
                            rows.stream().map(TrainingSet.Row::userId).distinct().count(),
                            rows.size(),
                            fraud));
        }

        LabelFactory factory = new LabelFactory();
        MutableDataset<Label> trainData =
                new MutableDataset<>(
                        new SimpleDataSourceProvenance("fraudpipe labelled windows", factory),
                        factory);
        for (TrainingSet.Row row : parts.get(Part.TRAIN)) {
            trainData.add(example(layout, row.values(), row.fraud()));
        }

        List<Candidate> candidates = new ArrayList<>();
        Model<Label> best = null;
        Algorithm bestAlgorithm = null;
        double bestAuc = Double.NEGATIVE_INFINITY;
        List<TrainingSet.Row> validation = parts.get(Part.VALIDATION);
        for (Algorithm algorithm : config.candidates()) {
            Model<Label> model = trainer(algorithm, config).train(trainData);
            checkFeatureIds(model, layout);
            double auc =
                    Metrics.auc(fraudProbabilities(model, layout, validation), labels(validation));
            candidates.add(new Candidate(algorithm, auc));
            if (auc > bestAuc) {
                best = model;
                bestAlgorithm = algorithm;
                bestAuc = auc;
            }
        }

        List<String> labelOrder = labelOrder(best);
        List<TrainingSet.Row> holdout = parts.get(Part.HOLDOUT);
        double[] tribuoScores = fraudProbabilities(best, layout, holdout);
        Map<String, String> extra = new LinkedHashMap<>();
        // Tribuo's own predictions: the reference every serving runtime must reproduce.
        extra.put(
                TestVectors.METADATA_KEY,
                TestVectors.select(rowsAsFloats(holdout), tribuoScores, TestVectors.DEFAULT_COUNT)
                        .encode());
        extra.put(ALGORITHM_KEY, bestAlgorithm.id());
        extra.put(PERIOD_KEY, set.periodStart() + "/" + set.periodEnd());
        extra.put(TRAINER_KEY, "fraudpipe ./fraud train, Tribuo " + Tribuo.VERSION);
        Map<String, String> metadata =
                ModelMetadata.entries(
                        config.modelName(),
                        config.modelVersion(),
                        layout,
                        labelOrder,
                        set.windowSize(),
                        extra);
        byte[] onnx =
                export(
                        best,
                        metadata,
                        config.modelName()
                                + " "
                                + config.modelVersion()
                                + (set.unit() == TrainingSet.Unit.WINDOW
                                        ? ": fraud probability of a user's window ("
                                        : ": fraud probability of a transaction as of its"
                                                + " arrival (")
                                + bestAlgorithm.id()
                                + ")");

        double[] onnxScores;
        ModelMetadata loaded;
        try (OnnxScorer<?> scorer = OnnxScorer.fromBytes(onnx, "the exported model", layout)) {
            onnxScores = scorer.scoreVectors(floats(holdout, layout.size()), holdout.size());
            loaded = scorer.metadata();
        } catch (ModelLoadException e) {
            throw new IllegalStateException(
                    "the exported model does not load: " + e.getMessage(), e);
        }
        double maxDifference = 0;
        for (int i = 0; i < holdout.size(); i++) {
            maxDifference = Math.max(maxDifference, Math.abs(onnxScores[i] - tribuoScores[i]));
        }
        if (!(maxDifference <= PARITY_TOLERANCE)) {
            throw new IllegalStateException(
                    "ONNX Runtime and Tribuo disagree on the holdout by up to "
                            + maxDifference
                            + " (tolerance "
                            + PARITY_TOLERANCE
                            + "): the export is broken, refusing to write it");
        }

        boolean[] holdoutLabels = labels(holdout);
        return new TrainingResult(
                set,
                config,
                bestAlgorithm,
                best,
                onnx,
                loaded,
                candidates,
                counts,
                Metrics.auc(onnxScores, holdoutLabels),
                onnxScores,
                holdoutLabels,
                maxDifference);
    }

    /**
     * How {@code model} does on the holdout users of {@code other}: the same rows a model trained
     * on {@code other} would be measured on (the split is a hash of the seed and the user, so the
     * holdout users are the same), scored by ONNX Runtime from {@code model}'s exported file. What
     * a model trained on one kind of features (ideal) scores on the features it is served
     * (as-of-arrival).
     *
     * @throws IllegalArgumentException if the two sets are not of the same layout, or {@code
     *     other}'s holdout lacks a class
     */
    public static Evaluation evaluate(TrainingResult model, TrainingSet other) {
        TrainingSet trained = model.set();
        if (!trained.layout().names().equals(other.layout().names())) {
            throw new IllegalArgumentException(
                    "cannot evaluate a model of "
                            + trained.layout()
                            + " on rows of "
                            + other.layout());
        }
        Config config = model.config();
        UserSplit split =
                new UserSplit(config.validationFraction(), config.holdoutFraction(), config.seed());
        List<TrainingSet.Row> holdout = new ArrayList<>();
        for (TrainingSet.Row row : other.rows()) {
            if (split.partOf(row.userId()) == Part.HOLDOUT) {
                holdout.add(row);
            }
        }
        boolean[] labels = labels(holdout);
        double[] scores;
        try (OnnxScorer<?> scorer =
                OnnxScorer.fromBytes(model.onnx(), "the exported model", other.layout())) {
            scores = scorer.scoreVectors(floats(holdout, other.layout().size()), holdout.size());
        } catch (ModelLoadException e) {
            throw new IllegalStateException(
                    "the exported model does not load: " + e.getMessage(), e);
        }
        return new Evaluation(holdout, scores, labels, Metrics.auc(scores, labels));
    }

    /**
     * A model's scores on the holdout rows of a training set ({@link #evaluate}).
     *
     * @param rows the holdout rows, in the set's order
     * @param scores the model's scores of them
     * @param labels their labels
     * @param auc ROC AUC of the scores
     */
    public record Evaluation(
            List<TrainingSet.Row> rows, double[] scores, boolean[] labels, double auc) {

        /** Holdout counts at one threshold. */
        public Metrics.AtThreshold at(double threshold) {
            return Metrics.at(threshold, scores, labels);
        }
    }

    private static LinearSGDTrainer linear(Config config) {
        return new LinearSGDTrainer(
                new LogMulticlass(),
                new AdaGrad(LEARNING_RATE, ADAGRAD_EPSILON),
                config.epochs(),
                -1,
                1,
                config.seed());
    }

    private static org.tribuo.Trainer<Label> trainer(Algorithm algorithm, Config config) {
        return switch (algorithm) {
            case LOGISTIC_REGRESSION -> linear(config);
            case FACTORIZATION_MACHINE ->
                    new FMClassificationTrainer(
                            new LogMulticlass(),
                            new AdaGrad(LEARNING_RATE, ADAGRAD_EPSILON),
                            config.epochs(),
                            -1,
                            1,
                            config.seed(),
                            FM_FACTORS,
                            FM_INIT_VARIANCE);
        };
    }

    /** A Tribuo example of one vector; feature names are the layout's. */
    static Example<Label> example(FeatureLayout<?> layout, double[] values, boolean fraud) {
        Label label = new Label(fraud ? ModelMetadata.FRAUD_LABEL : ModelMetadata.LEGIT_LABEL);
        return new ArrayExample<>(label, layout.names().toArray(String[]::new), values);
    }

    /** Tribuo's fraud probability of each row. */
    static double[] fraudProbabilities(
            Model<Label> model, FeatureLayout<?> layout, List<TrainingSet.Row> rows) {
        List<Example<Label>> examples = new ArrayList<>(rows.size());
        for (TrainingSet.Row row : rows) {
            examples.add(
                    new ArrayExample<>(
                            LabelFactory.UNKNOWN_LABEL,
                            layout.names().toArray(String[]::new),
                            row.values()));
        }
        List<Prediction<Label>> predictions = model.predict(examples);
        double[] p = new double[rows.size()];
        for (int i = 0; i < p.length; i++) {
            Label fraud = predictions.get(i).getOutputScores().get(ModelMetadata.FRAUD_LABEL);
            p[i] = fraud == null ? 0 : fraud.getScore();
        }
        return p;
    }

    private static boolean[] labels(List<TrainingSet.Row> rows) {
        boolean[] y = new boolean[rows.size()];
        for (int i = 0; i < y.length; i++) {
            y[i] = rows.get(i).fraud();
        }
        return y;
    }

    private static List<float[]> rowsAsFloats(List<TrainingSet.Row> rows) {
        List<float[]> out = new ArrayList<>(rows.size());
        for (TrainingSet.Row row : rows) {
            double[] values = row.values();
            float[] f = new float[values.length];
            for (int i = 0; i < values.length; i++) {
                f[i] = (float) values[i];
            }
            out.add(f);
        }
        return out;
    }

    private static float[] floats(List<TrainingSet.Row> rows, int width) {
        float[] v = new float[rows.size() * width];
        int k = 0;
        for (TrainingSet.Row row : rows) {
            for (double d : row.values()) {
                v[k++] = (float) d;
            }
        }
        return v;
    }

    /** Fails unless Tribuo's feature ids are the layout's columns. */
    static void checkFeatureIds(Model<Label> model, FeatureLayout<?> layout) {
        ImmutableFeatureMap ids = model.getFeatureIDMap();
        if (ids.size() != layout.size()) {
            throw new IllegalStateException(
                    "the trained model knows "
                            + ids.size()
                            + " features but the layout has "
                            + layout.size()
                            + " "
                            + layout.names()
                            + ": a feature never varied in the training data?");
        }
        for (int i = 0; i < layout.size(); i++) {
            String name = layout.names().get(i);
            int id = ids.getID(name);
            if (id != i) {
                throw new IllegalStateException(
                        "Tribuo numbers feature `"
                                + name
                                + "` "
                                + id
                                + " but the layout puts it at column "
                                + i
                                + ": the ONNX input columns would be misread");
            }
        }
    }

    /** Label names in Tribuo's id order: the ONNX output columns. */
    static List<String> labelOrder(Model<Label> model) {
        ImmutableOutputInfo<Label> info = model.getOutputIDInfo();
        List<String> order = new ArrayList<>(info.size());
        for (int id = 0; id < info.size(); id++) {
            order.add(info.getOutput(id).getLabel());
        }
        return order;
    }

    /**
     * Tribuo's ONNX export with fraudpipe's metadata in place of Tribuo's provenance (which holds
     * wall-clock times and host details and would make every export differ).
     */
    static byte[] export(Model<Label> model, Map<String, String> metadata, String docString) {
        if (!(model instanceof ONNXExportable exportable)) {
            throw new IllegalStateException(model.getClass() + " cannot be exported to ONNX");
        }
        OnnxMl.ModelProto.Builder proto =
                exportable.exportONNXModel(ONNX_DOMAIN, 1).toBuilder()
                        .clearMetadataProps()
                        .setDocString(docString);
        metadata.forEach(
                (k, v) ->
                        proto.addMetadataProps(
                                OnnxMl.StringStringEntryProto.newBuilder().setKey(k).setValue(v)));
        return proto.build().toByteArray();
    }
}
