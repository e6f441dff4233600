package org.fraudpipe.job.transaction;

import java.util.Arrays;
import java.util.Objects;
import java.util.function.LongPredicate;

/**
 * One user's per-transaction state, as one value: the received transactions still needed (ids and
 * entries, in arrival order), the largest event time that left ({@code evictedThrough}, see {@link
 * TrailingFeatureFunction}), and how long each answer is kept for retries. Immutable: every change
 * is a new value, so the heap backend's copy-on-write snapshots never see it change under them.
 *
 * <p><b>Held</b> entries ({@link #size}, {@link #id}, {@link #entry}) count in the trailing
 * features of the user's later transactions until the watermark reaches their eviction time.
 * <b>Answered-only</b> entries ({@link #answeredOnlySize} ...) count for no one (they count as
 * left, in {@code evictedThrough}); they are kept only so that a producer retry gets the first
 * answer: a transaction that arrived already past its eviction time, or a held one whose eviction
 * time came before its {@code keptUntil}. Every entry has a {@code keptUntil}, the watermark up to
 * which a retry of it gets its answer ({@link Long#MIN_VALUE} for a held entry restored from a
 * value without one: its eviction time).
 *
 * <p>Invariant: never empty (held and answered-only together). A user with neither has no value at
 * all (the state is cleared), and a user's {@code evictedThrough} exists exactly as long as it has
 * either.
 */
public final class UserReceivedTransactions {

    private static final String[] NO_IDS = {};
    private static final ReceivedTransaction[] NO_ENTRIES = {};
    private static final long[] NO_TIMES = {};

    private final long evictedThrough;
    private final String[] ids;
    private final ReceivedTransaction[] entries;
    private final long[] heldKeptUntil;
    private final String[] answeredIds;
    private final ReceivedTransaction[] answered;
    private final long[] keptUntil;

    UserReceivedTransactions(
            long evictedThrough,
            String[] ids,
            ReceivedTransaction[] entries,
            long[] heldKeptUntil,
            String[] answeredIds,
            ReceivedTransaction[] answered,
            long[] keptUntil) {
        if (ids.length != entries.length
                || ids.length != heldKeptUntil.length
                || answeredIds.length != answered.length
                || answeredIds.length != keptUntil.length
                || ids.length + answeredIds.length == 0) {
            throw new IllegalArgumentException(
                    "a user's received transactions: as many ids as entries, at least one ("
                            + ids.length
                            + " ids, "
                            + entries.length
                            + " entries, "
                            + heldKeptUntil.length
                            + " times held; "
                            + answeredIds.length
                            + " ids, "
                            + answered.length
                            + " entries, "
                            + keptUntil.length
                            + " times answered only)");
        }
        this.evictedThrough = evictedThrough;
        this.ids = ids;
        this.entries = entries;
        this.heldKeptUntil = heldKeptUntil;
        this.answeredIds = answeredIds;
        this.answered = answered;
        this.keptUntil = keptUntil;
    }

    /** A user's first entry, held, its state starting from {@code evictedThrough}. */
    static UserReceivedTransactions first(
            long evictedThrough, String id, ReceivedTransaction entry, long keptUntil) {
        return new UserReceivedTransactions(
                evictedThrough,
                new String[] {id},
                new ReceivedTransaction[] {entry},
                new long[] {keptUntil},
                NO_IDS,
                NO_ENTRIES,
                NO_TIMES);
    }

    /** A user's first entry, answered only, its state starting from {@code evictedThrough}. */
    static UserReceivedTransactions firstAnsweredOnly(
            long evictedThrough, String id, ReceivedTransaction entry, long keptUntil) {
        return new UserReceivedTransactions(
                evictedThrough,
                NO_IDS,
                NO_ENTRIES,
                NO_TIMES,
                new String[] {id},
                new ReceivedTransaction[] {entry},
                new long[] {keptUntil});
    }

    /**
     * The largest event time of an entry that left this user's state, or of a transaction never
     * held because it arrived already past its eviction time, starting from what may have left
     * before the state started ({@link TrailingFeatureFunction#mayHaveLeft}; {@link Long#MIN_VALUE}
     * for nothing). What {@code historyComplete} is judged by: the state's own content, not the
     * watermark of the moment, so that two attempts that hold the same entries give the same flag.
     */
    public long evictedThrough() {
        return evictedThrough;
    }

    /** Held entries: those counted in later transactions' features. */
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
     * The watermark up to which a retry of held entry {@code i} gets its answer (after its eviction
     * time, as an answered-only entry), or {@link Long#MIN_VALUE}: its eviction time.
     */
    public long heldKeptUntil(int i) {
        return heldKeptUntil[i];
    }

    /** Answered-only entries: kept for retries, never counted. */
    public int answeredOnlySize() {
        return answeredIds.length;
    }

    public String answeredOnlyId(int i) {
        return answeredIds[i];
    }

    public ReceivedTransaction answeredOnly(int i) {
        return answered[i];
    }

    /** The watermark at which answered-only entry {@code i} leaves. */
    public long keptUntil(int i) {
        return keptUntil[i];
    }

    /** The entry of this transaction id, held or answered only, or null. */
    ReceivedTransaction find(String id) {
        for (int i = 0; i < ids.length; i++) {
            if (ids[i].equals(id)) {
                return entries[i];
            }
        }
        for (int i = 0; i < answeredIds.length; i++) {
            if (answeredIds[i].equals(id)) {
                return answered[i];
            }
        }
        return null;
    }

    /**
     * This state with one more held entry (an id not in it), kept for retries until {@code until}.
     */
    UserReceivedTransactions with(String id, ReceivedTransaction entry, long until) {
        String[] i = Arrays.copyOf(ids, ids.length + 1);
        ReceivedTransaction[] e = Arrays.copyOf(entries, entries.length + 1);
        long[] u = Arrays.copyOf(heldKeptUntil, heldKeptUntil.length + 1);
        i[ids.length] = id;
        e[entries.length] = entry;
        u[heldKeptUntil.length] = until;
        return new UserReceivedTransactions(
                evictedThrough, i, e, u, answeredIds, answered, keptUntil);
    }

    /** This state with one more answered-only entry (an id not in it), kept until {@code until}. */
    UserReceivedTransactions withAnsweredOnly(String id, ReceivedTransaction entry, long until) {
        String[] i = Arrays.copyOf(answeredIds, answeredIds.length + 1);
        ReceivedTransaction[] e = Arrays.copyOf(answered, answered.length + 1);
        long[] u = Arrays.copyOf(keptUntil, keptUntil.length + 1);
        i[answeredIds.length] = id;
        e[answered.length] = entry;
        u[keptUntil.length] = until;
        return new UserReceivedTransactions(evictedThrough, ids, entries, heldKeptUntil, i, e, u);
    }

    /** This state with another {@code evictedThrough}. */
    UserReceivedTransactions evictedThrough(long through) {
        return through == evictedThrough
                ? this
                : new UserReceivedTransactions(
                        through, ids, entries, heldKeptUntil, answeredIds, answered, keptUntil);
    }

    /**
     * This state at {@code watermark}: the held entries whose event time {@code leaves} no longer
     * counted ({@code evictedThrough} raised to the largest of their event times), kept
     * answered-only if their {@code keptUntil} is later than the watermark; the answered-only
     * entries kept until the watermark or earlier gone. Null if nothing is left.
     */
    UserReceivedTransactions without(LongPredicate leaves, long watermark) {
        int kept = 0;
        long through = evictedThrough;
        String[] i = new String[ids.length];
        ReceivedTransaction[] e = new ReceivedTransaction[entries.length];
        long[] u = new long[heldKeptUntil.length];
        int keptAnswered = 0;
        String[] ai = new String[answeredIds.length + ids.length];
        ReceivedTransaction[] ae = new ReceivedTransaction[ai.length];
        long[] au = new long[ai.length];
        for (int k = 0; k < answeredIds.length; k++) {
            if (keptUntil[k] > watermark) {
                ai[keptAnswered] = answeredIds[k];
                ae[keptAnswered] = answered[k];
                au[keptAnswered] = keptUntil[k];
                keptAnswered++;
            }
        }
        for (int k = 0; k < ids.length; k++) {
            long eventTime = entries[k].eventTime();
            if (!leaves.test(eventTime)) {
                i[kept] = ids[k];
                e[kept] = entries[k];
                u[kept] = heldKeptUntil[k];
                kept++;
                continue;
            }
            through = Math.max(through, eventTime);
            if (heldKeptUntil[k] > watermark) {
                ai[keptAnswered] = ids[k];
                ae[keptAnswered] = entries[k];
                au[keptAnswered] = heldKeptUntil[k];
                keptAnswered++;
            }
        }
        if (kept + keptAnswered == 0) {
            return null;
        }
        if (kept == ids.length && keptAnswered == answeredIds.length) {
            return this;
        }
        return new UserReceivedTransactions(
                through,
                Arrays.copyOf(i, kept),
                Arrays.copyOf(e, kept),
                Arrays.copyOf(u, kept),
                Arrays.copyOf(ai, keptAnswered),
                Arrays.copyOf(ae, keptAnswered),
                Arrays.copyOf(au, keptAnswered));
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof UserReceivedTransactions r
                && r.evictedThrough == evictedThrough
                && Arrays.equals(r.ids, ids)
                && Arrays.equals(r.entries, entries)
                && Arrays.equals(r.heldKeptUntil, heldKeptUntil)
                && Arrays.equals(r.answeredIds, answeredIds)
                && Arrays.equals(r.answered, answered)
                && Arrays.equals(r.keptUntil, keptUntil);
    }

    @Override
    public int hashCode() {
        return Objects.hash(
                evictedThrough,
                Arrays.hashCode(ids),
                Arrays.hashCode(entries),
                Arrays.hashCode(answeredIds));
    }

    @Override
    public String toString() {
        return "UserReceivedTransactions{evictedThrough="
                + evictedThrough
                + ", ids="
                + Arrays.toString(ids)
                + ", answeredOnly="
                + Arrays.toString(answeredIds)
                + "}";
    }
}
