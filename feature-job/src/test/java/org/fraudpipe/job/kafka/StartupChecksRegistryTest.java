package org.fraudpipe.job.kafka;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.fraudpipe.job.config.JobConfig;
import org.fraudpipe.schemas.registry.CompatibilityLevel;
import org.fraudpipe.schemas.registry.FakeConfluentRegistryServer;
import org.fraudpipe.schemas.registry.InMemorySchemaRegistry;
import org.fraudpipe.schemas.registry.LocalSchemaRegistryServer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The registry part of the start-up checks ({@link StartupChecks#verifyRegistry}, no Kafka needed):
 * the input subject's compatibility level decides whether the job starts (issue #15 item 8).
 * Against our in-memory and local registries; Apicurio in {@code StartupChecksApicurioIT}.
 */
class StartupChecksRegistryTest {

    private final String scope = "startup-checks-registry-" + UUID.randomUUID();
    private final InMemorySchemaRegistry registry = InMemorySchemaRegistry.forScope(scope);

    @AfterEach
    void drop() {
        InMemorySchemaRegistry.dropScope(scope);
    }

    private JobConfig config(String... keyValues) {
        Map<String, String> options = new HashMap<>();
        options.put("schema-registry-url", registry.url());
        for (int i = 0; i < keyValues.length; i += 2) {
            options.put(keyValues[i], keyValues[i + 1]);
        }
        return JobConfig.of(options);
    }

    @ParameterizedTest
    @EnumSource(
            value = CompatibilityLevel.class,
            names = {"NONE", "BACKWARD", "BACKWARD_TRANSITIVE"})
    void aLevelThatLetsAProducerBreakTheJobStopsItNamingSubjectLevelWhyAndFix(
            CompatibilityLevel level) {
        registry.setCompatibilityLevel("transactions-value", level);

        assertThatThrownBy(() -> StartupChecks.verifyRegistry(config()))
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("input subject 'transactions-value'")
                .hasMessageContaining("has compatibility level " + level + " (" + level.meaning())
                .hasMessageContaining("every record written with it becomes a dead letter")
                .hasMessageContaining("INCOMPATIBLE_SCHEMA")
                .hasMessageContaining(
                        "SchemaRegistries.forUrl(\""
                                + registry.url()
                                + "\").setCompatibilityLevel(\"transactions-value\","
                                + " CompatibilityLevel.FULL_TRANSITIVE)")
                .hasMessageContaining("--schema-compatibility-check warn starts the job anyway");
    }

    @Test
    void theRegistrysDefaultIsRefusedAndTheFixTheMessageNamesLetsTheJobStart() {
        // Nothing set: the in-memory registry's global BACKWARD, as a fresh Confluent registry.
        assertThatThrownBy(() -> StartupChecks.verifyRegistry(config()))
                .hasMessageContaining("has compatibility level BACKWARD");

        registry.setCompatibilityLevel("transactions-value", CompatibilityLevel.FULL_TRANSITIVE);

        assertThat(StartupChecks.verifyRegistry(config())).isEmpty();
    }

    @Test
    void theSubjectIsTheOneOfTheConfiguredInputTopic() {
        registry.setCompatibilityLevel("transactions-value", CompatibilityLevel.FULL_TRANSITIVE);
        JobConfig renamed = config("topic.transactions", "payments");

        assertThatThrownBy(() -> StartupChecks.verifyRegistry(renamed))
                .hasMessageContaining("input subject 'payments-value'")
                .hasMessageContaining("setCompatibilityLevel(\"payments-value\"");
        registry.setCompatibilityLevel("payments-value", CompatibilityLevel.FORWARD_TRANSITIVE);
        assertThat(StartupChecks.verifyRegistry(renamed)).isEmpty();
    }

    @Test
    void withWarnAnUnprotectedSubjectStartsWithAWarningSayingWhy() {
        registry.setCompatibilityLevel("transactions-value", CompatibilityLevel.NONE);

        List<String> warnings =
                StartupChecks.verifyRegistry(config("schema-compatibility-check", "warn"));

        assertThat(warnings).hasSize(1);
        assertThat(warnings.get(0))
                .contains("input subject 'transactions-value' has compatibility level NONE")
                .contains("INCOMPATIBLE_SCHEMA")
                .contains("Starting anyway (--schema-compatibility-check warn)");
    }

    @ParameterizedTest
    @EnumSource(
            value = CompatibilityLevel.class,
            names = {"FORWARD", "FULL"})
    void aLevelCheckedAgainstTheLatestOnlyStartsWithAWarningEvenWhenRefusing(
            CompatibilityLevel level) {
        registry.setCompatibilityLevel("transactions-value", level);

        List<String> warnings = StartupChecks.verifyRegistry(config());

        assertThat(warnings).hasSize(1);
        assertThat(warnings.get(0))
                .contains("input subject 'transactions-value' is " + level)
                .contains("checked against the latest version only")
                .contains("Set it to FULL_TRANSITIVE");
    }

    @ParameterizedTest
    @EnumSource(
            value = CompatibilityLevel.class,
            names = {"FORWARD_TRANSITIVE", "FULL_TRANSITIVE"})
    void aTransitiveForwardLevelStartsSilently(CompatibilityLevel level) {
        registry.setCompatibilityLevel("transactions-value", level);

        assertThat(StartupChecks.verifyRegistry(config())).isEmpty();
    }

    @Test
    void overHttpTheFixIsTheExactRestCallOnTheRegistry() throws IOException {
        try (LocalSchemaRegistryServer local = LocalSchemaRegistryServer.start(0, null)) {
            assertThatThrownBy(
                            () ->
                                    StartupChecks.verifyRegistry(
                                            config("schema-registry-url", local.url())))
                    .hasMessageContaining(
                            "curl -X PUT -H 'Content-Type: application/vnd.schemaregistry.v1+json'"
                                    + " --data '{\"compatibility\":\"FULL_TRANSITIVE\"}' "
                                    + local.url()
                                    + "/config/transactions-value");
            String withCredentials = local.url().replace("http://", "http://fraud:s3cret@");
            assertThatThrownBy(
                            () ->
                                    StartupChecks.verifyRegistry(
                                            config("schema-registry-url", withCredentials)))
                    .hasMessageContaining("curl -X PUT -u USER:PASSWORD -H")
                    .hasMessageNotContaining("s3cret");
        }
    }

    /**
     * Registries that do not tell the level. No registry at hand restricts its config endpoints, so
     * these answers are scripted, in the shapes Confluent gives them.
     */
    @ParameterizedTest
    @ValueSource(ints = {401, 403, 404, 405, 501})
    void aRegistryThatDoesNotTellTheLevelStartsWithAWarningNamingWhy(int status)
            throws IOException {
        try (FakeConfluentRegistryServer server = new FakeConfluentRegistryServer()) {
            // GET latest: 40401 (no schema registered yet); then the subject's config.
            String body = "{\"error_code\":" + status + "01,\"message\":\"config is not yours\"}";
            server.answerNext(404, "{\"error_code\":40401,\"message\":\"Subject not found.\"}");
            server.answerNext(status, body);
            if (status == 404) {
                server.answerNext(status, body); // then GET /config, the global level
            }

            List<String> warnings =
                    StartupChecks.verifyRegistry(config("schema-registry-url", server.url()));

            assertThat(warnings).hasSize(1);
            assertThat(warnings.get(0))
                    .contains("input subject 'transactions-value'")
                    .contains("cannot read its compatibility level (HTTP " + status)
                    .contains("config is not yours")
                    .contains("Starting anyway")
                    .contains("/config/transactions-value");
        }
    }

    @Test
    void aRegistryFailingOnItsConfigEndpointStopsTheJobAsARegistryThatDoesNotAnswer()
            throws IOException {
        try (FakeConfluentRegistryServer server = new FakeConfluentRegistryServer()) {
            server.answerNext(404, "{\"error_code\":40401,\"message\":\"Subject not found.\"}");
            server.answerNext(500, "{\"error_code\":50001,\"message\":\"store down\"}");

            assertThatThrownBy(
                            () ->
                                    StartupChecks.verifyRegistry(
                                            config("schema-registry-url", server.url())))
                    .isInstanceOf(IllegalStateException.class)
                    .hasMessageContaining("does not answer properly")
                    .hasMessageContaining("store down")
                    .hasMessageContaining("--schema-registry-url");
        }
    }
}
