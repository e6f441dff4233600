package org.fraudpipe.scoring;

import java.nio.FloatBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.function.ToDoubleFunction;
import java.util.regex.Pattern;
import org.fraudpipe.schemas.avro.FeatureRecord;
import org.fraudpipe.schemas.avro.TransactionFeatures;

/**
 * A model's feature vector: which numbers, in which order, computed how from one input record of
 * type {@code R}. Defined once here and used by training ({@code ./fraud train}), by the ONNX
 * scorer and (through them) by the streaming job and the parity check: there is no second copy of a
 * transform anywhere.
 *
 * <p>Two layouts, two models: {@link #V1} over a window's {@link FeatureRecord} (the window path's
 * model, scoring every pane) and {@link #TRANSACTION_V1} over a transaction's {@link
 * TransactionFeatures} (the per-transaction model, scoring every transaction as it arrives). A
 * model declares its layout's names in its metadata, so neither model can be loaded for the other
 * path.
 *
 * <p>Invariants:
 *
 * <ul>
 *   <li>Column {@code i} of the model input is feature {@code i} of the layout. Feature names are
 *       strictly ascending (Java {@code String} order) because Tribuo numbers features by sorted
 *       name and exports its ONNX input columns in that order; the trainer additionally checks the
 *       trained model's feature ids against the layout and refuses to export on any difference.
 *   <li>Every value is a pure function of one record (no state, no clock, no other record), finite
 *       and small (logs of amounts, plain counts), so float32 in ONNX loses nothing that matters.
 *   <li>Names are lower-case {@code [a-z0-9_]+}: they are stored comma-separated in the model's
 *       metadata and compared column by column at load.
 * </ul>
 *
 * Changing a feature's meaning, adding or removing one means a new layout and a new model: a model
 * whose declared features differ from the layout fails to load ({@link OnnxScorer}).
 */
public final class FeatureLayout<R> {

    /** One column of the vector: its name, what it means, and how it is computed. */
    public record Feature<R>(String name, String definition, ToDoubleFunction<R> extractor) {
        public Feature {
            Objects.requireNonNull(name, "name");
            Objects.requireNonNull(definition, "definition");
            Objects.requireNonNull(extractor, "extractor");
        }

        /** The value of this feature for {@code record}. */
        public double valueOf(R record) {
            return extractor.applyAsDouble(record);
        }
    }

    private static final Pattern NAME = Pattern.compile("[a-z0-9_]+");

    /**
     * The layout of the shipped models (version 1): window features of one user over one window.
     * Amounts are in major units ({@code amountMinor / 100}) and log-compressed, because raw cents
     * span five orders of magnitude and SGD-trained linear models need comparable scales; counts
     * stay raw (they are small).
     */
    public static final FeatureLayout<FeatureRecord> V1 =
            new FeatureLayout<>(
                    List.of(
                            new Feature<FeatureRecord>(
                                    "amount_max_log",
                                    "ln(1 + amountMax / 100): the largest amount, major units",
                                    r -> log1pMajor(r.getAmountMax())),
                            new Feature<FeatureRecord>(
                                    "amount_mean_log",
                                    "ln(1 + amountSum / txCount / 100): the mean amount, major"
                                            + " units (0 for an empty window)",
                                    r ->
                                            r.getTxCount() == 0
                                                    ? 0
                                                    : log1pMajor(
                                                            (double) r.getAmountSum()
                                                                    / r.getTxCount())),
                            new Feature<FeatureRecord>(
                                    "amount_sum_log",
                                    "ln(1 + amountSum / 100): the total amount, major units",
                                    r -> log1pMajor(r.getAmountSum())),
                            new Feature<FeatureRecord>(
                                    "distinct_countries",
                                    "distinctCountries",
                                    FeatureRecord::getDistinctCountries),
                            new Feature<FeatureRecord>(
                                    "distinct_devices",
                                    "distinctDevices",
                                    FeatureRecord::getDistinctDevices),
                            new Feature<FeatureRecord>(
                                    "distinct_merchants",
                                    "distinctMerchants",
                                    FeatureRecord::getDistinctMerchants),
                            new Feature<FeatureRecord>(
                                    "tx_count",
                                    "txCount: distinct transactions in the window",
                                    FeatureRecord::getTxCount)));

    /**
     * The layout of the per-transaction model (version 1): the six window features over the
     * transaction's trailing window as of its arrival (the same transforms as {@link #V1}), the
     * transaction's own amount (log-compressed the same way) and whether its device, merchant and
     * country are new in that window (1 or 0).
     */
    public static final FeatureLayout<TransactionFeatures> TRANSACTION_V1 =
            new FeatureLayout<>(
                    List.of(
                            new Feature<TransactionFeatures>(
                                    "amount_log",
                                    "ln(1 + amountMinor / 100): this transaction's amount, major"
                                            + " units",
                                    r -> log1pMajor(r.getAmountMinor())),
                            new Feature<TransactionFeatures>(
                                    "amount_max_log",
                                    "ln(1 + amountMax / 100): the largest amount of the trailing"
                                            + " window, major units",
                                    r -> log1pMajor(r.getAmountMax())),
                            new Feature<TransactionFeatures>(
                                    "amount_mean_log",
                                    "ln(1 + amountSum / txCount / 100): the mean amount of the"
                                            + " trailing window, major units",
                                    r ->
                                            r.getTxCount() == 0
                                                    ? 0
                                                    : log1pMajor(
                                                            (double) r.getAmountSum()
                                                                    / r.getTxCount())),
                            new Feature<TransactionFeatures>(
                                    "amount_sum_log",
                                    "ln(1 + amountSum / 100): the total amount of the trailing"
                                            + " window, major units",
                                    r -> log1pMajor(r.getAmountSum())),
                            new Feature<TransactionFeatures>(
                                    "distinct_countries",
                                    "distinctCountries of the trailing window",
                                    TransactionFeatures::getDistinctCountries),
                            new Feature<TransactionFeatures>(
                                    "distinct_devices",
                                    "distinctDevices of the trailing window",
                                    TransactionFeatures::getDistinctDevices),
                            new Feature<TransactionFeatures>(
                                    "distinct_merchants",
                                    "distinctMerchants of the trailing window",
                                    TransactionFeatures::getDistinctMerchants),
                            new Feature<TransactionFeatures>(
                                    "new_country",
                                    "1 if this transaction's country is not among the other"
                                            + " transactions of the trailing window, else 0",
                                    r -> r.getNewCountry() ? 1 : 0),
                            new Feature<TransactionFeatures>(
                                    "new_device",
                                    "1 if this transaction's device is not among the other"
                                            + " transactions of the trailing window, else 0",
                                    r -> r.getNewDevice() ? 1 : 0),
                            new Feature<TransactionFeatures>(
                                    "new_merchant",
                                    "1 if this transaction's merchant is not among the other"
                                            + " transactions of the trailing window, else 0",
                                    r -> r.getNewMerchant() ? 1 : 0),
                            new Feature<TransactionFeatures>(
                                    "tx_count",
                                    "txCount: distinct transactions in the trailing window, this"
                                            + " one included",
                                    TransactionFeatures::getTxCount)));

    private final List<Feature<R>> features;
    private final List<String> names;

    /**
     * A layout of these features, in this order.
     *
     * @throws IllegalArgumentException if a name is not {@code [a-z0-9_]+} or the names are not
     *     strictly ascending (the order Tribuo gives the ONNX input columns)
     */
    public FeatureLayout(List<Feature<R>> features) {
        if (features.isEmpty()) {
            throw new IllegalArgumentException("a feature layout needs at least one feature");
        }
        List<String> n = new ArrayList<>(features.size());
        String previous = null;
        for (Feature<R> f : features) {
            if (!NAME.matcher(f.name()).matches()) {
                throw new IllegalArgumentException(
                        "feature name `" + f.name() + "` must match [a-z0-9_]+");
            }
            if (previous != null && previous.compareTo(f.name()) >= 0) {
                throw new IllegalArgumentException(
                        "feature names must be strictly ascending (Tribuo's column order), but `"
                                + f.name()
                                + "` follows `"
                                + previous
                                + "`");
            }
            previous = f.name();
            n.add(f.name());
        }
        this.features = List.copyOf(features);
        this.names = List.copyOf(n);
    }

    /** The features in column order. */
    public List<Feature<R>> features() {
        return features;
    }

    /** The feature names in column order. */
    public List<String> names() {
        return names;
    }

    /** Number of columns. */
    public int size() {
        return features.size();
    }

    /** The column of a feature, or -1. */
    public int indexOf(String name) {
        return names.indexOf(name);
    }

    /** The feature vector of {@code record}, in column order (training uses these doubles). */
    public double[] values(R record) {
        double[] v = new double[features.size()];
        for (int i = 0; i < v.length; i++) {
            v[i] = features.get(i).valueOf(record);
        }
        return v;
    }

    /**
     * Writes the vector of {@code record} at the buffer's position as float32 (what the ONNX model
     * reads), advancing the position by {@link #size()}. The same doubles as {@link #values},
     * rounded to float.
     */
    public void writeTo(R record, FloatBuffer out) {
        for (Feature<R> f : features) {
            out.put((float) f.valueOf(record));
        }
    }

    /** The names joined by commas: the form stored in the model's metadata. */
    public String namesAsMetadata() {
        return String.join(",", names);
    }

    private static double log1pMajor(double amountMinor) {
        // StrictMath: bit-identical on every JVM and CPU, so training and serving agree exactly.
        return StrictMath.log1p(amountMinor / 100.0);
    }

    @Override
    public String toString() {
        return "FeatureLayout" + names;
    }
}
