package org.fraudpipe.schemas.wire;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.Map;
import java.util.UUID;
import org.apache.kafka.common.header.internals.RecordHeaders;
import org.fraudpipe.schemas.SampleRecords;
import org.fraudpipe.schemas.avro.DeadLetterReason;
import org.fraudpipe.schemas.avro.Transaction;
import org.fraudpipe.schemas.avro.WindowKey;
import org.fraudpipe.schemas.registry.InMemorySchemaRegistry;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** {@link ConfluentAvroSerializer} and {@link ConfluentAvroDeserializer} as Kafka uses them. */
class KafkaAdaptersTest {
    private final String scope = "kafka-" + UUID.randomUUID();
    private final String url = "mock://" + scope;

    @AfterEach
    void drop() {
        InMemorySchemaRegistry.dropScope(scope);
    }

    @Test
    void configuredFromClientPropertiesTheyRoundTripUnderTheTopicValueSubject() {
        ConfluentAvroSerializer<Transaction> serializer = new ConfluentAvroSerializer<>();
        serializer.configure(
                Map.of(
                        "schema.registry.url",
                        url,
                        "specific.avro.value.type",
                        Transaction.class.getName(),
                        "bootstrap.servers",
                        "localhost:9092"),
                false);
        ConfluentAvroDeserializer<Transaction> deserializer = new ConfluentAvroDeserializer<>();
        deserializer.configure(
                Map.of("schema.registry.url", url, "specific.avro.value.type", Transaction.class),
                false);
        Transaction tx = SampleRecords.transaction("tx-1");

        byte[] bytes = serializer.serialize("prod.transactions", new RecordHeaders(), tx);

        assertThat(deserializer.deserialize("prod.transactions", new RecordHeaders(), bytes))
                .isEqualTo(tx);
        assertThat(InMemorySchemaRegistry.forScope(scope).subjects())
                .containsExactly("prod.transactions-value");
    }

    @Test
    void keyModeUsesTheTopicKeySubject() {
        InMemorySchemaRegistry registry = InMemorySchemaRegistry.forScope(scope);
        ConfluentAvroSerializer<WindowKey> serializer =
                new ConfluentAvroSerializer<>(registry, WindowKey.class, true);
        ConfluentAvroDeserializer<WindowKey> deserializer = new ConfluentAvroDeserializer<>();
        deserializer.configure(
                Map.of("schema.registry.url", url, "specific.avro.key.type", WindowKey.class),
                true);

        byte[] bytes = serializer.serialize("features", SampleRecords.windowKey());

        assertThat(deserializer.deserialize("features", bytes))
                .isEqualTo(SampleRecords.windowKey());
        assertThat(registry.subjects()).containsExactly("features-key");
    }

    @Test
    void nullsAreTombstonesBothWays() {
        InMemorySchemaRegistry registry = InMemorySchemaRegistry.forScope(scope);

        assertThat(
                        new ConfluentAvroSerializer<>(registry, Transaction.class, false)
                                .serialize("t", null))
                .isNull();
        assertThat(
                        new ConfluentAvroDeserializer<>(registry, Transaction.class, false)
                                .deserialize("t", null))
                .isNull();
    }

    @Test
    void badBytesThrowTheWireFormatErrorWithItsReason() {
        ConfluentAvroDeserializer<Transaction> deserializer =
                new ConfluentAvroDeserializer<>(
                        InMemorySchemaRegistry.forScope(scope), Transaction.class, false);

        assertThatThrownBy(() -> deserializer.deserialize("transactions", new byte[] {1, 2, 3}))
                .isInstanceOfSatisfying(
                        WireFormatException.class,
                        e -> {
                            assertThat(e.reason()).isEqualTo(DeadLetterReason.NOT_CONFLUENT_FRAMED);
                            assertThat(e.subject()).isEqualTo("transactions-value");
                        });
    }

    @Test
    void missingConfigurationIsNamed() {
        assertThatThrownBy(
                        () ->
                                new ConfluentAvroSerializer<Transaction>()
                                        .configure(Map.of("schema.registry.url", url), false))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("specific.avro.value.type is not set");
        assertThatThrownBy(
                        () ->
                                new ConfluentAvroDeserializer<WindowKey>()
                                        .configure(
                                                Map.of(
                                                        "specific.avro.key.type",
                                                        WindowKey.class.getName()),
                                                true))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("schema.registry.url");
        assertThatThrownBy(
                        () ->
                                new ConfluentAvroDeserializer<Transaction>()
                                        .configure(
                                                Map.of(
                                                        "schema.registry.url",
                                                        url,
                                                        "specific.avro.value.type",
                                                        "java.lang.String"),
                                                false))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("not a generated Avro class");
    }

    @Test
    void usingAnUnconfiguredInstanceSaysHowToConfigureIt() {
        assertThatThrownBy(
                        () ->
                                new ConfluentAvroSerializer<Transaction>()
                                        .serialize("t", SampleRecords.transaction("tx")))
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("configure()")
                .hasMessageContaining("schema.registry.url");
    }
}
