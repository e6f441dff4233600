package org.fraudpipe.job.config;

/**
 * Every option of the streaming job, in one place: its name (the same on the command line as {@code
 * --NAME} and in a properties file as {@code NAME}), its default and its documentation. The CLI's
 * {@code --help} and the README's configuration reference are generated from, or checked against,
 * this list; {@link JobConfig} gives them types and validates them.
 */
public enum JobOption {
    // Event time and windows
    WINDOW_SIZE("window-size", "10m", "Tumbling event-time window size."),
    OUT_OF_ORDERNESS(
            "out-of-orderness",
            "5s",
            "Watermark bound: the watermark trails the largest event time seen by this much. Records"
                    + " behind the watermark whose window is still open are still counted."),
    IDLENESS(
            "idleness",
            "1m",
            "A source partition without records for this long stops holding the watermark back."),
    ALLOWED_LATENESS(
            "allowed-lateness",
            "2m",
            "How long after its end a window still accepts records and re-fires a corrected result."
                    + " Records later than that go to the late topic. State per user grows with"
                    + " allowed-lateness / window-size + 1 live windows."),
    FUTURE_TOLERANCE(
            "future-tolerance",
            "5m",
            "Records whose event time is beyond their arrival (the Kafka record timestamp:"
                    + " the broker's append time on a LogAppendTime topic) plus this are"
                    + " quarantined as FUTURE_DATED before they can move the watermark."),

    // Scoring
    MODEL(
            "model",
            "",
            "ONNX model file scoring every pane; empty: the default model shipped in the scoring"
                    + " jar. Checked at start-up against the feature layout."),
    REVIEW_THRESHOLD(
            "review-threshold", "0.5", "Score at or above which a window's decision is REVIEW."),
    BLOCK_THRESHOLD(
            "block-threshold",
            "0.9",
            "Score at or above which a window's decision is BLOCK (at least the review threshold)."),
    SCORING_BATCH_SIZE(
            "scoring-batch-size",
            "512",
            "Most panes scored in one model call; a window-close burst is scored in such batches."),
    SCORING_MAX_DELAY(
            "scoring-max-delay",
            "100ms",
            "Longest a pane waits for its batch between watermarks (late re-fires); bursts are"
                    + " flushed at the watermark, and everything before each checkpoint."),

    // State and checkpoints
    STATE_BACKEND("state-backend", "rocksdb", "rocksdb (incremental checkpoints) or hashmap."),
    CHECKPOINT_INTERVAL(
            "checkpoint-interval",
            "10s",
            "Exactly-once checkpoint interval; Kafka output becomes visible to read_committed readers"
                    + " at each checkpoint."),
    CHECKPOINT_DIR(
            "checkpoint-dir",
            "file:///tmp/fraudpipe/checkpoints",
            "Durable checkpoint directory (a URI: file://, s3://, hdfs://)."),
    PARALLELISM("parallelism", "2", "Parallelism of the job's operators."),
    MAX_PARALLELISM(
            "max-parallelism",
            "128",
            "Key groups; fixed for the life of the job's state (savepoints depend on it)."),

    // Archive
    ARCHIVE_DIR(
            "archive-dir",
            ".fraud/archive",
            "Where the job archives every valid transaction it receives and every feature, score,"
                    + " late record and dead letter it writes (Avro files in hour partitions,"
                    + " committed at checkpoints), for the batch parity check: a file system URI"
                    + " (file:///..., s3://..., hdfs://...), a local path (a relative one is under"
                    + " the project root; local runs only), or none to archive nothing (parity then"
                    + " cannot run). On a cluster: a file system every TaskManager shares."),

    // Kafka
    BOOTSTRAP_SERVERS("bootstrap-servers", "localhost:9092", "Kafka bootstrap servers."),
    SCHEMA_REGISTRY_URL(
            "schema-registry-url",
            "http://localhost:8081",
            "Confluent-compatible schema registry (http(s)://...; `./fraud kafka start` runs one"
                    + " on localhost:8081), or mock://SCOPE for an in-process registry shared by"
                    + " everything in one JVM (tests)."),
    SCHEMA_COMPATIBILITY_CHECK(
            "schema-compatibility-check",
            "refuse",
            "refuse or warn: what the job does at start-up when the compatibility level of its"
                    + " input subject (<transactions topic>-value) in the registry does not protect"
                    + " it (NONE, BACKWARD, BACKWARD_TRANSITIVE: the registry accepts a producer's"
                    + " change the job cannot read, and every new record becomes a dead letter)."
                    + " warn starts it anyway, for a registry managed elsewhere. FORWARD and FULL"
                    + " always start with a warning, FORWARD_TRANSITIVE and FULL_TRANSITIVE"
                    + " silently."),
    GROUP_ID("group-id", "fraudpipe-feature-job", "Kafka consumer group of the source."),
    STARTING_OFFSETS(
            "starting-offsets",
            "committed-or-earliest",
            "Where a job without a checkpoint starts: committed-or-earliest, earliest or latest."),
    TRANSACTIONAL_ID_PREFIX(
            "transactional-id-prefix",
            "fraudpipe-feature-job",
            "Prefix of the exactly-once sinks' Kafka transactional ids; unique per job on a cluster."),
    TRANSACTION_TIMEOUT(
            "transaction-timeout",
            "10m",
            "Kafka transaction.timeout.ms of the exactly-once sinks. Must not exceed the brokers'"
                    + " transaction.max.timeout.ms and must outlast a checkpoint plus a restart."),
    BROKER_TRANSACTION_MAX_TIMEOUT(
            "broker-transaction-max-timeout",
            "15m",
            "The brokers' transaction.max.timeout.ms (Kafka's default is 15m); checked at start-up."),
    ;

    private final String key;
    private final String defaultValue;
    private final String description;

    JobOption(String key, String defaultValue, String description) {
        this.key = key;
        this.defaultValue = defaultValue;
        this.description = description;
    }

    /** The option's name: {@code --key} on the command line, {@code key} in a properties file. */
    public String key() {
        return key;
    }

    public String flag() {
        return "--" + key;
    }

    public String defaultValue() {
        return defaultValue;
    }

    public String description() {
        return description;
    }
}
