package org.fraudpipe.job.kafka;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.ObjectMapper;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.fraudpipe.job.config.JobConfig;
import org.fraudpipe.schemas.avro.Transaction;
import org.fraudpipe.schemas.registry.ApicurioRegistry;
import org.fraudpipe.schemas.registry.ConfluentSchemaRegistryClient;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The job's start-up check of its input subject's compatibility level against a real third-party
 * registry: Apicurio Registry 2.4.2's Confluent API, whose default level is NONE (issue #15 item
 * 8). Only the registry part of the checks runs ({@link StartupChecks#verifyRegistry}): the Kafka
 * part is {@code StartupChecksIT}'s.
 *
 * <p>One registry serves the class: every test uses an input topic of its own.
 */
class StartupChecksApicurioIT {

    @RegisterExtension static final ApicurioRegistry APICURIO = new ApicurioRegistry();

    private static final ObjectMapper JSON = new ObjectMapper();

    /** The fix the refusal gives: {@code curl -X PUT -H '<header>' --data '<body>' <url>}. */
    private static final Pattern CURL =
            Pattern.compile("curl -X PUT -H '([^:']+): ([^']+)' --data '([^']+)' (\\S+)$");

    private static JobConfig config(String inputTopic, String... keyValues) {
        Map<String, String> options = new HashMap<>();
        options.put("schema-registry-url", APICURIO.url());
        options.put("topic.transactions", inputTopic);
        for (int i = 0; i < keyValues.length; i += 2) {
            options.put(keyValues[i], keyValues[i + 1]);
        }
        return JobConfig.of(options);
    }

    @Test
    void atApicuriosDefaultTheJobRefusesAndTheExactCallTheMessageGivesLetsItStart()
            throws Exception {
        JobConfig config = config("transactions");
        assertThat(APICURIO.get("/config").body()).contains("\"NONE\"");

        Throwable refusal = catchRefusal(config);

        assertThat(refusal)
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("schema registry at " + APICURIO.url())
                .hasMessageContaining(
                        "input subject 'transactions-value' has compatibility level NONE (NONE: no"
                                + " check)")
                .hasMessageContaining("INCOMPATIBLE_SCHEMA")
                .hasMessageContaining("--schema-compatibility-check warn");
        // Run the fix exactly as the message spells it, with a plain HTTP client.
        Matcher curl = CURL.matcher(refusal.getMessage());
        assertThat(curl.find())
                .as("a curl command at the end of: %s", refusal.getMessage())
                .isTrue();
        assertThat(curl.group(4)).isEqualTo(APICURIO.url() + "/config/transactions-value");
        HttpResponse<String> put =
                HttpClient.newHttpClient()
                        .send(
                                HttpRequest.newBuilder(URI.create(curl.group(4)))
                                        .header(curl.group(1), curl.group(2))
                                        .PUT(HttpRequest.BodyPublishers.ofString(curl.group(3)))
                                        .build(),
                                HttpResponse.BodyHandlers.ofString());
        assertThat(put.statusCode()).as(put.body()).isEqualTo(200);

        assertThat(StartupChecks.verifyRegistry(config)).isEmpty();
        assertThat(
                        JSON.readTree(APICURIO.get("/config/transactions-value").body())
                                .path("compatibilityLevel")
                                .asText())
                .isEqualTo("FULL_TRANSITIVE");
        // Producers register their schema: the level holds for the subject it now is.
        new ConfluentSchemaRegistryClient(APICURIO.url())
                .register("transactions-value", Transaction.getClassSchema());
        assertThat(StartupChecks.verifyRegistry(config)).isEmpty();
    }

    @Test
    void aSubjectSetToBackwardOnApicurioIsRefusedToo() {
        new ConfluentSchemaRegistryClient(APICURIO.url())
                .register("at-backward-value", Transaction.getClassSchema());
        APICURIO.setCompatibility("at-backward-value", "BACKWARD");

        assertThat(catchRefusal(config("at-backward")))
                .hasMessageContaining(
                        "input subject 'at-backward-value' has compatibility level BACKWARD");
    }

    @Test
    void aSubjectAtFullStartsWithAWarningThatItIsProtectedAgainstTheLatestOnly() {
        new ConfluentSchemaRegistryClient(APICURIO.url())
                .register("at-full-value", Transaction.getClassSchema());
        APICURIO.setCompatibility("at-full-value", "FULL");

        List<String> warnings = StartupChecks.verifyRegistry(config("at-full"));

        assertThat(warnings).hasSize(1);
        assertThat(warnings.get(0))
                .contains("input subject 'at-full-value' is FULL")
                .contains("checked against the latest version only")
                .contains(APICURIO.url() + "/config/at-full-value");
    }

    @Test
    void withWarnTheJobStartsAtApicuriosDefaultWithAWarning() {
        List<String> warnings =
                StartupChecks.verifyRegistry(
                        config("unmanaged", "schema-compatibility-check", "warn"));

        assertThat(warnings).hasSize(1);
        assertThat(warnings.get(0))
                .contains("input subject 'unmanaged-value' has compatibility level NONE")
                .contains("Starting anyway (--schema-compatibility-check warn)");
    }

    private static Throwable catchRefusal(JobConfig config) {
        try {
            List<String> warnings = StartupChecks.verifyRegistry(config);
            throw new AssertionError("the job was allowed to start, with warnings " + warnings);
        } catch (IllegalStateException e) {
            return e;
        }
    }
}
