package org.fraudpipe.job.kafka;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatCode;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import org.fraudpipe.job.cli.JobCommand;
import org.fraudpipe.job.config.JobConfig;
import org.fraudpipe.local.KafkaTestBroker;
import org.fraudpipe.schemas.TopicNames;
import org.fraudpipe.schemas.registry.LocalSchemaRegistryServer;
import org.fraudpipe.schemas.registry.SchemaRegistries;
import org.fraudpipe.schemas.registry.SchemaRegistryClient;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import picocli.CommandLine;

/** The job refuses to start, naming the problem and the fix, against a real broker. */
class StartupChecksIT {

    @RegisterExtension static final KafkaTestBroker KAFKA = new KafkaTestBroker(1);

    /** The registry of a complete deployment: every subject at the project's level. */
    private static final String REGISTRY = "mock://startup-checks-it";

    @BeforeAll
    static void protectSubjects() {
        SchemaRegistryClient registry = SchemaRegistries.forUrl(REGISTRY);
        TopicNames.defaults().subjectCompatibility().forEach(registry::setCompatibilityLevel);
    }

    private static JobConfig config(String... keyValues) {
        Map<String, String> options = new HashMap<>();
        options.put("bootstrap-servers", KAFKA.bootstrapServers());
        options.put("schema-registry-url", REGISTRY);
        for (int i = 0; i < keyValues.length; i += 2) {
            options.put(keyValues[i], keyValues[i + 1]);
        }
        return JobConfig.of(options);
    }

    @Test
    void aCompleteDeploymentPasses() {
        assertThatCode(() -> StartupChecks.verify(config())).doesNotThrowAnyException();
        assertThat(StartupChecks.verifyRegistry(config())).as("no warning either").isEmpty();
    }

    @Test
    void aTransactionTimeoutAboveWhatTheBrokerAllowsFailsNamingBothValues() {
        // The option says the brokers allow 30m; the broker itself says 15m, and wins.
        JobConfig config =
                config("transaction-timeout", "20m", "broker-transaction-max-timeout", "30m");
        assertThatThrownBy(() -> StartupChecks.verify(config))
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("--transaction-timeout (20m)")
                .hasMessageContaining("transaction.max.timeout.ms of broker 1 (15m)");
    }

    @Test
    @DisplayName(
            "#7.7 transaction-timeout guard: `./fraud job` against a broker whose"
                    + " transaction.max.timeout.ms is below the timeout stops before submitting,"
                    + " naming both values")
    void theJobCommandStopsAtStartUpWhenTheBrokerRefusesItsTransactionTimeout() {
        StringWriter err = new StringWriter();
        CommandLine cli = JobCommand.commandLine();
        cli.setErr(new PrintWriter(err, true));
        // Were the check missing, the command would run the job and never return.
        int exit =
                assertTimeoutPreemptively(
                        Duration.ofSeconds(90),
                        () ->
                                cli.execute(
                                        "--bootstrap-servers",
                                        KAFKA.bootstrapServers(),
                                        "--schema-registry-url",
                                        REGISTRY,
                                        "--transaction-timeout",
                                        "20m",
                                        "--broker-transaction-max-timeout",
                                        "30m"));

        assertThat(exit).isNotZero();
        assertThat(err.toString())
                .contains("--transaction-timeout (20m)")
                .contains("transaction.max.timeout.ms of broker 1 (15m)");
    }

    @Test
    void aRegistryAtItsDefaultBackwardFailsAfterKafkaNamingTheInputSubjectAndTheFix() {
        // A fresh scope: nothing set, the registry's global BACKWARD (Confluent's default).
        JobConfig config = config("schema-registry-url", "mock://startup-checks-it-unprotected");

        assertThatThrownBy(() -> StartupChecks.verify(config))
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("input subject 'transactions-value'")
                .hasMessageContaining("has compatibility level BACKWARD")
                .hasMessageContaining("INCOMPATIBLE_SCHEMA")
                .hasMessageContaining("setCompatibilityLevel(\"transactions-value\"");
        assertThatCode(
                        () ->
                                StartupChecks.verify(
                                        config(
                                                "schema-registry-url",
                                                "mock://startup-checks-it-unprotected",
                                                "schema-compatibility-check",
                                                "warn")))
                .doesNotThrowAnyException();
    }

    @Test
    @DisplayName(
            "#15.8 compatibility guard: `./fraud job` against a registry whose input subject is at"
                    + " BACKWARD stops before submitting, naming the subject, the level and the"
                    + " REST call that fixes it")
    void theJobCommandStopsAtStartUpWhenTheInputSubjectIsUnprotected() throws Exception {
        try (LocalSchemaRegistryServer registry = LocalSchemaRegistryServer.start(0, null)) {
            StringWriter err = new StringWriter();
            CommandLine cli = JobCommand.commandLine();
            cli.setErr(new PrintWriter(err, true));
            // Were the check missing, the command would run the job and never return.
            int exit =
                    assertTimeoutPreemptively(
                            Duration.ofSeconds(90),
                            () ->
                                    cli.execute(
                                            "--bootstrap-servers",
                                            KAFKA.bootstrapServers(),
                                            "--schema-registry-url",
                                            registry.url()));

            assertThat(exit).isNotZero();
            assertThat(err.toString())
                    .contains("input subject 'transactions-value' has compatibility level BACKWARD")
                    .contains(
                            "curl -X PUT -H 'Content-Type: application/vnd.schemaregistry.v1+json'"
                                    + " --data '{\"compatibility\":\"FULL_TRANSITIVE\"}' "
                                    + registry.url()
                                    + "/config/transactions-value");
        }
    }

    @Test
    void aMissingTopicFailsNamingItAndItsConfig() {
        assertThatThrownBy(() -> StartupChecks.verify(config("topic.features", "no-such-features")))
                .hasMessageContaining("topics missing")
                .hasMessageContaining("no-such-features ({")
                .hasMessageContaining("cleanup.policy=compact");
    }

    @Test
    void anUnreachableBrokerFailsNamingTheAddressAndTheOption() throws Exception {
        int closedPort;
        try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            closedPort = s.getLocalPort();
        }
        JobConfig config = config("bootstrap-servers", "localhost:" + closedPort);
        assertThatThrownBy(() -> StartupChecks.verify(config))
                .hasMessageContaining("cannot reach Kafka at localhost:" + closedPort)
                .hasMessageContaining("--bootstrap-servers");
    }

    @Test
    void anUnreachableRegistryFailsNamingTheOption() throws Exception {
        int closedPort;
        try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            closedPort = s.getLocalPort();
        }
        JobConfig config = config("schema-registry-url", "http://localhost:" + closedPort);
        assertThatThrownBy(() -> StartupChecks.verify(config))
                .hasMessageContaining("schema registry at http://localhost:" + closedPort)
                .hasMessageContaining("--schema-registry-url");
    }
}
