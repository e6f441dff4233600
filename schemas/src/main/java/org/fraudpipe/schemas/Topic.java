package org.fraudpipe.schemas;

import java.util.List;
import java.util.Map;
import org.apache.avro.specific.SpecificRecord;
import org.fraudpipe.schemas.avro.DeadLetter;
import org.fraudpipe.schemas.avro.FeatureRecord;
import org.fraudpipe.schemas.avro.LateRecord;
import org.fraudpipe.schemas.avro.ModelEvent;
import org.fraudpipe.schemas.avro.ScoreRecord;
import org.fraudpipe.schemas.avro.Transaction;
import org.fraudpipe.schemas.avro.TransactionScore;
import org.fraudpipe.schemas.avro.WindowKey;
import org.fraudpipe.schemas.registry.CompatibilityLevel;

/**
 * The one registry of the product's Kafka topics: default name, what the key and value are, and how
 * the topic is created. No topic-name literal appears anywhere else in the code base; a deployment
 * may rename a topic through configuration, never its contract.
 *
 * <p>Keys are either plain UTF-8 text (the {@code userId}, so the broker's default partitioner
 * co-locates a user's records; a source position; a {@code transactionId}) or a Confluent-framed
 * Avro {@link WindowKey} (the upsert key of the compacted topics). Values are always
 * Confluent-framed Avro, with the subject {@code <topic>-value} (Confluent's TopicNameStrategy).
 * Every subject should have the {@link #compatibilityLevel()} of its topic in the registry.
 */
public enum Topic {
    /** Input: card transactions, keyed by userId. */
    TRANSACTIONS("transactions", KeyFormat.USER_ID, Transaction.class, CleanupPolicy.DELETE),
    /** Output: every pane of every window's features, upserted by (userId, windowStart). */
    FEATURES("features", KeyFormat.WINDOW_KEY, FeatureRecord.class, CleanupPolicy.COMPACT),
    /** Output: every pane's score, upserted by (userId, windowStart). */
    SCORES("scores", KeyFormat.WINDOW_KEY, ScoreRecord.class, CleanupPolicy.COMPACT),
    /**
     * Output: valid transactions that missed their window (too late, future-dated), keyed by
     * userId.
     */
    LATE("transactions-late", KeyFormat.USER_ID, LateRecord.class, CleanupPolicy.DELETE),
    /**
     * Output: records that could not be read or failed validation, keyed by
     * "topic-partition@offset".
     */
    DEAD_LETTERS(
            "transactions-dead-letters",
            KeyFormat.SOURCE_POSITION,
            DeadLetter.class,
            CleanupPolicy.DELETE),
    /**
     * Output: the per-transaction score of every valid transaction, computed when it arrived, keyed
     * by transactionId. Delete, not compact: a decision system reads each score once, at once; a
     * record written twice (a producer retry answered again, or at-least-once delivery after a
     * failover) carries the same values; the archive keeps the history.
     */
    TRANSACTION_SCORES(
            "transaction-scores",
            KeyFormat.TRANSACTION_ID,
            TransactionScore.class,
            CleanupPolicy.DELETE),
    /**
     * The model registry: every model release published and every role assigned (champion,
     * challenger), in the order they were published ({@code ./fraud model}). Compacted with unique
     * keys, so it keeps the whole history; one partition, so that order is the topic's; records of
     * up to {@value #MODEL_EVENT_MAX_BYTES} bytes (an ONNX file travels in its release record).
     */
    MODEL_RELEASES(
            "model-releases", KeyFormat.MODEL_EVENT_ID, ModelEvent.class, CleanupPolicy.COMPACT);

    /** Largest record of {@link #MODEL_RELEASES}: its topic's {@code max.message.bytes}. */
    public static final int MODEL_EVENT_MAX_BYTES = 16 << 20;

    /** How a topic's record key is encoded. */
    public enum KeyFormat {
        /** UTF-8 bytes of the userId. */
        USER_ID,
        /** Confluent-framed Avro {@link WindowKey}, subject {@code <topic>-key}. */
        WINDOW_KEY,
        /** UTF-8 bytes of {@code <topic>-<partition>@<offset>} of the record it describes. */
        SOURCE_POSITION,
        /** UTF-8 bytes of the transactionId. */
        TRANSACTION_ID,
        /**
         * UTF-8 bytes of {@code release:<KIND>:<version>:<sha256>} or {@code
         * assignment:<KIND>:<ROLE>:<effectiveFrom epoch millis>}: unique per event.
         */
        MODEL_EVENT_ID
    }

    /** Kafka's {@code cleanup.policy}. */
    public enum CleanupPolicy {
        DELETE("delete"),
        COMPACT("compact");

        private final String configValue;

        CleanupPolicy(String configValue) {
            this.configValue = configValue;
        }

        public String configValue() {
            return configValue;
        }
    }

    private final String defaultName;
    private final KeyFormat keyFormat;
    private final Class<? extends SpecificRecord> valueClass;
    private final CleanupPolicy cleanupPolicy;

    Topic(
            String defaultName,
            KeyFormat keyFormat,
            Class<? extends SpecificRecord> valueClass,
            CleanupPolicy cleanupPolicy) {
        this.defaultName = defaultName;
        this.keyFormat = keyFormat;
        this.valueClass = valueClass;
        this.cleanupPolicy = cleanupPolicy;
    }

    public String defaultName() {
        return defaultName;
    }

    public KeyFormat keyFormat() {
        return keyFormat;
    }

    public Class<? extends SpecificRecord> valueClass() {
        return valueClass;
    }

    public CleanupPolicy cleanupPolicy() {
        return cleanupPolicy;
    }

    /**
     * Whether the feature job reads this topic (and never writes it): the transactions and the
     * model registry. The job writes every other topic and reads none of them.
     */
    public boolean readByJob() {
        return this == TRANSACTIONS || this == MODEL_RELEASES;
    }

    /**
     * Confluent TopicNameStrategy subject of the value schema for a topic named {@code topicName}.
     */
    public static String valueSubject(String topicName) {
        return topicName + "-value";
    }

    /**
     * Confluent TopicNameStrategy subject of the key schema for a topic named {@code topicName}.
     */
    public static String keySubject(String topicName) {
        return topicName + "-key";
    }

    /**
     * The registry subjects of the topic when it is named {@code topicName}: the value subject, and
     * the key subject if keys are Avro ({@link KeyFormat#WINDOW_KEY}).
     */
    public List<String> subjects(String topicName) {
        return keyFormat == KeyFormat.WINDOW_KEY
                ? List.of(valueSubject(topicName), keySubject(topicName))
                : List.of(valueSubject(topicName));
    }

    /**
     * The compatibility level every subject of the topic should have in the schema registry:
     * FULL_TRANSITIVE for all of them.
     *
     * <ul>
     *   <li>The input ({@link #TRANSACTIONS}) needs FORWARD_TRANSITIVE for the job: it reads every
     *       producer's data with the schema it was built with, which may be several versions
     *       behind, so every schema the registry accepts must be readable by every earlier version
     *       (BACKWARD, the usual default, lets a producer drop a field the job needs, and every new
     *       record becomes an INCOMPATIBLE_SCHEMA dead letter). It also needs BACKWARD_TRANSITIVE
     *       for the readers of the past: the parity check, training and replays read archived and
     *       retained transactions with the current schema. Hence both.
     *   <li>The outputs are read by downstream consumers on older schemas (FORWARD) and newer ones,
     *       reading the retained and compacted history (BACKWARD), of any version.
     * </ul>
     */
    public CompatibilityLevel compatibilityLevel() {
        return CompatibilityLevel.FULL_TRANSITIVE;
    }

    /**
     * Topic-level configuration to create the topic with. Compacted topics keep every key's latest
     * value forever; the others are retained for seven days by default (the parity checker reads
     * them nightly). The input topic stamps records with the broker's append time ({@code
     * LogAppendTime}): the job judges future-dated records against that timestamp, so it must not
     * be whatever the producer put there.
     */
    public Map<String, String> topicConfig() {
        Map<String, String> config =
                new java.util.LinkedHashMap<>(
                        switch (cleanupPolicy) {
                            case COMPACT ->
                                    Map.of(
                                            "cleanup.policy",
                                            "compact",
                                            "min.compaction.lag.ms",
                                            "3600000");
                            case DELETE ->
                                    Map.of("cleanup.policy", "delete", "retention.ms", "604800000");
                        });
        if (this == TRANSACTIONS || this == MODEL_RELEASES) {
            config.put(MESSAGE_TIMESTAMP_TYPE, LOG_APPEND_TIME);
        }
        if (this == MODEL_RELEASES) {
            config.put("max.message.bytes", Integer.toString(MODEL_EVENT_MAX_BYTES));
        }
        return Map.copyOf(config);
    }

    /**
     * The partitions to create the topic with, given the deployment's {@code partitions} for the
     * data topics: the model registry has one (its order is the registry's order).
     */
    public int partitions(int partitions) {
        return this == MODEL_RELEASES ? 1 : partitions;
    }

    /** Kafka's topic config naming whose clock stamps a record. */
    public static final String MESSAGE_TIMESTAMP_TYPE = "message.timestamp.type";

    /** Its value for the broker's clock at append. */
    public static final String LOG_APPEND_TIME = "LogAppendTime";
}
