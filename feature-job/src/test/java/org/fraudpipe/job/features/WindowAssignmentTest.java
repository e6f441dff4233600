package org.fraudpipe.job.features;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Random;
import org.apache.flink.streaming.api.windowing.assigners.TumblingEventTimeWindows;
import org.apache.flink.streaming.api.windowing.assigners.WindowAssigner;
import org.apache.flink.streaming.api.windowing.windows.TimeWindow;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class WindowAssignmentTest {

    private static final WindowAssigner.WindowAssignerContext NO_CONTEXT =
            new WindowAssigner.WindowAssignerContext() {
                @Override
                public long getCurrentProcessingTime() {
                    return 0; // asked for the stagger offset, unused with the default ALIGNED
                }
            };

    private static TimeWindow flinkWindow(Duration size, long timestamp) {
        Collection<TimeWindow> windows =
                TumblingEventTimeWindows.of(size).assignWindows(null, timestamp, NO_CONTEXT);
        assertThat(windows).hasSize(1);
        return windows.iterator().next();
    }

    private static List<Long> interestingTimestamps(long size) {
        List<Long> ts = new ArrayList<>();
        for (long base : new long[] {0, size, -size, 7 * size, -7 * size, 1_735_725_600_000L}) {
            for (long delta = -2; delta <= 2; delta++) {
                ts.add(base + delta);
            }
        }
        ts.add(Long.MIN_VALUE + 1);
        ts.add(Long.MIN_VALUE + size);
        ts.add(Long.MAX_VALUE - size);
        ts.add(Long.MAX_VALUE);
        Random random = new Random(42);
        for (int i = 0; i < 2_000; i++) {
            ts.add(random.nextLong());
            ts.add((long) random.nextInt());
        }
        return ts;
    }

    @ParameterizedTest
    @ValueSource(longs = {1, 7, 1_000, 600_000, 86_400_000})
    void agreesWithFlinkTumblingEventTimeWindows(long sizeMillis) {
        Duration size = Duration.ofMillis(sizeMillis);
        WindowAssignment assignment = WindowAssignment.tumbling(size);

        for (long t : interestingTimestamps(sizeMillis)) {
            TimeWindow expected = flinkWindow(size, t);
            assertThat(assignment.windowOf(t)).as("timestamp %d", t).isEqualTo(expected);
            assertThat(assignment.startOf(t)).isEqualTo(expected.getStart());
            assertThat(assignment.endOf(t)).isEqualTo(expected.getEnd());
        }
    }

    @Test
    void windowsAreAlignedToTheEpochAndHalfOpen() {
        WindowAssignment tenMinutes = WindowAssignment.tumbling(Duration.ofMinutes(10));

        assertThat(tenMinutes.startOf(0)).isZero();
        assertThat(tenMinutes.startOf(599_999)).isZero();
        assertThat(tenMinutes.startOf(600_000)).isEqualTo(600_000);
        assertThat(tenMinutes.startOf(-1)).isEqualTo(-600_000);
        assertThat(tenMinutes.startOf(-600_000)).isEqualTo(-600_000);
        assertThat(tenMinutes.startOf(-600_001)).isEqualTo(-1_200_000);
    }

    @Test
    void rejectsSizesThatAreNotPositiveWholeMilliseconds() {
        for (Duration bad :
                List.of(Duration.ZERO, Duration.ofMillis(-1), Duration.ofNanos(1_500_000))) {
            assertThatThrownBy(() -> WindowAssignment.tumbling(bad))
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining("positive whole number of milliseconds");
        }
    }
}
