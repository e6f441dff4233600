package org.fraudpipe.job.topology;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.avro.specific.SpecificRecord;
import org.apache.flink.core.execution.JobClient;
import org.apache.flink.runtime.testutils.MiniClusterResourceConfiguration;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.test.junit5.MiniClusterExtension;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.fraudpipe.job.archive.FileArchive;
import org.fraudpipe.job.config.JobConfig;
import org.fraudpipe.job.kafka.KafkaIO;
import org.fraudpipe.job.kafka.StartupChecks;
import org.fraudpipe.job.kafka.TopicProvisioner;
import org.fraudpipe.job.local.KafkaTestBroker;
import org.fraudpipe.job.scoring.OnnxPaneScorer;
import org.fraudpipe.job.testing.ArchiveFiles;
import org.fraudpipe.job.window.FeatureWindowSpec;
import org.fraudpipe.schemas.Topic;
import org.fraudpipe.schemas.TopicNames;
import org.fraudpipe.schemas.archive.ArchiveStream;
import org.fraudpipe.schemas.avro.ArchivedTransaction;
import org.fraudpipe.schemas.avro.DeadLetter;
import org.fraudpipe.schemas.avro.DeadLetterReason;
import org.fraudpipe.schemas.avro.FeatureRecord;
import org.fraudpipe.schemas.avro.LateReason;
import org.fraudpipe.schemas.avro.LateRecord;
import org.fraudpipe.schemas.avro.ScoreRecord;
import org.fraudpipe.schemas.avro.Timing;
import org.fraudpipe.schemas.avro.Transaction;
import org.fraudpipe.schemas.avro.WindowKey;
import org.fraudpipe.schemas.wire.ConfluentAvroCodec;
import org.fraudpipe.schemas.wire.TopicSerdes;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * The feature job end to end on Flink's MiniCluster (parallelism 2, RocksDB, exactly-once
 * checkpoints) against a real local Kafka broker: Kafka in, features, late records and dead letters
 * out, read with {@code read_committed}; and the archive's committed files.
 */
class KafkaFeatureJobIT {

    private static final int PARTITIONS = 3;
    private static final Instant W0 = Instant.parse("2026-11-28T12:00:00Z");
    private static final AtomicInteger RUN = new AtomicInteger();

    @RegisterExtension static final KafkaTestBroker KAFKA = new KafkaTestBroker(PARTITIONS);

    @RegisterExtension
    static final MiniClusterExtension FLINK =
            new MiniClusterExtension(
                    new MiniClusterResourceConfiguration.Builder()
                            .setNumberTaskManagers(1)
                            .setNumberSlotsPerTaskManager(2)
                            .build());

    @TempDir Path checkpoints;
    @TempDir Path archives;

    /** One isolated deployment: its own topics, registry scope, group and transactional ids. */
    private JobConfig deployment(String name) {
        String run = name + "-" + RUN.incrementAndGet();
        Map<Topic, String> names = new EnumMap<>(Topic.class);
        for (Topic t : Topic.values()) {
            names.put(t, run + "-" + t.defaultName());
        }
        TopicNames topics = TopicNames.withOverrides(names);
        try (Admin admin = KAFKA.admin()) {
            new TopicProvisioner(admin).ensureTopics(topics, PARTITIONS, (short) 1);
        }
        Map<String, String> options = new HashMap<>();
        options.put("bootstrap-servers", KAFKA.bootstrapServers());
        options.put("schema-registry-url", "mock://" + run);
        options.put("group-id", run);
        options.put("transactional-id-prefix", run);
        options.put("checkpoint-dir", checkpoints.toUri().toString());
        options.put("archive-dir", archives.resolve(run).toUri().toString());
        options.put("checkpoint-interval", "500ms");
        options.put("idleness", "1s");
        options.put("parallelism", "2");
        topics.asMap().forEach((t, n) -> options.put(TopicNames.optionName(t), n));
        return JobConfig.of(options);
    }

    private static JobClient start(JobConfig config) throws Exception {
        StartupChecks.verify(config);
        StreamExecutionEnvironment env =
                StreamExecutionEnvironment.getExecutionEnvironment(
                        JobEnvironment.flinkConfiguration(config));
        FeatureJobTopology.build(
                env,
                KafkaIO.source(config),
                new FeatureWindowSpec(config.windowSize(), config.allowedLateness()),
                new FeatureJobTopology.Scoring(
                        OnnxPaneScorer.Factory.of(config),
                        config.scoringBatchSize(),
                        config.scoringMaxDelay()),
                KafkaIO.sinks(config),
                FileArchive.forJob(config, false).orElseThrow());
        return env.executeAsync("kafka-feature-job-it");
    }

    private static Transaction tx(String id, String user, Instant at, long amount, String device) {
        return new Transaction(id, user, amount, "EUR", "m-" + user, device, "DE", at);
    }

    /** Produces transactions (and raw payloads) as the bank's producers would. */
    private static final class Producer implements AutoCloseable {
        final KafkaProducer<byte[], byte[]> kafka;
        final ConfluentAvroCodec<Transaction> codec;
        final String topic;

        Producer(JobConfig config) {
            Properties p = new Properties();
            p.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, config.bootstrapServers());
            p.put(ProducerConfig.ACKS_CONFIG, "all");
            kafka = new KafkaProducer<>(p, new ByteArraySerializer(), new ByteArraySerializer());
            topic = config.topics().name(Topic.TRANSACTIONS);
            codec =
                    TopicSerdes.forRegistry(config.schemaRegistryUrl())
                            .valueCodec(Topic.TRANSACTIONS, topic, Transaction.class);
        }

        RecordMetadata send(Integer partition, Transaction tx) throws Exception {
            return kafka.send(
                            new ProducerRecord<>(
                                    topic,
                                    partition,
                                    tx.getUserId().getBytes(StandardCharsets.UTF_8),
                                    codec.encode(tx)))
                    .get();
        }

        RecordMetadata sendRaw(int partition, byte[] value) throws Exception {
            return kafka.send(new ProducerRecord<>(topic, partition, null, value)).get();
        }

        @Override
        public void close() {
            kafka.close();
        }
    }

    /**
     * Waits until {@code expected} records are committed to {@code topic}, then returns everything
     * committed to it, so a duplicate would show as one record too many.
     */
    private static <T extends org.apache.avro.specific.SpecificRecord> List<T> read(
            JobConfig config, Topic topic, Class<T> type, int expected) {
        String name = config.topics().name(topic);
        ConfluentAvroCodec<T> codec =
                TopicSerdes.forRegistry(config.schemaRegistryUrl()).valueCodec(topic, name, type);
        assertThat(KAFKA.readCommitted(name, expected, Duration.ofSeconds(90)))
                .as("records committed to %s", name)
                .hasSizeGreaterThanOrEqualTo(expected);
        List<T> out = new ArrayList<>();
        for (ConsumerRecord<byte[], byte[]> r : KAFKA.readAllCommitted(name)) {
            out.add(codec.decode(r.value()));
        }
        return out;
    }

    /** A valid record as published: what the transactions archive must hold once. */
    private record Published(Transaction tx, RecordMetadata at) {}

    @Test
    void everyFateOfARecordReachesItsTopicExactlyOnceReadCommitted() throws Exception {
        JobConfig config = deployment("fates");
        long started = System.currentTimeMillis();
        JobClient job = start(config);
        List<Published> valid = new ArrayList<>();
        try (Producer producer = new Producer(config)) {
            // Window [12:00, 12:10): u1 three transactions (one retried), u2 two.
            for (Transaction tx :
                    List.of(
                            tx("a1", "u1", W0.plusSeconds(10), 100, "d1"),
                            tx("a2", "u1", W0.plusSeconds(70), 250, "d2"),
                            tx("a2", "u1", W0.plusSeconds(70), 250, "d2"), // producer retry
                            tx("a3", "u1", W0.plusSeconds(500), 50, "d1"),
                            tx("b1", "u2", W0.plusSeconds(20), 1000, "d9"),
                            tx("b2", "u2", W0.plusSeconds(30), 2000, "d9"))) {
                valid.add(new Published(tx, producer.send(null, tx)));
            }
            // A poison pill and a record dated a day ahead of the wall clock.
            RecordMetadata poison =
                    producer.sendRaw(1, new byte[] {'n', 'o', 't', ' ', 'a', 'v', 'r', 'o'});
            Transaction future = tx("f1", "u3", Instant.now().plus(Duration.ofDays(1)), 5, "d5");
            valid.add(new Published(future, producer.send(null, future)));
            // Event time moves past 12:10 + the bound on one partition; the others go idle.
            Transaction clock = tx("c1", "clock", W0.plus(Duration.ofMinutes(11)), 1, "d0");
            valid.add(new Published(clock, producer.send(0, clock)));

            List<FeatureRecord> features = read(config, Topic.FEATURES, FeatureRecord.class, 2);
            assertThat(features)
                    .extracting(
                            FeatureRecord::getUserId,
                            FeatureRecord::getTxCount,
                            FeatureRecord::getAmountSum,
                            FeatureRecord::getDistinctDevices,
                            FeatureRecord::getRevision,
                            FeatureRecord::getTiming)
                    .containsExactlyInAnyOrder(
                            org.assertj.core.groups.Tuple.tuple(
                                    "u1", 3L, 400L, 2, 0, Timing.ON_TIME),
                            org.assertj.core.groups.Tuple.tuple(
                                    "u2", 2L, 3000L, 1, 0, Timing.ON_TIME));
            assertThat(features).allMatch(f -> f.getWindowStart().equals(W0));

            // Each pane is scored inline by the default model, exactly once, with its features.
            List<ScoreRecord> scores = read(config, Topic.SCORES, ScoreRecord.class, 2);
            assertThat(scores)
                    .extracting(ScoreRecord::getFeatures)
                    .containsExactlyInAnyOrderElementsOf(features);
            assertThat(scores)
                    .allSatisfy(
                            s -> {
                                assertThat(s.getModelName()).isEqualTo("fraud-window");
                                assertThat(s.getRevision()).isZero();
                                assertThat(s.getScore()).isBetween(0.0, 1.0);
                            });

            List<DeadLetter> dead = read(config, Topic.DEAD_LETTERS, DeadLetter.class, 1);
            assertThat(dead).hasSize(1);
            assertThat(dead.get(0).getReason()).isEqualTo(DeadLetterReason.NOT_CONFLUENT_FRAMED);
            assertThat(dead.get(0).getSourcePartition()).isEqualTo(1);
            assertThat(dead.get(0).getValue().array()).startsWith((byte) 'n', (byte) 'o');

            List<LateRecord> late = read(config, Topic.LATE, LateRecord.class, 1);
            assertThat(late).hasSize(1);
            assertThat(late.get(0).getReason()).isEqualTo(LateReason.FUTURE_DATED);
            assertThat(late.get(0).getTransaction().getTransactionId()).isEqualTo("f1");
            assertThat(late.get(0).getLateByMillis()).isLessThan(-Duration.ofHours(23).toMillis());

            // The upsert key of a feature record is its (userId, windowStart).
            String featuresTopic = config.topics().name(Topic.FEATURES);
            ConfluentAvroCodec<WindowKey> keys =
                    TopicSerdes.forRegistry(config.schemaRegistryUrl())
                            .windowKeyCodec(Topic.FEATURES, featuresTopic);
            assertThat(KAFKA.readCommitted(featuresTopic, 2, Duration.ofSeconds(30)))
                    .extracting(r -> keys.decode(r.key()))
                    .containsExactlyInAnyOrder(new WindowKey("u1", W0), new WindowKey("u2", W0));

            // The archive, once the job has checkpointed: each valid record published exactly
            // once (the retry too: it is another record), with its Kafka position and timestamp;
            // the dead letter and the panes served, as served.
            Path archive = Path.of(config.archiveDir().orElseThrow());
            List<ArchivedTransaction> received =
                    awaitArchived(
                            archive,
                            ArchiveStream.TRANSACTIONS,
                            ArchivedTransaction.class,
                            valid.size());
            String transactions = config.topics().name(Topic.TRANSACTIONS);
            assertThat(received)
                    .extracting(
                            a -> a.getSourceTopic(),
                            a -> a.getSourcePartition(),
                            a -> a.getSourceOffset(),
                            a -> a.getTransaction(),
                            a -> a.getRecordTimestamp(),
                            a -> a.getQuarantined())
                    .containsExactlyInAnyOrderElementsOf(
                            valid.stream()
                                    .map(
                                            p ->
                                                    org.assertj.core.groups.Tuple.tuple(
                                                            transactions,
                                                            p.at().partition(),
                                                            p.at().offset(),
                                                            p.tx(),
                                                            Instant.ofEpochMilli(
                                                                    p.at().timestamp()),
                                                            p.tx().getTransactionId().equals("f1")))
                                    .toList());
            assertThat(received)
                    .allSatisfy(
                            a ->
                                    assertThat(a.getReceivedAt().toEpochMilli())
                                            .isBetween(started, System.currentTimeMillis()));
            assertThat(awaitArchived(archive, ArchiveStream.DEAD_LETTERS, DeadLetter.class, 1))
                    .singleElement()
                    .satisfies(
                            d -> {
                                assertThat(d.getSourcePartition()).isEqualTo(poison.partition());
                                assertThat(d.getSourceOffset()).isEqualTo(poison.offset());
                            });
            assertThat(awaitArchived(archive, ArchiveStream.FEATURES, FeatureRecord.class, 2))
                    .containsExactlyInAnyOrderElementsOf(features);
        } finally {
            job.cancel().get();
        }
    }

    /**
     * Waits until the committed files of {@code stream} hold at least {@code expected} records,
     * then waits two more checkpoint intervals and returns everything committed: a duplicate would
     * show as one record too many.
     */
    private static <T extends SpecificRecord> List<T> awaitArchived(
            Path archive, ArchiveStream stream, Class<T> type, int expected) throws Exception {
        long deadline = System.nanoTime() + Duration.ofSeconds(90).toNanos();
        while (committed(archive, stream, type).size() < expected && System.nanoTime() < deadline) {
            Thread.sleep(200);
        }
        Thread.sleep(1_000); // two checkpoint intervals (500 ms)
        return committed(archive, stream, type);
    }

    private static <T extends SpecificRecord> List<T> committed(
            Path archive, ArchiveStream stream, Class<T> type) {
        for (int attempt = 0; ; attempt++) {
            try {
                return ArchiveFiles.records(archive, stream, type);
            } catch (UncheckedIOException e) {
                // A hidden in-progress file renamed (committed) while the directory was listed.
                if (attempt == 10) {
                    throw e;
                }
            }
        }
    }

    @Test
    void windowsFireWhileTwoOfThreePartitionsNeverReceiveData() throws Exception {
        JobConfig config = deployment("idle");
        JobClient job = start(config);
        try (Producer producer = new Producer(config)) {
            producer.send(0, tx("x1", "solo", W0.plusSeconds(5), 10, "d1"));
            producer.send(0, tx("x2", "solo", W0.plusSeconds(6), 20, "d1"));
            producer.send(0, tx("x3", "solo", W0.plus(Duration.ofMinutes(11)), 30, "d1"));

            List<FeatureRecord> features = read(config, Topic.FEATURES, FeatureRecord.class, 1);
            assertThat(features).hasSize(1);
            assertThat(features.get(0).getUserId()).isEqualTo("solo");
            assertThat(features.get(0).getTxCount()).isEqualTo(2);
            assertThat(features.get(0).getAmountSum()).isEqualTo(30);
        } finally {
            job.cancel().get();
        }
    }
}
