package org.fraudpipe.schemas.registry;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.Map;
import java.util.UUID;
import org.fraudpipe.schemas.avro.Transaction;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class SchemaRegistriesTest {

    @Test
    void mockUrlGivesTheSharedInMemoryRegistryOfThatScope() {
        String scope = "registries-" + UUID.randomUUID();
        try {
            SchemaRegistryClient client = SchemaRegistries.forUrl("mock://" + scope);

            assertThat(client).isSameAs(InMemorySchemaRegistry.forScope(scope));
            assertThat(SchemaRegistries.forUrl("mock://" + scope + "/")).isSameAs(client);
            assertThat(client.url()).isEqualTo("mock://" + scope);
        } finally {
            InMemorySchemaRegistry.dropScope(scope);
        }
    }

    @Test
    void httpUrlGivesOneRestClientPerUrl() {
        SchemaRegistryClient client = SchemaRegistries.forUrl("http://registry.example:8081");

        assertThat(client).isInstanceOf(ConfluentSchemaRegistryClient.class);
        assertThat(client.url()).isEqualTo("http://registry.example:8081");
        assertThat(SchemaRegistries.forUrl("http://registry.example:8081")).isSameAs(client);
        assertThat(SchemaRegistries.forUrl("https://registry.example:8081"))
                .isNotSameAs(client)
                .isInstanceOf(ConfluentSchemaRegistryClient.class);
    }

    @Test
    void configWithCredentialsGetsItsOwnClientThatSendsThem() throws Exception {
        try (FakeConfluentRegistryServer server = new FakeConfluentRegistryServer()) {
            SchemaRegistryClient plain = SchemaRegistries.forUrl(server.url());
            SchemaRegistryClient withAuth =
                    SchemaRegistries.forConfig(
                            Map.of(
                                    SchemaRegistries.URL_CONFIG,
                                    server.url(),
                                    SchemaRegistries.BASIC_AUTH_USER_INFO_CONFIG,
                                    "u:p",
                                    "bootstrap.servers",
                                    "ignored:9092"));

            withAuth.register("t-value", Transaction.getClassSchema());

            assertThat(withAuth).isNotSameAs(plain);
            assertThat(server.lastRequest().authorization()).startsWith("Basic ");
        }
    }

    @ParameterizedTest
    @ValueSource(
            strings = {
                "",
                "localhost:8081",
                "kafka://broker:9092",
                "mock://",
                "mock://a/b",
                "http://a:8081,http://b:8081",
                "http://"
            })
    void anyOtherFormIsRejectedNamingTheConfigKeyAndTheAcceptedForms(String url) {
        assertThatThrownBy(() -> SchemaRegistries.forUrl(url))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("schema.registry.url")
                .hasMessageContaining("http://host:port")
                .hasMessageContaining("mock://<scope>");
    }

    @Test
    void missingUrlIsRejected() {
        assertThatThrownBy(() -> SchemaRegistries.forConfig(Map.of()))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("schema.registry.url is not set");
        assertThatThrownBy(() -> SchemaRegistries.forUrl(null))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("schema.registry.url is not set");
    }

    @Test
    void badTimeoutIsRejectedNamingItsKey() {
        assertThatThrownBy(
                        () ->
                                SchemaRegistries.forConfig(
                                        Map.of(
                                                SchemaRegistries.URL_CONFIG,
                                                "http://localhost:8081",
                                                SchemaRegistries.REQUEST_TIMEOUT_MS_CONFIG,
                                                "soon")))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("schema.registry.request.timeout.ms");
    }
}
