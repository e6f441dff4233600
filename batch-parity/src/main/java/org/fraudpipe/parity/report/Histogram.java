package org.fraudpipe.parity.report;

import java.io.Serializable;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * Counts of values in fixed buckets: bucket i holds values {@code <= upperBounds[i]} (and above the
 * previous bound); a last bucket holds the rest. Deterministic, mergeable, small: what the report
 * plots.
 */
public final class Histogram implements Serializable {

    private static final long serialVersionUID = 1L;

    /** One bucket: its label, its inclusive upper bound (null for the overflow) and its count. */
    public record Bucket(String label, Double upperBound, long count) {}

    private final double[] upperBounds;
    private final String[] labels;
    private final long[] counts;

    /**
     * @param upperBounds ascending inclusive upper bounds
     * @param labels one label per bound plus one for the overflow bucket
     */
    public Histogram(double[] upperBounds, String[] labels) {
        if (labels.length != upperBounds.length + 1) {
            throw new IllegalArgumentException("need one label per bound plus the overflow");
        }
        for (int i = 1; i < upperBounds.length; i++) {
            if (upperBounds[i] <= upperBounds[i - 1]) {
                throw new IllegalArgumentException("bounds must ascend");
            }
        }
        this.upperBounds = upperBounds.clone();
        this.labels = labels.clone();
        this.counts = new long[labels.length];
    }

    /** Lateness of too-late records: 1 s to 1 day. */
    public static Histogram lateness() {
        return new Histogram(
                new double[] {1e3, 1e4, 6e4, 3e5, 6e5, 1.8e6, 3.6e6, 2.16e7, 8.64e7},
                new String[] {
                    "<= 1 s",
                    "<= 10 s",
                    "<= 1 min",
                    "<= 5 min",
                    "<= 10 min",
                    "<= 30 min",
                    "<= 1 h",
                    "<= 6 h",
                    "<= 1 day",
                    "> 1 day"
                });
    }

    /** Score deltas (ideal minus served), symmetric around zero. */
    public static Histogram scoreDelta() {
        return new Histogram(
                new double[] {-0.5, -0.1, -0.01, -1e-6, 1e-6, 0.01, 0.1, 0.5},
                new String[] {
                    "< -0.5",
                    "-0.5 .. -0.1",
                    "-0.1 .. -0.01",
                    "-0.01 .. 0",
                    "0",
                    "0 .. 0.01",
                    "0.01 .. 0.1",
                    "0.1 .. 0.5",
                    "> 0.5"
                });
    }

    /**
     * How late records were when they arrived (arrival minus event time), from the sub-second
     * out-of-order arrivals that reorder a user's transactions to devices offline for a day.
     */
    public static Histogram arrivalDelay() {
        return new Histogram(
                new double[] {0, 1e2, 1e3, 1e4, 6e4, 6e5, 3.6e6, 2.16e7, 8.64e7},
                new String[] {
                    "<= 0",
                    "<= 100 ms",
                    "<= 1 s",
                    "<= 10 s",
                    "<= 1 min",
                    "<= 10 min",
                    "<= 1 h",
                    "<= 6 h",
                    "<= 1 day",
                    "> 1 day"
                });
    }

    /** Adds {@code other}'s counts (same buckets). */
    public void merge(Histogram other) {
        if (!Arrays.equals(upperBounds, other.upperBounds)) {
            throw new IllegalArgumentException("histograms with other buckets");
        }
        for (int i = 0; i < counts.length; i++) {
            counts[i] += other.counts[i];
        }
    }

    public void add(double value) {
        int i = 0;
        while (i < upperBounds.length && value > upperBounds[i]) {
            i++;
        }
        counts[i]++;
    }

    public long total() {
        long t = 0;
        for (long c : counts) {
            t += c;
        }
        return t;
    }

    public List<Bucket> buckets() {
        List<Bucket> out = new ArrayList<>();
        for (int i = 0; i < counts.length; i++) {
            out.add(
                    new Bucket(
                            labels[i], i < upperBounds.length ? upperBounds[i] : null, counts[i]));
        }
        return out;
    }
}
