package org.fraudpipe.tools.advise;

import java.util.Arrays;

/**
 * Percentiles by nearest rank: the {@code q}-th percentile of {@code n} values is the value at rank
 * {@code ceil(q * n)} in ascending order (so p100 is the maximum, and every percentile is a value
 * that occurred). Empty: every percentile is null.
 */
record Percentiles(long count, Long p50, Long p90, Long p95, Long p99, Long p999, Long max) {

    static final Percentiles EMPTY = new Percentiles(0, null, null, null, null, null, null);

    /** Of {@code values[0, n)}; sorts that part of the array. */
    static Percentiles of(long[] values, int n) {
        if (n == 0) {
            return EMPTY;
        }
        Arrays.sort(values, 0, n);
        return new Percentiles(
                n,
                at(values, n, 0.50),
                at(values, n, 0.90),
                at(values, n, 0.95),
                at(values, n, 0.99),
                at(values, n, 0.999),
                values[n - 1]);
    }

    /** The value at quantile {@code q} of sorted {@code values[0, n)}, by nearest rank. */
    static long at(long[] sorted, int n, double q) {
        long rank = (long) Math.ceil(q * n);
        return sorted[(int) Math.max(0, Math.min(n - 1, rank - 1))];
    }

    /** Of values with weights ({@code value[i]} occurred {@code weight[i]} times), first n. */
    static Percentiles weighted(long[] value, long[] weight, int n) {
        long total = 0;
        for (int i = 0; i < n; i++) {
            total += weight[i];
        }
        if (total == 0) {
            return EMPTY;
        }
        Integer[] order = new Integer[n];
        for (int i = 0; i < n; i++) {
            order[i] = i;
        }
        Arrays.sort(order, (a, b) -> Long.compare(value[a], value[b]));
        long[] sortedValue = new long[n];
        long[] cumulative = new long[n];
        long c = 0;
        for (int i = 0; i < n; i++) {
            sortedValue[i] = value[order[i]];
            c += weight[order[i]];
            cumulative[i] = c;
        }
        return new Percentiles(
                total,
                weightedAt(sortedValue, cumulative, total, 0.50),
                weightedAt(sortedValue, cumulative, total, 0.90),
                weightedAt(sortedValue, cumulative, total, 0.95),
                weightedAt(sortedValue, cumulative, total, 0.99),
                weightedAt(sortedValue, cumulative, total, 0.999),
                sortedValue[n - 1]);
    }

    private static long weightedAt(long[] sorted, long[] cumulative, long total, double q) {
        long rank = Math.max(1, (long) Math.ceil(q * total));
        int i = Arrays.binarySearch(cumulative, rank);
        if (i < 0) {
            i = -i - 1;
        }
        // binarySearch may land on any of equal cumulative counts (zero weights): take the first.
        while (i > 0 && cumulative[i - 1] >= rank) {
            i--;
        }
        return sorted[Math.min(i, sorted.length - 1)];
    }
}
