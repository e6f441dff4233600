package org.fraudpipe.job.topology;

/** Readable operator names of the feature job (web UI, logs, metric scopes). */
public final class OperatorNames {

    public static final String KAFKA_SOURCE = "Kafka transactions";
    public static final String KAFKA_SOURCE_TRANSACTIONS = "Kafka transactions (scores at arrival)";
    public static final String REPLAY_SOURCE = "Replay transactions";
    public static final String INGEST_ROUTER = "Ingest router";
    public static final String FEATURE_WINDOW = "Feature window";
    public static final String TOO_LATE_RECORDS = "Too-late records";
    public static final String PANE_METRICS = "Pane metrics";
    public static final String FEATURES_SINK = "Features to Kafka";
    public static final String LATE_SINK = "Late records to Kafka";
    public static final String DEAD_LETTERS_SINK = "Dead letters to Kafka";
    public static final String REPLAY_FEATURES_SINK = "Features to replay files";
    public static final String REPLAY_LATE_SINK = "Late records to replay files";
    public static final String REPLAY_SCORES_SINK = "Scores to replay files";
    public static final String SCORING = "Score panes";
    public static final String SCORES_SINK = "Scores to Kafka";
    public static final String REPLAY_DEAD_LETTERS_SINK = "Dead letters to replay files";
    public static final String ARCHIVE_RECEIVED = "Received transactions";
    public static final String ARCHIVE_POLICY = "Record policy in archive";
    public static final String ARCHIVE_TRANSACTIONS_SINK = "Transactions to archive";
    public static final String ARCHIVE_FEATURES_SINK = "Features to archive";
    public static final String ARCHIVE_SCORES_SINK = "Scores to archive";
    public static final String ARCHIVE_LATE_SINK = "Late records to archive";
    public static final String ARCHIVE_DEAD_LETTERS_SINK = "Dead letters to archive";
    public static final String TRANSACTIONS_TO_SCORE = "Transactions to score";
    public static final String TRAILING_FEATURES = "Trailing features";
    public static final String TRANSACTION_SCORING = "Score transactions";
    public static final String TRANSACTION_SCORES_SINK = "Transaction scores to Kafka";
    public static final String REPLAY_TRANSACTION_SCORES_SINK =
            "Transaction scores to replay files";
    public static final String ARCHIVE_TRANSACTION_SCORES_SINK = "Transaction scores to archive";
    public static final String READ_POSITIONS_WINDOWS = "Read position (windows)";
    public static final String READ_POSITIONS_DECISIONS = "Read position (decisions)";
    public static final String ARCHIVE_READ_POSITIONS_SINK = "Read positions to archive";
    public static final String MODEL_EVENTS_SOURCE = "Model registry";
    public static final String ARCHIVE_MODEL_EVENTS_SINK = "Model registry to archive";

    private OperatorNames() {}
}
