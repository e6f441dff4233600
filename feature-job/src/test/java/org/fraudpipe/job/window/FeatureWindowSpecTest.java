package org.fraudpipe.job.window;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import org.junit.jupiter.api.Test;

class FeatureWindowSpecTest {

    @Test
    void rejectsAZeroOrNegativeWindowSizeNamingTheOption() {
        assertThatThrownBy(() -> new FeatureWindowSpec(Duration.ZERO, Duration.ZERO))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageStartingWith("window-size must be positive");
        assertThatThrownBy(() -> new FeatureWindowSpec(Duration.ofMinutes(-1), Duration.ZERO))
                .hasMessageStartingWith("window-size must not be negative");
    }

    @Test
    void rejectsNegativeLatenessNamingTheOption() {
        assertThatThrownBy(
                        () -> new FeatureWindowSpec(Duration.ofMinutes(10), Duration.ofSeconds(-1)))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageStartingWith("allowed-lateness must not be negative");
    }

    @Test
    void rejectsMissingOrSubMillisecondDurations() {
        assertThatThrownBy(() -> new FeatureWindowSpec(null, Duration.ZERO))
                .hasMessage("window-size is required");
        assertThatThrownBy(() -> new FeatureWindowSpec(Duration.ofMinutes(1), null))
                .hasMessage("allowed-lateness is required");
        assertThatThrownBy(() -> new FeatureWindowSpec(Duration.ofNanos(1), Duration.ZERO))
                .hasMessageStartingWith("window-size must be a whole number of milliseconds");
    }

    @Test
    void acceptsZeroLateness() {
        FeatureWindowSpec spec = new FeatureWindowSpec(Duration.ofMinutes(10), Duration.ZERO);

        assertThat(spec.cleanupTime(600_000)).isEqualTo(599_999);
        assertThat(spec.maxLiveWindowsPerKey()).isEqualTo(1);
    }

    @Test
    void liveWindowsPerKeyIsLatenessOverSizeRoundedUpPlusOne() {
        Duration size = Duration.ofMinutes(10);

        assertThat(new FeatureWindowSpec(size, Duration.ofMinutes(5)).maxLiveWindowsPerKey())
                .isEqualTo(2);
        assertThat(new FeatureWindowSpec(size, Duration.ofMinutes(10)).maxLiveWindowsPerKey())
                .isEqualTo(2);
        assertThat(new FeatureWindowSpec(size, Duration.ofHours(2)).maxLiveWindowsPerKey())
                .isEqualTo(13);
    }

    @Test
    void tooLateFromTheWatermarkEndMinusOnePlusLateness() {
        FeatureWindowSpec spec =
                new FeatureWindowSpec(Duration.ofMillis(100), Duration.ofMillis(20));

        assertThat(spec.cleanupTime(100)).isEqualTo(119);
        assertThat(spec.isTooLate(50, 118)).isFalse();
        assertThat(spec.isTooLate(50, 119)).isTrue();
        assertThat(spec.isTooLate(100, 119)).isFalse(); // next window
    }

    @Test
    void cleanupTimeSaturatesLikeFlink() {
        FeatureWindowSpec spec =
                new FeatureWindowSpec(Duration.ofMillis(10), Duration.ofMillis(Long.MAX_VALUE));

        assertThat(spec.cleanupTime(1_000)).isEqualTo(Long.MAX_VALUE);
    }

    @Test
    void processingTimeIsTheWallClockUnlessChosenOtherwise() {
        FeatureWindowSpec spec = new FeatureWindowSpec(Duration.ofMinutes(10), Duration.ZERO);

        assertThat(spec.processingTime()).isEqualTo(ProcessingTimeSource.WALL_CLOCK);
        FeatureWindowSpec replay = spec.withProcessingTime(ProcessingTimeSource.WATERMARK);
        assertThat(replay.processingTime()).isEqualTo(ProcessingTimeSource.WATERMARK);
        assertThat(replay.windowSize()).isEqualTo(spec.windowSize());
        assertThat(ProcessingTimeSource.WALL_CLOCK.now(5, 9)).isEqualTo(5);
        assertThat(ProcessingTimeSource.WATERMARK.now(5, 9)).isEqualTo(9);
        assertThatThrownBy(() -> spec.withProcessingTime(null))
                .hasMessage("processingTime is required");
    }
}
