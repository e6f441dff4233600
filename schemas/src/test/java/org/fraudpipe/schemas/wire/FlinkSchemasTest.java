package org.fraudpipe.schemas.wire;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.ObjectInputStream;
import java.io.ObjectOutputStream;
import java.util.UUID;
import org.apache.flink.api.common.serialization.SerializerConfigImpl;
import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.api.common.typeutils.TypeSerializer;
import org.apache.flink.core.memory.DataInputDeserializer;
import org.apache.flink.core.memory.DataOutputSerializer;
import org.fraudpipe.schemas.SampleRecords;
import org.fraudpipe.schemas.avro.DeadLetterReason;
import org.fraudpipe.schemas.avro.Transaction;
import org.fraudpipe.schemas.registry.InMemorySchemaRegistry;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** {@link ConfluentAvroSerializationSchema} and {@link ConfluentAvroDeserializationSchema}. */
class FlinkSchemasTest {
    private final String scope = "flink-" + UUID.randomUUID();
    private final String url = "mock://" + scope;

    @AfterEach
    void drop() {
        InMemorySchemaRegistry.dropScope(scope);
    }

    @Test
    void schemasSurviveJavaSerializationAndRoundTripAfterOpen() throws Exception {
        ConfluentAvroSerializationSchema<Transaction> serializer =
                copy(new ConfluentAvroSerializationSchema<>(Transaction.class, "tx-value", url));
        ConfluentAvroDeserializationSchema<Transaction> deserializer =
                copy(new ConfluentAvroDeserializationSchema<>(Transaction.class, "tx-value", url));
        serializer.open(null);
        deserializer.open(null);
        Transaction tx = SampleRecords.transaction("tx-1");

        byte[] bytes = serializer.serialize(tx);

        assertThat(deserializer.deserialize(bytes)).isEqualTo(tx);
        assertThat(deserializer.isEndOfStream(tx)).isFalse();
        assertThat(InMemorySchemaRegistry.forScope(scope).subjects()).containsExactly("tx-value");
    }

    @Test
    void theyWorkWithoutOpenToo() {
        Transaction tx = SampleRecords.transaction("tx-1");
        byte[] bytes =
                new ConfluentAvroSerializationSchema<>(Transaction.class, "tx-value", url)
                        .serialize(tx);

        assertThat(
                        new ConfluentAvroDeserializationSchema<>(Transaction.class, "tx-value", url)
                                .deserialize(bytes))
                .isEqualTo(tx);
    }

    @Test
    void aNullMessageIsABadRecordNotASkippedOne() {
        ConfluentAvroDeserializationSchema<Transaction> deserializer =
                new ConfluentAvroDeserializationSchema<>(Transaction.class, "tx-value", url);

        assertThatThrownBy(() -> deserializer.deserialize(null))
                .isInstanceOfSatisfying(
                        WireFormatException.class,
                        e ->
                                assertThat(e.reason())
                                        .isEqualTo(DeadLetterReason.NOT_CONFLUENT_FRAMED));
    }

    @Test
    void theProducedTypeIsUsableByFlink() throws Exception {
        TypeInformation<Transaction> type =
                new ConfluentAvroDeserializationSchema<>(Transaction.class, "tx-value", url)
                        .getProducedType();
        TypeSerializer<Transaction> serializer = type.createSerializer(new SerializerConfigImpl());
        Transaction tx = SampleRecords.transaction("tx-1");
        DataOutputSerializer out = new DataOutputSerializer(64);

        serializer.serialize(tx, out);

        assertThat(type.getTypeClass()).isEqualTo(Transaction.class);
        assertThat(serializer.deserialize(new DataInputDeserializer(out.getCopyOfBuffer())))
                .isEqualTo(tx);
        assertThat(serializer.copy(tx)).isEqualTo(tx);
    }

    @Test
    void aWrongRegistryUrlFailsWhenTheJobIsBuiltNotWhenItRuns() {
        assertThatThrownBy(
                        () ->
                                new ConfluentAvroSerializationSchema<>(
                                        Transaction.class, "s", "localhost"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("schema.registry.url");
        assertThatThrownBy(
                        () ->
                                new ConfluentAvroDeserializationSchema<>(
                                        Transaction.class, "s", "ftp://x"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("schema.registry.url");
    }

    @SuppressWarnings("unchecked")
    private static <T> T copy(T object) throws Exception {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        try (ObjectOutputStream out = new ObjectOutputStream(bytes)) {
            out.writeObject(object);
        }
        try (ObjectInputStream in =
                new ObjectInputStream(new ByteArrayInputStream(bytes.toByteArray()))) {
            return (T) in.readObject();
        }
    }
}
