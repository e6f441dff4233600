package org.fraudpipe.job.topology;

/**
 * Stable operator uids of the feature job, all of them, in one place. They name the operators'
 * state in savepoints and checkpoints: changing one orphans that state (a restore then needs {@code
 * --allowNonRestoredState}, and e.g. the windows start empty or the Kafka source forgets its
 * offsets). Never change or reuse a value; add new ones.
 */
public final class Uids {

    /** Kafka source: partition offsets and watermark state. */
    public static final String KAFKA_SOURCE = "kafka-transactions-source";

    /**
     * The per-transaction path's own reading of the transactions topic (--transaction-source own).
     */
    public static final String KAFKA_SOURCE_TRANSACTIONS = "kafka-transactions-source-arrival";

    /** Replay file source: split and position. */
    public static final String REPLAY_SOURCE = "replay-transactions-source";

    /** Routes ingested records to their fate (stateless; uid kept stable anyway). */
    public static final String INGEST_ROUTER = "ingest-router";

    /**
     * The keyed tumbling window ({@code FeatureWindowFunction}): one state entry per user and live
     * window (accumulator and pane bookkeeping), one timer per window.
     */
    public static final String FEATURE_WINDOW = "feature-windows";

    /**
     * The first release's window operator (Flink's {@code WindowOperator}: window contents, pane
     * progress and late-firing flag per window, two timers). No operator of this build has it: a
     * savepoint holding it is migrated with {@code ./fraud savepoint migrate} (its state becomes
     * {@link #FEATURE_WINDOW}'s) and refused, with that advice, before a restore.
     */
    public static final String FEATURE_WINDOW_V1 = "feature-window";

    /** Too-late transactions to {@code LateRecord} (stateless). */
    public static final String TOO_LATE_RECORDS = "too-late-records";

    /** Counts panes and measures emit delay (stateless). */
    public static final String PANE_METRICS = "pane-metrics";

    /** Exactly-once Kafka sinks: their pending transactions live in checkpoints. */
    public static final String FEATURES_SINK = "features-sink";

    public static final String LATE_SINK = "late-sink";
    public static final String SCORES_SINK = "scores-sink";

    /** Inline batch scoring (stateless: its buffer is flushed before every checkpoint). */
    public static final String SCORING = "pane-scoring";

    public static final String DEAD_LETTERS_SINK = "dead-letters-sink";

    /** Valid transactions on their way to the per-transaction path (stateless filter). */
    public static final String TRANSACTIONS_TO_SCORE = "transactions-to-score";

    /**
     * The per-transaction path's trailing features ({@code TrailingFeatureFunction}): per user, one
     * state entry per received transaction still needed, one coalesced timer; and the highest
     * watermark seen in operator state.
     */
    public static final String TRAILING_FEATURES = "trailing-features";

    /** Per-transaction scoring (stateless: its buffer is flushed before every checkpoint). */
    public static final String TRANSACTION_SCORING = "transaction-scoring";

    /**
     * Kafka sink of the transaction scores: at-least-once (no state) or exactly-once (pending
     * transactions in checkpoints), by option.
     */
    public static final String TRANSACTION_SCORES_SINK = "transaction-scores-sink";

    public static final String REPLAY_TRANSACTION_SCORES_SINK = "replay-transaction-scores-sink";
    public static final String ARCHIVE_TRANSACTION_SCORES_SINK = "archive-transaction-scores-sink";

    /** Replay file sinks (staging files; a replay runs without checkpoints). */
    public static final String REPLAY_FEATURES_SINK = "replay-features-sink";

    public static final String REPLAY_LATE_SINK = "replay-late-sink";
    public static final String REPLAY_SCORES_SINK = "replay-scores-sink";
    public static final String REPLAY_DEAD_LETTERS_SINK = "replay-dead-letters-sink";

    /** Valid ingested records to their archive record (stateless). */
    public static final String ARCHIVE_RECEIVED = "archive-received-transactions";

    /** Records the job's event-time policy in the archive (stateless, passes records through). */
    public static final String ARCHIVE_POLICY = "archive-policy";

    /**
     * Archive file sinks: their in-progress and pending part files live in checkpoints (committed
     * when the checkpoint completes).
     */
    public static final String ARCHIVE_TRANSACTIONS_SINK = "archive-transactions-sink";

    public static final String ARCHIVE_FEATURES_SINK = "archive-features-sink";
    public static final String ARCHIVE_SCORES_SINK = "archive-scores-sink";
    public static final String ARCHIVE_LATE_SINK = "archive-late-sink";
    public static final String ARCHIVE_DEAD_LETTERS_SINK = "archive-dead-letters-sink";

    /**
     * Where the window path's reader stands ({@code ReadPositionsOperator}): its positions per
     * partition in union list state.
     */
    public static final String READ_POSITIONS_WINDOWS = "read-positions-windows";

    /** Where the per-transaction path's reader stands, likewise. */
    public static final String READ_POSITIONS_DECISIONS = "read-positions-decisions";

    public static final String ARCHIVE_READ_POSITIONS_SINK = "archive-read-positions-sink";

    /** The model registry topic, read for the archive (its offsets in the checkpoint). */
    public static final String MODEL_EVENTS_SOURCE = "model-events-source";

    public static final String ARCHIVE_MODEL_EVENTS_SINK = "archive-model-events-sink";

    private Uids() {}
}
