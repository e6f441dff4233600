package org.fraudpipe.job.kafka;

import static org.assertj.core.api.Assertions.assertThatCode;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.net.InetAddress;
import java.net.ServerSocket;
import java.util.HashMap;
import java.util.Map;
import org.fraudpipe.job.config.JobConfig;
import org.fraudpipe.job.local.KafkaTestBroker;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/** The job refuses to start, naming the problem and the fix, against a real broker. */
class StartupChecksIT {

    @RegisterExtension static final KafkaTestBroker KAFKA = new KafkaTestBroker(1);

    private static JobConfig config(String... keyValues) {
        Map<String, String> options = new HashMap<>();
        options.put("bootstrap-servers", KAFKA.bootstrapServers());
        options.put("schema-registry-url", "mock://startup-checks-it");
        for (int i = 0; i < keyValues.length; i += 2) {
            options.put(keyValues[i], keyValues[i + 1]);
        }
        return JobConfig.of(options);
    }

    @Test
    void aCompleteDeploymentPasses() {
        assertThatCode(() -> StartupChecks.verify(config())).doesNotThrowAnyException();
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
