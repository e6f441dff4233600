package org.fraudpipe.schemas;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class TopicTest {

    @Test
    void theInputTopicIsStampedByTheBrokersClockTheOthersKeepTheProducers() {
        // The job judges future-dated records against the record timestamp (issue #15 item 3).
        assertThat(Topic.TRANSACTIONS.topicConfig())
                .containsEntry(Topic.MESSAGE_TIMESTAMP_TYPE, Topic.LOG_APPEND_TIME)
                .containsEntry("cleanup.policy", "delete");
        for (Topic topic : Topic.values()) {
            if (topic != Topic.TRANSACTIONS) {
                assertThat(topic.topicConfig()).doesNotContainKey(Topic.MESSAGE_TIMESTAMP_TYPE);
            }
        }
    }

    @Test
    void upsertTopicsAreCompactedAndStreamsRetainedForAWeek() {
        assertThat(Topic.FEATURES.topicConfig()).containsEntry("cleanup.policy", "compact");
        assertThat(Topic.LATE.topicConfig()).containsEntry("retention.ms", "604800000");
    }
}
