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
            StringValueCodec.write(r.id(i), out);
            ReceivedTransactionSerializer.INSTANCE.serialize(r.entry(i), out);
            out.writeLong(r.heldKeptUntil(i));
        }
        ReceivedTransactionSerializer.writeVarLong(r.answeredOnlySize(), out);
        for (int i = 0; i < r.answeredOnlySize(); i++) {
            StringValueCodec.write(r.answeredOnlyId(i), out);
            ReceivedTransactionSerializer.INSTANCE.serialize(r.answeredOnly(i), out);
            out.writeLong(r.keptUntil(i));
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
        long evictedThrough = in.readLong();
        int held = count(in, "held");
        String[] ids = new String[held];
        ReceivedTransaction[] entries = new ReceivedTransaction[held];
        long[] heldKeptUntil = new long[held];
        for (int i = 0; i < held; i++) {
            ids[i] = StringValueCodec.read(in);
            entries[i] = ReceivedTransactionSerializer.INSTANCE.deserialize(in);
            heldKeptUntil[i] = format == FORMAT ? in.readLong() : Long.MIN_VALUE;
        }
        int answeredOnly = format == FORMAT ? count(in, "answered-only") : 0;
        if (held + answeredOnly == 0 || format == FORMAT_WITHOUT_ANSWERED_ONLY && held == 0) {
            throw new IOException("corrupt per-user received-transactions state: no entries");
        }
        String[] answeredIds = new String[answeredOnly];
        ReceivedTransaction[] answered = new ReceivedTransaction[answeredOnly];
        long[] keptUntil = new long[answeredOnly];
        for (int i = 0; i < answeredOnly; i++) {
            answeredIds[i] = StringValueCodec.read(in);
            answered[i] = ReceivedTransactionSerializer.INSTANCE.deserialize(in);
            keptUntil[i] = in.readLong();
        }
        return new UserReceivedTransactions(
                evictedThrough, ids, entries, heldKeptUntil, answeredIds, answered, keptUntil);
    }

    private static int count(DataInputView in, String what) throws IOException {
        long n = ReceivedTransactionSerializer.readVarLong(in);
        if (n < 0 || n > Integer.MAX_VALUE) {
            throw new IOException(
                    "corrupt per-user received-transactions state: " + n + " " + what + " entries");
        }
        return (int) n;
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
