package org.fraudpipe.job.scoring.release;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.function.LongSupplier;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.Deserializer;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.fraudpipe.schemas.Topic;
import org.fraudpipe.schemas.avro.ModelEvent;
import org.fraudpipe.scoring.release.ModelRegistry;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A scoring subtask's reader of the model registry topic (DECISIONS, "how the job reads the
 * registry"): a plain consumer of the topic's one partition, read from the beginning when it starts
 * (the topic's history is the state, so nothing is checkpointed: a failover, a restore and a
 * rescale rebuild the same view), refreshed by a daemon thread, publishing immutable {@link
 * RegistryView}s.
 *
 * <p>Invariant of a view: it holds every record the topic had at the wall time {@code w} its
 * refresh started (read to the end offset asked for after {@code w}), so any assignment not in it
 * was appended after {@code w} and takes effect at {@code w + MIN_LEAD} at the earliest (the
 * registry ignores anything sooner); less an allowance for this machine's clock being ahead of the
 * broker's, that is the view's {@code completeThrough}. A view's registry is never changed after it
 * is published (a refresh that reads something new folds a new one), so the task thread may read it
 * without locks.
 */
public final class RegistryFollower implements RegistryFeed {

    private static final Logger LOG = LoggerFactory.getLogger(RegistryFollower.class);

    /** How far this machine's clock may be ahead of the broker's. */
    public static final Duration CLOCK_ALLOWANCE = Duration.ofSeconds(2);

    /** How long closing the follower's consumer may take. */
    private static final Duration CLOSE_TIMEOUT = Duration.ofSeconds(1);

    /** How often a view is refreshed. */
    public static final Duration REFRESH = Duration.ofSeconds(1);

    private final String topic;
    private final Properties properties;
    private final Deserializer<ModelEvent> values;
    private final LongSupplier clock;
    private final Object lock = new Object();
    private final List<ConsumerRecord<String, ModelEvent>> history = new ArrayList<>();

    private volatile RegistryView view;
    private volatile Exception lastFailure;
    private volatile boolean closed;
    private Thread thread;
    private volatile KafkaConsumer<String, ModelEvent> consumer;

    /**
     * @param properties the Kafka client's connection and security settings (bootstrap servers
     *     included); the follower adds its own consumer settings
     * @param values the registry topic's value deserializer
     */
    public RegistryFollower(
            String topic,
            Properties properties,
            Deserializer<ModelEvent> values,
            LongSupplier clock) {
        this.topic = topic;
        this.properties = consumerProperties(properties);
        this.values = values;
        this.clock = clock;
    }

    /** The consumer settings of a reader of the registry topic, added to {@code connection}. */
    public static Properties consumerProperties(Properties connection) {
        Properties c = new Properties();
        c.putAll(connection);
        c.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, "false");
        c.put(ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed");
        c.put(ConsumerConfig.MAX_PARTITION_FETCH_BYTES_CONFIG, Topic.MODEL_EVENT_MAX_BYTES);
        c.put(ConsumerConfig.FETCH_MAX_BYTES_CONFIG, Topic.MODEL_EVENT_MAX_BYTES);
        return c;
    }

    /** Starts the refreshing thread; the first view arrives once the topic was read to its end. */
    public void start() {
        thread = new Thread(this::follow, "model-registry-follower-" + topic);
        thread.setDaemon(true);
        thread.start();
    }

    @Override
    public RegistryView current() {
        return view;
    }

    /**
     * The first view complete through {@code coordinate}, waiting for refreshes up to {@code
     * timeout}.
     *
     * @throws IllegalStateException naming the topic (and the last failure to read it) on timeout
     * @throws InterruptedException if the waiting thread is interrupted
     */
    @Override
    public RegistryView awaitCovering(long coordinate, Duration timeout)
            throws InterruptedException {
        long deadline = System.nanoTime() + timeout.toNanos();
        synchronized (lock) {
            while (true) {
                RegistryView v = view;
                if (v != null && v.completeThrough() >= coordinate) {
                    return v;
                }
                long left = deadline - System.nanoTime();
                if (left <= 0 || closed) {
                    Exception failure = lastFailure;
                    throw new IllegalStateException(
                            "the model registry topic "
                                    + topic
                                    + " has not been read through "
                                    + java.time.Instant.ofEpochMilli(coordinate)
                                    + " within "
                                    + timeout.toSeconds()
                                    + " s"
                                    + (v == null
                                            ? " (not read at all yet)"
                                            : " (read through "
                                                    + java.time.Instant.ofEpochMilli(
                                                            v.completeThrough())
                                                    + ")")
                                    + (failure == null ? "" : ", last failure: " + failure)
                                    + ": check that the broker is reachable and the job may READ "
                                    + topic,
                            failure);
                }
                lock.wait(Math.max(1, left / 1_000_000));
            }
        }
    }

    private void follow() {
        TopicPartition partition = new TopicPartition(topic, 0);
        KafkaConsumer<String, ModelEvent> c =
                new KafkaConsumer<>(properties, new StringDeserializer(), values);
        consumer = c;
        try {
            c.assign(List.of(partition));
            c.seekToBeginning(List.of(partition));
            while (!closed) {
                try {
                    refresh(c, partition);
                    lastFailure = null;
                } catch (org.apache.kafka.common.errors.WakeupException e) {
                    return; // closed
                } catch (Exception e) {
                    lastFailure = e;
                    LOG.warn("Cannot read the model registry topic {}: {}", topic, e.toString());
                }
                synchronized (lock) {
                    if (!closed) {
                        lock.wait(REFRESH.toMillis());
                    }
                }
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } finally {
            // No group, no offsets to commit: nothing to wait for when the task (or the broker)
            // is going away, so the task's close is not held up by the consumer's 30 s default.
            c.close(CLOSE_TIMEOUT);
        }
    }

    /** Reads to the end offset the topic has now, and publishes the view that proves. */
    private void refresh(KafkaConsumer<String, ModelEvent> consumer, TopicPartition partition) {
        long startedAt = clock.getAsLong();
        Map<TopicPartition, Long> end =
                consumer.endOffsets(List.of(partition), REFRESH.multipliedBy(10));
        long target = end.get(partition);
        int before = history.size();
        while (consumer.position(partition, REFRESH.multipliedBy(10)) < target) {
            try {
                for (ConsumerRecord<String, ModelEvent> r : consumer.poll(REFRESH)) {
                    history.add(r);
                }
            } catch (org.apache.kafka.common.errors.RecordDeserializationException e) {
                // Skipped by every reader alike (the archive's too): it never serves.
                LOG.error(
                        "model registry {} offset {}: not a model event, skipped ({})",
                        topic,
                        e.offset(),
                        e.getMessage());
                consumer.seek(partition, e.offset() + 1);
            }
        }
        RegistryView previous = view;
        ModelRegistry registry;
        if (previous != null && history.size() == before) {
            registry = previous.registry();
        } else {
            registry = new ModelRegistry();
            for (int i = 0; i < history.size(); i++) {
                ConsumerRecord<String, ModelEvent> r = history.get(i);
                ModelRegistry.Outcome outcome = registry.apply(r.value(), r.timestamp());
                if (i >= before) {
                    LOG.info(
                            "Model registry {} offset {}: {}",
                            topic,
                            r.offset(),
                            outcome instanceof ModelRegistry.Ignored ignored
                                    ? "ignored: " + ignored.why()
                                    : ((ModelRegistry.Applied) outcome).what());
                }
            }
        }
        long through =
                startedAt + ModelRegistry.MIN_LEAD.toMillis() - CLOCK_ALLOWANCE.toMillis() - 1;
        synchronized (lock) {
            view = new RegistryView(registry, through, history.size());
            lock.notifyAll();
        }
    }

    @Override
    public void close() {
        synchronized (lock) {
            closed = true;
            lock.notifyAll();
        }
        KafkaConsumer<String, ModelEvent> c = consumer;
        if (c != null) {
            c.wakeup(); // ends a blocking call of the follower's thread; close() is its own
        }
        if (thread != null) {
            try {
                thread.join(10_000);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
    }
}
