package org.fraudpipe.job.ingest;

import java.io.IOException;
import java.time.Instant;
import org.apache.avro.SchemaNormalization;
import org.apache.flink.api.common.typeutils.SimpleTypeSerializerSnapshot;
import org.apache.flink.api.common.typeutils.TypeSerializer;
import org.apache.flink.api.common.typeutils.TypeSerializerSnapshot;
import org.apache.flink.core.memory.DataInputView;
import org.apache.flink.core.memory.DataOutputView;
import org.apache.flink.types.StringValue;
import org.fraudpipe.schemas.avro.Transaction;

/**
 * Flink serializer of {@link Transaction} for the shuffle between the ingest router and the feature
 * window (every valid record crosses it once): the eight fields in schema order, strings in Flink's
 * {@link StringValue} encoding, amount and event time (epoch millis, the precision of the schema's
 * {@code timestamp-millis}) as longs. Avro's serializer resolves the schema field by field through
 * its generic datum reader and writer; this is a fixed sequence of reads and writes.
 *
 * <p>Invariant: it is used only for the schema it was written for ({@link #FINGERPRINT}, the
 * parsing fingerprint of {@code Transaction.avsc}); {@link TransactionTypeInfo#forShuffle} gives
 * Avro's own serializer for any other, so a schema change stays correct until this class is updated
 * ({@code TransactionSerializerTest} fails first). Not used for state: nothing the job keeps in
 * state or savepoints holds a {@code Transaction} in this format.
 */
public final class TransactionSerializer extends TypeSerializer<Transaction> {

    private static final long serialVersionUID = 1L;

    /** Parsing fingerprint (CRC-64-AVRO) of the {@code Transaction} schema written for. */
    static final long FINGERPRINT = 5425007540771115365L;

    /** The instance (stateless, thread-safe). */
    public static final TransactionSerializer INSTANCE = new TransactionSerializer();

    private TransactionSerializer() {}

    /** Whether this serializer matches the {@code Transaction} class on the classpath. */
    static boolean matchesSchema() {
        return SchemaNormalization.parsingFingerprint64(Transaction.getClassSchema())
                == FINGERPRINT;
    }

    @Override
    public boolean isImmutableType() {
        return false;
    }

    @Override
    public TypeSerializer<Transaction> duplicate() {
        return this;
    }

    @Override
    public Transaction createInstance() {
        return new Transaction();
    }

    /** A new record with the same values (all of them immutable: strings, longs, an instant). */
    @Override
    public Transaction copy(Transaction from) {
        return new Transaction(
                from.getTransactionId(),
                from.getUserId(),
                from.getAmountMinor(),
                from.getCurrency(),
                from.getMerchantId(),
                from.getDeviceId(),
                from.getCountry(),
                from.getEventTime());
    }

    @Override
    public Transaction copy(Transaction from, Transaction reuse) {
        return copy(from);
    }

    @Override
    public int getLength() {
        return -1;
    }

    @Override
    public void serialize(Transaction tx, DataOutputView out) throws IOException {
        StringValue.writeString(tx.getTransactionId(), out);
        StringValue.writeString(tx.getUserId(), out);
        out.writeLong(tx.getAmountMinor());
        StringValue.writeString(tx.getCurrency(), out);
        StringValue.writeString(tx.getMerchantId(), out);
        StringValue.writeString(tx.getDeviceId(), out);
        StringValue.writeString(tx.getCountry(), out);
        out.writeLong(tx.getEventTime().toEpochMilli());
    }

    @Override
    public Transaction deserialize(DataInputView in) throws IOException {
        String transactionId = StringValue.readString(in);
        String userId = StringValue.readString(in);
        long amountMinor = in.readLong();
        String currency = StringValue.readString(in);
        String merchantId = StringValue.readString(in);
        String deviceId = StringValue.readString(in);
        String country = StringValue.readString(in);
        Instant eventTime = Instant.ofEpochMilli(in.readLong());
        return new Transaction(
                transactionId,
                userId,
                amountMinor,
                currency,
                merchantId,
                deviceId,
                country,
                eventTime);
    }

    @Override
    public Transaction deserialize(Transaction reuse, DataInputView in) throws IOException {
        return deserialize(in);
    }

    @Override
    public void copy(DataInputView source, DataOutputView target) throws IOException {
        serialize(deserialize(source), target);
    }

    @Override
    public boolean equals(Object obj) {
        return obj instanceof TransactionSerializer;
    }

    @Override
    public int hashCode() {
        return TransactionSerializer.class.hashCode();
    }

    @Override
    public TypeSerializerSnapshot<Transaction> snapshotConfiguration() {
        return new Snapshot();
    }

    /** The snapshot: no parameters; a layout change means a new serializer class. */
    public static final class Snapshot extends SimpleTypeSerializerSnapshot<Transaction> {
        public Snapshot() {
            super(() -> INSTANCE);
        }
    }
}
