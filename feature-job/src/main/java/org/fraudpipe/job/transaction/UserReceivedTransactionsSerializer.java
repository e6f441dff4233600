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
 * <p>Format 2: a format byte (2), {@code evictedThrough} (8 bytes), the number of held entries
 * (unsigned varint), per held entry its transaction id in Flink's {@link StringValue} encoding, the
 * entry as {@link ReceivedTransactionSerializer} writes it (its own format byte included) and its
 * {@code keptUntil} (8 bytes), then the number of answered-only entries (unsigned varint) and each
 * the same way. About 95 bytes per entry with the simulator's ids.
 *
 * <p>Format 1 (read, never written): held entries only, without {@code keptUntil} (read as {@link
 * Long#MIN_VALUE}: kept for retries until the eviction time, as that build did), at least one. A
 * build that writes format 1 refuses format 2 with a message naming both.
 *
 * <p>Compatibility as {@link ReceivedTransactionSerializer}'s: the format byte lets a later build
 * read this one's values (a new format is a new reader here, never a change in place).
 */
public final class UserReceivedTransactionsSerializer
        extends ImmutableValueSerializer<UserReceivedTransactions> {

    private static final long serialVersionUID = 1L;

    /** The format this build writes. */
    static final int FORMAT = 2;

    /** The format of the first per-user layout, without answered-only entries (read only). */
    static final int FORMAT_WITHOUT_ANSWERED_ONLY = 1;

    public static final UserReceivedTransactionsSerializer INSTANCE =
            new UserReceivedTransactionsSerializer();

    private UserReceivedTransactionsSerializer() {}

    @Override
    public void serialize(UserReceivedTransactions r, DataOutputView out) throws IOException {
        out.writeByte(FORMAT);
        out.writeLong(r.evictedThrough());
        write(r.held(), out);
        write(r.answeredOnly(), out);
    }

    private static void write(ReceivedEntries entries, DataOutputView out) throws IOException {
        ReceivedTransactionSerializer.writeVarLong(entries.size(), out);
        for (int i = 0; i < entries.size(); i++) {
            StringValueCodec.write(entries.id(i), out);
            ReceivedTransactionSerializer.INSTANCE.serialize(entries.entry(i), out);
            out.writeLong(entries.keptUntil(i));
        }
    }

    @Override
    public UserReceivedTransactions deserialize(DataInputView in) throws IOException {
        int format = in.readUnsignedByte();
        if (format != FORMAT && format != FORMAT_WITHOUT_ANSWERED_ONLY) {
            throw new IOException(
                    "per-user received-transactions state in format "
                            + format
                            + ", which this build cannot read (it reads formats "
                            + FORMAT_WITHOUT_ANSWERED_ONLY
                            + " and "
                            + FORMAT
                            + "): restore it with the build that wrote it or a newer one");
        }
        boolean first = format == FORMAT_WITHOUT_ANSWERED_ONLY;
        long evictedThrough = in.readLong();
        ReceivedEntries held = read(in, "held", !first);
        ReceivedEntries answered = first ? ReceivedEntries.NONE : read(in, "answered-only", true);
        if (held.size() + answered.size() == 0 || first && held.size() == 0) {
            throw new IOException("corrupt per-user received-transactions state: no entries");
        }
        return new UserReceivedTransactions(evictedThrough, held, answered);
    }

    /** Without {@code keptUntil} (format 1), each is read as {@link Long#MIN_VALUE}. */
    private static ReceivedEntries read(DataInputView in, String what, boolean withKeptUntil)
            throws IOException {
        long n = ReceivedTransactionSerializer.readVarLong(in);
        if (n < 0 || n > Integer.MAX_VALUE) {
            throw new IOException(
                    "corrupt per-user received-transactions state: " + n + " " + what + " entries");
        }
        ReceivedEntries.Builder entries = new ReceivedEntries.Builder((int) n);
        for (int i = 0; i < n; i++) {
            String id = StringValueCodec.read(in);
            ReceivedTransaction entry = ReceivedTransactionSerializer.INSTANCE.deserialize(in);
            entries.add(id, entry, withKeptUntil ? in.readLong() : Long.MIN_VALUE);
        }
        return entries.build();
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
