package org.fraudpipe.job.metrics;

import java.io.Serializable;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.Map;
import org.apache.flink.api.common.accumulators.Accumulator;

/**
 * A histogram of latencies in milliseconds that can be merged exactly: a job accumulator (summed
 * over subtasks by Flink, readable while the job runs and in its final result), and the benchmark's
 * and demo's way of computing percentiles. Unlike a metric's sampling histogram (the last N values
 * of one subtask), merging two of these gives the histogram of all values of both, and subtracting
 * an earlier snapshot gives the values recorded in between.
 *
 * <p>Buckets: one per millisecond below {@value #LINEAR} ms, then {@value #SUB_BUCKETS} per power
 * of two (each bucket at most 1/64 of its values wide, so a percentile above a second is within 1.6
 * % of the true value). A percentile is reported as the highest value its bucket can hold, but
 * never more than the largest value recorded: it never understates. Counts are {@code long}s;
 * storage grows to the highest bucket used (a few hundred longs for latencies below a second).
 * Negative values count as 0.
 */
public final class LatencyHistogram implements Accumulator<Long, LatencyHistogram.Distribution> {

    private static final long serialVersionUID = 1L;

    /** Values below this many milliseconds have a bucket each. */
    static final int LINEAR = 1024;

    /** Buckets per power of two above {@link #LINEAR}. */
    static final int SUB_BUCKETS = 64;

    private static final int LINEAR_BITS = 10; // log2(LINEAR)
    private static final int SUB_BITS = 6; // log2(SUB_BUCKETS)

    private long[] counts = new long[0];
    private long max = Long.MIN_VALUE;

    /** Counts one value. */
    public void record(long millis) {
        long v = Math.max(0, millis);
        int b = bucketOf(v);
        if (b >= counts.length) {
            counts = Arrays.copyOf(counts, Math.max(b + 1, Math.min(2 * counts.length, 8192)));
        }
        counts[b]++;
        max = Math.max(max, v);
    }

    @Override
    public void add(Long value) {
        record(value);
    }

    @Override
    public Distribution getLocalValue() {
        return new Distribution(trimmed(counts), max);
    }

    @Override
    public void resetLocal() {
        counts = new long[0];
        max = Long.MIN_VALUE;
    }

    @Override
    public void merge(Accumulator<Long, Distribution> other) {
        Distribution d = other.getLocalValue();
        long[] o = d.counts;
        if (o.length > counts.length) {
            counts = Arrays.copyOf(counts, o.length);
        }
        for (int i = 0; i < o.length; i++) {
            counts[i] += o[i];
        }
        max = Math.max(max, d.max);
    }

    @Override
    public LatencyHistogram clone() {
        LatencyHistogram h = new LatencyHistogram();
        h.counts = counts.clone();
        h.max = max;
        return h;
    }

    @Override
    public String toString() {
        return getLocalValue().toString();
    }

    /** The bucket of a non-negative value. */
    static int bucketOf(long v) {
        if (v < LINEAR) {
            return (int) v;
        }
        int exponent = 63 - Long.numberOfLeadingZeros(v); // >= LINEAR_BITS
        int shift = exponent - SUB_BITS;
        int sub = (int) (v >>> shift) - SUB_BUCKETS; // 0 .. SUB_BUCKETS - 1
        return LINEAR + (exponent - LINEAR_BITS) * SUB_BUCKETS + sub;
    }

    /** The smallest value of bucket {@code b}. */
    static long lowestOf(int b) {
        if (b < LINEAR) {
            return b;
        }
        int exponent = (b - LINEAR) / SUB_BUCKETS + LINEAR_BITS;
        int sub = (b - LINEAR) % SUB_BUCKETS;
        return (long) (SUB_BUCKETS + sub) << (exponent - SUB_BITS);
    }

    /** The largest value of bucket {@code b}. */
    static long highestOf(int b) {
        if (b < LINEAR) {
            return b;
        }
        int exponent = (b - LINEAR) / SUB_BUCKETS + LINEAR_BITS;
        long next = lowestOf(b) + (1L << (exponent - SUB_BITS));
        return next < 0 ? Long.MAX_VALUE : next - 1;
    }

    private static long[] trimmed(long[] counts) {
        int n = counts.length;
        while (n > 0 && counts[n - 1] == 0) {
            n--;
        }
        return Arrays.copyOf(counts, n);
    }

    /**
     * An immutable snapshot: the accumulator's value, what {@code JobClient#getAccumulators()}
     * returns for it.
     */
    public static final class Distribution implements Serializable {

        private static final long serialVersionUID = 1L;

        /** No values. */
        public static final Distribution EMPTY = new Distribution(new long[0], Long.MIN_VALUE);

        private final long[] counts;
        private final long max;

        private Distribution(long[] counts, long max) {
            this.counts = counts;
            this.max = max;
        }

        /** Values recorded. */
        public long count() {
            long n = 0;
            for (long c : counts) {
                n += c;
            }
            return n;
        }

        /** The largest value recorded (exact), or -1 if none. */
        public long max() {
            return count() == 0 ? -1 : max;
        }

        /**
         * The {@code q}-quantile ({@code 0 < q <= 1}, e.g. 0.99): the smallest value v such that at
         * least {@code q} of the values are at most v, up to the bucket's width (reported as the
         * bucket's highest value, at most {@link #max()}); -1 if there are no values.
         */
        public long percentile(double q) {
            if (!(q > 0 && q <= 1)) {
                throw new IllegalArgumentException("quantile must be in (0, 1]: " + q);
            }
            long n = count();
            if (n == 0) {
                return -1;
            }
            long rank = Math.max(1, (long) Math.ceil(q * n));
            long seen = 0;
            for (int b = 0; b < counts.length; b++) {
                seen += counts[b];
                if (seen >= rank) {
                    return Math.min(highestOf(b), max);
                }
            }
            return max; // not reached
        }

        /**
         * The values recorded since {@code earlier}, an earlier snapshot of the same histogram.
         * {@link #max()} of the difference is the later snapshot's when the difference has values
         * in its highest bucket, else that bucket's highest value.
         */
        public Distribution minus(Distribution earlier) {
            long[] d = Arrays.copyOf(counts, counts.length);
            for (int i = 0; i < earlier.counts.length && i < d.length; i++) {
                d[i] -= earlier.counts[i];
                if (d[i] < 0) {
                    throw new IllegalArgumentException("not an earlier snapshot: bucket " + i);
                }
            }
            long[] t = trimmed(d);
            if (t.length == 0) {
                return EMPTY;
            }
            int top = t.length - 1;
            long m = top == counts.length - 1 ? max : highestOf(top);
            return new Distribution(t, Math.min(m, max));
        }

        /** Merges two snapshots (the histogram of both sets of values). */
        public Distribution plus(Distribution other) {
            long[] d = Arrays.copyOf(counts, Math.max(counts.length, other.counts.length));
            for (int i = 0; i < other.counts.length; i++) {
                d[i] += other.counts[i];
            }
            return new Distribution(d, Math.max(max, other.max));
        }

        /** count, p50, p90, p99, p99.9 and max, in milliseconds (-1 when empty), for reports. */
        public Map<String, Object> summary() {
            Map<String, Object> m = new LinkedHashMap<>();
            m.put("count", count());
            m.put("p50Millis", percentile(0.5));
            m.put("p90Millis", percentile(0.9));
            m.put("p99Millis", percentile(0.99));
            m.put("p999Millis", percentile(0.999));
            m.put("maxMillis", max());
            return m;
        }

        @Override
        public boolean equals(Object o) {
            return o instanceof Distribution d
                    && Arrays.equals(trimmed(counts), trimmed(d.counts))
                    && (count() == 0 || max == d.max);
        }

        @Override
        public int hashCode() {
            return Arrays.hashCode(trimmed(counts));
        }

        @Override
        public String toString() {
            return count() == 0
                    ? "no values"
                    : String.format(
                            java.util.Locale.ROOT,
                            "%d values, p50 %d ms, p99 %d ms, p99.9 %d ms, max %d ms",
                            count(),
                            percentile(0.5),
                            percentile(0.99),
                            percentile(0.999),
                            max());
        }
    }
}
