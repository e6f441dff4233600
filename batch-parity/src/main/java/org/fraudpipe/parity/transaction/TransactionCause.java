package org.fraudpipe.parity.transaction;

/**
 * Why a scored transaction's served features differ from its ideal recomputation (or {@link
 * #MATCH}), or what is wrong with its score. A cause other than MATCH that is not an alarm is only
 * given when it is exact: the served features equal the ideal recomputed without the records the
 * causes name, in arrival order. Otherwise the transaction is {@link #UNEXPLAINED}.
 *
 * <p>Declared in priority order: a transaction with several causes reports the first as its main
 * cause and all of them in its cause list. The alarms come first: they say what is wrong with what
 * was served, where an explained cause says why a correct answer differs from the ideal.
 */
public enum TransactionCause {
    /** The served features equal the ideal recomputation (and every answer agrees). */
    MATCH(true),
    /**
     * One transaction id answered with different values (features, score, decision or model): a
     * consumer got two answers for one payment. Also when the job's documented limit caused it (a
     * retry arriving after its original left the state is scored again); the note says which.
     */
    RETRY_CONFLICT(false),
    /**
     * The served features are not the as-of-arrival recomputation (a bug or lost data), or they
     * differ from the ideal without an exact explanation, or the archive contradicts the score's
     * {@code historyComplete} flag.
     */
    UNEXPLAINED(false),
    /**
     * An archived valid, not future-dated transaction id without a score (or with fewer answers
     * than its archived arrivals): a score lost between the stream and the archive, or never made.
     */
    MISSING_SCORE(false),
    /**
     * A score without an archived valid, not future-dated transaction of its user and id (or more
     * answers than arrivals): the archive lost the transaction, or the job scored what it should
     * not have.
     */
    EXTRA_SCORE(false),
    /**
     * The user's archived records came from more than one Kafka partition, so their arrival order
     * is not defined by offsets and the as-of-arrival recomputation cannot be checked: reported,
     * not guessed. The input topic must be keyed by user.
     */
    ARRIVAL_ORDER_UNKNOWN(false),
    /**
     * Scored, but the archive cannot hold the arrival yet: the window path's reader, which feeds
     * the archive of received transactions, had not reached its offset when the archive was last
     * committed (the score's {@code sourceOffset} is at or after that reader's recorded position).
     * Two readers of one topic stand at two positions; a drain ends both where they stand. A score
     * whose arrival the reader had passed and that the archive still lacks stays EXTRA_SCORE.
     */
    NOT_YET_ARCHIVED(true),
    /**
     * Archived, but not scored yet: the per-transaction path's reader had not reached the arrival's
     * offset (at or after that reader's recorded position). An arrival it had passed without a
     * score stays MISSING_SCORE.
     */
    NOT_YET_SCORED(true),
    /**
     * Records of the trailing window (event time in {@code (t - T, t]}) arrived after the scored
     * transaction: the answer could not count them. Named, with how late they were.
     */
    ARRIVED_LATER(true),
    /**
     * Records of the trailing window had left the job's state when the transaction arrived (the
     * state bound: an entry is evicted when the watermark reaches its event time + T + allowed
     * lateness); the score says {@code historyComplete=false}.
     */
    EVICTED(true),
    /** Records of the trailing window were future-dated on arrival and quarantined (no state). */
    QUARANTINED(true),
    /** Records of the trailing window were archived as valid, but the job dead-lettered them. */
    DEAD_LETTERED(true),
    /**
     * A conflicting duplicate (one transactionId, different payloads): the first copy received,
     * which the ideal counts, never reached the state (quarantined, dead-lettered, evicted or
     * later), so the answer counted another copy's payload.
     */
    DUPLICATE(true);

    private final boolean explained;

    TransactionCause(boolean explained) {
        this.explained = explained;
    }

    /**
     * Whether the path behaved as designed: the difference (if any) is the documented cost of
     * scoring at arrival, the state bound, quarantine, dead-lettering or the duplicate rule. The
     * others are alarms.
     */
    public boolean isExplained() {
        return explained;
    }
}
