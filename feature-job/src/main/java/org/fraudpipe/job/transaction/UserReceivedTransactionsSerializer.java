package org.fraudpipe.job.transaction;

import java.io.IOException;
import org.apache.flink.api.common.typeutils.SimpleTypeSerializerSnapshot;
import org.apache.flink.api.common.typeutils.TypeSerializerSnapshot;
import org.apache.flink.core.memory.DataInputView;
import org.apache.flink.core.memory.DataOutputView;
import org.apache.flink.types.StringValue;
import org.fraudpipe.job.features.StringValueCodec;

/**
 * Flink serializer of {@link UserReceivedTransactions}, one user's per-transaction state (read and
 * written on every arrival of the user with RocksDB, stored in every checkpoint and savepoint).
 *
 * <p>Format 1: a format byte (1), {@code evictedThrough} (8 bytes), the number of entries (unsigned
 * varint), then per entry its transaction id in Flink's {@link StringValue} encoding and the entry
 * as {@link ReceivedTransactionSerializer} writes it (its own format byte included). About 85 bytes
 * per entry with the simulator's ids.
 *
 * <p>Compatibility as {@link ReceivedTransactionSerializer}'s: the format byte lets a later build
 * read this one's values (a new format is a new reader here, never a change in place).
 */
public final class UserReceivedTransactionsSerializer
        extends ImmutableValueSerializer<UserReceivedTransactions> {

    private static final long serialVersionUID = 1L;

    /** The format this build writes. */
    static final int FORMAT = 1;

    public static final UserReceivedTransactionsSerializer INSTANCE =
            new UserReceivedTransactionsSerializer();

    private UserReceivedTransactionsSerializer() {}

    @Override
    public void serialize(UserReceivedTransactions r, DataOutputView out) throws IOException {
        out.writeByte(FORMAT);
        out.writeLong(r.evictedThrough());
        ReceivedTransactionSerializer.writeVarLong(r.size(), out);
        for (int i = 0; i < r.size(); i++) {
            StringValueCodec.write(r.id(i), out);
            ReceivedTransactionSerializer.INSTANCE.serialize(r.entry(i), out);
        }
    }

    @Override
    public UserReceivedTransactions deserialize(DataInputView in) throws IOException {
        int format = in.readUnsignedByte();
        if (format != FORMAT) {
            throw new IOException(
                    "per-user received-transactions state in format "
                            + format
                            + ", which this build cannot read (it reads format "
                            + FORMAT
                            + "): restore it with the build that wrote it or a newer one");
        }
        long evictedThrough = in.readLong();
        long n = ReceivedTransactionSerializer.readVarLong(in);
        if (n < 1 || n > Integer.MAX_VALUE) {
            throw new IOException(
                    "corrupt per-user received-transactions state: " + n + " entries");
        }
        String[] ids = new String[(int) n];
        ReceivedTransaction[] entries = new ReceivedTransaction[(int) n];
        for (int i = 0; i < n; i++) {
            ids[i] = StringValueCodec.read(in);
            entries[i] = ReceivedTransactionSerializer.INSTANCE.deserialize(in);
        }
        return new UserReceivedTransactions(evictedThrough, ids, entries);
    }

    @Override
    public TypeSerializerSnapshot<UserReceivedTransactions> snapshotConfiguration() {
        return new Snapshot();
    }

    /** The snapshot savepoints name (never rename or remove it). */
    public static final class Snapshot
            extends SimpleTypeSerializerSnapshot<UserReceivedTransactions> {
        public Snapshot() {
            super(() -> INSTANCE);
        }
    }
}
