package org.fraudpipe.local;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.admin.TopicDescription;
import org.apache.kafka.common.TopicPartitionInfo;
import org.apache.kafka.common.errors.TopicExistsException;
import org.apache.kafka.common.errors.UnknownTopicOrPartitionException;
import org.fraudpipe.schemas.Topic;
import org.fraudpipe.schemas.TopicNames;

/**
 * Creates the product's topics with their contract ({@link Topic#topicConfig()}: the features and
 * scores topics compacted). Idempotent: existing topics are left as they are.
 *
 * <p>Used by the local runtime; in production, topics are created by whoever owns the Kafka
 * cluster, with the same configuration (docs/DEPLOY.md).
 */
public final class TopicProvisioner {

    private final Admin admin;

    public TopicProvisioner(Admin admin) {
        this.admin = admin;
    }

    /**
     * Creates every missing topic and returns once every partition of each has a leader the brokers
     * know of (a created topic reaches the brokers' metadata a moment after the controller accepted
     * it; a producer that writes before that gets NOT_LEADER_OR_FOLLOWER, and an idempotent one may
     * then be stuck retrying with OUT_OF_ORDER_SEQUENCE_NUMBER until its delivery timeout, as seen
     * here on a loaded machine).
     *
     * @return the names of the topics created now
     */
    public List<String> ensureTopics(TopicNames names, int partitions, short replicationFactor) {
        try {
            Set<String> existing = admin.listTopics().names().get(30, TimeUnit.SECONDS);
            List<NewTopic> missing = new ArrayList<>();
            for (Map.Entry<Topic, String> entry : names.asMap().entrySet()) {
                if (!existing.contains(entry.getValue())) {
                    missing.add(
                            new NewTopic(
                                            entry.getValue(),
                                            entry.getKey().partitions(partitions),
                                            replicationFactor)
                                    .configs(entry.getKey().topicConfig()));
                }
            }
            List<String> created = new ArrayList<>();
            for (Map.Entry<String, org.apache.kafka.common.KafkaFuture<Void>> result :
                    admin.createTopics(missing).values().entrySet()) {
                try {
                    result.getValue().get(30, TimeUnit.SECONDS);
                    created.add(result.getKey());
                } catch (ExecutionException e) {
                    if (!(e.getCause() instanceof TopicExistsException)) {
                        throw new IllegalStateException(
                                "cannot create topic " + result.getKey() + ": " + e.getCause(), e);
                    }
                }
            }
            awaitVisible(names, Duration.ofSeconds(30));
            return created;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while creating topics", e);
        } catch (ExecutionException | TimeoutException e) {
            throw new IllegalStateException("cannot list topics: " + e, e);
        }
    }

    private void awaitVisible(TopicNames names, Duration timeout)
            throws InterruptedException, ExecutionException, TimeoutException {
        long deadline = System.nanoTime() + timeout.toNanos();
        Collection<String> topics = names.asMap().values();
        while (true) {
            Set<String> listed = admin.listTopics().names().get(30, TimeUnit.SECONDS);
            if (listed.containsAll(topics) && everyPartitionHasALeader(topics)) {
                return;
            }
            if (System.nanoTime() > deadline) {
                throw new IllegalStateException(
                        "topics created but without a leader for every partition after "
                                + timeout.toSeconds()
                                + " s: "
                                + topics);
            }
            Thread.sleep(100);
        }
    }

    private boolean everyPartitionHasALeader(Collection<String> topics)
            throws InterruptedException, ExecutionException, TimeoutException {
        Map<String, TopicDescription> described;
        try {
            described = admin.describeTopics(topics).allTopicNames().get(30, TimeUnit.SECONDS);
        } catch (ExecutionException e) {
            if (e.getCause() instanceof UnknownTopicOrPartitionException) {
                return false; // listed by one request, not yet known to the next broker asked
            }
            throw e;
        }
        for (TopicDescription d : described.values()) {
            for (TopicPartitionInfo p : d.partitions()) {
                if (p.leader() == null || p.leader().isEmpty()) {
                    return false;
                }
            }
        }
        return true;
    }
}
