package org.fraudpipe.scoring;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.Arrays;
import org.fraudpipe.scoring.ReleaseCheck.Refusal;
import org.junit.jupiter.api.Test;

class ReleaseCheckTest {

    private static final Duration BUDGET = Duration.ofSeconds(1);

    /** The valid test model says 30 % fraud whatever the row; vectors saying {@code score}. */
    private static byte[] constantModel(double score) {
        float[] row = new float[FeatureLayout.V1.size()];
        Arrays.fill(row, 1f);
        String vectors =
                new TestVectors(java.util.List.of(new TestVectors.Vector(row, score))).encode();
        return TestModels.build(
                TestModels.Spec.valid().withMetadata(TestVectors.METADATA_KEY, vectors));
    }

    @Test
    void aModelThatReproducesItsVectorsWithinTheBudgetIsAccepted() {
        ReleaseCheck.Verdict v =
                ReleaseCheck.check(constantModel(0.3), "m", FeatureLayout.V1, BUDGET);

        assertThat(v)
                .isInstanceOfSatisfying(
                        ReleaseCheck.Accepted.class,
                        a -> {
                            assertThat(a.vectors()).isEqualTo(1);
                            assertThat(a.metadata().id()).isEqualTo("test-model:7");
                        });
    }

    @Test
    void aTrainedModelCarriesVectorsItReproduces() {
        TrainingResultAssert.accepts(TrainedModels.logistic().onnx());
        TrainingResultAssert.accepts(TrainedModels.factorizationMachine().onnx());
    }

    @Test
    void eachRefusalNamesItsReason() {
        byte[] good = constantModel(0.3);
        assertRefused(
                ReleaseCheck.check(new byte[] {1, 2, 3}, "m", FeatureLayout.V1, BUDGET),
                Refusal.NOT_LOADABLE,
                "not a valid ONNX model");
        assertRefused(
                ReleaseCheck.check(
                        Arrays.copyOf(good, good.length / 2), "m", FeatureLayout.V1, BUDGET),
                Refusal.NOT_LOADABLE,
                "cannot load model m");
        assertRefused(
                ReleaseCheck.check(good, "m", FeatureLayout.TRANSACTION_V1, BUDGET),
                Refusal.LAYOUT_MISFIT,
                "cannot load model m");
        assertRefused(
                ReleaseCheck.check(
                        TestModels.build(TestModels.Spec.valid()), "m", FeatureLayout.V1, BUDGET),
                Refusal.NO_TEST_VECTORS,
                "has no test vectors");
        assertRefused(
                ReleaseCheck.check(constantModel(0.31), "m", FeatureLayout.V1, BUDGET),
                Refusal.TEST_VECTORS_FAILED,
                "test vector 0 scores 0.3000000, expected 0.3100000");
        // No ONNX Runtime call takes under a microsecond (a JNI round trip, a tensor, a session
        // run).
        assertRefused(
                ReleaseCheck.check(good, "m", FeatureLayout.V1, Duration.ZERO),
                Refusal.TOO_SLOW,
                "over the budget of 0 us");
    }

    private static void assertRefused(ReleaseCheck.Verdict v, Refusal reason, String message) {
        assertThat(v)
                .isInstanceOfSatisfying(
                        ReleaseCheck.Refused.class,
                        r -> {
                            assertThat(r.reason()).isEqualTo(reason);
                            assertThat(r.message()).contains(message);
                        });
    }

    /** Trained models' own vectors pass. */
    private static final class TrainingResultAssert {
        static void accepts(byte[] onnx) {
            assertThat(ReleaseCheck.check(onnx, "trained", FeatureLayout.V1, BUDGET))
                    .isInstanceOfSatisfying(
                            ReleaseCheck.Accepted.class,
                            a -> assertThat(a.vectors()).isEqualTo(TestVectors.DEFAULT_COUNT));
        }
    }
}
