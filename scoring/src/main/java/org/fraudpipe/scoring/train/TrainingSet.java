package org.fraudpipe.scoring.train;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Objects;
import java.util.Set;
import org.fraudpipe.schemas.avro.FeatureRecord;
import org.fraudpipe.schemas.avro.TransactionFeatures;
import org.fraudpipe.scoring.FeatureLayout;
import org.fraudpipe.scoring.data.LabelledTransaction;
import org.fraudpipe.scoring.data.LabelledWindow;

/**
 * Labelled feature vectors to train on: one row per (user, window) of a window model, or per
 * transaction of a per-transaction model ({@link Unit}), its vector computed by the {@link
 * FeatureLayout} (the same code the scorer uses) and its label.
 *
 * <p>Invariants: at least one fraudulent and one legitimate row; every row has the same window size
 * (a model is trained for one window size: the tumbling window of a window model, the trailing
 * window of a per-transaction model); no row twice (no (user, windowStart) twice: a replay's output
 * with several revisions of a window must be reduced to one first; no transactionId twice). Rows
 * are sorted by user, then start, then id, so the order of the input does not matter.
 */
public final class TrainingSet {

    /** What one row of a training set stands for. */
    public enum Unit {
        /** A user's tumbling window: the window model ({@link FeatureLayout#V1}). */
        WINDOW,
        /**
         * A transaction with its trailing window as of arrival: the per-transaction model ({@link
         * FeatureLayout#TRANSACTION_V1}).
         */
        TRANSACTION;

        /** The noun for one row, e.g. {@code window}. */
        public String noun() {
            return name().toLowerCase(Locale.ROOT);
        }

        /** The noun for rows, e.g. {@code windows}. */
        public String plural() {
            return noun() + "s";
        }
    }

    /**
     * One labelled row as a vector.
     *
     * @param userId the user, who decides the row's part of the split
     * @param id the row's identity: {@code userId@windowStart} or the transactionId
     * @param start the window's start, or the transaction's event time
     * @param end the window's end, or the transaction's event time
     * @param values the feature vector in layout order
     * @param fraud the label
     */
    public record Row(
            String userId, String id, Instant start, Instant end, double[] values, boolean fraud) {
        public Row {
            Objects.requireNonNull(userId, "userId");
            Objects.requireNonNull(id, "id");
            Objects.requireNonNull(start, "start");
            Objects.requireNonNull(end, "end");
            values = values.clone();
        }

        @Override
        public double[] values() {
            return values.clone();
        }
    }

    private final FeatureLayout<?> layout;
    private final Unit unit;
    private final List<Row> rows;
    private final Duration windowSize;

    private TrainingSet(FeatureLayout<?> layout, Unit unit, List<Row> rows, Duration windowSize) {
        this.layout = layout;
        this.unit = unit;
        this.rows = rows;
        this.windowSize = windowSize;
    }

    /** A builder of window rows, vectors of {@code layout}. */
    public static Builder<FeatureRecord> builder(FeatureLayout<FeatureRecord> layout) {
        return new Builder<>(layout, Unit.WINDOW);
    }

    /** A builder of transaction rows, vectors of {@code layout}. */
    public static Builder<TransactionFeatures> transactionBuilder(
            FeatureLayout<TransactionFeatures> layout) {
        return new Builder<>(layout, Unit.TRANSACTION);
    }

    /** Builds from labelled windows (e.g. a file read by {@code LabelledFeaturesJson}). */
    public static TrainingSet of(
            FeatureLayout<FeatureRecord> layout, List<LabelledWindow> windows) {
        Builder<FeatureRecord> b = builder(layout);
        windows.forEach(w -> b.add(w.features(), w.fraud()));
        return b.build();
    }

    /** Builds from labelled transactions (e.g. a file read by {@code LabelledTransactionsJson}). */
    public static TrainingSet ofTransactions(
            FeatureLayout<TransactionFeatures> layout, List<LabelledTransaction> transactions) {
        Builder<TransactionFeatures> b = transactionBuilder(layout);
        transactions.forEach(t -> b.add(t.features(), t.fraud()));
        return b.build();
    }

    public FeatureLayout<?> layout() {
        return layout;
    }

    /** What the rows stand for. */
    public Unit unit() {
        return unit;
    }

    /** The rows, sorted by user, then start, then id. */
    public List<Row> rows() {
        return rows;
    }

    public int size() {
        return rows.size();
    }

    public long fraudulent() {
        return rows.stream().filter(Row::fraud).count();
    }

    public long users() {
        return rows.stream().map(Row::userId).distinct().count();
    }

    /** The size of every window (the trailing window of a per-transaction set). */
    public Duration windowSize() {
        return windowSize;
    }

    /** Earliest window start (transaction event time). */
    public Instant periodStart() {
        return rows.stream().map(Row::start).min(Comparator.naturalOrder()).orElseThrow();
    }

    /** Latest window end (transaction event time). */
    public Instant periodEnd() {
        return rows.stream().map(Row::end).max(Comparator.naturalOrder()).orElseThrow();
    }

    /** Collects (features, label) pairs. */
    public static final class Builder<R> {
        private final FeatureLayout<R> layout;
        private final Unit unit;
        private final List<Row> rows = new ArrayList<>();
        private final Set<String> ids = new HashSet<>();
        private final Set<Duration> sizes = new HashSet<>();

        private Builder(FeatureLayout<R> layout, Unit unit) {
            this.layout = Objects.requireNonNull(layout, "layout");
            this.unit = unit;
        }

        /**
         * Adds one row: a {@link FeatureRecord} to a window builder, a {@link TransactionFeatures}
         * to a transaction builder.
         *
         * @throws IllegalArgumentException if the row was added before
         */
        public Builder<R> add(R features, boolean fraud) {
            Row row;
            Duration size;
            if (features instanceof FeatureRecord w) {
                row =
                        new Row(
                                w.getUserId(),
                                w.getUserId() + "@" + w.getWindowStart(),
                                w.getWindowStart(),
                                w.getWindowEnd(),
                                layout.values(features),
                                fraud);
                size = Duration.between(w.getWindowStart(), w.getWindowEnd());
                if (!ids.add(row.id())) {
                    throw new IllegalArgumentException(
                            "window ("
                                    + w.getUserId()
                                    + ", "
                                    + w.getWindowStart()
                                    + ") appears twice: keep one line (the final revision) per"
                                    + " window");
                }
            } else if (features instanceof TransactionFeatures t) {
                row =
                        new Row(
                                t.getUserId(),
                                t.getTransactionId(),
                                t.getEventTime(),
                                t.getEventTime(),
                                layout.values(features),
                                fraud);
                size = Duration.ofMillis(t.getTrailingWindowMillis());
                if (!ids.add(row.id())) {
                    throw new IllegalArgumentException(
                            "transaction "
                                    + t.getTransactionId()
                                    + " appears twice: one line per transaction id");
                }
            } else {
                throw new IllegalArgumentException(
                        "cannot train on " + features.getClass().getSimpleName());
            }
            rows.add(row);
            sizes.add(size);
            return this;
        }

        /**
         * The set.
         *
         * @throws IllegalArgumentException if a class is missing or window sizes differ
         */
        public TrainingSet build() {
            long fraud = rows.stream().filter(Row::fraud).count();
            if (fraud == 0 || fraud == rows.size()) {
                throw new IllegalArgumentException(
                        "training needs fraudulent and legitimate "
                                + unit.plural()
                                + ", got "
                                + fraud
                                + " fraudulent of "
                                + rows.size());
            }
            if (sizes.size() != 1) {
                throw new IllegalArgumentException(
                        "all windows must have the same size (one model per window size), found "
                                + sizes);
            }
            List<Row> sorted = new ArrayList<>(rows);
            sorted.sort(
                    Comparator.comparing(Row::userId)
                            .thenComparing(Row::start)
                            .thenComparing(Row::id));
            return new TrainingSet(layout, unit, List.copyOf(sorted), sizes.iterator().next());
        }
    }
}
