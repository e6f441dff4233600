package org.fraudpipe.sim;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.util.Arrays;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

class DelayModelTest {

    private static final int SAMPLES = 200_000;

    private static long percentile(long[] sorted, double p) {
        return sorted[(int) Math.ceil(p * sorted.length) - 1];
    }

    @Test
    void percentilesOf200kSamplesMatchTheRealisticCalibration() {
        DelayModel model = DelayModel.realistic();
        SplittableRandom rng = new SplittableRandom(42);
        long[] d = new long[SAMPLES];
        int hoursLate = 0;
        for (int i = 0; i < SAMPLES; i++) {
            d[i] = model.sampleMillis(rng);
            if (model.isHoursLate(d[i])) {
                hoursLate++;
                assertThat(d[i])
                        .isBetween(
                                Duration.ofMinutes(10).toMillis(), Duration.ofHours(6).toMillis());
            }
        }
        Arrays.sort(d);
        assertThat(d[0]).isGreaterThanOrEqualTo(0);
        assertThat(percentile(d, 0.50)).isLessThan(1_000);
        assertThat(percentile(d, 0.95)).isBetween(2_000L, 3_000L);
        assertThat(percentile(d, 0.99)).isBetween(6_000L, 10_000L);
        assertThat(hoursLate / (double) SAMPLES).isBetween(0.002, 0.005);
    }

    @Test
    void hoursLateShareFollowsTheParameter() {
        DelayModel none = DelayModel.realistic(0);
        DelayModel onePercent = DelayModel.realistic(0.01);
        SplittableRandom rng = new SplittableRandom(3);
        int lateNone = 0;
        int lateOne = 0;
        for (int i = 0; i < SAMPLES; i++) {
            lateNone += none.isHoursLate(none.sampleMillis(rng)) ? 1 : 0;
            lateOne += onePercent.isHoursLate(onePercent.sampleMillis(rng)) ? 1 : 0;
        }
        assertThat(lateNone).isZero();
        assertThat(lateOne / (double) SAMPLES).isBetween(0.009, 0.011);
    }

    @Test
    void sameRandomStreamGivesSameDelays() {
        DelayModel model = DelayModel.realistic();
        SplittableRandom a = new SplittableRandom(9);
        SplittableRandom b = new SplittableRandom(9);
        for (int i = 0; i < 10_000; i++) {
            assertThat(model.sampleMillis(a)).isEqualTo(model.sampleMillis(b));
        }
    }

    @Test
    void networkCapMustStayBelowTheHoursLateRange() {
        assertThatThrownBy(
                        () ->
                                new DelayModel(
                                        Duration.ofMillis(200),
                                        1.5,
                                        Duration.ofMinutes(10),
                                        0.003,
                                        Duration.ofMinutes(10),
                                        Duration.ofHours(6)))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("baseCap");
    }
}
