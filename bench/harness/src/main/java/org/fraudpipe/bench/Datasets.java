package org.fraudpipe.bench;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;
import java.util.Properties;
import java.util.SplittableRandom;
import java.util.UUID;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.Producer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.Serializer;
import org.fraudpipe.bench.probe.RunProbe;
import org.fraudpipe.schemas.Topic;
import org.fraudpipe.schemas.avro.Transaction;
import org.fraudpipe.schemas.wire.TopicSerdes;
import org.fraudpipe.sim.SimulatedRecord;
import org.fraudpipe.sim.SimulationConfig;
import org.fraudpipe.sim.TransactionPublisher;
import org.fraudpipe.sim.TransactionSimulator;

/**
 * The benchmark's inputs, each published once to a topic of its own, as fast as the producer goes
 * (no pacing), keyed by user id (Kafka's default partitioner), Confluent-framed Avro, lz4.
 *
 * <p>Every dataset ends with one <em>flush</em> record per partition (user {@value
 * RunProbe#FLUSH_USER_PREFIX}{@code <partition>}, explicit partition): its event time lies past
 * every window's end plus the allowed lateness, so every system's event time (Flink's watermark,
 * the minimum over partitions; Kafka Streams' per-task stream time) passes every window and all
 * results are final. Flush users are left out of every comparison. Event times lie in the past (the
 * job quarantines records dated beyond the wall clock plus its tolerance).
 */
final class Datasets {

    /**
     * A published dataset.
     *
     * @param records all records in the topic, flush records included (what the probes expect)
     * @param flushRecords of which flush records
     */
    record Dataset(
            String topic,
            long records,
            long flushRecords,
            Instant firstEventTime,
            Instant endEventTime,
            Instant flushEventTime,
            double publishSeconds,
            Map<String, Object> description) {}

    private Datasets() {}

    static Properties producerProperties(String bootstrap) {
        Properties p = TransactionPublisher.producerProperties(bootstrap);
        p.put(ProducerConfig.LINGER_MS_CONFIG, "20");
        p.put(ProducerConfig.BATCH_SIZE_CONFIG, Integer.toString(256 * 1024));
        p.put(ProducerConfig.COMPRESSION_TYPE_CONFIG, "lz4");
        p.put(ProducerConfig.CLIENT_ID_CONFIG, "bench-generator");
        return p;
    }

    /**
     * Simulated card traffic ({@link TransactionSimulator}: realistic activity, duplicates from
     * producer retries, arrival delays with an hours-late tail), the first {@code events} records
     * in arrival order. Without future-dated or malformed records: the peers have no quarantine or
     * dead-letter path, and what is measured is the window work.
     */
    static Dataset simulation(
            BenchKafka kafka,
            String topic,
            int partitions,
            long events,
            int users,
            Duration span,
            long seed,
            Duration window,
            Duration allowedLateness) {
        Instant now = Instant.now();
        // Event times end well before now: the flush record must not be future-dated.
        Instant start =
                truncate(
                        now.minus(span).minus(allowedLateness).minus(window).minusSeconds(3600),
                        Duration.ofHours(1));
        double days = span.toMillis() / 86_400_000.0;
        // The simulator's mean rate; the topic gets the first `events` records (a little more
        // is generated than needed, then cut: the span's tail is simply not published).
        double perUserDay = Math.min(10_000, 1.02 * events / (users * days));
        SimulationConfig config =
                SimulationConfig.builder()
                        .users(users)
                        .start(start)
                        .duration(span)
                        .seed(seed)
                        .txPerUserDay(perUserDay)
                        .futureRate(0)
                        .malformedRate(0)
                        .build();
        Instant flushTime = start.plus(span).plus(allowedLateness).plus(window).plusSeconds(60);
        long began = System.nanoTime();
        long published = 0;
        long retries = 0;
        long hoursLate = 0;
        Properties props = producerProperties(kafka.bootstrapServers());
        Serializer<Transaction> serializer =
                TopicSerdes.forRegistry(kafka.registryUrl())
                        .valueSerializer(Topic.TRANSACTIONS, Transaction.class);
        Producer<byte[], byte[]> producer = new KafkaProducer<>(props);
        try (TransactionPublisher publisher =
                new TransactionPublisher(producer, topic, serializer, 0)) {
            TransactionSimulator simulator = new TransactionSimulator(config);
            while (published < events && simulator.hasNext()) {
                SimulatedRecord r = simulator.next();
                if (r.isMalformed()) {
                    continue;
                }
                retries += r.retryCopy() ? 1 : 0;
                hoursLate += !r.retryCopy() && r.label().hoursLate() ? 1 : 0;
                publisher.send(r.toPublishItem());
                published++;
            }
            requireAllAcknowledged(publisher.finish(), published);
            sendFlush(producer, serializer, topic, partitions, flushTime);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while publishing", e);
        }
        if (published < events) {
            throw new IllegalStateException(
                    "the simulation produced only " + published + " of " + events + " records");
        }
        Map<String, Object> d = new LinkedHashMap<>();
        d.put("kind", "simulation");
        d.put("events", published);
        d.put("users", users);
        d.put("eventTimeSpan", span.toString());
        d.put("txPerUserDay", perUserDay);
        d.put("seed", seed);
        d.put("producerRetryCopies", retries);
        d.put("hoursLateArrivals", hoursLate);
        d.put("futureDated", 0);
        d.put("malformed", 0);
        return new Dataset(
                topic,
                published + partitions,
                partitions,
                start,
                start.plus(span),
                flushTime,
                (System.nanoTime() - began) / 1e9,
                d);
    }

    /**
     * Window-close burst: {@code users} users with one transaction each in each of {@code
     * warmUpWindows} consecutive windows, then one each in W (the next window), then the flush.
     * Each window's records move the watermark past the previous window's end, so the warm-up
     * windows fire (and are dropped) while the next ones are read: by W the firing path has been
     * run {@code warmUpWindows x users} times and the JIT has compiled it, as in a job that has
     * been running (with one warm-up window, C2 compilation took more CPU than the burst itself and
     * the figure varied 1.7-2.8 s between runs). The flush then fires W with every user at once:
     * the burst that is measured.
     *
     * @return the dataset; {@code description.windowStart} is W's start (epoch millis)
     */
    static Dataset burst(
            BenchKafka kafka,
            String topic,
            int partitions,
            int users,
            int warmUpWindows,
            long seed,
            Duration window,
            Duration outOfOrderness) {
        if (warmUpWindows < 1) {
            throw new IllegalArgumentException("at least one warm-up window: " + warmUpWindows);
        }
        Instant w0 = truncate(Instant.now().minusSeconds(3600), window);
        Instant w = w0.plus(window.multipliedBy(warmUpWindows));
        Instant flushTime = w.plus(window).plus(outOfOrderness).plusSeconds(1);
        long began = System.nanoTime();
        SplittableRandom rng = new SplittableRandom(seed);
        Properties props = producerProperties(kafka.bootstrapServers());
        Serializer<Transaction> serializer =
                TopicSerdes.forRegistry(kafka.registryUrl())
                        .valueSerializer(Topic.TRANSACTIONS, Transaction.class);
        long n = 0;
        try (Producer<byte[], byte[]> producer = new KafkaProducer<>(props)) {
            for (Instant start = w0; !start.isAfter(w); start = start.plus(window)) {
                for (int u = 0; u < users; u++) {
                    long offset = rng.nextLong(window.toMillis() - 10_000);
                    send(producer, serializer, topic, tx(rng, user(u), start.plusMillis(offset)));
                    n++;
                }
            }
            producer.flush();
            sendFlush(producer, serializer, topic, partitions, flushTime);
        }
        Map<String, Object> d = new LinkedHashMap<>();
        d.put("kind", "burst");
        d.put("users", users);
        d.put("warmUpWindows", warmUpWindows);
        d.put("firstWarmUpWindowStart", w0.toEpochMilli());
        d.put("windowStart", w.toEpochMilli());
        d.put("windowEnd", w.plus(window).toEpochMilli());
        return new Dataset(
                topic,
                n + partitions,
                partitions,
                w0,
                w.plus(window),
                flushTime,
                (System.nanoTime() - began) / 1e9,
                d);
    }

    /**
     * State cost: {@code users} users each with {@code perWindow} transactions in every one of
     * {@code windows} consecutive windows, in event-time order, the last one a second before the
     * last window's end; no flush (the state is measured while the last windows are alive).
     */
    static Dataset state(
            BenchKafka kafka,
            String topic,
            int users,
            int windows,
            int perWindow,
            long seed,
            Duration window) {
        Instant first =
                truncate(
                        Instant.now().minus(window.multipliedBy(windows)).minusSeconds(3600),
                        window);
        long began = System.nanoTime();
        SplittableRandom rng = new SplittableRandom(seed);
        Properties props = producerProperties(kafka.bootstrapServers());
        Serializer<Transaction> serializer =
                TopicSerdes.forRegistry(kafka.registryUrl())
                        .valueSerializer(Topic.TRANSACTIONS, Transaction.class);
        long n = 0;
        long slots = (long) windows * perWindow;
        long step = window.toMillis() / perWindow;
        try (Producer<byte[], byte[]> producer = new KafkaProducer<>(props)) {
            for (long slot = 0; slot < slots; slot++) {
                // Slot times: evenly spaced, the last one 1 s before the last window's end.
                Instant t = first.plusMillis((slot + 1) * step - 1000);
                for (int u = 0; u < users; u++) {
                    send(producer, serializer, topic, tx(rng, user(u), t));
                    n++;
                }
            }
        }
        Map<String, Object> d = new LinkedHashMap<>();
        d.put("kind", "state");
        d.put("users", users);
        d.put("windows", windows);
        d.put("transactionsPerUserAndWindow", perWindow);
        d.put("lastEventTime", first.plusMillis(slots * step - 1000).toEpochMilli());
        return new Dataset(
                topic,
                n,
                0,
                first,
                first.plus(window.multipliedBy(windows)),
                null,
                (System.nanoTime() - began) / 1e9,
                d);
    }

    static String user(int u) {
        return String.format(Locale.ROOT, "b-%07d", u);
    }

    private static Transaction tx(SplittableRandom rng, String user, Instant eventTime) {
        return new Transaction(
                new UUID(rng.nextLong(), rng.nextLong()).toString(),
                user,
                100 + rng.nextLong(50_000),
                "EUR",
                String.format(Locale.ROOT, "m-%05d", rng.nextInt(5000)),
                String.format(Locale.ROOT, "d-%012x", rng.nextLong() & 0xFFFF_FFFF_FFFFL),
                "DE",
                eventTime);
    }

    private static void send(
            Producer<byte[], byte[]> producer,
            Serializer<Transaction> serializer,
            String topic,
            Transaction tx) {
        producer.send(
                new ProducerRecord<>(
                        topic,
                        tx.getUserId().getBytes(StandardCharsets.UTF_8),
                        serializer.serialize(topic, tx)));
    }

    /** One flush record per partition, sent and acknowledged after everything before it. */
    private static void sendFlush(
            Producer<byte[], byte[]> producer,
            Serializer<Transaction> serializer,
            String topic,
            int partitions,
            Instant eventTime) {
        producer.flush();
        for (int p = 0; p < partitions; p++) {
            String user = RunProbe.FLUSH_USER_PREFIX + p;
            Transaction tx =
                    new Transaction(
                            "flush-" + p + "-" + eventTime.toEpochMilli(),
                            user,
                            0L,
                            "EUR",
                            "m-flush",
                            "d-flush",
                            "DE",
                            eventTime);
            try {
                producer.send(
                                new ProducerRecord<>(
                                        topic,
                                        p,
                                        user.getBytes(StandardCharsets.UTF_8),
                                        serializer.serialize(topic, tx)))
                        .get();
            } catch (Exception e) {
                throw new IllegalStateException("cannot send the flush record: " + e, e);
            }
        }
    }

    private static void requireAllAcknowledged(TransactionPublisher.Result result, long sent) {
        if (result.failed() > 0 || result.acknowledged() != sent) {
            throw new IllegalStateException(
                    "publishing failed: "
                            + result.acknowledged()
                            + " of "
                            + sent
                            + " acknowledged, first error "
                            + result.firstError());
        }
    }

    static Instant truncate(Instant t, Duration unit) {
        long u = unit.toMillis();
        return Instant.ofEpochMilli(Math.floorDiv(t.toEpochMilli(), u) * u);
    }
}
