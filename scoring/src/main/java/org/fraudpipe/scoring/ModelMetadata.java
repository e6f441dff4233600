package org.fraudpipe.scoring;

import java.time.Duration;
import java.time.format.DateTimeParseException;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.TreeMap;

/**
 * What a fraudpipe model says about itself, stored as custom metadata ({@code metadata_props}) in
 * the ONNX file by {@code ./fraud train} and read back by {@link OnnxScorer} at load.
 *
 * <p>Required keys: {@value #NAME}, {@value #VERSION}, {@value #FEATURES} (feature names in input
 * column order, comma-separated) and {@value #LABELS} (label names in output column order,
 * comma-separated; one of them is {@value #FRAUD_LABEL}). Optional: {@value #WINDOW_SIZE} (ISO-8601
 * duration of the windows the model was trained on: the tumbling window of a window model, the
 * trailing window of a per-transaction model) and any other {@code fraudpipe.*} key the trainer
 * writes (algorithm, training period, holdout AUC), kept in {@link #custom()}.
 *
 * @param name model name, e.g. {@code fraud-window}
 * @param version model version, e.g. {@code 2026-11-30-3fa2b9c1}
 * @param featureNames the input columns, in order
 * @param labels the output columns, in order
 * @param windowSize the window size of the training features (tumbling, or the trailing window of a
 *     per-transaction model), if declared
 * @param custom every custom metadata entry of the file, sorted by key
 */
public record ModelMetadata(
        String name,
        String version,
        List<String> featureNames,
        List<String> labels,
        Optional<Duration> windowSize,
        Map<String, String> custom) {

    public static final String NAME = "fraudpipe.model.name";
    public static final String VERSION = "fraudpipe.model.version";
    public static final String FEATURES = "fraudpipe.features";
    public static final String LABELS = "fraudpipe.labels";
    public static final String WINDOW_SIZE = "fraudpipe.window.size";

    /** The label whose probability is the fraud score. */
    public static final String FRAUD_LABEL = "fraud";

    /** The other label of the shipped models. */
    public static final String LEGIT_LABEL = "legit";

    public ModelMetadata {
        Objects.requireNonNull(name, "name");
        Objects.requireNonNull(version, "version");
        featureNames = List.copyOf(featureNames);
        labels = List.copyOf(labels);
        Objects.requireNonNull(windowSize, "windowSize");
        custom = java.util.Collections.unmodifiableMap(new TreeMap<>(custom));
    }

    /**
     * Reads the metadata of a model.
     *
     * @throws IllegalArgumentException naming the missing or malformed key
     */
    public static ModelMetadata fromCustomMetadata(Map<String, String> custom) {
        String name = required(custom, NAME);
        String version = required(custom, VERSION);
        List<String> features = list(custom, FEATURES);
        List<String> labels = list(custom, LABELS);
        if (!labels.contains(FRAUD_LABEL)) {
            throw new IllegalArgumentException(
                    "metadata `"
                            + LABELS
                            + "` is "
                            + labels
                            + ": it has no `"
                            + FRAUD_LABEL
                            + "` label, so no output column is the fraud probability");
        }
        if (labels.stream().distinct().count() != labels.size()) {
            throw new IllegalArgumentException(
                    "metadata `" + LABELS + "` names a label twice: " + labels);
        }
        Optional<Duration> window = Optional.empty();
        String w = custom.get(WINDOW_SIZE);
        if (w != null) {
            try {
                window = Optional.of(Duration.parse(w));
            } catch (DateTimeParseException e) {
                throw new IllegalArgumentException(
                        "metadata `"
                                + WINDOW_SIZE
                                + "` must be an ISO-8601 duration like PT10M, got `"
                                + w
                                + "`");
            }
        }
        return new ModelMetadata(name, version, features, labels, window, custom);
    }

    /**
     * The metadata entries to write into a model: the required keys plus {@code extra} (which must
     * not redefine them), in a stable order.
     */
    public static Map<String, String> entries(
            String name,
            String version,
            FeatureLayout<?> layout,
            List<String> labels,
            Duration windowSize,
            Map<String, String> extra) {
        Map<String, String> m = new LinkedHashMap<>();
        m.put(NAME, name);
        m.put(VERSION, version);
        m.put(FEATURES, layout.namesAsMetadata());
        m.put(LABELS, String.join(",", labels));
        if (windowSize != null) {
            m.put(WINDOW_SIZE, windowSize.toString());
        }
        for (Map.Entry<String, String> e : new TreeMap<>(extra).entrySet()) {
            if (m.containsKey(e.getKey())) {
                throw new IllegalArgumentException("metadata key " + e.getKey() + " is reserved");
            }
            m.put(e.getKey(), e.getValue());
        }
        return m;
    }

    /** The output column holding the fraud probability. */
    public int fraudColumn() {
        return labels.indexOf(FRAUD_LABEL);
    }

    /** {@code name:version}, how logs and score records name the model. */
    public String id() {
        return name + ":" + version;
    }

    private static String required(Map<String, String> custom, String key) {
        String v = custom.get(key);
        if (v == null || v.isBlank()) {
            throw new IllegalArgumentException(
                    "model metadata has no `"
                            + key
                            + "` (present: "
                            + new TreeMap<>(custom).keySet()
                            + "); fraudpipe models are exported by `./fraud train`, which writes"
                            + " it");
        }
        return v;
    }

    private static List<String> list(Map<String, String> custom, String key) {
        String v = required(custom, key);
        List<String> items = Arrays.stream(v.split(",", -1)).map(String::strip).toList();
        if (items.stream().anyMatch(String::isEmpty)) {
            throw new IllegalArgumentException(
                    "metadata `" + key + "` has an empty entry: `" + v + "`");
        }
        return items;
    }
}
