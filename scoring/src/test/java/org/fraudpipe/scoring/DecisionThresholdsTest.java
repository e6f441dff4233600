package org.fraudpipe.scoring;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.fraudpipe.schemas.avro.Decision;
import org.junit.jupiter.api.Test;

class DecisionThresholdsTest {

    @Test
    void scoresMapToAllowReviewBlockWithInclusiveLowerBounds() {
        DecisionThresholds t = new DecisionThresholds(0.4, 0.8);
        assertThat(t.decide(0.0)).isEqualTo(Decision.ALLOW);
        assertThat(t.decide(0.3999)).isEqualTo(Decision.ALLOW);
        assertThat(t.decide(0.4)).isEqualTo(Decision.REVIEW);
        assertThat(t.decide(0.7999)).isEqualTo(Decision.REVIEW);
        assertThat(t.decide(0.8)).isEqualTo(Decision.BLOCK);
        assertThat(t.decide(1.0)).isEqualTo(Decision.BLOCK);
    }

    @Test
    void defaultsReviewFromHalfAndBlockFromNinetyPercent() {
        assertThat(DecisionThresholds.DEFAULT).isEqualTo(new DecisionThresholds(0.5, 0.9));
    }

    @Test
    void equalThresholdsNeverReview() {
        DecisionThresholds t = new DecisionThresholds(0.7, 0.7);
        assertThat(t.decide(0.69)).isEqualTo(Decision.ALLOW);
        assertThat(t.decide(0.7)).isEqualTo(Decision.BLOCK);
    }

    @Test
    void reviewAboveBlockFailsNamingBothOptions() {
        assertThatThrownBy(() -> new DecisionThresholds(0.9, 0.5))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageStartingWith(
                        "--review-threshold (0.9) must not exceed --block-threshold (0.5)");
    }

    @Test
    void thresholdOutsideZeroToOneFailsNamingTheOption() {
        assertThatThrownBy(() -> new DecisionThresholds(-0.1, 0.5))
                .hasMessage("--review-threshold must be a probability in [0, 1], got -0.1");
        assertThatThrownBy(() -> new DecisionThresholds(0.5, 1.5))
                .hasMessage("--block-threshold must be a probability in [0, 1], got 1.5");
        assertThatThrownBy(() -> new DecisionThresholds(Double.NaN, 0.5))
                .hasMessageStartingWith("--review-threshold must be a probability");
    }

    @Test
    void scoreThatIsNotAProbabilityIsRejected() {
        assertThatThrownBy(() -> DecisionThresholds.DEFAULT.decide(Double.NaN))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("must be in [0, 1]");
        assertThatThrownBy(() -> DecisionThresholds.DEFAULT.decide(1.01))
                .isInstanceOf(IllegalArgumentException.class);
    }
}
