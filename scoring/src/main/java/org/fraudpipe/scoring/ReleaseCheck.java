package org.fraudpipe.scoring;

import java.time.Duration;
import java.util.Arrays;
import java.util.Objects;
import java.util.Optional;

/**
 * Whether a model file may serve: the one check a release passes before it scores anything, run by
 * {@code ./fraud model publish} before it publishes and by every scoring subtask of the running job
 * before it switches. In this order, the first failure decides:
 *
 * <ol>
 *   <li>{@link Refusal#NOT_LOADABLE}: ONNX Runtime cannot load the bytes (corrupt, truncated, not
 *       ONNX, empty);
 *   <li>{@link Refusal#LAYOUT_MISFIT}: it loads but does not fit the feature layout (input or
 *       output shape, metadata: name, version, feature names column by column, labels);
 *   <li>{@link Refusal#NO_TEST_VECTORS}: its metadata has no {@link TestVectors} (nothing to prove
 *       it scores what was trained);
 *   <li>{@link Refusal#TEST_VECTORS_FAILED}: ONNX Runtime here does not reproduce a vector within
 *       {@link TestVectors#TOLERANCE};
 *   <li>{@link Refusal#TOO_SLOW}: the median of {@value #TIMED_CALLS} one-row calls is over the
 *       budget (a decision waits on a one-row call: the per-transaction path scores alone when
 *       idle).
 * </ol>
 *
 * The timing is the only part that depends on the machine; the budget is generous on purpose (a
 * linear model takes microseconds here, the default budget is a millisecond), so that only a model
 * of another order of cost is refused.
 */
public final class ReleaseCheck {

    /** Why a release was refused. */
    public enum Refusal {
        NOT_LOADABLE,
        LAYOUT_MISFIT,
        NO_TEST_VECTORS,
        TEST_VECTORS_FAILED,
        TOO_SLOW
    }

    /** One-row calls timed; the verdict uses their median. */
    public static final int TIMED_CALLS = 101;

    /** The default budget of a one-row call's median. */
    public static final Duration DEFAULT_BUDGET = Duration.ofMillis(1);

    /** The outcome of a check. */
    public sealed interface Verdict permits Accepted, Refused {}

    /**
     * The release may serve.
     *
     * @param metadata the model's metadata
     * @param vectors how many test vectors it reproduced
     * @param oneRowMicros the median one-row call, microseconds
     */
    public record Accepted(ModelMetadata metadata, int vectors, long oneRowMicros)
            implements Verdict {}

    /**
     * The release must not serve.
     *
     * @param reason the first check it failed
     * @param message what failed, naming the model and the fix
     */
    public record Refused(Refusal reason, String message) implements Verdict {
        public Refused {
            Objects.requireNonNull(reason, "reason");
            Objects.requireNonNull(message, "message");
        }
    }

    private ReleaseCheck() {}

    /**
     * Checks {@code model} against {@code layout} and the budget.
     *
     * @param source how to name the model in messages
     */
    public static Verdict check(
            byte[] model, String source, FeatureLayout<?> layout, Duration budget) {
        try (OnnxScorer<?> scorer = OnnxScorer.fromBytes(model, source, layout)) {
            return check(scorer, budget);
        } catch (ModelLoadException e) {
            return new Refused(
                    e.kind() == ModelLoadException.Kind.MISFIT
                            ? Refusal.LAYOUT_MISFIT
                            : Refusal.NOT_LOADABLE,
                    e.getMessage());
        }
    }

    /**
     * The checks that the bytes alone decide (load, layout, test vectors), without the timing: what
     * every scoring subtask of the running job runs before a release serves, so that all subtasks
     * reach the same verdict (a loaded TaskManager would otherwise refuse on the budget what
     * another accepts). The verdict's {@code oneRowMicros} is 0.
     */
    public static Verdict checkContent(byte[] model, String source, FeatureLayout<?> layout) {
        try (OnnxScorer<?> scorer = OnnxScorer.fromBytes(model, source, layout)) {
            return checkVectors(scorer);
        } catch (ModelLoadException e) {
            return new Refused(
                    e.kind() == ModelLoadException.Kind.MISFIT
                            ? Refusal.LAYOUT_MISFIT
                            : Refusal.NOT_LOADABLE,
                    e.getMessage());
        }
    }

    /** Checks a loaded model: its test vectors and the budget. */
    public static Verdict check(OnnxScorer<?> scorer, Duration budget) {
        Verdict content = checkVectors(scorer);
        if (!(content instanceof Accepted accepted)) {
            return content;
        }
        String id = scorer.metadata().id() + " (" + scorer.source() + ")";
        TestVectors v = TestVectors.of(scorer.metadata()).orElseThrow();
        long micros = oneRowMedianMicros(scorer, v);
        if (micros > budget.toNanos() / 1000) {
            return new Refused(
                    Refusal.TOO_SLOW,
                    "model "
                            + id
                            + ": a one-row call takes "
                            + micros
                            + " us (median of "
                            + TIMED_CALLS
                            + "), over the budget of "
                            + budget.toNanos() / 1000
                            + " us");
        }
        return new Accepted(accepted.metadata(), accepted.vectors(), micros);
    }

    /** The test-vector part of the check, for a model that loaded and fits its layout. */
    private static Verdict checkVectors(OnnxScorer<?> scorer) {
        String id = scorer.metadata().id() + " (" + scorer.source() + ")";
        Optional<TestVectors> vectors;
        try {
            vectors = TestVectors.of(scorer.metadata());
        } catch (IllegalArgumentException e) {
            return new Refused(
                    Refusal.NO_TEST_VECTORS, "model " + id + ": unreadable " + e.getMessage());
        }
        if (vectors.isEmpty()) {
            return new Refused(
                    Refusal.NO_TEST_VECTORS,
                    "model "
                            + id
                            + " has no test vectors (metadata `"
                            + TestVectors.METADATA_KEY
                            + "`): train it with ./fraud train, which writes them, or add rows"
                            + " with the scores the trainer predicted");
        }
        TestVectors v = vectors.get();
        if (v.width() != scorer.layout().size()) {
            return new Refused(
                    Refusal.TEST_VECTORS_FAILED,
                    "model "
                            + id
                            + ": its test vectors have "
                            + v.width()
                            + " columns, the layout "
                            + scorer.layout().size());
        }
        Optional<TestVectors.Mismatch> mismatch = v.check(scorer);
        if (mismatch.isPresent()) {
            return new Refused(
                    Refusal.TEST_VECTORS_FAILED,
                    "model "
                            + id
                            + ": "
                            + mismatch.get().describe()
                            + ": ONNX Runtime here does not score what the model was trained to");
        }
        return new Accepted(scorer.metadata(), v.rows().size(), 0);
    }

    private static long oneRowMedianMicros(OnnxScorer<?> scorer, TestVectors v) {
        float[] row = v.rows().get(0).features();
        long[] nanos = new long[TIMED_CALLS];
        for (int i = 0; i < TIMED_CALLS; i++) {
            long start = System.nanoTime();
            scorer.scoreVectors(row, 1);
            nanos[i] = System.nanoTime() - start;
        }
        Arrays.sort(nanos);
        return nanos[TIMED_CALLS / 2] / 1000;
    }
}
