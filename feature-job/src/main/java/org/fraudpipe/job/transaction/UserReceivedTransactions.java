package org.fraudpipe.job.transaction;

import java.util.Objects;
import java.util.function.LongPredicate;

/**
 * One user's per-transaction state, as one value: the received transactions still needed, in two
 * {@link ReceivedEntries} sections, and the largest event time that left ({@code evictedThrough},
 * see {@link TrailingFeatureFunction}). Immutable: every change is a new value, so the heap
 * backend's copy-on-write snapshots never see it change under them.
 *
 * <p><b>Held</b> entries ({@link #held}) count in the trailing features of the user's later
 * transactions until the watermark reaches their eviction time. <b>Answered-only</b> entries
 * ({@link #answeredOnly}) count for no one (they count as left, in {@code evictedThrough}); they
 * are kept only so that a producer retry gets the first answer: a transaction that arrived already
 * past its eviction time, or a held one whose eviction time came before its {@code keptUntil}.
 *
 * <p>Invariant: never empty (held and answered-only together). A user with neither has no value at
 * all (the state is cleared), and a user's {@code evictedThrough} exists exactly as long as it has
 * either.
 */
public final class UserReceivedTransactions {

    private final long evictedThrough;
    private final ReceivedEntries held;
    private final ReceivedEntries answeredOnly;

    UserReceivedTransactions(
            long evictedThrough, ReceivedEntries held, ReceivedEntries answeredOnly) {
        if (held.size() + answeredOnly.size() == 0) {
            throw new IllegalArgumentException(
                    "a user's received transactions: at least one entry, held or answered only");
        }
        this.evictedThrough = evictedThrough;
        this.held = held;
        this.answeredOnly = answeredOnly;
    }

    /** A user's first entry, held, its state starting from {@code evictedThrough}. */
    static UserReceivedTransactions first(
            long evictedThrough, String id, ReceivedTransaction entry, long keptUntil) {
        return new UserReceivedTransactions(
                evictedThrough, ReceivedEntries.of(id, entry, keptUntil), ReceivedEntries.NONE);
    }

    /** A user's first entry, answered only, its state starting from {@code evictedThrough}. */
    static UserReceivedTransactions firstAnsweredOnly(
            long evictedThrough, String id, ReceivedTransaction entry, long keptUntil) {
        return new UserReceivedTransactions(
                evictedThrough, ReceivedEntries.NONE, ReceivedEntries.of(id, entry, keptUntil));
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
    public ReceivedEntries held() {
        return held;
    }

    /** Answered-only entries: kept for retries, never counted. */
    public ReceivedEntries answeredOnly() {
        return answeredOnly;
    }

    /** The entry of this transaction id, held or answered only, or null. */
    ReceivedTransaction find(String id) {
        ReceivedTransaction found = held.find(id);
        return found != null ? found : answeredOnly.find(id);
    }

    /**
     * This state with one more held entry (an id not in it), kept for retries until {@code until}.
     */
    UserReceivedTransactions with(String id, ReceivedTransaction entry, long until) {
        return new UserReceivedTransactions(
                evictedThrough, held.with(id, entry, until), answeredOnly);
    }

    /** This state with one more answered-only entry (an id not in it), kept until {@code until}. */
    UserReceivedTransactions withAnsweredOnly(String id, ReceivedTransaction entry, long until) {
        return new UserReceivedTransactions(
                evictedThrough, held, answeredOnly.with(id, entry, until));
    }

    /** This state with another {@code evictedThrough}. */
    UserReceivedTransactions evictedThrough(long through) {
        return through == evictedThrough
                ? this
                : new UserReceivedTransactions(through, held, answeredOnly);
    }

    /**
     * This state at {@code watermark}: the held entries whose event time {@code leaves} no longer
     * counted ({@code evictedThrough} raised to the largest of their event times), kept
     * answered-only if their {@code keptUntil} is later than the watermark; the answered-only
     * entries kept until the watermark or earlier gone. Null if nothing is left.
     */
    UserReceivedTransactions without(LongPredicate leaves, long watermark) {
        long through = evictedThrough;
        ReceivedEntries.Builder stay = new ReceivedEntries.Builder(held.size());
        ReceivedEntries.Builder answered =
                new ReceivedEntries.Builder(answeredOnly.size() + held.size());
        for (int k = 0; k < answeredOnly.size(); k++) {
            if (answeredOnly.keptUntil(k) > watermark) {
                answered.add(answeredOnly, k);
            }
        }
        for (int k = 0; k < held.size(); k++) {
            long eventTime = held.entry(k).eventTime();
            if (!leaves.test(eventTime)) {
                stay.add(held, k);
                continue;
            }
            through = Math.max(through, eventTime);
            if (held.keptUntil(k) > watermark) {
                answered.add(held, k);
            }
        }
        if (stay.size() + answered.size() == 0) {
            return null;
        }
        if (stay.size() == held.size() && answered.size() == answeredOnly.size()) {
            return this;
        }
        return new UserReceivedTransactions(through, stay.build(), answered.build());
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof UserReceivedTransactions r
                && r.evictedThrough == evictedThrough
                && r.held.equals(held)
                && r.answeredOnly.equals(answeredOnly);
    }

    @Override
    public int hashCode() {
        return Objects.hash(evictedThrough, held, answeredOnly);
    }

    @Override
    public String toString() {
        return "UserReceivedTransactions{evictedThrough="
                + evictedThrough
                + ", held="
                + held
                + ", answeredOnly="
                + answeredOnly
                + "}";
    }
}
