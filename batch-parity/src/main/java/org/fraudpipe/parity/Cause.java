package org.fraudpipe.parity;

/**
 * Why a window's served features differ from the ideal recomputation (or {@link #MATCH}). A cause
 * other than MATCH is only given when it is exact: the served value equals the ideal value
 * recomputed without the records the cause names (or, for {@link #DUPLICATE}, with the streaming
 * job's choice among conflicting duplicates). Otherwise the window is {@link #UNEXPLAINED}.
 *
 * <p>Declared in priority order: a window with several causes reports the first as its main cause
 * and all of them in its cause list. The served-side alarms (a regression, a disagreement between
 * Kafka and the archive) come first: they say why a served value is wrong, where UNEXPLAINED only
 * says that it is.
 */
public enum Cause {
    /** The last served revision equals the ideal value. */
    MATCH(true),
    /**
     * Served values went backwards: in write order (Kafka offsets; in the archive, emission time
     * then revision) a pane or score came after another of the same window with a higher revision,
     * or with the same revision and other values. An upsert reader held (or holds) the older value.
     */
    REVISION_REGRESSED(false),
    /**
     * The archive holds a pane or score as served that the compacted topic does not hold as its
     * last value (e.g. a Kafka transaction aborted on timeout after the archive committed).
     */
    LOST_IN_KAFKA(false),
    /** The compacted topic's last value of the window is no pane or score the archive holds. */
    EXTRA_IN_KAFKA(false),
    /**
     * Served differs and no exact explanation exists, or the served side holds records the archive
     * lacks: a bug or data loss. The alarm.
     */
    UNEXPLAINED(false),
    /**
     * The ideal window has transactions but streaming never served it, and they are not all
     * explained by the late and dead-letter streams.
     */
    MISSING_IN_STREAM(false),
    /** Streaming served a window for which the archive holds no transaction. */
    EXTRA_IN_STREAM(false),
    /** Explained by transactions in the late stream (too late even for allowed lateness). */
    LATE_DROPPED(true),
    /** Explained by future-dated transactions the job quarantined (late stream, FUTURE_DATED). */
    QUARANTINED(true),
    /** Explained by archived transactions whose Kafka record the job dead-lettered. */
    DEAD_LETTERED(true),
    /**
     * Explained by conflicting duplicates (one transactionId, different payloads): streaming kept
     * the first to arrive, batch the first in event time.
     */
    DUPLICATE(true);

    private final boolean explained;

    Cause(boolean explained) {
        this.explained = explained;
    }

    /**
     * Whether the pipeline behaved as designed: the difference (if any) is the documented cost of
     * the lateness policy, quarantine, dead-lettering or the duplicate rule. The others are alarms.
     */
    public boolean isExplained() {
        return explained;
    }
}
