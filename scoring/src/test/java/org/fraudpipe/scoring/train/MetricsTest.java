package org.fraudpipe.scoring.train;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.within;

import org.junit.jupiter.api.Test;

class MetricsTest {

    @Test
    void aucIsOneForAPerfectRankingAndZeroForAnInvertedOne() {
        boolean[] y = {false, false, true, true};
        assertThat(Metrics.auc(new double[] {0.1, 0.2, 0.8, 0.9}, y)).isEqualTo(1.0);
        assertThat(Metrics.auc(new double[] {0.9, 0.8, 0.2, 0.1}, y)).isEqualTo(0.0);
    }

    @Test
    void aucCountsTiesAsOneHalf() {
        boolean[] y = {false, true};
        assertThat(Metrics.auc(new double[] {0.5, 0.5}, y)).isEqualTo(0.5);
        // pairs (pos, neg): (0.7 vs 0.2) win, (0.7 vs 0.7) tie, (0.3 vs 0.2) win, (0.3 vs 0.7) loss
        assertThat(
                        Metrics.auc(
                                new double[] {0.2, 0.7, 0.7, 0.3},
                                new boolean[] {false, false, true, true}))
                .isCloseTo(2.5 / 4, within(1e-12));
    }

    @Test
    void aucNeedsBothClasses() {
        assertThatThrownBy(() -> Metrics.auc(new double[] {0.1}, new boolean[] {true}))
                .hasMessageContaining("needs fraudulent and legitimate windows");
    }

    @Test
    void precisionAndRecallCountScoresAtOrAboveTheThreshold() {
        double[] s = {0.1, 0.5, 0.5, 0.9, 0.95};
        boolean[] y = {false, false, true, true, false};
        Metrics.AtThreshold at = Metrics.at(0.5, s, y);
        assertThat(at.flagged()).isEqualTo(4);
        assertThat(at.truePositives()).isEqualTo(2);
        assertThat(at.falsePositives()).isEqualTo(2);
        assertThat(at.precision()).isEqualTo(0.5);
        assertThat(at.recall()).isEqualTo(1.0);
        assertThat(at.falsePositiveRate()).isEqualTo(2.0 / 3);
        assertThat(Metrics.at(0.99, s, y).precision()).isNaN();
    }
}
