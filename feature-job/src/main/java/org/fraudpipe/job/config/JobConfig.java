package org.fraudpipe.job.config;

import java.net.URI;
import java.nio.file.Path;
import java.time.Duration;
import java.util.EnumMap;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.TreeSet;
import org.fraudpipe.schemas.Topic;
import org.fraudpipe.schemas.TopicNames;
import org.fraudpipe.schemas.security.ClientProperties;

/**
 * The streaming job's typed, validated configuration. Built from raw {@code name -> value} pairs
 * (the command line's {@code --name value}, or a properties file for a cluster run); every {@link
 * JobOption} not given takes its default, topics may be renamed with {@code topic.<name>} keys.
 *
 * <p>Invariant: an instance exists only if every value parsed and every cross-option rule holds;
 * each failure names the option and says what would be accepted. Immutable.
 */
public final class JobConfig {

    /** The state backends the job supports. */
    public enum StateBackend {
        ROCKSDB,
        HASHMAP
    }

    /** How the transaction-scores topic is written. */
    public enum Delivery {
        AT_LEAST_ONCE,
        EXACTLY_ONCE
    }

    /**
     * Where the per-transaction path reads the transactions topic ({@link
     * JobOption#TRANSACTION_SOURCE}).
     */
    public enum TransactionSourceMode {
        /** A Kafka source of its own. */
        OWN,
        /** The window path's source. */
        SHARED
    }

    /** Whether the job follows the model registry ({@link JobOption#MODEL_REGISTRY}). */
    public enum ModelRegistryMode {
        /** Every scoring subtask reads the registry topic while the job runs. */
        FOLLOW,
        /** The start-up models score everything. */
        OFF
    }

    /** Which of the two paths one job runs ({@link JobOption#PATHS}). */
    public enum Paths {
        /** Both, in one job (one checkpoint, one state backend). */
        BOTH,
        /** The window path only. */
        WINDOWS,
        /** The per-transaction path only: the decision job. */
        DECISIONS;

        /** Whether the window path runs. */
        public boolean windows() {
            return this != DECISIONS;
        }

        /** Whether the per-transaction path runs. */
        public boolean decisions() {
            return this != WINDOWS;
        }
    }

    /**
     * What the job does when its input subject's compatibility level does not protect it ({@link
     * JobOption#SCHEMA_COMPATIBILITY_CHECK}).
     */
    public enum SchemaCompatibilityCheck {
        /** Refuse to start. */
        REFUSE,
        /** Log a warning and start. */
        WARN
    }

    /** Where a job without a checkpoint or savepoint starts reading. */
    public enum StartingOffsets {
        COMMITTED_OR_EARLIEST,
        EARLIEST,
        LATEST
    }

    /**
     * Allowance for a restart in the transaction-timeout rule: a transaction opened just after a
     * checkpoint must survive the next checkpoint interval, the checkpoint itself and a restart of
     * the job before it is committed, or Kafka aborts it and the output is lost.
     */
    static final Duration RESTART_ALLOWANCE = Duration.ofMinutes(1);

    /** The {@code --archive-dir} value that turns the archive off. */
    public static final String NO_ARCHIVE = "none";

    /**
     * System property naming the project root, set by {@code ./fraud}: relative local paths of the
     * job (its archive) are resolved against it; against the working directory when it is unset.
     */
    public static final String HOME_PROPERTY = "fraud.home";

    /** Prefix of single Kafka client settings among the options ({@code kafka.<key>}). */
    public static final String KAFKA_PREFIX = "kafka.";

    private final Map<JobOption, String> raw;
    private final TopicNames topics;
    private final Map<String, String> kafkaOverrides;
    private final ClientProperties kafkaClient;

    private JobConfig(
            Map<JobOption, String> raw, TopicNames topics, Map<String, String> kafkaOverrides) {
        this.raw = raw;
        this.topics = topics;
        this.kafkaOverrides = Map.copyOf(kafkaOverrides);
        String file = raw.get(JobOption.KAFKA_CONFIG);
        this.kafkaClient =
                (file.isEmpty()
                                ? ClientProperties.none()
                                : ClientProperties.load(
                                        Path.of(file), JobOption.KAFKA_CONFIG.flag()))
                        .with(kafkaOverrides);
    }

    /** The defaults of every option. */
    public static JobConfig defaults() {
        return of(Map.of());
    }

    /**
     * Parses and validates {@code values}.
     *
     * @param values option name (without dashes) or {@code topic.<name>} to value
     * @throws IllegalArgumentException naming the first bad option
     */
    public static JobConfig of(Map<String, String> values) {
        Map<String, JobOption> byKey = new LinkedHashMap<>();
        for (JobOption option : JobOption.values()) {
            byKey.put(option.key(), option);
        }
        Map<String, Topic> topicByKey = new LinkedHashMap<>();
        for (Topic topic : Topic.values()) {
            topicByKey.put(TopicNames.optionName(topic), topic);
        }
        Map<JobOption, String> raw = new EnumMap<>(JobOption.class);
        Map<Topic, String> topicOverrides = new EnumMap<>(Topic.class);
        Map<String, String> kafkaOverrides = new LinkedHashMap<>();
        for (Map.Entry<String, String> e : values.entrySet()) {
            String key = e.getKey().startsWith("--") ? e.getKey().substring(2) : e.getKey();
            if (key.startsWith(KAFKA_PREFIX) && key.length() > KAFKA_PREFIX.length()) {
                kafkaOverrides.put(key.substring(KAFKA_PREFIX.length()), e.getValue().trim());
            } else if (byKey.containsKey(key)) {
                raw.put(byKey.get(key), e.getValue().trim());
            } else if (topicByKey.containsKey(key)) {
                topicOverrides.put(topicByKey.get(key), e.getValue().trim());
            } else {
                TreeSet<String> known = new TreeSet<>(byKey.keySet());
                known.addAll(topicByKey.keySet());
                known.add(KAFKA_PREFIX + "<key>");
                throw new IllegalArgumentException(
                        "unknown job option '" + key + "'; known options: " + known);
            }
        }
        for (JobOption option : JobOption.values()) {
            raw.putIfAbsent(option, option.defaultValue());
        }
        JobConfig config =
                new JobConfig(raw, TopicNames.withOverrides(topicOverrides), kafkaOverrides);
        config.validate();
        return config;
    }

    private void validate() {
        requirePositive(JobOption.WINDOW_SIZE, windowSize());
        requireNonNegative(JobOption.OUT_OF_ORDERNESS, outOfOrderness());
        requirePositive(JobOption.IDLENESS, idleness());
        requireNonNegative(JobOption.ALLOWED_LATENESS, allowedLateness());
        requireNonNegative(JobOption.FUTURE_TOLERANCE, futureTolerance());
        requirePositive(JobOption.CHECKPOINT_INTERVAL, checkpointInterval());
        requireNonNegative(JobOption.SCORING_MAX_DELAY, scoringMaxDelay());
        scoringBatchSize();
        double review = probability(JobOption.REVIEW_THRESHOLD);
        double block = probability(JobOption.BLOCK_THRESHOLD);
        if (block < review) {
            throw bad(
                    JobOption.BLOCK_THRESHOLD,
                    "("
                            + block
                            + ") must be at least "
                            + JobOption.REVIEW_THRESHOLD.flag()
                            + " ("
                            + review
                            + ")");
        }
        trailingWindow();
        restartAttempts();
        requireNonNegative(JobOption.TRANSACTION_SCORING_MAX_DELAY, transactionScoringMaxDelay());
        requireNonNegative(JobOption.TRANSACTION_BUFFER_TIMEOUT, transactionBufferTimeout());
        double txReview = probability(JobOption.TRANSACTION_REVIEW_THRESHOLD);
        double txBlock = probability(JobOption.TRANSACTION_BLOCK_THRESHOLD);
        if (txBlock < txReview) {
            throw bad(
                    JobOption.TRANSACTION_BLOCK_THRESHOLD,
                    "("
                            + txBlock
                            + ") must be at least "
                            + JobOption.TRANSACTION_REVIEW_THRESHOLD.flag()
                            + " ("
                            + txReview
                            + ")");
        }
        transactionScoresDelivery();
        transactionSource();
        modelRegistry();
        requirePositive(JobOption.MODEL_REGISTRY_TIMEOUT, modelRegistryTimeout());
        paths();
        stateBackend();
        startingOffsets();
        checkpointDir();
        archiveDir(Path.of("."));
        schemaRegistryUrl();
        schemaCompatibilityCheck();
        int maxParallelism = positiveInt(JobOption.MAX_PARALLELISM);
        if (maxParallelism > 32768) {
            throw bad(JobOption.MAX_PARALLELISM, "must be at most 32768");
        }
        int parallelism = positiveInt(JobOption.PARALLELISM);
        if (parallelism > maxParallelism) {
            throw bad(
                    JobOption.PARALLELISM,
                    "must not exceed "
                            + JobOption.MAX_PARALLELISM.flag()
                            + " ("
                            + maxParallelism
                            + ")");
        }
        for (JobOption o :
                new JobOption[] {
                    JobOption.BOOTSTRAP_SERVERS,
                    JobOption.GROUP_ID,
                    JobOption.TRANSACTIONAL_ID_PREFIX
                }) {
            if (raw.get(o).isEmpty()) {
                throw bad(o, "must not be empty");
            }
        }
        Duration txTimeout = transactionTimeout();
        Duration brokerMax = brokerTransactionMaxTimeout();
        if (txTimeout.compareTo(brokerMax) > 0) {
            throw bad(
                    JobOption.TRANSACTION_TIMEOUT,
                    "("
                            + Durations.format(txTimeout)
                            + ") exceeds the brokers' transaction.max.timeout.ms ("
                            + Durations.format(brokerMax)
                            + ", "
                            + JobOption.BROKER_TRANSACTION_MAX_TIMEOUT.flag()
                            + "): the sinks could not start. Lower it, or raise the brokers' limit"
                            + " and say so with "
                            + JobOption.BROKER_TRANSACTION_MAX_TIMEOUT.flag());
        }
        Duration needed = checkpointInterval().multipliedBy(2).plus(RESTART_ALLOWANCE);
        if (txTimeout.compareTo(needed) < 0) {
            throw bad(
                    JobOption.TRANSACTION_TIMEOUT,
                    "("
                            + Durations.format(txTimeout)
                            + ") is shorter than two checkpoint intervals plus a restart allowance of"
                            + " "
                            + Durations.format(RESTART_ALLOWANCE)
                            + " ("
                            + Durations.format(needed)
                            + "): Kafka would abort transactions before the job commits them and"
                            + " output would be lost. Raise it or lower "
                            + JobOption.CHECKPOINT_INTERVAL.flag());
        }
    }

    public Duration windowSize() {
        return duration(JobOption.WINDOW_SIZE);
    }

    public Duration outOfOrderness() {
        return duration(JobOption.OUT_OF_ORDERNESS);
    }

    public Duration idleness() {
        return duration(JobOption.IDLENESS);
    }

    public Duration allowedLateness() {
        return duration(JobOption.ALLOWED_LATENESS);
    }

    public Duration futureTolerance() {
        return duration(JobOption.FUTURE_TOLERANCE);
    }

    /** The model file, or empty for the default model shipped in the scoring jar. */
    public java.util.Optional<java.nio.file.Path> model() {
        String v = raw.get(JobOption.MODEL);
        return v.isEmpty()
                ? java.util.Optional.empty()
                : java.util.Optional.of(java.nio.file.Path.of(v));
    }

    public double reviewThreshold() {
        return probability(JobOption.REVIEW_THRESHOLD);
    }

    public double blockThreshold() {
        return probability(JobOption.BLOCK_THRESHOLD);
    }

    public int scoringBatchSize() {
        return positiveInt(JobOption.SCORING_BATCH_SIZE);
    }

    public Duration scoringMaxDelay() {
        return duration(JobOption.SCORING_MAX_DELAY);
    }

    /**
     * T of the per-transaction path: {@code --trailing-window}, or the window size when it is
     * empty.
     */
    public Duration trailingWindow() {
        if (raw.get(JobOption.TRAILING_WINDOW).isEmpty()) {
            return windowSize();
        }
        Duration d = duration(JobOption.TRAILING_WINDOW);
        requirePositive(JobOption.TRAILING_WINDOW, d);
        if (d.getNano() % 1_000_000 != 0) {
            throw bad(JobOption.TRAILING_WINDOW, "must be a whole number of milliseconds");
        }
        return d;
    }

    /** The per-transaction model file, or empty for the default shipped in the scoring jar. */
    public Optional<Path> transactionModel() {
        String v = raw.get(JobOption.TRANSACTION_MODEL);
        return v.isEmpty() ? Optional.empty() : Optional.of(Path.of(v));
    }

    public double transactionReviewThreshold() {
        return probability(JobOption.TRANSACTION_REVIEW_THRESHOLD);
    }

    public double transactionBlockThreshold() {
        return probability(JobOption.TRANSACTION_BLOCK_THRESHOLD);
    }

    public Duration transactionScoringMaxDelay() {
        return duration(JobOption.TRANSACTION_SCORING_MAX_DELAY);
    }

    public Duration transactionBufferTimeout() {
        return duration(JobOption.TRANSACTION_BUFFER_TIMEOUT);
    }

    public ModelRegistryMode modelRegistry() {
        return enumValue(JobOption.MODEL_REGISTRY, ModelRegistryMode.class);
    }

    public Duration modelRegistryTimeout() {
        return duration(JobOption.MODEL_REGISTRY_TIMEOUT);
    }

    /** Which paths this job runs. */
    public Paths paths() {
        return enumValue(JobOption.PATHS, Paths.class);
    }

    public TransactionSourceMode transactionSource() {
        return enumValue(JobOption.TRANSACTION_SOURCE, TransactionSourceMode.class);
    }

    public Delivery transactionScoresDelivery() {
        return enumValue(JobOption.TRANSACTION_SCORES_DELIVERY, Delivery.class);
    }

    public StateBackend stateBackend() {
        return enumValue(JobOption.STATE_BACKEND, StateBackend.class);
    }

    public Duration checkpointInterval() {
        return duration(JobOption.CHECKPOINT_INTERVAL);
    }

    public URI checkpointDir() {
        String v = raw.get(JobOption.CHECKPOINT_DIR);
        try {
            URI uri = URI.create(v);
            if (uri.getScheme() == null) {
                throw bad(
                        JobOption.CHECKPOINT_DIR,
                        "'" + v + "' has no scheme: write file:///path, s3://bucket/path, ...");
            }
            return uri;
        } catch (IllegalArgumentException e) {
            if (e.getMessage().startsWith(JobOption.CHECKPOINT_DIR.flag())) {
                throw e;
            }
            throw bad(JobOption.CHECKPOINT_DIR, "'" + v + "' is not a URI: " + e.getMessage());
        }
    }

    /**
     * The archive's root directory, or empty for {@value #NO_ARCHIVE}. A value with a scheme is a
     * file system URI, used as given; one without is a local path, a relative one resolved against
     * the project root ({@value #HOME_PROPERTY}), and becomes a {@code file:} URI.
     */
    public Optional<URI> archiveDir() {
        return archiveDir(Path.of(System.getProperty(HOME_PROPERTY, ".")));
    }

    /** {@link #archiveDir()} with relative local paths resolved against {@code home}. */
    Optional<URI> archiveDir(Path home) {
        String v = raw.get(JobOption.ARCHIVE_DIR);
        if (v.equals(NO_ARCHIVE)) {
            return Optional.empty();
        }
        if (v.isEmpty()) {
            throw bad(
                    JobOption.ARCHIVE_DIR,
                    "must not be empty: give a directory, a file system URI or " + NO_ARCHIVE);
        }
        return Optional.of(DirectoryUris.parse(JobOption.ARCHIVE_DIR.flag(), v, home));
    }

    /**
     * Whether {@code --archive-dir} is a local path (no scheme): fine for a local run, refused on a
     * cluster, whose TaskManagers do not share the client's disk.
     */
    public boolean archiveDirIsLocalPath() {
        String v = raw.get(JobOption.ARCHIVE_DIR);
        return !v.equals(NO_ARCHIVE) && !DirectoryUris.hasScheme(v);
    }

    public int parallelism() {
        return positiveInt(JobOption.PARALLELISM);
    }

    public int maxParallelism() {
        return positiveInt(JobOption.MAX_PARALLELISM);
    }

    /** {@code --restart-attempts}: empty for Flink's default (restarts without end). */
    public java.util.OptionalInt restartAttempts() {
        String v = raw.get(JobOption.RESTART_ATTEMPTS);
        if (v.isEmpty()) {
            return java.util.OptionalInt.empty();
        }
        try {
            int n = Integer.parseInt(v.trim());
            if (n < 0) {
                throw bad(JobOption.RESTART_ATTEMPTS, "must be at least 0, was " + n);
            }
            return java.util.OptionalInt.of(n);
        } catch (NumberFormatException e) {
            throw bad(JobOption.RESTART_ATTEMPTS, "'" + v + "' is not a whole number");
        }
    }

    public String bootstrapServers() {
        return raw.get(JobOption.BOOTSTRAP_SERVERS);
    }

    public String schemaRegistryUrl() {
        String v = raw.get(JobOption.SCHEMA_REGISTRY_URL);
        if (!(v.startsWith("mock://") || v.startsWith("http://") || v.startsWith("https://"))) {
            throw bad(
                    JobOption.SCHEMA_REGISTRY_URL,
                    "'"
                            + v
                            + "' must be http(s)://host:port of a Confluent-compatible registry, or"
                            + " mock://SCOPE");
        }
        return v;
    }

    public SchemaCompatibilityCheck schemaCompatibilityCheck() {
        return enumValue(JobOption.SCHEMA_COMPATIBILITY_CHECK, SchemaCompatibilityCheck.class);
    }

    public String groupId() {
        return raw.get(JobOption.GROUP_ID);
    }

    public StartingOffsets startingOffsets() {
        return enumValue(JobOption.STARTING_OFFSETS, StartingOffsets.class);
    }

    public String transactionalIdPrefix() {
        return raw.get(JobOption.TRANSACTIONAL_ID_PREFIX);
    }

    public Duration transactionTimeout() {
        return duration(JobOption.TRANSACTION_TIMEOUT);
    }

    public Duration brokerTransactionMaxTimeout() {
        return duration(JobOption.BROKER_TRANSACTION_MAX_TIMEOUT);
    }

    public TopicNames topics() {
        return topics;
    }

    /**
     * The Kafka and registry client settings of every client of the job: the {@code --kafka-config}
     * file's entries, then the {@code kafka.<key>} options on top.
     */
    public ClientProperties kafkaClient() {
        return kafkaClient;
    }

    /**
     * The schema registry client's configuration: {@code schema.registry.url} and the registry
     * entries of {@link #kafkaClient()} (basic auth, TLS). Serializable, for the job's serdes.
     */
    public HashMap<String, String> registryConfig() {
        return new HashMap<>(kafkaClient.registryConfig(schemaRegistryUrl()));
    }

    /**
     * The raw value of every option (defaults included), for logging the effective configuration:
     * secrets among the {@code kafka.<key>} settings as {@value ClientProperties#HIDDEN} (the
     * file's entries are not listed, only its path).
     */
    public Map<String, String> asMap() {
        Map<String, String> out = new LinkedHashMap<>();
        raw.forEach((k, v) -> out.put(k.key(), v));
        out.put(
                JobOption.SCHEMA_REGISTRY_URL.key(),
                ClientProperties.redactUrl(raw.get(JobOption.SCHEMA_REGISTRY_URL)));
        topics.asMap().forEach((t, n) -> out.put(TopicNames.optionName(t), n));
        ClientProperties.redact(kafkaOverrides).forEach((k, v) -> out.put(KAFKA_PREFIX + k, v));
        return out;
    }

    private Duration duration(JobOption option) {
        try {
            return Durations.parse(raw.get(option));
        } catch (IllegalArgumentException e) {
            throw bad(option, e.getMessage());
        }
    }

    private double probability(JobOption option) {
        String v = raw.get(option);
        try {
            double p = Double.parseDouble(v);
            if (!(p >= 0 && p <= 1)) {
                throw bad(option, "must be between 0 and 1, was " + v);
            }
            return p;
        } catch (NumberFormatException e) {
            throw bad(option, "'" + v + "' is not a number");
        }
    }

    private int positiveInt(JobOption option) {
        String v = raw.get(option);
        try {
            int n = Integer.parseInt(v);
            if (n < 1) {
                throw bad(option, "must be at least 1, was " + n);
            }
            return n;
        } catch (NumberFormatException e) {
            throw bad(option, "'" + v + "' is not a whole number");
        }
    }

    private <E extends Enum<E>> E enumValue(JobOption option, Class<E> type) {
        String v = raw.get(option);
        try {
            return Enum.valueOf(type, v.trim().toUpperCase(Locale.ROOT).replace('-', '_'));
        } catch (IllegalArgumentException e) {
            StringBuilder accepted = new StringBuilder();
            for (E c : type.getEnumConstants()) {
                accepted.append(accepted.length() == 0 ? "" : ", ")
                        .append(c.name().toLowerCase(Locale.ROOT).replace('_', '-'));
            }
            throw bad(option, "'" + v + "' is not one of: " + accepted);
        }
    }

    private static void requirePositive(JobOption option, Duration d) {
        if (d.isZero() || d.isNegative()) {
            throw bad(option, "must be positive, was " + Durations.format(d));
        }
    }

    private static void requireNonNegative(JobOption option, Duration d) {
        if (d.isNegative()) {
            throw bad(option, "must not be negative");
        }
    }

    private static IllegalArgumentException bad(JobOption option, String problem) {
        return new IllegalArgumentException(option.flag() + " " + problem);
    }

    @Override
    public String toString() {
        return "JobConfig" + asMap();
    }
}
