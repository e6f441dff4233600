package org.fraudpipe.job.config;

/**
 * Every option of the streaming job, in one place: its name (the same on the command line as {@code
 * --NAME} and in a properties file as {@code NAME}), its default and its documentation. The CLI's
 * {@code --help} and the configuration reference (docs/CONFIGURATION.md) are generated from, or
 * checked against, this list; {@link JobConfig} gives them types and validates them.
 */
public enum JobOption {
    // Event time and windows
    WINDOW_SIZE("window-size", Label.DURATION, "10m", "Tumbling event-time window size."),
    OUT_OF_ORDERNESS(
            "out-of-orderness",
            Label.DURATION,
            "5s",
            "Watermark bound: the watermark trails the largest event time seen by this much. Records"
                    + " behind the watermark whose window is still open are still counted."),
    IDLENESS(
            "idleness",
            Label.DURATION,
            "1m",
            "A source partition without records for this long stops holding the watermark back."),
    ALLOWED_LATENESS(
            "allowed-lateness",
            Label.DURATION,
            "2m",
            "How long after its end a window still accepts records and re-fires a corrected result."
                    + " Records later than that go to the late topic. State per user grows with"
                    + " allowed-lateness / window-size + 1 live windows."),
    FUTURE_TOLERANCE(
            "future-tolerance",
            Label.DURATION,
            "5m",
            "Records whose event time is beyond their arrival (the Kafka record timestamp:"
                    + " the broker's append time on a LogAppendTime topic) plus this are"
                    + " quarantined as FUTURE_DATED before they can move the watermark."),

    // Scoring
    MODEL(
            "model",
            Label.FILE,
            "",
            "ONNX model file scoring every pane; empty: the default model shipped in the scoring"
                    + " jar. Checked at start-up against the feature layout."),
    REVIEW_THRESHOLD(
            "review-threshold",
            Label.SCORE,
            "0.5",
            "Score at or above which a window's decision is REVIEW."),
    BLOCK_THRESHOLD(
            "block-threshold",
            Label.SCORE,
            "0.9",
            "Score at or above which a window's decision is BLOCK (at least the review threshold)."),
    SCORING_BATCH_SIZE(
            "scoring-batch-size",
            Label.COUNT,
            "512",
            "Most panes scored in one model call; a window-close burst is scored in such batches."
                    + " Also the most transactions per call on the per-transaction path."),
    SCORING_MAX_DELAY(
            "scoring-max-delay",
            Label.DURATION,
            "100ms",
            "Longest a pane waits for its batch between watermarks (late re-fires); bursts are"
                    + " flushed at the watermark, and everything before each checkpoint."),

    // Which paths this job runs
    PATHS(
            "paths",
            Label.PATHS,
            "both",
            "both: one job runs the window path and the per-transaction path (scores at arrival)."
                    + " windows: only the window path (windows, late and dead-letter topics, the"
                    + " archive of what it received and served). decisions: only the"
                    + " per-transaction path (the transaction-scores topic and its archive), a"
                    + " job of its own with its own checkpoints, state backend and resources: run"
                    + " one job of each, with the same topics, archive and group id, to keep the"
                    + " window path's checkpoints and bursts out of the decisions' latency."),

    // Scores at arrival: the per-transaction path
    TRAILING_WINDOW(
            "trailing-window",
            Label.DURATION,
            "",
            "Per-transaction path: each valid transaction is scored when it arrives, on the"
                    + " features of its user's transactions with event time in (t - T, t] received"
                    + " so far; this is T. Empty: the window size. Received transactions are kept"
                    + " until the watermark passes their event time + T + allowed-lateness."),
    TRANSACTION_MODEL(
            "transaction-model",
            Label.FILE,
            "",
            "ONNX model scoring every transaction at arrival; empty: the default per-transaction"
                    + " model shipped in the scoring jar. Checked at start-up against the"
                    + " per-transaction feature layout."),
    MODEL_REGISTRY(
            "model-registry",
            Label.REGISTRY,
            "follow",
            "follow: every scoring subtask reads the model-releases topic while the job runs and"
                    + " scores each record with the release that is champion at its coordinate (a"
                    + " transaction's Kafka record timestamp, a pane's window start), and with the"
                    + " challenger beside it if one is assigned (./fraud model); before the first"
                    + " champion, the start-up models (--model, --transaction-model) serve. off:"
                    + " the start-up models score everything, releases are ignored."),
    MODEL_REGISTRY_TIMEOUT(
            "model-registry-timeout",
            Label.DURATION,
            "60s",
            "Longest a scoring task holds a record that its view of the model registry does not"
                    + " cover yet (the topic cannot be read: live, a view covers about 8 s ahead"
                    + " of the clock) before the task fails, naming the topic."),
    TRANSACTION_REVIEW_THRESHOLD(
            "transaction-review-threshold",
            Label.SCORE,
            "0.5",
            "Score at or above which a transaction's decision is REVIEW."),
    TRANSACTION_BLOCK_THRESHOLD(
            "transaction-block-threshold",
            Label.SCORE,
            "0.9",
            "Score at or above which a transaction's decision is BLOCK (at least the transaction"
                    + " review threshold)."),
    TRANSACTION_SCORING_MAX_DELAY(
            "transaction-scoring-max-delay",
            Label.DURATION,
            "5ms",
            "Upper bound on how long a transaction waits for its scoring batch. A transaction is"
                    + " scored as soon as the scoring task has no other input in hand (live, that is"
                    + " at once, alone); batches are also flushed when full, at each watermark and"
                    + " before each checkpoint. Replays batch up to this long."),
    TRANSACTION_BUFFER_TIMEOUT(
            "transaction-buffer-timeout",
            Label.DURATION,
            "2ms",
            "Longest a record waits in a network buffer on its way to the per-transaction path's"
                    + " keyed operator: Flink's buffer timeout for that one edge (the job's other"
                    + " edges keep Flink's execution.buffer-timeout.interval, 100 ms by default)."
                    + " 0 sends every record at once, at more CPU per record."),
    TRANSACTION_SOURCE(
            "transaction-source",
            Label.SOURCE,
            "own",
            "own: the per-transaction path reads the transactions topic with a Kafka source of its"
                    + " own (same group id, no offset commits of its own), so a window-close burst,"
                    + " which holds the window path's source back for seconds, does not hold"
                    + " scores at arrival back; each record is then fetched and decoded twice."
                    + " shared: both paths are fed by one source (one read, less CPU; scores at"
                    + " arrival wait whenever the window path does)."),
    TRANSACTION_SCORES_DELIVERY(
            "transaction-scores-delivery",
            Label.DELIVERY,
            "at-least-once",
            "at-least-once: the transaction-scores topic is written at once by an idempotent"
                    + " producer (a failover may write a score again, with the same values);"
                    + " exactly-once: in Kafka transactions like the window topics, visible to"
                    + " read_committed readers at each checkpoint."),

    // State and checkpoints
    STATE_BACKEND(
            "state-backend",
            Label.STATE_BACKEND,
            "rocksdb",
            "rocksdb (incremental checkpoints) or hashmap."),
    CHECKPOINT_INTERVAL(
            "checkpoint-interval",
            Label.DURATION,
            "10s",
            "Exactly-once checkpoint interval; Kafka output becomes visible to read_committed readers"
                    + " at each checkpoint."),
    CHECKPOINT_DIR(
            "checkpoint-dir",
            Label.URI,
            "file:///tmp/fraudpipe/checkpoints",
            "Durable checkpoint directory (a URI: file://, s3://, hdfs://)."),
    PARALLELISM("parallelism", Label.COUNT, "2", "Parallelism of the job's operators."),
    MAX_PARALLELISM(
            "max-parallelism",
            Label.COUNT,
            "128",
            "Key groups; fixed for the life of the job's state (savepoints depend on it)."),
    RESTART_ATTEMPTS(
            "restart-attempts",
            Label.COUNT,
            "",
            "How many restarts in a row (Flink's exponential-delay strategy: 1 s, growing 1.5x to 1 min)"
                    + " the job makes after a failure before it fails for good; a run of an hour"
                    + " without failure starts the count again. 0: the first failure is final."),

    // Archive
    ARCHIVE_DIR(
            "archive-dir",
            Label.ARCHIVE,
            ".fraud/archive",
            "Where the job archives every valid transaction it receives and every feature, score,"
                    + " late record and dead letter it writes (Avro files in hour partitions,"
                    + " committed at checkpoints), for the batch parity check: a file system URI"
                    + " (file:///..., s3://..., hdfs://...), a local path (a relative one is under"
                    + " the project root; local runs only), or none to archive nothing (parity then"
                    + " cannot run). On a cluster: a file system every TaskManager shares."),

    // Kafka
    BOOTSTRAP_SERVERS(
            "bootstrap-servers", Label.SERVERS, "localhost:9092", "Kafka bootstrap servers."),
    SCHEMA_REGISTRY_URL(
            "schema-registry-url",
            Label.URL,
            "http://localhost:8081",
            "Confluent-compatible schema registry (http(s)://...; `./fraud kafka start` runs one"
                    + " on localhost:8081), or mock://SCOPE for an in-process registry shared by"
                    + " everything in one JVM (tests)."),
    KAFKA_CONFIG(
            "kafka-config",
            Label.FILE,
            "",
            "Client properties file, as Kafka's tools' --command-config: its entries go to every"
                    + " Kafka consumer, producer and admin client of the job (source, sinks,"
                    + " start-up checks), e.g. security.protocol=SASL_SSL, sasl.mechanism,"
                    + " sasl.jaas.config, ssl.truststore.location; its schema.registry.ssl.* and"
                    + " basic.auth.* entries go to the schema registry client. Read where the job"
                    + " is submitted; secrets are never printed. Single settings: kafka.<key>=<value>"
                    + " in --config, or --kafka-property <key>=<value> (not for secrets)."),
    SCHEMA_COMPATIBILITY_CHECK(
            "schema-compatibility-check",
            Label.CHECK,
            "refuse",
            "refuse or warn: what the job does at start-up when the compatibility level of its"
                    + " input subject (<transactions topic>-value) in the registry does not protect"
                    + " it (NONE, BACKWARD, BACKWARD_TRANSITIVE: the registry accepts a producer's"
                    + " change the job cannot read, and every new record becomes a dead letter)."
                    + " warn starts it anyway, for a registry managed elsewhere. FORWARD and FULL"
                    + " always start with a warning, FORWARD_TRANSITIVE and FULL_TRANSITIVE"
                    + " silently."),
    GROUP_ID(
            "group-id", Label.NAME, "fraudpipe-feature-job", "Kafka consumer group of the source."),
    STARTING_OFFSETS(
            "starting-offsets",
            Label.OFFSETS,
            "committed-or-earliest",
            "Where a job without a checkpoint starts: committed-or-earliest, earliest or latest."),
    TRANSACTIONAL_ID_PREFIX(
            "transactional-id-prefix",
            Label.PREFIX,
            "fraudpipe-feature-job",
            "Prefix of the exactly-once sinks' Kafka transactional ids; unique per job on a cluster."),
    TRANSACTION_TIMEOUT(
            "transaction-timeout",
            Label.DURATION,
            "10m",
            "Kafka transaction.timeout.ms of the exactly-once sinks. Must not exceed the brokers'"
                    + " transaction.max.timeout.ms and must outlast a checkpoint plus a restart."),
    BROKER_TRANSACTION_MAX_TIMEOUT(
            "broker-transaction-max-timeout",
            Label.DURATION,
            "15m",
            "The brokers' transaction.max.timeout.ms (Kafka's default is 15m); checked at start-up."),
    ;

    /** What an option's value is, as the help shows it ({@code --window-size=DURATION}). */
    public enum Label {
        DURATION("DURATION"),
        FILE("FILE"),
        SCORE("SCORE"),
        COUNT("N"),
        STATE_BACKEND("rocksdb|hashmap"),
        URI("URI"),
        ARCHIVE("DIR|URI|none"),
        SERVERS("HOST:PORT[,...]"),
        URL("URL"),
        NAME("NAME"),
        OFFSETS("POSITION"),
        DELIVERY("at-least-once|exactly-once"),
        CHECK("refuse|warn"),
        SOURCE("own|shared"),
        PATHS("both|windows|decisions"),
        REGISTRY("follow|off"),
        PREFIX("PREFIX");

        private final String text;

        Label(String text) {
            this.text = text;
        }

        /** The parameter label of the help, e.g. {@code DURATION}. */
        public String text() {
            return text;
        }
    }

    /** How the help shows an empty default of {@link #MODEL}: what it means. */
    public static final String DEFAULT_MODEL = "the shipped default model";

    private final String key;
    private final Label label;
    private final String defaultValue;
    private final String description;

    JobOption(String key, Label label, String defaultValue, String description) {
        this.key = key;
        this.label = label;
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

    /** What the option's value is: the help's parameter label. */
    public Label label() {
        return label;
    }

    /**
     * The default as the help shows it: the value, or what an empty one means (e.g. {@link #MODEL}:
     * the shipped default model).
     */
    public String defaultDescription() {
        if (!defaultValue.isEmpty()) {
            return defaultValue;
        }
        return switch (this) {
            case MODEL -> DEFAULT_MODEL;
            case TRANSACTION_MODEL -> "the shipped per-transaction model";
            case TRAILING_WINDOW -> "the window size";
            case KAFKA_CONFIG -> "none: PLAINTEXT, an open registry";
            case RESTART_ATTEMPTS -> "no end: restarts until it runs";
            default -> defaultValue;
        };
    }

    public String description() {
        return description;
    }
}
