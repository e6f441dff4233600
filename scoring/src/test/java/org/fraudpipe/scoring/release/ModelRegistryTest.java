package org.fraudpipe.scoring.release;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.ByteBuffer;
import java.time.Duration;
import java.time.Instant;
import org.fraudpipe.schemas.avro.AssignmentAction;
import org.fraudpipe.schemas.avro.ModelEvent;
import org.fraudpipe.schemas.avro.ModelKind;
import org.fraudpipe.schemas.avro.ModelRole;
import org.fraudpipe.scoring.release.ModelRegistry.Applied;
import org.fraudpipe.scoring.release.ModelRegistry.Ignored;
import org.fraudpipe.scoring.release.ModelRegistry.Release;
import org.junit.jupiter.api.Test;

class ModelRegistryTest {

    private static final ModelKind TX = ModelKind.TRANSACTION;
    private static final Instant T0 = Instant.parse("2026-12-04T10:00:00Z");
    private static final Duration LEAD = Duration.ofSeconds(30);

    private final ModelRegistry registry = new ModelRegistry();

    /** Publishes a release of {@code version} at {@code at} (append time = publisher's clock). */
    private void publish(String version, Instant at) {
        ModelEvent e =
                registry.release(
                        TX, "fraud-transaction", version, bytes(version), null, 10, at, "ana");
        assertThat(registry.apply(e, at.toEpochMilli())).isInstanceOf(Applied.class);
    }

    private ModelRegistry.Outcome assign(AssignmentAction action, String version, Instant at) {
        ModelEvent e = registry.assign(TX, action, version, at, LEAD, "", "ana");
        return registry.apply(e, at.toEpochMilli());
    }

    private static byte[] bytes(String version) {
        return ("onnx of " + version).getBytes(java.nio.charset.StandardCharsets.UTF_8);
    }

    private String champion(Instant at) {
        return registry.holder(TX, ModelRole.CHAMPION, at.toEpochMilli())
                .map(Release::version)
                .orElse("none");
    }

    private String challenger(Instant at) {
        return registry.holder(TX, ModelRole.CHALLENGER, at.toEpochMilli())
                .map(Release::version)
                .orElse("none");
    }

    @Test
    void aPromotionTakesEffectAtItsInstantAndNotAMillisecondBefore() {
        publish("v1", T0);
        assertThat(assign(AssignmentAction.PROMOTE, "v1", T0.plusSeconds(1)))
                .isInstanceOf(Applied.class);

        Instant effective = T0.plusSeconds(31);
        assertThat(champion(effective.minusMillis(1))).isEqualTo("none");
        assertThat(champion(effective)).isEqualTo("v1");
        assertThat(registry.holder(ModelKind.WINDOW, ModelRole.CHAMPION, Long.MAX_VALUE)).isEmpty();
    }

    @Test
    void rollbackReturnsToThePreviousChampionAndAPromotedChallengerIsNoLongerOne() {
        publish("v1", T0);
        publish("v2", T0.plusSeconds(1));
        publish("v3", T0.plusSeconds(1));
        assign(AssignmentAction.PROMOTE, "v1", T0.plusSeconds(2));
        assign(AssignmentAction.SHADOW, "v3", T0.plusSeconds(3));
        assign(AssignmentAction.WITHDRAW, "", T0.plusSeconds(50));
        assign(AssignmentAction.SHADOW, "v2", T0.plusSeconds(60));
        assign(AssignmentAction.PROMOTE, "v2", T0.plusSeconds(100));
        assertThat(assign(AssignmentAction.ROLLBACK, "", T0.plusSeconds(200)))
                .isInstanceOf(Applied.class);

        assertThat(champion(T0.plusSeconds(40))).isEqualTo("v1");
        assertThat(challenger(T0.plusSeconds(40))).isEqualTo("v3");
        assertThat(challenger(T0.plusSeconds(85))).isEqualTo("none");
        assertThat(challenger(T0.plusSeconds(95))).isEqualTo("v2");
        assertThat(champion(T0.plusSeconds(140))).isEqualTo("v2");
        assertThat(challenger(T0.plusSeconds(140))).isEqualTo("none");
        assertThat(champion(T0.plusSeconds(240))).isEqualTo("v1");
        // v2, champion no more, is the challenger again: it was never withdrawn.
        assertThat(challenger(T0.plusSeconds(240))).isEqualTo("v2");
        assertThat(registry.assignments(TX, ModelRole.CHAMPION))
                .extracting(ModelRegistry.Assignment::action)
                .containsExactly(
                        AssignmentAction.PROMOTE,
                        AssignmentAction.PROMOTE,
                        AssignmentAction.ROLLBACK);
    }

    @Test
    void theBuildersRefuseWhatTheRulesForbid() {
        assertThatThrownBy(
                        () ->
                                registry.assign(
                                        TX, AssignmentAction.PROMOTE, "v9", T0, LEAD, "", "a"))
                .hasMessageContaining("no TRANSACTION release v9 is published");
        publish("v1", T0);
        assertThatThrownBy(() -> registry.release(TX, "m", "v1", bytes("other"), null, 1, T0, "a"))
                .hasMessageContaining("with other bytes");
        assertThatThrownBy(
                        () -> registry.assign(TX, AssignmentAction.ROLLBACK, "", T0, LEAD, "", "a"))
                .hasMessageContaining("no TRANSACTION champion in the registry to roll back from");
        assign(AssignmentAction.PROMOTE, "v1", T0);
        assertThatThrownBy(
                        () ->
                                registry.assign(
                                        TX,
                                        AssignmentAction.ROLLBACK,
                                        "",
                                        T0.plusSeconds(60),
                                        LEAD,
                                        "",
                                        "a"))
                .hasMessageContaining("no TRANSACTION champion before v1");
        assertThatThrownBy(
                        () ->
                                registry.assign(
                                        TX,
                                        AssignmentAction.PROMOTE,
                                        "v1",
                                        T0.plusSeconds(60),
                                        LEAD,
                                        "",
                                        "a"))
                .hasMessageContaining("is the champion already");
        assertThatThrownBy(
                        () -> registry.assign(TX, AssignmentAction.WITHDRAW, "", T0, LEAD, "", "a"))
                .hasMessageContaining("no TRANSACTION challenger to withdraw");
        assertThatThrownBy(
                        () ->
                                registry.assign(
                                        TX,
                                        AssignmentAction.SHADOW,
                                        "v1",
                                        T0,
                                        Duration.ofSeconds(14),
                                        "",
                                        "a"))
                .hasMessageContaining("at least 15 s");
    }

    @Test
    void everyReaderIgnoresAnEventThatBreaksARuleWhoeverWroteIt() {
        publish("v1", T0);
        publish("v2", T0);
        ModelEvent promote = registry.assign(TX, AssignmentAction.PROMOTE, "v1", T0, LEAD, "", "a");

        // Appended later than the publisher thought: under 10 s before it takes effect.
        assertThat(registry.apply(promote, T0.plusSeconds(21).toEpochMilli()))
                .isInstanceOfSatisfying(
                        Ignored.class, i -> assertThat(i.why()).contains("less than 10 s after"));
        // On time: applied; a second assignment of the role at the same instant is not after it.
        assertThat(registry.apply(promote, T0.toEpochMilli())).isInstanceOf(Applied.class);
        ModelEvent same = ModelEvent.newBuilder(promote).setVersion("v2").build();
        same.getAssignment().setOnnxSha256(ModelRegistry.sha256(bytes("v2")));
        assertThat(registry.apply(same, T0.toEpochMilli()))
                .isInstanceOfSatisfying(
                        Ignored.class, i -> assertThat(i.why()).contains("not after the previous"));

        // A release whose bytes are not what its SHA-256 says; a role for a release never seen.
        ModelEvent corrupt = registry.release(TX, "m", "v3", bytes("v3"), null, 1, T0, "a");
        corrupt.getRelease().setOnnx(ByteBuffer.wrap(bytes("v3 flipped")));
        assertThat(registry.apply(corrupt, T0.toEpochMilli()))
                .isInstanceOfSatisfying(
                        Ignored.class,
                        i -> assertThat(i.why()).contains("do not have the SHA-256"));
        ModelEvent unknown =
                registry.assign(
                        TX, AssignmentAction.SHADOW, "v2", T0.plusSeconds(60), LEAD, "", "a");
        unknown.setVersion("v3");
        assertThat(registry.apply(unknown, T0.plusSeconds(60).toEpochMilli()))
                .isInstanceOfSatisfying(
                        Ignored.class,
                        i -> assertThat(i.why()).contains("no TRANSACTION release v3"));
        assertThat(champion(T0.plusSeconds(3600))).isEqualTo("v1");
        assertThat(challenger(T0.plusSeconds(3600))).isEqualTo("none");
    }

    @Test
    void keysAreUniquePerEventSoCompactionKeepsTheHistory() {
        publish("v1", T0);
        ModelEvent release = registry.release(TX, "m", "v2", bytes("v2"), null, 1, T0, "a");
        ModelEvent a1 = registry.assign(TX, AssignmentAction.PROMOTE, "v1", T0, LEAD, "", "a");
        registry.apply(a1, T0.toEpochMilli());

        assertThat(ModelRegistry.key(release))
                .isEqualTo("release:TRANSACTION:v2:" + ModelRegistry.sha256(bytes("v2")));
        assertThat(ModelRegistry.key(a1))
                .isEqualTo("assignment:TRANSACTION:CHAMPION:" + T0.plus(LEAD).toEpochMilli());
    }
}
