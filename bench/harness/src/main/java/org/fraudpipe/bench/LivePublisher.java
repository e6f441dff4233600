package org.fraudpipe.bench;

import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.PriorityQueue;
import java.util.Properties;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.locks.LockSupport;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.Producer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.Serializer;
import org.fraudpipe.job.metrics.LatencyHistogram;
import org.fraudpipe.schemas.Topic;
import org.fraudpipe.schemas.avro.Transaction;
import org.fraudpipe.schemas.wire.TopicSerdes;

/**
 * Publishes a live-paced run's traffic in real time: each event when the {@link LivePacer} says it
 * is due (the producer's batching aside: {@code linger.ms} 5), each retry copy when its delay has
 * passed, keyed by user id. How well the rate was kept is part of the result: events sent, how far
 * behind their scheduled instant they were handed to the producer (a histogram over the measured
 * events), the producer's acknowledgements, and the count sent by each second (for the lag).
 */
final class LivePublisher implements AutoCloseable {

    /**
     * What was published.
     *
     * @param originals scheduled events sent
     * @param copies retry copies sent
     * @param pings readiness records sent
     * @param measuredFrom index of the first measured event
     * @param measureStartWallMillis when the first measured event was handed to the producer
     * @param lastSendWallMillis when the last record (event or copy) was handed to the producer
     * @param lastScheduledSendWallMillis when the last scheduled event was handed to the producer
     * @param behindSchedule how late each measured event was handed to the producer, ms
     * @param progress {wallMillis, records sent so far (pings, events and copies)} once a second
     */
    record Result(
            long originals,
            long copies,
            long pings,
            long acknowledged,
            long failed,
            String firstError,
            long measuredFrom,
            long measureStartWallMillis,
            long lastSendWallMillis,
            long lastScheduledSendWallMillis,
            LatencyHistogram.Distribution behindSchedule,
            List<long[]> progress) {

        long records() {
            return originals + copies + pings;
        }
    }

    private final String topic;
    private final int partitions;
    private final Producer<byte[], byte[]> producer;
    private final Serializer<Transaction> serializer;
    private final AtomicLong acknowledged = new AtomicLong();
    private final AtomicLong failed = new AtomicLong();
    private final AtomicReference<String> firstError = new AtomicReference<>();
    private long pings;

    LivePublisher(BenchKafka kafka, String topic, int partitions) {
        this.topic = topic;
        this.partitions = partitions;
        Properties p = Datasets.producerProperties(kafka.bootstrapServers());
        // Live traffic: small batches (the latency is measured from the broker's append time, so
        // batching delays only the arrival, but larger batches would make arrivals bursty).
        p.put(ProducerConfig.LINGER_MS_CONFIG, "5");
        p.put(ProducerConfig.CLIENT_ID_CONFIG, "bench-live");
        this.producer = new KafkaProducer<>(p);
        this.serializer =
                TopicSerdes.forRegistry(kafka.registryUrl())
                        .valueSerializer(Topic.TRANSACTIONS, Transaction.class);
    }

    /**
     * One readiness record per partition (user {@value LiveTraffic#PING_USER_PREFIX}{@code <p>},
     * event time now), acknowledged before it returns: when the system under test has read them,
     * its source runs.
     */
    void sendPings() {
        long now = System.currentTimeMillis();
        for (int p = 0; p < partitions; p++) {
            String user = LiveTraffic.PING_USER_PREFIX + p;
            Transaction tx =
                    new Transaction(
                            "ping-" + p + "-" + now,
                            user,
                            1L,
                            "EUR",
                            "m-ping",
                            "d-ping",
                            "DE",
                            Instant.ofEpochMilli(now));
            try {
                producer.send(
                                new ProducerRecord<>(
                                        topic,
                                        p,
                                        user.getBytes(StandardCharsets.UTF_8),
                                        serializer.serialize(topic, tx)))
                        .get();
            } catch (Exception e) {
                throw new IllegalStateException("cannot send a readiness record: " + e, e);
            }
            pings++;
        }
    }

    /**
     * Publishes {@code pacer.total()} events of {@code traffic} (whose start must be the pacer's,
     * on the wall clock) and their retry copies, calling {@code onMeasureStart} just before event
     * {@code measureFrom} is sent.
     */
    Result run(LiveTraffic traffic, LivePacer pacer, long measureFrom, Runnable onMeasureStart) {
        PriorityQueue<long[]> copies = new PriorityQueue<>((a, b) -> Long.compare(a[0], b[0]));
        LatencyHistogram behind = new LatencyHistogram();
        List<long[]> progress = new ArrayList<>();
        long sent = 0;
        long copiesSent = 0;
        long measureStartWall = -1;
        long lastScheduledWall = -1;
        long nextProgress = System.nanoTime();
        long total = pacer.total();
        while (sent < total || !copies.isEmpty()) {
            long now = System.nanoTime();
            long due = pacer.dueBy(now);
            while (sent < due) {
                if (sent == measureFrom) {
                    onMeasureStart.run();
                    measureStartWall = System.currentTimeMillis();
                }
                LiveTraffic.Event e = traffic.event(sent);
                send(e.transaction());
                long after = System.nanoTime();
                if (sent >= measureFrom) {
                    behind.record((after - pacer.scheduledNanos(sent)) / 1_000_000);
                }
                if (e.retried()) {
                    copies.add(
                            new long[] {
                                pacer.scheduledNanos(sent) + e.retryDelayMillis() * 1_000_000, sent
                            });
                }
                sent++;
                if (sent == total) {
                    lastScheduledWall = System.currentTimeMillis();
                }
            }
            while (!copies.isEmpty() && copies.peek()[0] <= now) {
                send(traffic.event(copies.poll()[1]).transaction());
                copiesSent++;
            }
            now = System.nanoTime();
            if (now >= nextProgress) {
                progress.add(new long[] {System.currentTimeMillis(), pings + sent + copiesSent});
                nextProgress += 1_000_000_000L;
            }
            long next = Long.MAX_VALUE;
            if (sent < total) {
                next = pacer.scheduledNanos(sent);
            }
            if (!copies.isEmpty()) {
                next = Math.min(next, copies.peek()[0]);
            }
            long wait = Math.min(next - now, nextProgress - now);
            if (wait > 0) {
                LockSupport.parkNanos(Math.min(wait, 10_000_000L));
            }
        }
        long lastSend = System.currentTimeMillis();
        producer.flush();
        progress.add(new long[] {System.currentTimeMillis(), pings + sent + copiesSent});
        return new Result(
                sent,
                copiesSent,
                pings,
                acknowledged.get(),
                failed.get(),
                firstError.get(),
                measureFrom,
                measureStartWall,
                lastSend,
                lastScheduledWall,
                behind.getLocalValue(),
                progress);
    }

    private void send(Transaction tx) {
        producer.send(
                new ProducerRecord<>(
                        topic,
                        tx.getUserId().getBytes(StandardCharsets.UTF_8),
                        serializer.serialize(topic, tx)),
                (metadata, error) -> {
                    if (error == null) {
                        acknowledged.incrementAndGet();
                    } else {
                        failed.incrementAndGet();
                        firstError.compareAndSet(null, error.toString());
                    }
                });
    }

    @Override
    public void close() {
        producer.close(java.time.Duration.ofSeconds(30));
        serializer.close();
    }
}
