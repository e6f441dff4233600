package org.fraudpipe.tools.soak;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Properties;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.fraudpipe.schemas.Topic;
import org.fraudpipe.schemas.avro.TransactionScore;
import org.fraudpipe.schemas.wire.ConfluentAvroCodec;
import org.fraudpipe.schemas.wire.TopicSerdes;

/**
 * Reads the scores at arrival as they are written, from the broker's own listener, for what the
 * campaign measures while it runs: when the decision path answered again after each fault (its
 * recovery) and how long answers took during faults. Every answer's Kafka record timestamp of the
 * transaction ({@code recordTimestamp}), its {@code scoredAt} and when this reader received it.
 */
final class ScoreWatcher implements AutoCloseable {

    /** One answer: epoch millis. */
    record Answer(long recordTimestamp, long scoredAt, long receivedAt) {}

    private final List<Answer> answers = new ArrayList<>();
    private final Thread thread;
    private volatile boolean closed;
    private volatile Exception failure;

    ScoreWatcher(String bootstrap, String registryUrl) {
        Properties p = new Properties();
        p.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        p.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, "false");
        p.put(ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_uncommitted");
        p.put(ConsumerConfig.CLIENT_ID_CONFIG, "soak-score-watcher");
        ConfluentAvroCodec<TransactionScore> codec =
                TopicSerdes.forRegistry(registryUrl)
                        .valueCodec(
                                Topic.TRANSACTION_SCORES,
                                Topic.TRANSACTION_SCORES.defaultName(),
                                TransactionScore.class);
        thread =
                new Thread(
                        () -> {
                            try (KafkaConsumer<byte[], byte[]> c =
                                    new KafkaConsumer<>(
                                            p,
                                            new ByteArrayDeserializer(),
                                            new ByteArrayDeserializer())) {
                                List<TopicPartition> parts =
                                        c
                                                .partitionsFor(
                                                        Topic.TRANSACTION_SCORES.defaultName(),
                                                        Duration.ofSeconds(30))
                                                .stream()
                                                .map(
                                                        i ->
                                                                new TopicPartition(
                                                                        i.topic(), i.partition()))
                                                .toList();
                                c.assign(parts);
                                c.seekToBeginning(parts);
                                while (!closed) {
                                    try {
                                        for (ConsumerRecord<byte[], byte[]> r :
                                                c.poll(Duration.ofMillis(200))) {
                                            long now = System.currentTimeMillis();
                                            TransactionScore s = codec.decode(r.value());
                                            if (s.getRecordTimestamp() == null) {
                                                continue;
                                            }
                                            synchronized (answers) {
                                                answers.add(
                                                        new Answer(
                                                                s.getRecordTimestamp()
                                                                        .toEpochMilli(),
                                                                s.getScoredAt().toEpochMilli(),
                                                                now));
                                            }
                                        }
                                    } catch (org.apache.kafka.common.errors.WakeupException e) {
                                        return;
                                    } catch (RuntimeException e) {
                                        // the broker restarting, the registry down: read on
                                        failure = e;
                                    }
                                }
                            }
                        },
                        "soak-score-watcher");
        thread.setDaemon(true);
    }

    void start() {
        thread.start();
    }

    /** Every answer received so far, in receiving order. */
    List<Answer> answers() {
        synchronized (answers) {
            return List.copyOf(answers);
        }
    }

    /**
     * How long after {@code endMillis} the first answer to a transaction appended at or after it
     * was received, or -1 if none was.
     */
    long recoveryAfter(long endMillis) {
        long first = Long.MAX_VALUE;
        for (Answer a : answers()) {
            if (a.recordTimestamp() >= endMillis) {
                first = Math.min(first, a.receivedAt());
            }
        }
        return first == Long.MAX_VALUE ? -1 : Math.max(0, first - endMillis);
    }

    Exception lastFailure() {
        return failure;
    }

    @Override
    public void close() throws InterruptedException {
        closed = true;
        thread.join(10_000);
    }
}
