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
        ReceivedTransactionSerializer.writeVarLong(r.size(), out);
        for (int i = 0; i < r.size(); i++) {
            writeEntry(r.id(i), r.entry(i), r.heldKeptUntil(i), out);
        }
        ReceivedTransactionSerializer.writeVarLong(r.answeredOnlySize(), out);
        for (int i = 0; i < r.answeredOnlySize(); i++) {
            writeEntry(r.answeredOnlyId(i), r.answeredOnly(i), r.keptUntil(i), out);
        }
    }

    private static void writeEntry(
            String id, ReceivedTransaction entry, long keptUntil, DataOutputView out)
            throws IOException {
        StringValueCodec.write(id, out);
        ReceivedTransactionSerializer.INSTANCE.serialize(entry, out);
        out.writeLong(keptUntil);
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
        Section held = Section.read(in, "held", !first);
        Section answered = first ? Section.NONE : Section.read(in, "answered-only", true);
        if (held.ids.length + answered.ids.length == 0 || first && held.ids.length == 0) {
            throw new IOException("corrupt per-user received-transactions state: no entries");
        }
        return new UserReceivedTransactions(
                evictedThrough,
                held.ids,
                held.entries,
                held.keptUntil,
                answered.ids,
                answered.entries,
                answered.keptUntil);
    }

    /** The held or the answered-only entries of a value, as read. */
    private record Section(String[] ids, ReceivedTransaction[] entries, long[] keptUntil) {

        static final Section NONE =
                new Section(new String[0], new ReceivedTransaction[0], new long[0]);

        /** Without {@code keptUntil} (format 1), each is read as {@link Long#MIN_VALUE}. */
        static Section read(DataInputView in, String what, boolean withKeptUntil)
                throws IOException {
            long n = ReceivedTransactionSerializer.readVarLong(in);
            if (n < 0 || n > Integer.MAX_VALUE) {
                throw new IOException(
                        "corrupt per-user received-transactions state: "
                                + n
                                + " "
                                + what
                                + " entries");
            }
            Section s =
                    new Section(
                            new String[(int) n],
                            new ReceivedTransaction[(int) n],
                            new long[(int) n]);
            for (int i = 0; i < n; i++) {
                s.ids[i] = StringValueCodec.read(in);
                s.entries[i] = ReceivedTransactionSerializer.INSTANCE.deserialize(in);
                s.keptUntil[i] = withKeptUntil ? in.readLong() : Long.MIN_VALUE;
            }
            return s;
        }
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
