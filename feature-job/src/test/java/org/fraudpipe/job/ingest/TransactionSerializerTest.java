package org.fraudpipe.job.ingest;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.time.Instant;
import java.util.Random;
import org.apache.avro.SchemaNormalization;
import org.apache.flink.api.common.serialization.SerializerConfigImpl;
import org.apache.flink.api.common.typeutils.TypeSerializer;
import org.apache.flink.api.common.typeutils.TypeSerializerSnapshot;
import org.apache.flink.core.memory.DataInputDeserializer;
import org.apache.flink.core.memory.DataOutputSerializer;
import org.apache.flink.formats.avro.typeutils.AvroTypeInfo;
import org.fraudpipe.schemas.avro.Transaction;
import org.junit.jupiter.api.Test;

/** The shuffle serializer of transactions: the schema it was written for, exact round trips. */
class TransactionSerializerTest {

    @Test
    void itWasWrittenForTheTransactionSchemaOnTheClasspath() {
        assertThat(SchemaNormalization.parsingFingerprint64(Transaction.getClassSchema()))
                .as(
                        "Transaction.avsc changed: update TransactionSerializer (fields, order)"
                                + " and its FINGERPRINT; until then the job shuffles with Avro")
                .isEqualTo(TransactionSerializer.FINGERPRINT);
        assertThat(TransactionSerializer.matchesSchema()).isTrue();
        assertThat(TransactionTypeInfo.forShuffle().createSerializer(new SerializerConfigImpl()))
                .isSameAs(TransactionSerializer.INSTANCE);
    }

    @Test
    void randomTransactionsRoundTripExactlyAsAvrosSerializerDoes() throws IOException {
        TypeSerializer<Transaction> avro =
                new AvroTypeInfo<>(Transaction.class).createSerializer(new SerializerConfigImpl());
        Random random = new Random(8);
        for (int i = 0; i < 500; i++) {
            Transaction tx = random(random);

            Transaction ours = roundTrip(TransactionSerializer.INSTANCE, tx);

            assertThat(ours).isEqualTo(tx).isEqualTo(roundTrip(avro, tx));
            assertThat(TransactionSerializer.INSTANCE.copy(tx)).isEqualTo(tx).isNotSameAs(tx);
        }
    }

    @Test
    void avrosSerializerOnRequest() {
        System.setProperty(TransactionTypeInfo.AVRO_PROPERTY, "true");
        try {
            assertThat(TransactionTypeInfo.forShuffle()).isInstanceOf(AvroTypeInfo.class);
        } finally {
            System.clearProperty(TransactionTypeInfo.AVRO_PROPERTY);
        }
    }

    @Test
    void theSnapshotRestoresTheSerializer() throws IOException {
        DataOutputSerializer out = new DataOutputSerializer(32);
        TypeSerializerSnapshot.writeVersionedSnapshot(
                out, TransactionSerializer.INSTANCE.snapshotConfiguration());
        TypeSerializerSnapshot<Transaction> back =
                TypeSerializerSnapshot.readVersionedSnapshot(
                        new DataInputDeserializer(out.getCopyOfBuffer()),
                        getClass().getClassLoader());
        assertThat(back.restoreSerializer()).isSameAs(TransactionSerializer.INSTANCE);
    }

    private static Transaction roundTrip(TypeSerializer<Transaction> serializer, Transaction tx)
            throws IOException {
        DataOutputSerializer out = new DataOutputSerializer(64);
        serializer.serialize(tx, out);
        DataInputDeserializer in = new DataInputDeserializer(out.getCopyOfBuffer());
        Transaction back = serializer.deserialize(in);
        assertThat(in.available()).isZero();
        return back;
    }

    private static Transaction random(Random r) {
        return new Transaction(
                text(r, 36),
                text(r, 12),
                r.nextLong() & Long.MAX_VALUE,
                text(r, 3),
                text(r, 10),
                text(r, 20),
                text(r, 2),
                Instant.ofEpochMilli(r.nextLong() >> 20));
    }

    /** Up to {@code max} characters, non-ASCII and empty strings included. */
    private static String text(Random r, int max) {
        StringBuilder b = new StringBuilder();
        int n = r.nextInt(max + 1);
        for (int i = 0; i < n; i++) {
            b.append(
                    r.nextInt(10) == 0
                            ? (char) (0x00e0 + r.nextInt(400))
                            : (char) ('a' + r.nextInt(26)));
        }
        return b.toString();
    }
}
