package org.fraudpipe.job.metrics;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.ObjectInputStream;
import java.io.ObjectOutputStream;
import java.util.Arrays;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

class LatencyHistogramTest {

    /** The exact q-quantile of sorted values: the smallest v with at least q of them at most v. */
    static long exact(long[] sorted, double q) {
        int rank = (int) Math.max(1, Math.ceil(q * sorted.length));
        return sorted[rank - 1];
    }

    @Test
    void bucketsCoverEveryValueOnceAndInOrder() {
        long previousHighest = -1;
        for (int b = 0; b < LatencyHistogram.bucketOf(Long.MAX_VALUE); b++) {
            long lo = LatencyHistogram.lowestOf(b);
            long hi = LatencyHistogram.highestOf(b);
            assertThat(lo)
                    .as("bucket %d starts after the previous one", b)
                    .isEqualTo(previousHighest + 1);
            assertThat(LatencyHistogram.bucketOf(lo)).isEqualTo(b);
            assertThat(LatencyHistogram.bucketOf(hi)).isEqualTo(b);
            assertThat(hi - lo)
                    .as("width of bucket %d", b)
                    .isLessThanOrEqualTo(Math.max(0, lo / 64));
            previousHighest = hi;
        }
        assertThat(LatencyHistogram.highestOf(LatencyHistogram.bucketOf(Long.MAX_VALUE)))
                .isEqualTo(Long.MAX_VALUE);
    }

    @Test
    void belowASecondPercentilesAreExact() {
        SplittableRandom rng = new SplittableRandom(1);
        LatencyHistogram h = new LatencyHistogram();
        long[] values = new long[10_001];
        for (int i = 0; i < values.length; i++) {
            values[i] = rng.nextLong(1000);
            h.add(values[i]);
        }
        Arrays.sort(values);
        LatencyHistogram.Distribution d = h.getLocalValue();
        assertThat(d.count()).isEqualTo(values.length);
        for (double q : new double[] {0.0001, 0.5, 0.9, 0.99, 0.999, 1.0}) {
            assertThat(d.percentile(q)).as("q %s", q).isEqualTo(exact(values, q));
        }
        assertThat(d.max()).isEqualTo(values[values.length - 1]);
    }

    @Test
    void abovePercentilesNeverUnderstateAndAreWithinTheBucketWidth() {
        SplittableRandom rng = new SplittableRandom(2);
        LatencyHistogram h = new LatencyHistogram();
        long[] values = new long[50_000];
        for (int i = 0; i < values.length; i++) {
            // log-uniform from 1 ms to ~10 min
            values[i] = (long) Math.exp(rng.nextDouble() * Math.log(600_000));
            h.record(values[i]);
        }
        Arrays.sort(values);
        LatencyHistogram.Distribution d = h.getLocalValue();
        for (double q : new double[] {0.5, 0.9, 0.99, 0.999}) {
            long truth = exact(values, q);
            assertThat(d.percentile(q))
                    .as("q %s", q)
                    .isGreaterThanOrEqualTo(truth)
                    .isLessThanOrEqualTo(truth + truth / 64);
        }
        assertThat(d.percentile(1.0)).isEqualTo(values[values.length - 1]);
    }

    @Test
    void mergingIsExactAndSubtractingAnEarlierSnapshotGivesWhatCameAfter() {
        LatencyHistogram a = new LatencyHistogram();
        LatencyHistogram b = new LatencyHistogram();
        LatencyHistogram all = new LatencyHistogram();
        SplittableRandom rng = new SplittableRandom(3);
        for (int i = 0; i < 5000; i++) {
            long v = rng.nextLong(20_000);
            (i % 3 == 0 ? a : b).record(v);
            all.record(v);
        }
        LatencyHistogram merged = a.clone();
        merged.merge(b);
        assertThat(merged.getLocalValue()).isEqualTo(all.getLocalValue());
        assertThat(a.getLocalValue().plus(b.getLocalValue())).isEqualTo(all.getLocalValue());

        LatencyHistogram.Distribution before = b.getLocalValue();
        LatencyHistogram later = new LatencyHistogram();
        for (long v : new long[] {3, 3, 7, 900}) {
            b.record(v);
            later.record(v);
        }
        LatencyHistogram.Distribution since = b.getLocalValue().minus(before);
        assertThat(since.count()).isEqualTo(4);
        assertThat(since.percentile(0.5)).isEqualTo(3);
        assertThat(since.percentile(0.75)).isEqualTo(7);
        assertThat(since.percentile(1.0)).isEqualTo(900);
        assertThatThrownBy(() -> before.minus(b.getLocalValue()))
                .isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void emptyNegativeAndResetAreHandled() throws Exception {
        LatencyHistogram h = new LatencyHistogram();
        assertThat(h.getLocalValue().count()).isZero();
        assertThat(h.getLocalValue().percentile(0.99)).isEqualTo(-1);
        assertThat(h.getLocalValue().max()).isEqualTo(-1);
        assertThat(h.getLocalValue().summary())
                .containsEntry("count", 0L)
                .containsEntry("p99Millis", -1L);
        h.record(-5);
        assertThat(h.getLocalValue().percentile(0.5)).isZero();
        h.resetLocal();
        assertThat(h.getLocalValue()).isEqualTo(LatencyHistogram.Distribution.EMPTY);
        assertThatThrownBy(() -> h.getLocalValue().percentile(0))
                .isInstanceOf(IllegalArgumentException.class);

        // the accumulator and its value travel between task, job manager and client
        h.record(42);
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        try (ObjectOutputStream out = new ObjectOutputStream(bytes)) {
            out.writeObject(h);
        }
        try (ObjectInputStream in =
                new ObjectInputStream(new ByteArrayInputStream(bytes.toByteArray()))) {
            LatencyHistogram copy = (LatencyHistogram) in.readObject();
            assertThat(copy.getLocalValue().percentile(1.0)).isEqualTo(42);
        }
    }
}
