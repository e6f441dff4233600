package org.fraudpipe.job.transaction;

import java.util.Arrays;
import java.util.Objects;
import java.util.function.LongPredicate;

/**
 * One user's per-transaction state, as one value: the received transactions still needed (ids and
 * entries, in arrival order) and the largest event time that left ({@code evictedThrough}, see
 * {@link TrailingFeatureFunction}). Immutable: every change is a new value, so the heap backend's
 * copy-on-write snapshots never see it change under them.
 *
 * <p>Invariant: never empty. A user whose last entry left has no value at all (the state is
 * cleared), and a user's {@code evictedThrough} exists exactly as long as it has entries.
 */
public final class UserReceivedTransactions {

    private final long evictedThrough;
    private final String[] ids;
    private final ReceivedTransaction[] entries;

    UserReceivedTransactions(long evictedThrough, String[] ids, ReceivedTransaction[] entries) {
        if (ids.length != entries.length || ids.length == 0) {
            throw new IllegalArgumentException(
                    "a user's received transactions: as many ids as entries, at least one ("
                            + ids.length
                            + " ids, "
                            + entries.length
                            + " entries)");
        }
        this.evictedThrough = evictedThrough;
        this.ids = ids;
        this.entries = entries;
    }

    /** A user's first entry, its state starting from {@code evictedThrough}. */
    static UserReceivedTransactions first(
            long evictedThrough, String id, ReceivedTransaction entry) {
        return new UserReceivedTransactions(
                evictedThrough, new String[] {id}, new ReceivedTransaction[] {entry});
    }

    /**
     * The largest event time of an entry that left this user's state, or of a transaction never
     * stored because it arrived already past its eviction time, starting from what may have left
     * before the state started ({@link TrailingFeatureFunction#mayHaveLeft}; {@link Long#MIN_VALUE}
     * for nothing). What {@code historyComplete} is judged by: the state's own content, not the
     * watermark of the moment, so that two attempts that hold the same entries give the same flag.
     */
    public long evictedThrough() {
        return evictedThrough;
    }

    public int size() {
        return ids.length;
    }

    public String id(int i) {
        return ids[i];
    }

    public ReceivedTransaction entry(int i) {
        return entries[i];
    }

    /** The entry of this transaction id, or null. */
    ReceivedTransaction find(String id) {
        for (int i = 0; i < ids.length; i++) {
            if (ids[i].equals(id)) {
                return entries[i];
            }
        }
        return null;
    }

    /** This state with one more entry (an id not in it). */
    UserReceivedTransactions with(String id, ReceivedTransaction entry) {
        String[] i = Arrays.copyOf(ids, ids.length + 1);
        ReceivedTransaction[] e = Arrays.copyOf(entries, entries.length + 1);
        i[ids.length] = id;
        e[entries.length] = entry;
        return new UserReceivedTransactions(evictedThrough, i, e);
    }

    /** This state with another {@code evictedThrough}. */
    UserReceivedTransactions evictedThrough(long through) {
        return through == evictedThrough
                ? this
                : new UserReceivedTransactions(through, ids, entries);
    }

    /**
     * This state without the entries whose event time {@code leaves}, {@code evictedThrough} raised
     * to the largest of their event times; null if none is left.
     */
    UserReceivedTransactions without(LongPredicate leaves) {
        int kept = 0;
        long through = evictedThrough;
        String[] i = new String[ids.length];
        ReceivedTransaction[] e = new ReceivedTransaction[entries.length];
        for (int k = 0; k < ids.length; k++) {
            long eventTime = entries[k].eventTime();
            if (leaves.test(eventTime)) {
                through = Math.max(through, eventTime);
            } else {
                i[kept] = ids[k];
                e[kept] = entries[k];
                kept++;
            }
        }
        if (kept == 0) {
            return null;
        }
        if (kept == ids.length) {
            return this;
        }
        return new UserReceivedTransactions(
                through, Arrays.copyOf(i, kept), Arrays.copyOf(e, kept));
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof UserReceivedTransactions r
                && r.evictedThrough == evictedThrough
                && Arrays.equals(r.ids, ids)
                && Arrays.equals(r.entries, entries);
    }

    @Override
    public int hashCode() {
        return Objects.hash(evictedThrough, Arrays.hashCode(ids), Arrays.hashCode(entries));
    }

    @Override
    public String toString() {
        return "UserReceivedTransactions{evictedThrough="
                + evictedThrough
                + ", ids="
                + Arrays.toString(ids)
                + "}";
    }
}
