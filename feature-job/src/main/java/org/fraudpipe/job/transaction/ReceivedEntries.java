package org.fraudpipe.job.transaction;

import java.util.Arrays;
import java.util.Objects;

/**
 * One section of a user's per-transaction state ({@link UserReceivedTransactions}): received
 * transactions by id, in arrival order, each with its {@code keptUntil}, the watermark up to which
 * a retry of it gets its answer. Immutable.
 */
public final class ReceivedEntries {

    static final ReceivedEntries NONE =
            new ReceivedEntries(new String[0], new ReceivedTransaction[0], new long[0]);

    private final String[] ids;
    private final ReceivedTransaction[] entries;
    private final long[] keptUntil;

    ReceivedEntries(String[] ids, ReceivedTransaction[] entries, long[] keptUntil) {
        if (ids.length != entries.length || ids.length != keptUntil.length) {
            throw new IllegalArgumentException(
                    "received entries: "
                            + ids.length
                            + " ids, "
                            + entries.length
                            + " entries, "
                            + keptUntil.length
                            + " times");
        }
        this.ids = ids;
        this.entries = entries;
        this.keptUntil = keptUntil;
    }

    /** One entry. */
    static ReceivedEntries of(String id, ReceivedTransaction entry, long keptUntil) {
        return new ReceivedEntries(
                new String[] {id}, new ReceivedTransaction[] {entry}, new long[] {keptUntil});
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

    /**
     * The watermark up to which a retry of entry {@code i} gets its answer; {@link Long#MIN_VALUE}
     * for a held entry restored from a value without one (its eviction time).
     */
    public long keptUntil(int i) {
        return keptUntil[i];
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

    /** These entries and one more (an id not in them). */
    ReceivedEntries with(String id, ReceivedTransaction entry, long until) {
        Builder b = new Builder(ids.length + 1);
        for (int i = 0; i < ids.length; i++) {
            b.add(this, i);
        }
        b.add(id, entry, until);
        return b.build();
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof ReceivedEntries r
                && Arrays.equals(r.ids, ids)
                && Arrays.equals(r.entries, entries)
                && Arrays.equals(r.keptUntil, keptUntil);
    }

    @Override
    public int hashCode() {
        return Objects.hash(Arrays.hashCode(ids), Arrays.hashCode(entries));
    }

    @Override
    public String toString() {
        return Arrays.toString(ids);
    }

    /** Entries picked from others, up to a capacity. */
    static final class Builder {
        private final String[] ids;
        private final ReceivedTransaction[] entries;
        private final long[] keptUntil;
        private int n;

        Builder(int capacity) {
            ids = new String[capacity];
            entries = new ReceivedTransaction[capacity];
            keptUntil = new long[capacity];
        }

        /** Adds entry {@code i} of {@code from}. */
        void add(ReceivedEntries from, int i) {
            add(from.ids[i], from.entries[i], from.keptUntil[i]);
        }

        void add(String id, ReceivedTransaction entry, long until) {
            ids[n] = id;
            entries[n] = entry;
            keptUntil[n++] = until;
        }

        int size() {
            return n;
        }

        ReceivedEntries build() {
            return n == 0
                    ? NONE
                    : new ReceivedEntries(
                            Arrays.copyOf(ids, n),
                            Arrays.copyOf(entries, n),
                            Arrays.copyOf(keptUntil, n));
        }
    }
}
