package org.fraudpipe.bench;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.ConsumerRecords;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.WakeupException;

/**
 * A reader of one output topic during a live-paced run, in a thread of its own: a {@code
 * read_committed} consumer from the beginning, handing every record to a handler with the wall
 * clock at which the poll returned it (when it became visible to a consumer, as far as a consumer
 * can tell: within the poll's fetch, which returns as soon as data is there). Transactional outputs
 * (the window topics) become visible at the system's commits; the at-least-once transaction-scores
 * topic at once.
 */
final class LiveReader implements AutoCloseable {

    /** What a reader does with each record; called on the reader's thread only. */
    interface Handler {
        void accept(ConsumerRecord<byte[], byte[]> record, long receiptWallMillis);
    }

    private final String topic;
    private final KafkaConsumer<byte[], byte[]> consumer;
    private final Handler handler;
    private final Thread thread;
    private volatile boolean finishing;
    private volatile Map<TopicPartition, Long> finishAt;
    private volatile Throwable failure;
    private long records;

    LiveReader(BenchKafka kafka, String topic, Handler handler) {
        this.topic = topic;
        this.consumer = kafka.committedConsumer();
        this.handler = handler;
        List<TopicPartition> partitions = new ArrayList<>();
        consumer.partitionsFor(topic, Duration.ofSeconds(30))
                .forEach(i -> partitions.add(new TopicPartition(topic, i.partition())));
        consumer.assign(partitions);
        consumer.seekToBeginning(partitions);
        this.thread = new Thread(this::loop, "bench-live-reader-" + topic);
        thread.setDaemon(true);
        thread.start();
    }

    private void loop() {
        try {
            while (true) {
                ConsumerRecords<byte[], byte[]> batch = consumer.poll(Duration.ofMillis(100));
                long receipt = System.currentTimeMillis();
                for (ConsumerRecord<byte[], byte[]> r : batch) {
                    handler.accept(r, receipt);
                    records++;
                }
                if (finishing && reachedEnd()) {
                    return;
                }
            }
        } catch (WakeupException stopped) {
            // close() without finish()
        } catch (Throwable t) {
            failure = t;
        } finally {
            consumer.close(Duration.ofSeconds(5));
        }
    }

    private boolean reachedEnd() {
        Map<TopicPartition, Long> end = finishAt;
        if (end == null) {
            end = consumer.endOffsets(consumer.assignment());
            finishAt = end;
        }
        for (Map.Entry<TopicPartition, Long> e : end.entrySet()) {
            if (consumer.position(e.getKey()) < e.getValue()) {
                return false;
            }
        }
        return true;
    }

    /**
     * Reads on up to the end offsets as of now (read_committed: the last stable offsets) and stops;
     * rethrows what the reader failed with.
     *
     * @return records handed to the handler
     */
    long finish(Duration timeout) throws InterruptedException {
        finishing = true;
        thread.join(timeout.toMillis());
        if (thread.isAlive()) {
            consumer.wakeup();
            thread.join(10_000);
            throw new IllegalStateException(
                    "the reader of " + topic + " did not reach the end within " + timeout);
        }
        if (failure != null) {
            throw new IllegalStateException(
                    "the reader of " + topic + " failed: " + failure, failure);
        }
        return records;
    }

    @Override
    public void close() {
        if (thread.isAlive()) {
            consumer.wakeup();
            try {
                thread.join(10_000);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
    }
}
