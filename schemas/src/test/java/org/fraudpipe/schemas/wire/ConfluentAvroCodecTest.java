package org.fraudpipe.schemas.wire;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.ByteArrayOutputStream;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.apache.avro.Schema;
import org.apache.avro.io.BinaryEncoder;
import org.apache.avro.io.EncoderFactory;
import org.apache.avro.specific.SpecificDatumWriter;
import org.apache.avro.specific.SpecificRecord;
import org.fraudpipe.schemas.SampleRecords;
import org.fraudpipe.schemas.avro.DeadLetterReason;
import org.fraudpipe.schemas.avro.FeatureRecord;
import org.fraudpipe.schemas.avro.Transaction;
import org.fraudpipe.schemas.registry.InMemorySchemaRegistry;
import org.fraudpipe.schemas.registry.NotAvroSchemaException;
import org.fraudpipe.schemas.registry.SchemaRegistries;
import org.fraudpipe.schemas.registry.SchemaRegistryClient;
import org.fraudpipe.schemas.registry.SchemaRegistryUnavailableException;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

class ConfluentAvroCodecTest {
    private static final int BIG_ID_OFFSET = 0x0A0B0C00;

    private final String scope = "codec-" + UUID.randomUUID();
    private final InMemorySchemaRegistry registry = InMemorySchemaRegistry.forScope(scope);

    @AfterEach
    void drop() {
        InMemorySchemaRegistry.dropScope(scope);
    }

    static List<SpecificRecord> everyRecordType() {
        return SampleRecords.all();
    }

    @ParameterizedTest
    @MethodSource("everyRecordType")
    <T extends SpecificRecord> void everyRecordTypeRoundTrips(T record) {
        @SuppressWarnings("unchecked")
        Class<T> type = (Class<T>) record.getClass();
        ConfluentAvroCodec<T> codec = new ConfluentAvroCodec<>(registry, "t-value", type);

        T decoded = codec.decode(codec.encode(record));

        assertThat(decoded).isEqualTo(record).isNotSameAs(record);
    }

    @ParameterizedTest
    @MethodSource("everyRecordType")
    <T extends SpecificRecord> void framingIsMagicByteThenBigEndianIdThenPlainAvroBinary(T record)
            throws Exception {
        @SuppressWarnings("unchecked")
        Class<T> type = (Class<T>) record.getClass();
        CountingRegistry bigIds = new CountingRegistry(registry, BIG_ID_OFFSET);
        ConfluentAvroCodec<T> codec = new ConfluentAvroCodec<>(bigIds, "t-value", type);

        byte[] framed = codec.encode(record);

        int id = codec.writerSchemaId();
        assertThat(id).isEqualTo(BIG_ID_OFFSET + 1);
        assertThat(Arrays.copyOf(framed, 5)).containsExactly(0x00, 0x0A, 0x0B, 0x0C, 0x01);
        assertThat(WireFormat.schemaId(framed)).isEqualTo(id);
        assertThat(Arrays.copyOfRange(framed, 5, framed.length)).isEqualTo(plainAvro(record));
    }

    @Test
    void writerSchemaIsRegisteredUnderTheSubjectOnceAndTheIdCached() {
        CountingRegistry counting = new CountingRegistry(registry, 0);
        ConfluentAvroCodec<Transaction> codec =
                new ConfluentAvroCodec<>(counting, "transactions-value", Transaction.class);

        for (int i = 0; i < 5; i++) {
            codec.encode(SampleRecords.transaction("tx-" + i));
        }

        assertThat(counting.registers).hasValue(1);
        assertThat(registry.latestSchema("transactions-value").schema())
                .isEqualTo(Transaction.getClassSchema());
    }

    @Test
    void writerSchemaIsFetchedOncePerIdWhenDecoding() {
        ConfluentAvroCodec<Transaction> producer =
                new ConfluentAvroCodec<>(registry, "transactions-value", Transaction.class);
        CountingRegistry counting = new CountingRegistry(registry, 0);
        ConfluentAvroCodec<Transaction> consumer =
                new ConfluentAvroCodec<>(counting, "transactions-value", Transaction.class);

        for (int i = 0; i < 5; i++) {
            Transaction tx = SampleRecords.transaction("tx-" + i);
            assertThat(consumer.decode(producer.encode(tx))).isEqualTo(tx);
        }

        assertThat(counting.lookups).hasValue(1);
    }

    @Test
    void preparingTheLatestVersionLeavesTheFirstRecordNothingToAskTheRegistry() {
        ConfluentAvroCodec<Transaction> producer =
                new ConfluentAvroCodec<>(registry, "transactions-value", Transaction.class);
        CountingRegistry counting = new CountingRegistry(registry, 0);
        ConfluentAvroCodec<Transaction> consumer =
                new ConfluentAvroCodec<>(counting, "transactions-value", Transaction.class);
        consumer.prepareLatest(); // a subject without versions: nothing to prepare, no failure
        assertThat(counting.lookups).hasValue(0);
        byte[] framed = producer.encode(SampleRecords.transaction("tx-1"));

        consumer.prepareLatest();
        int prepared = counting.lookups.get();
        Transaction tx = consumer.decode(framed);

        assertThat(prepared).as("the registry asked while preparing").isEqualTo(1);
        assertThat(counting.lookups).as("and not again by the first record").hasValue(1);
        assertThat(tx).isEqualTo(SampleRecords.transaction("tx-1"));
    }

    @Test
    void nullIsNotConfluentFramed() {
        assertThatThrownBy(() -> transactions().decode(null))
                .isInstanceOfSatisfying(
                        WireFormatException.class,
                        e -> {
                            assertThat(e.reason()).isEqualTo(DeadLetterReason.NOT_CONFLUENT_FRAMED);
                            assertThat(e.schemaId()).isEqualTo(WireFormatException.NO_SCHEMA_ID);
                            assertThat(e.subject()).isEqualTo("transactions-value");
                        })
                .hasMessageContaining("null");
    }

    @Test
    void fewerBytesThanTheHeaderAreNotConfluentFramed() {
        assertThatThrownBy(() -> transactions().decode(new byte[] {0, 0, 0, 1}))
                .isInstanceOfSatisfying(
                        WireFormatException.class,
                        e ->
                                assertThat(e.reason())
                                        .isEqualTo(DeadLetterReason.NOT_CONFLUENT_FRAMED))
                .hasMessageContaining("4 bytes")
                .hasMessageContaining("at least 5");
        assertThatThrownBy(() -> transactions().decode(new byte[0]))
                .isInstanceOfSatisfying(
                        WireFormatException.class,
                        e ->
                                assertThat(e.reason())
                                        .isEqualTo(DeadLetterReason.NOT_CONFLUENT_FRAMED));
    }

    @Test
    void aWrongMagicByteIsNotConfluentFramed() {
        ConfluentAvroCodec<Transaction> codec = transactions();
        byte[] framed = codec.encode(SampleRecords.transaction("tx-1"));
        framed[0] = 1;

        assertThatThrownBy(() -> codec.decode(framed))
                .isInstanceOfSatisfying(
                        WireFormatException.class,
                        e ->
                                assertThat(e.reason())
                                        .isEqualTo(DeadLetterReason.NOT_CONFLUENT_FRAMED))
                .hasMessageContaining("not the magic byte 00")
                .hasMessageContaining("transactions-value");
        byte[] json = "{\"transactionId\":\"tx-1\"}".getBytes(StandardCharsets.UTF_8);
        assertThatThrownBy(() -> codec.decode(json))
                .isInstanceOf(WireFormatException.class)
                .hasMessageContaining("looks like JSON");
    }

    @Test
    void anIdTheRegistryDoesNotHaveIsAnUnknownSchema() {
        ConfluentAvroCodec<Transaction> codec = transactions();
        byte[] framed = codec.encode(SampleRecords.transaction("tx-1"));
        framed[4] = 42;

        assertThatThrownBy(() -> codec.decode(framed))
                .isInstanceOfSatisfying(
                        WireFormatException.class,
                        e -> {
                            assertThat(e.reason()).isEqualTo(DeadLetterReason.UNKNOWN_SCHEMA);
                            assertThat(e.schemaId()).isEqualTo(42);
                        })
                .hasMessageContaining("schema id 42")
                .hasMessageContaining("transactions-value")
                .hasMessageContaining("mock://" + scope);
    }

    @Test
    void theLargestIdIsReadUnsignedSafelyAndIsAnUnknownSchema() {
        ConfluentAvroCodec<Transaction> codec = transactions();
        byte[] framed = codec.encode(SampleRecords.transaction("tx-1"));
        framed[1] = framed[2] = framed[3] = framed[4] = (byte) 0xff;

        assertThatThrownBy(() -> codec.decode(framed))
                .isInstanceOfSatisfying(
                        WireFormatException.class,
                        e -> {
                            assertThat(e.reason()).isEqualTo(DeadLetterReason.UNKNOWN_SCHEMA);
                            assertThat(e.schemaId()).isEqualTo(-1);
                        });
    }

    @Test
    void anIdOfANonAvroSchemaIsAnIncompatibleSchema() {
        byte[] framed = transactions().encode(SampleRecords.transaction("tx-1"));
        SchemaRegistryClient protobufOnly =
                new CountingRegistry(registry, 0) {
                    @Override
                    public Schema getSchemaById(int id) {
                        throw new NotAvroSchemaException(
                                id, url(), "it is a PROTOBUF schema", null);
                    }
                };
        ConfluentAvroCodec<Transaction> codec =
                new ConfluentAvroCodec<>(protobufOnly, "transactions-value", Transaction.class);

        assertThatThrownBy(() -> codec.decode(framed))
                .isInstanceOfSatisfying(
                        WireFormatException.class,
                        e -> assertThat(e.reason()).isEqualTo(DeadLetterReason.INCOMPATIBLE_SCHEMA))
                .hasMessageContaining("PROTOBUF");
    }

    @Test
    void aTruncatedBodyIsUndecodable() {
        ConfluentAvroCodec<Transaction> codec = transactions();
        byte[] framed = codec.encode(SampleRecords.transaction("tx-1"));
        byte[] truncated = Arrays.copyOf(framed, framed.length - 3);

        assertThatThrownBy(() -> codec.decode(truncated))
                .isInstanceOfSatisfying(
                        WireFormatException.class,
                        e -> {
                            assertThat(e.reason()).isEqualTo(DeadLetterReason.UNDECODABLE);
                            assertThat(e.schemaId()).isEqualTo(1);
                        })
                .hasMessageContaining("writer schema id 1")
                .hasMessageContaining("org.fraudpipe.schemas.avro.Transaction");
    }

    @Test
    void trailingBytesAfterTheRecordAreUndecodable() {
        ConfluentAvroCodec<Transaction> codec = transactions();
        byte[] framed = codec.encode(SampleRecords.transaction("tx-1"));
        byte[] padded = Arrays.copyOf(framed, framed.length + 2);

        assertThatThrownBy(() -> codec.decode(padded))
                .isInstanceOfSatisfying(
                        WireFormatException.class,
                        e -> assertThat(e.reason()).isEqualTo(DeadLetterReason.UNDECODABLE))
                .hasMessageContaining("2 bytes are left over");
    }

    @Test
    void aHugeDeclaredLengthIsUndecodableWithoutAllocatingIt() {
        ConfluentAvroCodec<Transaction> codec = transactions();
        codec.encode(SampleRecords.transaction("tx-1"));
        // Header for id 1, then a string length of 2_000_000_000 as a zig-zag varint.
        byte[] hostile = {0, 0, 0, 0, 1, (byte) 0x80, (byte) 0xd0, (byte) 0xac, (byte) 0xf3, 0x0e};

        assertThatThrownBy(() -> codec.decode(hostile))
                .isInstanceOfSatisfying(
                        WireFormatException.class,
                        e -> assertThat(e.reason()).isEqualTo(DeadLetterReason.UNDECODABLE))
                .hasMessageContaining("declares 2000000000 bytes but only 0 are left");
    }

    @Test
    void aRecordOfAnotherTypeIsAnIncompatibleSchema() {
        ConfluentAvroCodec<FeatureRecord> features =
                new ConfluentAvroCodec<>(registry, "features-value", FeatureRecord.class);
        byte[] framed = features.encode(SampleRecords.features());
        ConfluentAvroCodec<Transaction> codec = transactions();

        for (int i = 0; i < 2; i++) {
            assertThatThrownBy(() -> codec.decode(framed))
                    .isInstanceOfSatisfying(
                            WireFormatException.class,
                            e -> {
                                assertThat(e.reason())
                                        .isEqualTo(DeadLetterReason.INCOMPATIBLE_SCHEMA);
                                assertThat(e.schemaId()).isEqualTo(features.writerSchemaId());
                            })
                    .hasMessageContaining("schema id " + features.writerSchemaId())
                    .hasMessageContaining("org.fraudpipe.schemas.avro.FeatureRecord")
                    .hasMessageContaining("NAME_MISMATCH");
        }
    }

    @Test
    void anUnreachableRegistryIsNotADataErrorAndIsNotReportedAsOne() throws Exception {
        byte[] framed = transactions().encode(SampleRecords.transaction("tx-1"));
        int freePort;
        try (ServerSocket socket = new ServerSocket(0)) {
            freePort = socket.getLocalPort();
        }
        ConfluentAvroCodec<Transaction> codec =
                new ConfluentAvroCodec<>(
                        SchemaRegistries.forUrl("http://127.0.0.1:" + freePort),
                        "transactions-value",
                        Transaction.class);

        assertThatThrownBy(() -> codec.decode(framed))
                .isInstanceOf(SchemaRegistryUnavailableException.class);
    }

    @Test
    void aRecordThatViolatesItsSchemaCannotBeEncodedAndTheCodecStaysUsable() {
        ConfluentAvroCodec<Transaction> codec = transactions();
        Transaction broken = SampleRecords.transaction("tx-1");
        broken.setCurrency(null);

        assertThatThrownBy(() -> codec.encode(broken))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("Cannot encode Transaction")
                .hasMessageContaining("transactions-value")
                .hasMessageContaining("currency");
        Transaction ok = SampleRecords.transaction("tx-2");
        assertThat(codec.decode(codec.encode(ok))).isEqualTo(ok);
    }

    @Test
    void largeRecordsAndSmallOnesAlternateOnOneThread() {
        ConfluentAvroCodec<Transaction> codec = transactions();
        Transaction large = SampleRecords.transaction("x".repeat(3_000_000));
        Transaction small = SampleRecords.transaction("tx-small");

        for (Transaction tx : List.of(small, large, small, large, small)) {
            assertThat(codec.decode(codec.encode(tx))).isEqualTo(tx);
        }
    }

    @Test
    void oneCodecIsSafeToShareBetweenThreads() throws Exception {
        ConfluentAvroCodec<Transaction> codec = transactions();
        int threads = 4;
        ExecutorService pool = Executors.newFixedThreadPool(threads);
        try {
            List<Future<Integer>> results = new ArrayList<>();
            for (int t = 0; t < threads; t++) {
                int thread = t;
                results.add(
                        pool.submit(
                                () -> {
                                    int ok = 0;
                                    for (int i = 0; i < 2_000; i++) {
                                        Transaction tx =
                                                SampleRecords.transaction("tx-" + thread + "-" + i);
                                        tx.setAmountMinor(i * 1_000L + thread);
                                        if (codec.decode(codec.encode(tx)).equals(tx)) {
                                            ok++;
                                        }
                                    }
                                    return ok;
                                }));
            }
            for (Future<Integer> result : results) {
                assertThat(result.get()).isEqualTo(2_000);
            }
        } finally {
            pool.shutdownNow();
        }
    }

    private ConfluentAvroCodec<Transaction> transactions() {
        return new ConfluentAvroCodec<>(registry, "transactions-value", Transaction.class);
    }

    @SuppressWarnings("unchecked")
    private static <T extends SpecificRecord> byte[] plainAvro(T record) throws Exception {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        BinaryEncoder encoder = EncoderFactory.get().binaryEncoder(out, null);
        new SpecificDatumWriter<>((Class<T>) record.getClass()).write(record, encoder);
        encoder.flush();
        return out.toByteArray();
    }
}
