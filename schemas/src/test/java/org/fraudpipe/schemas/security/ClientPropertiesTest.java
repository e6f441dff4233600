package org.fraudpipe.schemas.security;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class ClientPropertiesTest {

    private static final String JAAS =
            "org.apache.kafka.common.security.scram.ScramLoginModule required"
                    + " username=\"feature-job\" password=\"s3cr3t-kafka\";";

    @TempDir Path dir;

    private ClientProperties file() throws Exception {
        Path f = dir.resolve("client.properties");
        Files.writeString(
                f,
                String.join(
                        "\n",
                        "security.protocol=SASL_SSL",
                        "sasl.mechanism=SCRAM-SHA-512",
                        "sasl.jaas.config=" + JAAS.replace("\"", "\\\""),
                        "ssl.truststore.location=/etc/ca.p12",
                        "ssl.truststore.password=s3cr3t-store",
                        "basic.auth.credentials.source=USER_INFO",
                        "basic.auth.user.info=feature-job:s3cr3t-registry",
                        "schema.registry.ssl.truststore.location=/etc/ca.p12",
                        "bootstrap.servers=elsewhere:9092"));
        return ClientProperties.load(f, "--kafka-config");
    }

    @Test
    void kafkaClientsGetEverythingButTheRegistrysEntriesAndTheCommandsBootstrapServers()
            throws Exception {
        ClientProperties c = file();
        assertThat(c.kafkaProperties("localhost:9092"))
                .containsEntry("bootstrap.servers", "localhost:9092")
                .containsEntry("sasl.jaas.config", JAAS)
                .containsEntry("ssl.truststore.password", "s3cr3t-store")
                .doesNotContainKeys(
                        "basic.auth.user.info", "schema.registry.ssl.truststore.location");
        assertThat(c.registryConfig("https://registry:8081"))
                .containsEntry("schema.registry.url", "https://registry:8081")
                .containsEntry("basic.auth.user.info", "feature-job:s3cr3t-registry")
                .doesNotContainKeys("sasl.jaas.config", "security.protocol");
    }

    @Test
    void whatMayBePrintedHidesEverySecretAndNamesThePrincipal() throws Exception {
        ClientProperties c = file();
        String printed = c.toString() + c.redacted();
        assertThat(printed)
                .doesNotContain("s3cr3t")
                .contains("sasl.jaas.config=[hidden]")
                .contains("ssl.truststore.location=/etc/ca.p12");
        assertThat(c.kafkaPrincipal()).isEqualTo("User:feature-job");
        assertThat(c.registryUser()).contains("feature-job");
        assertThat(c.saslMechanism()).contains("SCRAM-SHA-512");
        assertThat(ClientProperties.redactUrl("https://u:pw@registry:8081/x"))
                .isEqualTo("https://u:[hidden]@registry:8081/x");
        assertThat(ClientProperties.redactUrl("http://registry:8081"))
                .isEqualTo("http://registry:8081");
        assertThat(ClientProperties.redact(Map.of("ssl.keystore.key", "PEM", "acks", "all")))
                .containsEntry("ssl.keystore.key", "[hidden]")
                .containsEntry("acks", "all");
    }

    @Test
    void aMissingFileIsAnErrorNamingTheOption() {
        assertThatThrownBy(() -> ClientProperties.load(dir.resolve("nope"), "--kafka-config"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("--kafka-config")
                .hasMessageContaining("no such file");
    }
}
