package org.fraudpipe.job.transaction;

import java.io.IOException;
import org.apache.flink.api.common.typeutils.SimpleTypeSerializerSnapshot;
import org.apache.flink.api.common.typeutils.TypeSerializerSnapshot;
import org.apache.flink.core.memory.DataInputView;
import org.apache.flink.core.memory.DataOutputView;
import org.apache.flink.types.StringValue;
import org.fraudpipe.job.features.StringValueCodec;

/**
 * Flink serializer of {@link ReceivedTransaction}, the per-transaction path's state (read on every
 * arrival of the user with RocksDB, stored in every checkpoint and savepoint).
 *
 * <p>Format 1: a format byte (1), {@code eventTime} (8 bytes), {@code firstArrival} (8 bytes;
 * before releases named recordTimestamp, the same value live), {@code amountMinor}, the three
 * counts and sums as unsigned varints (1 to 10 bytes, a few for real values), {@code deviceId},
 * {@code merchantId}, {@code country} in Flink's {@link StringValue} encoding (length varint +
 * chars), the three distinct counts as varints, the flags byte. About 45 bytes for typical ids; the
 * map key (the {@code transactionId}) comes on top.
 *
 * <p>Compatibility: the format byte lets a later build read entries of this one (a new format is a
 * new reader here, never a change in place); the snapshot is a {@link SimpleTypeSerializerSnapshot}
 * of this singleton, so a restore with the same serializer is compatible as is.
 */
public final class ReceivedTransactionSerializer
        extends ImmutableValueSerializer<ReceivedTransaction> {

    private static final long serialVersionUID = 1L;

    /** The format this build writes. */
    static final int FORMAT = 1;

    public static final ReceivedTransactionSerializer INSTANCE =
            new ReceivedTransactionSerializer();

    private ReceivedTransactionSerializer() {}

    @Override
    public void serialize(ReceivedTransaction r, DataOutputView out) throws IOException {
        out.writeByte(FORMAT);
        out.writeLong(r.eventTime());
        out.writeLong(r.firstArrival());
        writeVarLong(r.amountMinor(), out);
        writeVarLong(r.txCount(), out);
        writeVarLong(r.amountSum(), out);
        writeVarLong(r.amountMax(), out);
        StringValueCodec.write(r.deviceId(), out);
        StringValueCodec.write(r.merchantId(), out);
        StringValueCodec.write(r.country(), out);
        writeVarLong(r.distinctDevices(), out);
        writeVarLong(r.distinctMerchants(), out);
        writeVarLong(r.distinctCountries(), out);
        out.writeByte(r.flags());
    }

    @Override
    public ReceivedTransaction deserialize(DataInputView in) throws IOException {
        int format = in.readUnsignedByte();
        if (format != FORMAT) {
            throw new IOException(
                    "received-transaction state in format "
                            + format
                            + ", which this build cannot read (it reads format "
                            + FORMAT
                            + "): restore it with the build that wrote it or a newer one");
        }
        long eventTime = in.readLong();
        long firstArrival = in.readLong();
        long amount = readVarLong(in);
        long txCount = readVarLong(in);
        long amountSum = readVarLong(in);
        long amountMax = readVarLong(in);
        String device = StringValueCodec.read(in);
        String merchant = StringValueCodec.read(in);
        String country = StringValueCodec.read(in);
        int devices = (int) readVarLong(in);
        int merchants = (int) readVarLong(in);
        int countries = (int) readVarLong(in);
        int flags = in.readUnsignedByte();
        return new ReceivedTransaction(
                eventTime,
                amount,
                device,
                merchant,
                country,
                firstArrival,
                txCount,
                amountSum,
                amountMax,
                devices,
                merchants,
                countries,
                flags);
    }

    @Override
    public TypeSerializerSnapshot<ReceivedTransaction> snapshotConfiguration() {
        return new Snapshot();
    }

    /** Unsigned LEB128; the values written are never negative. */
    static void writeVarLong(long value, DataOutputView out) throws IOException {
        if (value < 0) {
            throw new IOException("negative value " + value + " in received-transaction state");
        }
        while ((value & ~0x7FL) != 0) {
            out.writeByte((int) ((value & 0x7F) | 0x80));
            value >>>= 7;
        }
        out.writeByte((int) value);
    }

    static long readVarLong(DataInputView in) throws IOException {
        long value = 0;
        for (int shift = 0; shift < 64; shift += 7) {
            int b = in.readUnsignedByte();
            value |= (long) (b & 0x7F) << shift;
            if ((b & 0x80) == 0) {
                return value;
            }
        }
        throw new IOException("corrupt varint in received-transaction state");
    }

    /** The snapshot savepoints name (never rename or remove it). */
    public static final class Snapshot extends SimpleTypeSerializerSnapshot<ReceivedTransaction> {
        public Snapshot() {
            super(() -> INSTANCE);
        }
    }
}
