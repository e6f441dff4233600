package org.fraudpipe.sim;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.Map;
import java.util.Objects;
import java.util.Properties;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import org.apache.kafka.clients.producer.Producer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.header.internals.RecordHeaders;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.apache.kafka.common.serialization.Serializer;
import org.fraudpipe.schemas.avro.Transaction;
import org.fraudpipe.schemas.security.ClientProperties;

/**
 * Publishes records to the transactions topic, paced by their arrival times.
 *
 * <p>Values are bytes: a valid transaction is encoded by the injected {@code
 * Serializer<Transaction>} (in production the Confluent-framed Avro one), a malformed payload is
 * sent as its raw bytes so that the job's dead-letter path sees it exactly as a broken client would
 * have sent it. The key is the UTF-8 {@code userId} of a valid transaction ({@link
 * org.fraudpipe.schemas.Topic.KeyFormat#USER_ID}) and {@code null} for a malformed payload. The
 * Kafka record timestamp is left to the producer (wall clock): simulated arrival times may be far
 * from now, and brokers reject timestamps too far in the future and delete old ones by retention.
 *
 * <p>Pacing: with speedup {@code X > 0}, the record with arrival time {@code a} is sent no earlier
 * than {@code (a - a0) / X} of wall-clock time after the first record (arrival {@code a0}), on an
 * absolute schedule so that waits do not accumulate drift; {@code X = 0} sends as fast as possible.
 *
 * <p>Not thread-safe: one thread calls {@link #send} and {@link #finish}. The publisher owns the
 * producer and the serializer and closes both in {@link #close}.
 */
public final class TransactionPublisher implements AutoCloseable {

    /**
     * One record to publish: a valid transaction or a raw payload, with its arrival time. A raw
     * payload may have no arrival time ({@code null}: unknown, e.g. an unreadable line); it is then
     * sent right away, without pacing.
     */
    public record Item(Instant arrivalTime, Transaction transaction, byte[] raw) {
        public Item {
            if ((transaction == null) == (raw == null)) {
                throw new IllegalArgumentException(
                        "exactly one of transaction and raw must be set");
            }
            if (transaction != null) {
                Objects.requireNonNull(arrivalTime, "arrivalTime");
            }
        }

        /** A valid transaction, to be encoded by the serializer. */
        public static Item valid(Transaction transaction, Instant arrivalTime) {
            return new Item(arrivalTime, Objects.requireNonNull(transaction), null);
        }

        /** A payload sent as is (a malformed record); {@code arrivalTime} may be null. */
        public static Item raw(byte[] payload, Instant arrivalTime) {
            return new Item(arrivalTime, null, Objects.requireNonNull(payload));
        }
    }

    /** Wall clock and sleeping, replaceable in tests. */
    public interface Pacing {
        long nanoTime();

        void sleepNanos(long nanos) throws InterruptedException;

        /** The real clock. */
        Pacing SYSTEM =
                new Pacing() {
                    @Override
                    public long nanoTime() {
                        return System.nanoTime();
                    }

                    @Override
                    public void sleepNanos(long nanos) throws InterruptedException {
                        Thread.sleep(nanos / 1_000_000, (int) (nanos % 1_000_000));
                    }
                };
    }

    /**
     * Outcome of a publication, complete once {@link #finish()} returned.
     *
     * @param sent records handed to the producer
     * @param serialized of which valid transactions encoded by the serializer
     * @param raw of which raw (malformed) payloads
     * @param acknowledged records the broker acknowledged
     * @param failed records the producer reported as failed
     * @param firstError the first failure, or {@code null}
     * @param endOffsets per partition, the offset after the last record the broker acknowledged:
     *     what a reader of the topic must have read to have read everything published
     */
    public record Result(
            long sent,
            long serialized,
            long raw,
            long acknowledged,
            long failed,
            Exception firstError,
            Map<Integer, Long> endOffsets) {}

    private final Producer<byte[], byte[]> producer;
    private final String topic;
    private final Serializer<Transaction> serializer;
    private final double speedup;
    private final Pacing pacing;

    private long sent;
    private long serialized;
    private long raw;
    private final AtomicLong acknowledged = new AtomicLong();
    private final AtomicLong failed = new AtomicLong();
    private final AtomicReference<Exception> firstError = new AtomicReference<>();
    private final Map<Integer, Long> endOffsets = new ConcurrentHashMap<>();
    private boolean started;
    private long originNanos;
    private long originArrivalMillis;

    /** A publisher pacing with the real clock. */
    public TransactionPublisher(
            Producer<byte[], byte[]> producer,
            String topic,
            Serializer<Transaction> serializer,
            double speedup) {
        this(producer, topic, serializer, speedup, Pacing.SYSTEM);
    }

    /**
     * @param producer where records go; owned by the publisher
     * @param topic the transactions topic
     * @param serializer value serializer of valid transactions; owned by the publisher
     * @param speedup {@code 0} for as fast as possible, otherwise how many times faster than the
     *     arrival times
     * @param pacing clock and sleep
     */
    public TransactionPublisher(
            Producer<byte[], byte[]> producer,
            String topic,
            Serializer<Transaction> serializer,
            double speedup,
            Pacing pacing) {
        if (!(speedup >= 0) || Double.isInfinite(speedup)) {
            throw new IllegalArgumentException(
                    "--speedup must be 0 (as fast as possible) or a positive number, got "
                            + speedup);
        }
        this.producer = Objects.requireNonNull(producer, "producer");
        this.topic = Objects.requireNonNull(topic, "topic");
        this.serializer = Objects.requireNonNull(serializer, "serializer");
        this.speedup = speedup;
        this.pacing = Objects.requireNonNull(pacing, "pacing");
    }

    /**
     * Producer settings for the transactions topic: byte-array key and value, {@code acks=all},
     * idempotence on (a retry inside the producer never duplicates; the simulator's duplicates are
     * separate sends, as from a client that retried), small linger, and one request in flight per
     * broker: with more, a request that reaches a just-created partition before the broker applied
     * its creation fails NOT_LEADER_OR_FOLLOWER while the next one is appended, and the first then
     * fails OUT_OF_ORDER_SEQUENCE_NUMBER on every retry until its delivery timeout drops it
     * (KAFKA-15591, still in the 4.2 broker; seen here when the simulator published right after
     * `./fraud kafka start` created the topics). One in flight cannot be overtaken.
     */
    public static Properties producerProperties(String bootstrapServers) {
        return producerProperties(bootstrapServers, ClientProperties.none());
    }

    /**
     * {@link #producerProperties(String)} on top of {@code client}'s settings (security, from
     * {@code --kafka-config}): the publisher's own settings win.
     */
    public static Properties producerProperties(String bootstrapServers, ClientProperties client) {
        Properties p = client.kafkaProperties(bootstrapServers);
        p.put(ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class.getName());
        p.put(ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class.getName());
        p.put(ProducerConfig.ACKS_CONFIG, "all");
        p.put(ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, "true");
        p.put(ProducerConfig.LINGER_MS_CONFIG, "5");
        p.put(ProducerConfig.MAX_IN_FLIGHT_REQUESTS_PER_CONNECTION, "1");
        p.put(ProducerConfig.MAX_BLOCK_MS_CONFIG, "30000");
        p.put(ProducerConfig.CLIENT_ID_CONFIG, "fraud-simulate");
        return p;
    }

    /** Waits for the item's turn (if paced) and hands it to the producer. */
    public void send(Item item) throws InterruptedException {
        if (item.arrivalTime() != null) {
            pace(item.arrivalTime().toEpochMilli());
        }
        byte[] key;
        byte[] value;
        RecordHeaders headers = new RecordHeaders();
        if (item.transaction() != null) {
            Transaction tx = item.transaction();
            key = tx.getUserId().getBytes(StandardCharsets.UTF_8);
            value = serializer.serialize(topic, headers, tx);
            serialized++;
        } else {
            key = null;
            value = item.raw();
            raw++;
        }
        producer.send(
                new ProducerRecord<>(topic, null, null, key, value, headers),
                (metadata, error) -> {
                    if (error == null) {
                        acknowledged.incrementAndGet();
                        endOffsets.merge(metadata.partition(), metadata.offset() + 1, Math::max);
                    } else {
                        failed.incrementAndGet();
                        firstError.compareAndSet(null, error);
                    }
                });
        sent++;
    }

    private void pace(long arrivalMillis) throws InterruptedException {
        if (speedup == 0) {
            return;
        }
        if (!started) {
            started = true;
            originNanos = pacing.nanoTime();
            originArrivalMillis = arrivalMillis;
            return;
        }
        double offsetNanos = (arrivalMillis - originArrivalMillis) * 1e6 / speedup;
        long wait = originNanos + (long) offsetNanos - pacing.nanoTime();
        if (wait > 0) {
            pacing.sleepNanos(wait);
        }
    }

    /** Flushes the producer and reports what happened to every record sent so far. */
    public Result finish() {
        producer.flush();
        return new Result(
                sent,
                serialized,
                raw,
                acknowledged.get(),
                failed.get(),
                firstError.get(),
                new TreeMap<>(endOffsets));
    }

    /** Flushes and closes the producer (waiting up to 30 s) and the serializer. */
    @Override
    public void close() {
        try {
            producer.close(Duration.ofSeconds(30));
        } finally {
            serializer.close();
        }
    }
}
