package org.fraudpipe.schemas;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.entry;

import java.util.Map;
import org.fraudpipe.schemas.registry.CompatibilityLevel;
import org.junit.jupiter.api.Test;

class TopicTest {

    @Test
    void theInputAndTheModelRegistryAreStampedByTheBrokersClockTheOthersKeepTheProducers() {
        // The job judges future-dated records against the record timestamp (issue #15 item 3).
        assertThat(Topic.TRANSACTIONS.topicConfig())
                .containsEntry(Topic.MESSAGE_TIMESTAMP_TYPE, Topic.LOG_APPEND_TIME)
                .containsEntry("cleanup.policy", "delete");
        // The model registry too: an assignment's lead is counted from the broker's append time.
        assertThat(Topic.MODEL_RELEASES.topicConfig())
                .containsEntry(Topic.MESSAGE_TIMESTAMP_TYPE, Topic.LOG_APPEND_TIME);
        for (Topic topic : Topic.values()) {
            if (topic != Topic.TRANSACTIONS && topic != Topic.MODEL_RELEASES) {
                assertThat(topic.topicConfig()).doesNotContainKey(Topic.MESSAGE_TIMESTAMP_TYPE);
            }
        }
    }

    @Test
    void theModelRegistryIsOneCompactedPartitionOfLargeRecords() {
        assertThat(Topic.MODEL_RELEASES.topicConfig())
                .containsEntry("cleanup.policy", "compact")
                .containsEntry("max.message.bytes", Integer.toString(16 << 20));
        assertThat(Topic.MODEL_RELEASES.partitions(2)).isEqualTo(1);
        assertThat(Topic.TRANSACTIONS.partitions(2)).isEqualTo(2);
    }

    @Test
    void upsertTopicsAreCompactedAndStreamsRetainedForAWeek() {
        assertThat(Topic.FEATURES.topicConfig()).containsEntry("cleanup.policy", "compact");
        assertThat(Topic.LATE.topicConfig()).containsEntry("retention.ms", "604800000");
    }

    @Test
    void everySubjectOfTheDeploymentsTopicsIsFullTransitive() {
        // The input must be FORWARD_TRANSITIVE for the job and BACKWARD_TRANSITIVE for parity and
        // training; the outputs both ways for downstream readers (issue #15 item 8).
        TopicNames names = TopicNames.withOverrides(Map.of(Topic.TRANSACTIONS, "payments"));

        assertThat(names.subjectCompatibility())
                .containsOnly(
                        entry("payments-value", CompatibilityLevel.FULL_TRANSITIVE),
                        entry("features-value", CompatibilityLevel.FULL_TRANSITIVE),
                        entry("features-key", CompatibilityLevel.FULL_TRANSITIVE),
                        entry("scores-value", CompatibilityLevel.FULL_TRANSITIVE),
                        entry("scores-key", CompatibilityLevel.FULL_TRANSITIVE),
                        entry("transactions-late-value", CompatibilityLevel.FULL_TRANSITIVE),
                        entry("transaction-scores-value", CompatibilityLevel.FULL_TRANSITIVE),
                        entry("model-releases-value", CompatibilityLevel.FULL_TRANSITIVE),
                        entry(
                                "transactions-dead-letters-value",
                                CompatibilityLevel.FULL_TRANSITIVE));
    }
}
