package org.fraudpipe.scoring.train;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashSet;
import java.util.List;
import java.util.Objects;
import java.util.Set;
import org.fraudpipe.schemas.avro.FeatureRecord;
import org.fraudpipe.scoring.FeatureLayout;
import org.fraudpipe.scoring.data.LabelledWindow;

/**
 * Labelled feature vectors to train on: one row per (user, window), its vector computed by the
 * {@link FeatureLayout} (the same code the scorer uses) and its label.
 *
 * <p>Invariants: at least one fraudulent and one legitimate window; every window has the same size
 * (a model is trained for one window size); no (user, windowStart) twice (a replay's output with
 * several revisions of a window must be reduced to one first). Rows are sorted by user and window
 * start, so the order of the input does not matter.
 */
public final class TrainingSet {

    /** One labelled window as a vector. */
    public record Row(
            String userId, Instant windowStart, Instant windowEnd, double[] values, boolean fraud) {
        public Row {
            Objects.requireNonNull(userId, "userId");
            Objects.requireNonNull(windowStart, "windowStart");
            Objects.requireNonNull(windowEnd, "windowEnd");
            values = values.clone();
        }

        @Override
        public double[] values() {
            return values.clone();
        }
    }

    private final FeatureLayout layout;
    private final List<Row> rows;
    private final Duration windowSize;

    private TrainingSet(FeatureLayout layout, List<Row> rows, Duration windowSize) {
        this.layout = layout;
        this.rows = rows;
        this.windowSize = windowSize;
    }

    /** A builder for vectors of {@code layout}. */
    public static Builder builder(FeatureLayout layout) {
        return new Builder(layout);
    }

    /** Builds from labelled windows (e.g. a file read by {@code LabelledFeaturesJson}). */
    public static TrainingSet of(FeatureLayout layout, List<LabelledWindow> windows) {
        Builder b = builder(layout);
        windows.forEach(w -> b.add(w.features(), w.fraud()));
        return b.build();
    }

    public FeatureLayout layout() {
        return layout;
    }

    /** The rows, sorted by user then window start. */
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

    /** The size of every window. */
    public Duration windowSize() {
        return windowSize;
    }

    /** Earliest window start. */
    public Instant periodStart() {
        return rows.stream().map(Row::windowStart).min(Comparator.naturalOrder()).orElseThrow();
    }

    /** Latest window end. */
    public Instant periodEnd() {
        return rows.stream().map(Row::windowEnd).max(Comparator.naturalOrder()).orElseThrow();
    }

    /** Collects (features, label) pairs. */
    public static final class Builder {
        private final FeatureLayout layout;
        private final List<Row> rows = new ArrayList<>();
        private final Set<String> keys = new HashSet<>();

        private Builder(FeatureLayout layout) {
            this.layout = Objects.requireNonNull(layout, "layout");
        }

        /**
         * Adds one window.
         *
         * @throws IllegalArgumentException if the window was added before
         */
        public Builder add(FeatureRecord features, boolean fraud) {
            if (!keys.add(features.getUserId() + "\n" + features.getWindowStart())) {
                throw new IllegalArgumentException(
                        "window ("
                                + features.getUserId()
                                + ", "
                                + features.getWindowStart()
                                + ") appears twice: keep one line (the final revision) per"
                                + " window");
            }
            rows.add(
                    new Row(
                            features.getUserId(),
                            features.getWindowStart(),
                            features.getWindowEnd(),
                            layout.values(features),
                            fraud));
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
                        "training needs fraudulent and legitimate windows, got "
                                + fraud
                                + " fraudulent of "
                                + rows.size());
            }
            Set<Duration> sizes = new HashSet<>();
            for (Row r : rows) {
                sizes.add(Duration.between(r.windowStart(), r.windowEnd()));
            }
            if (sizes.size() != 1) {
                throw new IllegalArgumentException(
                        "all windows must have the same size (one model per window size), found "
                                + sizes);
            }
            List<Row> sorted = new ArrayList<>(rows);
            sorted.sort(Comparator.comparing(Row::userId).thenComparing(Row::windowStart));
            return new TrainingSet(layout, List.copyOf(sorted), sizes.iterator().next());
        }
    }
}
