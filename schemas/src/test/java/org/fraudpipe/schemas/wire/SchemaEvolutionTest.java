package org.fraudpipe.schemas.wire;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.io.InputStream;
import java.time.Instant;
import java.util.UUID;
import org.apache.avro.Schema;
import org.apache.avro.generic.GenericData;
import org.apache.avro.generic.GenericDatumWriter;
import org.apache.avro.generic.GenericRecord;
import org.apache.avro.io.BinaryEncoder;
import org.apache.avro.io.EncoderFactory;
import org.fraudpipe.schemas.SampleRecords;
import org.fraudpipe.schemas.avro.Transaction;
import org.fraudpipe.schemas.registry.InMemorySchemaRegistry;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * A record written by an old producer (older Transaction schema, registered under its own id)
 * decodes into the current Transaction class.
 */
class SchemaEvolutionTest {
    private static final String SUBJECT = "transactions-value";

    private final String scope = "evolution-" + UUID.randomUUID();
    private final InMemorySchemaRegistry registry = InMemorySchemaRegistry.forScope(scope);

    @AfterEach
    void drop() {
        InMemorySchemaRegistry.dropScope(scope);
    }

    @Test
    void aRecordWrittenWithTheOlderSchemaDecodesIntoTheCurrentClass() throws Exception {
        Schema v0 = oldTransactionSchema();
        int v0Id = registry.register(SUBJECT, v0);
        long eventMillis = SampleRecords.T0.toEpochMilli();
        GenericRecord old = new GenericData.Record(v0);
        old.put("userId", "user-7");
        old.put("transactionId", "tx-old-1");
        old.put("eventTime", eventMillis);
        old.put("amountMinor", 1_999);
        old.put("currency", "EUR");
        old.put("posEntryMode", "CONTACTLESS");
        old.put("country", "FR");
        old.put("merchantId", "merchant-1");
        old.put("deviceId", "device-9");

        Transaction decoded =
                new ConfluentAvroCodec<>(registry, SUBJECT, Transaction.class)
                        .decode(framed(v0Id, v0, old));

        assertThat(decoded)
                .isEqualTo(
                        Transaction.newBuilder()
                                .setTransactionId("tx-old-1")
                                .setUserId("user-7")
                                .setAmountMinor(1_999L)
                                .setCurrency("EUR")
                                .setMerchantId("merchant-1")
                                .setDeviceId("device-9")
                                .setCountry("FR")
                                .setEventTime(Instant.ofEpochMilli(eventMillis))
                                .build());
    }

    @Test
    void theCurrentSchemaIsAcceptedAsTheNextVersionAndOldAndNewRecordsDecodeSideBySide()
            throws Exception {
        Schema v0 = oldTransactionSchema();
        int v0Id = registry.register(SUBJECT, v0);
        ConfluentAvroCodec<Transaction> codec =
                new ConfluentAvroCodec<>(registry, SUBJECT, Transaction.class);
        Transaction current = SampleRecords.transaction("tx-new");

        byte[] newBytes = codec.encode(current);
        GenericRecord old = new GenericData.Record(v0);
        for (Schema.Field field : v0.getFields()) {
            old.put(field.name(), field.schema().getType() == Schema.Type.STRING ? "x" : null);
        }
        old.put("eventTime", 0L);
        old.put("amountMinor", Integer.MAX_VALUE);
        byte[] oldBytes = framed(v0Id, v0, old);

        assertThat(codec.writerSchemaId()).isNotEqualTo(v0Id);
        assertThat(registry.latestSchema(SUBJECT).version()).isEqualTo(2);
        assertThat(codec.decode(newBytes)).isEqualTo(current);
        Transaction fromOld = codec.decode(oldBytes);
        assertThat(fromOld.getAmountMinor()).isEqualTo(Integer.MAX_VALUE);
        assertThat(fromOld.getEventTime()).isEqualTo(Instant.EPOCH);
        assertThat(fromOld.getCountry()).isEqualTo("x");
        assertThat(codec.decode(newBytes)).isEqualTo(current);
    }

    static Schema oldTransactionSchema() throws Exception {
        try (InputStream in =
                SchemaEvolutionTest.class.getResourceAsStream("/evolution/Transaction-v0.avsc")) {
            return new Schema.Parser().parse(in);
        }
    }

    static byte[] framed(int id, Schema schema, GenericRecord record) throws Exception {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        out.write(
                new byte[] {
                    0, (byte) (id >>> 24), (byte) (id >>> 16), (byte) (id >>> 8), (byte) id
                });
        BinaryEncoder encoder = EncoderFactory.get().binaryEncoder(out, null);
        new GenericDatumWriter<GenericRecord>(schema).write(record, encoder);
        encoder.flush();
        return out.toByteArray();
    }
}
