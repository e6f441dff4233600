package org.fraudpipe.scoring.release;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.function.Function;
import org.fraudpipe.schemas.avro.AssignmentAction;
import org.fraudpipe.schemas.avro.ModelEvent;
import org.fraudpipe.schemas.avro.ModelKind;
import org.fraudpipe.scoring.FeatureLayout;
import org.fraudpipe.scoring.OnnxScorer;
import org.fraudpipe.scoring.ReleaseCheck;
import org.fraudpipe.scoring.release.ModelRegistry.Applied;
import org.fraudpipe.scoring.release.ModelRegistry.Release;
import org.junit.jupiter.api.Test;

class ServingModelsTest {

    private static final ModelKind TX = ModelKind.TRANSACTION;
    private static final Instant T0 = Instant.parse("2026-12-04T10:00:00Z");
    private static final Duration LEAD = Duration.ofSeconds(30);

    private final ModelRegistry registry = new ModelRegistry();

    private void publish(String version, byte[] onnx, Instant at) {
        ModelEvent e =
                registry.release(TX, "fraud-transaction", version, onnx, null, 10, at, "ana");
        assertThat(registry.apply(e, at.toEpochMilli())).isInstanceOf(Applied.class);
    }

    private void publish(String version, Instant at) {
        publish(version, ("onnx of " + version).getBytes(StandardCharsets.UTF_8), at);
    }

    /** Assigns at {@code at}: effective at {@code at + 30 s}. */
    private void assign(AssignmentAction action, String version, Instant at) {
        ModelEvent e = registry.assign(TX, action, version, at, LEAD, "", "ana");
        assertThat(registry.apply(e, at.toEpochMilli())).isInstanceOf(Applied.class);
    }

    /** Accepts every release except the versions in {@code refused}. */
    private static Function<Release, ReleaseCheck.Verdict> refusing(Set<String> refused) {
        return r ->
                refused.contains(r.version())
                        ? new ReleaseCheck.Refused(
                                ReleaseCheck.Refusal.TEST_VECTORS_FAILED, r.version() + " fails")
                        : new ReleaseCheck.Accepted(null, 16, 0);
    }

    private ServingModels view(Function<Release, ReleaseCheck.Verdict> verdicts) {
        return new ServingModels(TX, registry, Long.MAX_VALUE, verdicts);
    }

    private static String version(Optional<Release> r) {
        return r.map(Release::version).orElse("start-up");
    }

    @Test
    void theChampionChangesAtTheEffectiveCoordinateAndNotAMillisecondBefore() {
        publish("v1", T0);
        assign(AssignmentAction.PROMOTE, "v1", T0.plusSeconds(1));
        long switchAt = T0.plusSeconds(31).toEpochMilli();
        ServingModels view = view(refusing(Set.of()));

        assertThat(version(view.champion(switchAt - 1))).isEqualTo("start-up");
        assertThat(version(view.champion(switchAt))).isEqualTo("v1");
        assertThat(version(view.champion(Long.MAX_VALUE))).isEqualTo("v1");
    }

    @Test
    void aRangeIsTheSameThroughoutUnlessAnAssignmentTakesEffectInsideIt() {
        publish("v1", T0);
        publish("v2", T0);
        assign(AssignmentAction.PROMOTE, "v1", T0.plusSeconds(1));
        assign(AssignmentAction.SHADOW, "v2", T0.plusSeconds(100));
        long promoted = T0.plusSeconds(31).toEpochMilli();
        long shadowed = T0.plusSeconds(130).toEpochMilli();
        ServingModels view = view(refusing(Set.of()));

        assertThat(view.sameBetween(promoted - 10, promoted - 1)).isTrue();
        assertThat(view.sameBetween(promoted - 1, promoted)).isFalse();
        assertThat(view.sameBetween(promoted, shadowed - 1)).isTrue();
        assertThat(view.sameBetween(promoted, shadowed)).isFalse();
        assertThat(view.sameBetween(shadowed, Long.MAX_VALUE)).isTrue();
    }

    @Test
    void aRefusedChampionIsSkippedForThePreviousAcceptedOneOnEverySubtaskAlike() {
        publish("v1", T0);
        publish("v2", T0);
        publish("v3", T0);
        assign(AssignmentAction.PROMOTE, "v1", T0.plusSeconds(1)); // effective +31 s
        assign(AssignmentAction.PROMOTE, "v2", T0.plusSeconds(100)); // effective +130 s
        assign(AssignmentAction.PROMOTE, "v3", T0.plusSeconds(200)); // effective +230 s
        ServingModels view = view(refusing(Set.of("v2")));

        assertThat(version(view.champion(T0.plusSeconds(40).toEpochMilli()))).isEqualTo("v1");
        assertThat(version(view.champion(T0.plusSeconds(140).toEpochMilli()))).isEqualTo("v1");
        assertThat(version(view.champion(T0.plusSeconds(240).toEpochMilli()))).isEqualTo("v3");
        assertThat(view.refusal(registry.release(TX, "v2").orElseThrow()))
                .map(ReleaseCheck.Refused::reason)
                .contains(ReleaseCheck.Refusal.TEST_VECTORS_FAILED);

        ServingModels firstRefused = view(refusing(Set.of("v1")));
        assertThat(version(firstRefused.champion(T0.plusSeconds(40).toEpochMilli())))
                .isEqualTo("start-up");
    }

    @Test
    void aChallengerServesBesideTheChampionUnlessRefusedOrPromoted() {
        publish("v1", T0);
        publish("v2", T0);
        assign(AssignmentAction.PROMOTE, "v1", T0.plusSeconds(1)); // +31 s
        assign(AssignmentAction.SHADOW, "v2", T0.plusSeconds(2)); // +32 s
        assign(AssignmentAction.PROMOTE, "v2", T0.plusSeconds(100)); // +130 s
        long shadowing = T0.plusSeconds(60).toEpochMilli();
        long promoted = T0.plusSeconds(140).toEpochMilli();

        ServingModels view = view(refusing(Set.of()));
        assertThat(version(view.challenger(shadowing))).isEqualTo("v2");
        assertThat(view.challenger(promoted)).isEmpty();

        ServingModels refusedChallenger = view(refusing(Set.of("v2")));
        assertThat(refusedChallenger.challenger(shadowing)).isEmpty();
        // the refused v2 never serves: v1 stays champion after the promotion too
        assertThat(version(refusedChallenger.champion(promoted))).isEqualTo("v1");
    }

    @Test
    void aViewAnswersOnlyForCoordinatesItCovers() {
        long through = T0.toEpochMilli();
        ServingModels view = new ServingModels(TX, registry, through, refusing(Set.of()));

        assertThat(view.covers(through)).isTrue();
        assertThat(view.covers(through + 1)).isFalse();
        assertThat(view.champion(through)).isEmpty();
        assertThatThrownBy(() -> view.champion(through + 1))
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("hold the record");
        assertThatThrownBy(() -> view.challenger(through + 1))
                .isInstanceOf(IllegalStateException.class);
    }

    @Test
    void theSubtaskCheckRefusesCorruptAndMisfittingBytesAndRunsOncePerRelease() throws Exception {
        byte[] good = OnnxScorer.resourceBytes(OnnxScorer.DEFAULT_TRANSACTION_MODEL_RESOURCE);
        byte[] window = OnnxScorer.resourceBytes(OnnxScorer.DEFAULT_MODEL_RESOURCE);
        publish("good", good, T0);
        publish("corrupt", "not an onnx model".getBytes(StandardCharsets.UTF_8), T0);
        publish("misfit", window, T0);

        List<String> checked = new ArrayList<>();
        Function<Release, ReleaseCheck.Verdict> memo = ServingModels.memoizedChecks();
        Function<Release, ReleaseCheck.Verdict> counting =
                r -> {
                    checked.add(r.version());
                    return memo.apply(r);
                };
        ServingModels view = view(counting);

        assertThat(view.refusal(registry.release(TX, "good").orElseThrow())).isEmpty();
        assertThat(view.refusal(registry.release(TX, "corrupt").orElseThrow()))
                .map(ReleaseCheck.Refused::reason)
                .contains(ReleaseCheck.Refusal.NOT_LOADABLE);
        assertThat(view.refusal(registry.release(TX, "misfit").orElseThrow()))
                .map(ReleaseCheck.Refused::reason)
                .contains(ReleaseCheck.Refusal.LAYOUT_MISFIT);

        // the content check is the release check without its timing
        assertThat(ReleaseCheck.checkContent(good, "default", FeatureLayout.TRANSACTION_V1))
                .isInstanceOf(ReleaseCheck.Accepted.class);
        assertThat(checked).containsExactly("good", "corrupt", "misfit");
    }
}
