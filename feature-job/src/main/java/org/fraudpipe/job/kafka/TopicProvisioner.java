package org.fraudpipe.job.kafka;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.common.errors.TopicExistsException;
import org.fraudpipe.schemas.Topic;
import org.fraudpipe.schemas.TopicNames;

/**
 * Creates the product's topics with their contract ({@link Topic#topicConfig()}: the features and
 * scores topics compacted). Idempotent: existing topics are left as they are.
 *
 * <p>Used by the local runtime; in production, topics are created by whoever owns the Kafka
 * cluster, with the same configuration (README, "Deploying").
 */
public final class TopicProvisioner {

    private final Admin admin;

    public TopicProvisioner(Admin admin) {
        this.admin = admin;
    }

    /**
     * Creates every missing topic and returns once all of them are listed by the cluster (a created
     * topic reaches the brokers' metadata a moment after the controller accepted it).
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
                            new NewTopic(entry.getValue(), partitions, replicationFactor)
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
        while (true) {
            Set<String> listed = admin.listTopics().names().get(30, TimeUnit.SECONDS);
            if (listed.containsAll(names.asMap().values())) {
                return;
            }
            if (System.nanoTime() > deadline) {
                throw new IllegalStateException(
                        "topics created but not listed by the cluster after "
                                + timeout.toSeconds()
                                + " s: "
                                + names.asMap().values());
            }
            Thread.sleep(100);
        }
    }
}
