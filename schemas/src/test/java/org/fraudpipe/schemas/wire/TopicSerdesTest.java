package org.fraudpipe.schemas.wire;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.charset.StandardCharsets;
import java.util.Map;
import java.util.UUID;
import org.apache.avro.specific.SpecificRecord;
import org.apache.flink.api.common.serialization.DeserializationSchema;
import org.apache.flink.api.common.serialization.SerializationSchema;
import org.apache.kafka.common.serialization.Deserializer;
import org.apache.kafka.common.serialization.Serializer;
import org.fraudpipe.schemas.SampleRecords;
import org.fraudpipe.schemas.Topic;
import org.fraudpipe.schemas.avro.FeatureRecord;
import org.fraudpipe.schemas.avro.Transaction;
import org.fraudpipe.schemas.avro.WindowKey;
import org.fraudpipe.schemas.registry.InMemorySchemaRegistry;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

class TopicSerdesTest {
    private final String scope = "serdes-" + UUID.randomUUID();
    private final TopicSerdes serdes = TopicSerdes.forRegistry("mock://" + scope);

    @AfterEach
    void drop() {
        InMemorySchemaRegistry.dropScope(scope);
    }

    @ParameterizedTest
    @EnumSource(Topic.class)
    void everyTopicsValueRoundTripsThroughKafkaAndFlinkSerdesAlike(Topic topic) throws Exception {
        roundTripValue(topic, topic.valueClass());
    }

    private <T extends SpecificRecord> void roundTripValue(Topic topic, Class<T> type)
            throws Exception {
        T value = SampleRecords.of(type);
        String name = topic.defaultName();
        Serializer<T> kafkaOut = serdes.valueSerializer(topic, type);
        Deserializer<T> kafkaIn = serdes.valueDeserializer(topic, type);
        SerializationSchema<T> flinkOut = serdes.valueSerializationSchema(topic, name, type);
        DeserializationSchema<T> flinkIn = serdes.valueDeserializationSchema(topic, name, type);

        byte[] fromKafka = kafkaOut.serialize(name, value);
        byte[] fromFlink = flinkOut.serialize(value);

        assertThat(fromFlink).isEqualTo(fromKafka);
        assertThat(kafkaIn.deserialize(name, fromFlink)).isEqualTo(value);
        assertThat(flinkIn.deserialize(fromKafka)).isEqualTo(value);
        assertThat(serdes.registry().latestSchema(Topic.valueSubject(name)).schema())
                .isEqualTo(value.getSchema());
    }

    @ParameterizedTest
    @EnumSource(
            value = Topic.class,
            names = {"TRANSACTIONS", "LATE", "DEAD_LETTERS"})
    void userIdAndSourcePositionKeysArePlainUtf8(Topic topic) throws Exception {
        String key = topic == Topic.DEAD_LETTERS ? "transactions-3@1000001" : "üser-42";
        Serializer<String> kafkaOut = serdes.keySerializer(topic, String.class);
        Deserializer<String> kafkaIn = serdes.keyDeserializer(topic, String.class);
        SerializationSchema<String> flinkOut =
                serdes.keySerializationSchema(topic, topic.defaultName(), String.class);
        DeserializationSchema<String> flinkIn =
                serdes.keyDeserializationSchema(topic, topic.defaultName(), String.class);

        byte[] bytes = kafkaOut.serialize(topic.defaultName(), key);

        assertThat(bytes).isEqualTo(key.getBytes(StandardCharsets.UTF_8));
        assertThat(flinkOut.serialize(key)).isEqualTo(bytes);
        assertThat(kafkaIn.deserialize(topic.defaultName(), bytes)).isEqualTo(key);
        assertThat(flinkIn.deserialize(bytes)).isEqualTo(key);
        assertThat(TopicSerdes.keyClass(topic.keyFormat())).isEqualTo(String.class);
    }

    @ParameterizedTest
    @EnumSource(
            value = Topic.class,
            names = {"FEATURES", "SCORES"})
    void windowKeysAreFramedAvroUnderTheTopicKeySubject(Topic topic) throws Exception {
        String name = "prod." + topic.defaultName();
        WindowKey key = SampleRecords.windowKey();
        Serializer<WindowKey> kafkaOut = serdes.keySerializer(topic, WindowKey.class);
        DeserializationSchema<WindowKey> flinkIn =
                serdes.keyDeserializationSchema(topic, name, WindowKey.class);

        byte[] bytes = kafkaOut.serialize(name, key);

        assertThat(bytes[0]).isEqualTo(WireFormat.MAGIC_BYTE);
        assertThat(WireFormat.schemaId(bytes))
                .isEqualTo(serdes.registry().latestSchema(name + "-key").id());
        assertThat(flinkIn.deserialize(bytes)).isEqualTo(key);
        assertThat(serdes.keySerializationSchema(topic, name, WindowKey.class).serialize(key))
                .isEqualTo(bytes);
        assertThat(serdes.keyDeserializer(topic, WindowKey.class).deserialize(name, bytes))
                .isEqualTo(key);
        assertThat(serdes.windowKeyCodec(topic, name).decode(bytes)).isEqualTo(key);
    }

    @Test
    void codecsUseTheDeployedTopicName() {
        ConfluentAvroCodec<Transaction> codec =
                serdes.valueCodec(Topic.TRANSACTIONS, "prod.tx", Transaction.class);

        assertThat(codec.subject()).isEqualTo("prod.tx-value");
        assertThat(serdes.windowKeyCodec(Topic.SCORES, "prod.scores").subject())
                .isEqualTo("prod.scores-key");
    }

    @Test
    void askingForTheWrongValueClassFailsAtOnce() {
        assertThatThrownBy(() -> serdes.valueSerializer(Topic.FEATURES, Transaction.class))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("FEATURES carries FeatureRecord values, not Transaction");
        assertThatThrownBy(
                        () ->
                                serdes.valueDeserializationSchema(
                                        Topic.TRANSACTIONS, "t", FeatureRecord.class))
                .isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void askingForTheWrongKeyClassFailsAtOnce() {
        assertThatThrownBy(() -> serdes.keySerializer(Topic.FEATURES, String.class))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("WINDOW_KEY keys of type WindowKey, not String");
        assertThatThrownBy(() -> serdes.keyDeserializer(Topic.TRANSACTIONS, WindowKey.class))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("USER_ID keys of type String");
        assertThatThrownBy(() -> serdes.windowKeyCodec(Topic.LATE, "transactions-late"))
                .isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void registryConfigurationIsTakenFromClientProperties() {
        TopicSerdes fromProperties =
                TopicSerdes.forRegistry(
                        Map.of(
                                "schema.registry.url",
                                "mock://" + scope,
                                "bootstrap.servers",
                                "localhost:9092"));

        assertThat(fromProperties.registry()).isSameAs(serdes.registry());
        assertThatThrownBy(() -> TopicSerdes.forRegistry(Map.of("bootstrap.servers", "x")))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("schema.registry.url is not set");
    }
}
