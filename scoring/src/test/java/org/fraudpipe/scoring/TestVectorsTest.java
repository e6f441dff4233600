package org.fraudpipe.scoring;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class TestVectorsTest {

    @Test
    void theMetadataValueReadsBackToTheSameFloatsAndScores() {
        TestVectors v =
                new TestVectors(
                        List.of(
                                new TestVectors.Vector(
                                        new float[] {0.1f, 1e-7f, 3.4028235e38f, -0f}, 0.123456789),
                                new TestVectors.Vector(new float[] {1f, 2f, 3f, 4f}, 1e-9)));

        TestVectors back = TestVectors.parse(v.encode());

        assertThat(back.rows()).hasSize(2);
        for (int i = 0; i < 2; i++) {
            assertThat(back.rows().get(i).features()).containsExactly(v.rows().get(i).features());
            assertThat(back.rows().get(i).score()).isEqualTo(v.rows().get(i).score());
        }
    }

    @Test
    void selectSpreadsOverTheScoresLowestAndHighestIncluded() {
        List<float[]> rows = new ArrayList<>();
        double[] scores = new double[100];
        for (int i = 0; i < 100; i++) {
            rows.add(new float[] {i});
            scores[i] = ((i * 37) % 100) / 100.0; // a permutation of 0.00 .. 0.99
        }

        TestVectors v = TestVectors.select(rows, scores, 5);

        assertThat(v.rows())
                .extracting(TestVectors.Vector::score)
                .containsExactly(0.0, 0.25, 0.5, 0.74, 0.99);
        assertThat(TestVectors.select(rows, scores, 5).encode()).isEqualTo(v.encode());
        assertThat(TestVectors.select(rows.subList(0, 3), new double[] {0.5, 0.1, 0.9}, 16).rows())
                .hasSize(3);
    }

    @Test
    void aMalformedLineIsNamed() {
        assertThatThrownBy(() -> TestVectors.parse("0.5\t1 2 3\n0.4 1 2 3\n"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("line 2")
                .hasMessageContaining(TestVectors.METADATA_KEY);
        assertThatThrownBy(() -> TestVectors.parse("0.5\t1 2 3\n0.4\t1 2\n"))
                .hasMessageContaining("rows of 3 and 2 columns");
    }

    @Test
    void checkFindsTheFirstVectorOffByMoreThanTheTolerance() throws Exception {
        float[] zeros = new float[FeatureLayout.V1.size()];
        try (OnnxScorer<?> scorer =
                OnnxScorer.fromBytes(
                        TestModels.build(TestModels.Spec.valid()), "test", FeatureLayout.V1)) {
            double exact = scorer.scoreVectors(zeros, 1)[0];
            TestVectors good =
                    new TestVectors(
                            List.of(
                                    new TestVectors.Vector(zeros, exact),
                                    new TestVectors.Vector(zeros, exact + 0.9e-5)));
            TestVectors bad =
                    new TestVectors(
                            List.of(
                                    new TestVectors.Vector(zeros, exact),
                                    new TestVectors.Vector(zeros, exact + 2e-5)));

            assertThat(good.check(scorer)).isEmpty();
            assertThat(bad.check(scorer)).hasValueSatisfying(m -> assertThat(m.row()).isEqualTo(1));
        }
    }
}
