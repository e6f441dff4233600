package org.fraudpipe.job.topology;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.groups.Tuple.tuple;

import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.avro.specific.SpecificRecord;
import org.apache.flink.runtime.minicluster.MiniCluster;
import org.apache.flink.runtime.testutils.MiniClusterResourceConfiguration;
import org.apache.flink.test.junit5.InjectMiniCluster;
import org.apache.flink.test.junit5.MiniClusterExtension;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.fraudpipe.job.ingest.IngestRouter;
import org.fraudpipe.job.testing.ArchiveFiles;
import org.fraudpipe.job.testing.Await;
import org.fraudpipe.job.testing.JobDeployment;
import org.fraudpipe.job.testing.JobMetrics;
import org.fraudpipe.job.testing.RunningJob;
import org.fraudpipe.job.testing.TransactionProducer;
import org.fraudpipe.job.window.TooLateRecordFunction;
import org.fraudpipe.local.KafkaTestBroker;
import org.fraudpipe.schemas.Topic;
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
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * The feature job end to end on Flink's MiniCluster (parallelism 2, RocksDB, exactly-once
 * checkpoints every 300 ms, idleness 1 s) against a real local Kafka broker: Kafka in, features,
 * scores, late records and dead letters out, read with {@code read_committed}; metrics read through
 * Flink's reporter. Also issue #7, items 4 (poison pills), 5 (idle partition) and 6 (future-dated
 * record). And the archive's committed files.
 */
class KafkaFeatureJobIT {

    private static final int PARTITIONS = 3;
    private static final Instant W0 = Instant.parse("2026-11-28T12:00:00Z");
    private static final Instant W1 = W0.plus(Duration.ofMinutes(10));

    /** The job's default watermark bound (out-of-orderness). */
    private static final Duration BOUND = Duration.ofSeconds(5);

    private static final Duration IDLENESS = Duration.ofSeconds(1);
    private static final Duration TIMEOUT = Duration.ofSeconds(90);

    private static final JobMetrics METRICS = new JobMetrics();

    @RegisterExtension static final KafkaTestBroker KAFKA = new KafkaTestBroker(PARTITIONS);

    @RegisterExtension
    static final MiniClusterExtension FLINK =
            new MiniClusterExtension(
                    new MiniClusterResourceConfiguration.Builder()
                            .setNumberTaskManagers(1)
                            .setNumberSlotsPerTaskManager(2)
                            .setConfiguration(METRICS.clusterConfiguration())
                            .build());

    @TempDir Path checkpoints;

    /** One isolated deployment: its own topics, registry scope, group and transactional ids. */
    private JobDeployment deployment(String name) {
        return JobDeployment.create(
                KAFKA, name, PARTITIONS, checkpoints, Map.of("idleness", IDLENESS.toString()));
    }

    private static Transaction tx(String id, String user, Instant at, long amount, String device) {
        return new Transaction(id, user, amount, "EUR", "m-" + user, device, "DE", at);
    }

    @Test
    void everyFateOfARecordReachesItsTopicExactlyOnceReadCommitted(
            @InjectMiniCluster MiniCluster cluster) throws Exception {
        JobDeployment deployment = deployment("fates");
        long started = System.currentTimeMillis();
        var job = deployment.start();
        RunningJob running = new RunningJob(cluster, job);
        List<Published> valid = new ArrayList<>();
        try (TransactionProducer producer = deployment.producer()) {
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
            // Only once the job has read all of them (the archive commits what the source read on
            // a checkpoint, which every operator passed): event time moves past 12:10 + the bound
            // on one partition, the others go idle. Sent earlier, on a loaded machine the clock
            // could be read while the records' partitions still counted as idle, and the window
            // would fire without them.
            Path archived = Path.of(deployment.config().archiveDir().orElseThrow());
            awaitArchived(
                    running,
                    archived,
                    ArchiveStream.TRANSACTIONS,
                    ArchivedTransaction.class,
                    valid.size());
            Transaction clock = tx("c1", "clock", W0.plus(Duration.ofMinutes(11)), 1, "d0");
            valid.add(new Published(clock, producer.send(0, clock)));

            List<FeatureRecord> features =
                    deployment.awaitCommitted(Topic.FEATURES, FeatureRecord.class, 2, TIMEOUT);
            assertThat(features)
                    .extracting(
                            FeatureRecord::getUserId,
                            FeatureRecord::getTxCount,
                            FeatureRecord::getAmountSum,
                            FeatureRecord::getDistinctDevices,
                            FeatureRecord::getRevision,
                            FeatureRecord::getTiming)
                    .containsExactlyInAnyOrder(
                            tuple("u1", 3L, 400L, 2, 0, Timing.ON_TIME),
                            tuple("u2", 2L, 3000L, 1, 0, Timing.ON_TIME));
            assertThat(features).allMatch(f -> f.getWindowStart().equals(W0));

            // Each pane is scored inline by the default model, exactly once, with its features.
            List<ScoreRecord> scores =
                    deployment.awaitCommitted(Topic.SCORES, ScoreRecord.class, 2, TIMEOUT);
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

            List<DeadLetter> dead =
                    deployment.awaitCommitted(Topic.DEAD_LETTERS, DeadLetter.class, 1, TIMEOUT);
            assertThat(dead).hasSize(1);
            assertThat(dead.get(0).getReason()).isEqualTo(DeadLetterReason.NOT_CONFLUENT_FRAMED);
            assertThat(dead.get(0).getSourcePartition()).isEqualTo(1);
            assertThat(dead.get(0).getValue().array()).startsWith((byte) 'n', (byte) 'o');

            List<LateRecord> late =
                    deployment.awaitCommitted(Topic.LATE, LateRecord.class, 1, TIMEOUT);
            assertThat(late).hasSize(1);
            assertThat(late.get(0).getReason()).isEqualTo(LateReason.FUTURE_DATED);
            assertThat(late.get(0).getTransaction().getTransactionId()).isEqualTo("f1");
            assertThat(late.get(0).getLateByMillis()).isLessThan(-Duration.ofHours(23).toMillis());

            // The upsert key of a feature record is its (userId, windowStart).
            ConfluentAvroCodec<WindowKey> keys =
                    TopicSerdes.forRegistry(deployment.config().schemaRegistryUrl())
                            .windowKeyCodec(Topic.FEATURES, deployment.topic(Topic.FEATURES));
            assertThat(deployment.committedRecords(Topic.FEATURES))
                    .extracting(r -> keys.decode(r.key()))
                    .containsExactlyInAnyOrder(new WindowKey("u1", W0), new WindowKey("u2", W0));

            // The archive, once the job has checkpointed: each valid record published exactly
            // once (the retry too: it is another record), with its Kafka position and timestamp;
            // the dead letter and the panes served, as served.
            Path archive = Path.of(deployment.config().archiveDir().orElseThrow());
            List<ArchivedTransaction> received =
                    awaitArchived(
                            running,
                            archive,
                            ArchiveStream.TRANSACTIONS,
                            ArchivedTransaction.class,
                            valid.size());
            String transactions = deployment.topic(Topic.TRANSACTIONS);
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
                                                    tuple(
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
            assertThat(
                            awaitArchived(
                                    running,
                                    archive,
                                    ArchiveStream.DEAD_LETTERS,
                                    DeadLetter.class,
                                    1))
                    .singleElement()
                    .satisfies(
                            d -> {
                                assertThat(d.getSourcePartition()).isEqualTo(poison.partition());
                                assertThat(d.getSourceOffset()).isEqualTo(poison.offset());
                            });
            assertThat(
                            awaitArchived(
                                    running,
                                    archive,
                                    ArchiveStream.FEATURES,
                                    FeatureRecord.class,
                                    2))
                    .containsExactlyInAnyOrderElementsOf(features);
        } finally {
            job.cancel().get();
            // Cancelling is acknowledged before the tasks stopped writing checkpoints and archive
            // files into the test's temporary directory, which JUnit deletes next.
            Await.until(
                    "job cancelled",
                    TIMEOUT,
                    () -> job.getJobStatus().get().isGloballyTerminalState());
        }
    }

    /** A valid record as published: what the transactions archive must hold once. */
    private record Published(Transaction tx, RecordMetadata at) {}

    /**
     * Waits until the committed files of {@code stream} hold at least {@code expected} records,
     * then until one more checkpoint completed (the archive commits its files on checkpoints, so a
     * duplicate would be committed by then) and returns everything committed: a duplicate shows as
     * one record too many.
     */
    private static <T extends SpecificRecord> List<T> awaitArchived(
            RunningJob job, Path archive, ArchiveStream stream, Class<T> type, int expected)
            throws Exception {
        Await.until(
                expected + " records archived in " + stream,
                TIMEOUT,
                () -> committed(archive, stream, type).size() >= expected);
        job.awaitNewCheckpoint(TIMEOUT);
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

    /** A record produced to the transactions topic that must become a dead letter. */
    private record Poison(RecordMetadata at, byte[] value, DeadLetterReason reason) {}

    @Test
    @DisplayName(
            "#7.4 poison pills: corrupt bytes and unknown schema ids among valid records; no"
                    + " restart, each bad record dead-lettered with topic, partition and offset,"
                    + " counters match")
    void poisonPillsAreDeadLetteredWithTheirPositionWithoutARestartAndCounted(
            @InjectMiniCluster MiniCluster cluster) throws Exception {
        JobDeployment deployment = deployment("poison");
        RunningJob job = new RunningJob(cluster, deployment.start());
        try (TransactionProducer producer = deployment.producer()) {
            byte[] valid = producer.encode(tx("v0", "p", W0.plusSeconds(1), 1, "d"));
            byte[] unknownSchemaId = valid.clone();
            // Confluent framing: magic byte 0, then the 4-byte schema id: one no registry has.
            unknownSchemaId[1] = 0x7f;
            byte[] truncatedBody = Arrays.copyOf(valid, valid.length - 3);
            byte[] negativeAmount = producer.encode(tx("v-neg", "p", W0.plusSeconds(2), -5, "d"));
            List<Poison> poison =
                    List.of(
                            new Poison(
                                    producer.sendRaw(
                                            0,
                                            "{\"not\":\"avro\"}".getBytes(StandardCharsets.UTF_8)),
                                    "{\"not\":\"avro\"}".getBytes(StandardCharsets.UTF_8),
                                    DeadLetterReason.NOT_CONFLUENT_FRAMED),
                            new Poison(
                                    producer.sendRaw(0, new byte[0]),
                                    new byte[0],
                                    DeadLetterReason.NOT_CONFLUENT_FRAMED),
                            new Poison(
                                    producer.sendRaw(1, unknownSchemaId),
                                    unknownSchemaId,
                                    DeadLetterReason.UNKNOWN_SCHEMA),
                            new Poison(
                                    producer.sendRaw(1, truncatedBody),
                                    truncatedBody,
                                    DeadLetterReason.UNDECODABLE),
                            new Poison(
                                    producer.sendRaw(2, negativeAmount),
                                    negativeAmount,
                                    DeadLetterReason.INVALID));
            // Valid records around and after them, on every partition.
            int validCount = 0;
            for (int p = 0; p < PARTITIONS; p++) {
                producer.send(
                        p, tx("ok-" + p + "-a", "user" + p, W0.plusSeconds(10 + p), 100, "d"));
                producer.send(
                        p, tx("ok-" + p + "-b", "user" + p, W0.plusSeconds(20 + p), 200, "d"));
                producer.send(
                        p, tx("clock-" + p, "clock" + p, W1.plus(BOUND).plusSeconds(1), 1, "d"));
                validCount += 3;
            }
            producer.sendRaw(2, new byte[] {0, 0, 0}); // one more pill after valid data
            int sent = poison.size() + 1 + validCount;

            List<DeadLetter> dead =
                    deployment.awaitCommitted(
                            Topic.DEAD_LETTERS, DeadLetter.class, poison.size() + 1, TIMEOUT);
            assertThat(dead).hasSize(poison.size() + 1);
            String topic = deployment.topic(Topic.TRANSACTIONS);
            for (Poison pill : poison) {
                assertThat(dead)
                        .filteredOn(
                                d ->
                                        d.getSourcePartition() == pill.at().partition()
                                                && d.getSourceOffset() == pill.at().offset())
                        .singleElement()
                        .satisfies(
                                d -> {
                                    assertThat(d.getSourceTopic()).isEqualTo(topic);
                                    assertThat(d.getReason()).isEqualTo(pill.reason());
                                    assertThat(bytes(d.getValue())).isEqualTo(pill.value());
                                    assertThat(d.getErrorMessage()).isNotBlank();
                                });
            }
            // The dead-letter key names the position too.
            assertThat(deployment.committedRecords(Topic.DEAD_LETTERS))
                    .extracting(r -> new String(r.key(), StandardCharsets.UTF_8))
                    .contains(
                            poison.stream()
                                    .map(
                                            p ->
                                                    topic
                                                            + "-"
                                                            + p.at().partition()
                                                            + "@"
                                                            + p.at().offset())
                                    .toArray(String[]::new));

            // The valid records were counted, nothing else.
            List<FeatureRecord> features =
                    deployment.awaitCommitted(Topic.FEATURES, FeatureRecord.class, 3, TIMEOUT);
            assertThat(features)
                    .extracting(
                            FeatureRecord::getUserId,
                            FeatureRecord::getTxCount,
                            FeatureRecord::getAmountSum)
                    .containsExactlyInAnyOrder(
                            tuple("user0", 2L, 300L),
                            tuple("user1", 2L, 300L),
                            tuple("user2", 2L, 300L));

            // Counters: in = valid + dead-lettered; no restart.
            Await.until(
                    "the ingest router counted every record",
                    TIMEOUT,
                    () -> METRICS.counter(job.id(), IngestRouter.RECORDS_IN) == sent);
            assertThat(METRICS.counter(job.id(), IngestRouter.RECORDS_DEAD_LETTERED))
                    .isEqualTo(poison.size() + 1);
            assertThat(METRICS.counter(job.id(), IngestRouter.RECORDS_VALID)).isEqualTo(validCount);
            assertThat(METRICS.counter(job.id(), IngestRouter.RECORDS_QUARANTINED)).isZero();
            assertThat(job.restarts()).as("task restarts").isZero();
        } finally {
            job.cancel();
        }
    }

    private static byte[] bytes(java.nio.ByteBuffer buffer) {
        byte[] out = new byte[buffer.remaining()];
        buffer.duplicate().get(out);
        return out;
    }

    @Test
    @DisplayName(
            "#7.5 idle partition: one of three partitions gets no data; the window fires at"
                    + " exactly end + bound in event time, once the partition is idle")
    void windowFiresWhenOneOfThreePartitionsNeverReceivesData(
            @InjectMiniCluster MiniCluster cluster) throws Exception {
        JobDeployment deployment = deployment("idle");
        RunningJob job = new RunningJob(cluster, deployment.start()).awaitAllTasksRunning(TIMEOUT);
        try (TransactionProducer producer = deployment.producer()) {
            producer.send(0, tx("x1", "solo0", W0.plusSeconds(5), 10, "d1"));
            producer.send(0, tx("x2", "solo0", W0.plusSeconds(6), 20, "d1"));
            producer.send(1, tx("y1", "solo1", W0.plusSeconds(7), 30, "d1"));
            // The job has read them (see everyFateOfARecordReachesItsTopicExactlyOnceReadCommitted)
            // before event time moves: partition 1 must not count as idle when partition 0's
            // clock arrives.
            awaitArchived(
                    job,
                    Path.of(deployment.config().archiveDir().orElseThrow()),
                    ArchiveStream.TRANSACTIONS,
                    ArchivedTransaction.class,
                    3);
            // Partitions 0 and 1 reach exactly end + bound: their watermark is end - 1 ms, the
            // first at which the window is complete. Partition 2 never gets a record.
            producer.send(0, tx("c0", "clock0", W1.plus(BOUND), 1, "d0"));
            producer.send(1, tx("c1", "clock1", W1.plus(BOUND), 1, "d0"));
            Instant crossed = Instant.now();

            List<FeatureRecord> features =
                    deployment.awaitCommitted(Topic.FEATURES, FeatureRecord.class, 2, TIMEOUT);
            assertThat(features)
                    .extracting(
                            FeatureRecord::getUserId,
                            FeatureRecord::getTxCount,
                            FeatureRecord::getTiming)
                    .containsExactlyInAnyOrder(
                            tuple("solo0", 2L, Timing.ON_TIME), tuple("solo1", 1L, Timing.ON_TIME));
            // Event time: fired at the first watermark that completes the window, end - 1 ms
            // (no active partition ever got further).
            assertThat(features)
                    .allSatisfy(f -> assertThat(f.getWatermark()).isEqualTo(W1.minusMillis(1)));
            // Processing time: the idle partition stopped holding it back within the idleness;
            // the margin only absorbs scheduling on a loaded machine (it never waits for data).
            assertThat(features)
                    .allSatisfy(
                            f ->
                                    assertThat(Duration.between(crossed, f.getEmittedAt()))
                                            .isLessThan(IDLENESS.plus(Duration.ofSeconds(30))));
        } finally {
            job.cancel();
        }
    }

    @Test
    @DisplayName(
            "#15.4 a partition receiving only dead letters and future-dated records, without a"
                    + " pause, still goes idle: they are not activity, and the window fires")
    void aPartitionFedOnlyPoisonAndFutureDatedRecordsDoesNotHoldTheWatermark(
            @InjectMiniCluster MiniCluster cluster) throws Exception {
        JobDeployment deployment = deployment("pinned");
        RunningJob job = new RunningJob(cluster, deployment.start()).awaitAllTasksRunning(TIMEOUT);
        ScheduledExecutorService noise = Executors.newSingleThreadScheduledExecutor();
        try (TransactionProducer producer = deployment.producer();
                TransactionProducer noiseProducer = deployment.producer()) {
            // Partition 2 never gets a windowable record, but something arrives every 100 ms,
            // far more often than the idleness (1 s), for as long as the test runs.
            AtomicInteger sent = new AtomicInteger();
            noise.scheduleWithFixedDelay(
                    () -> {
                        try {
                            int n = sent.incrementAndGet();
                            if (n % 2 == 0) {
                                noiseProducer.sendRaw(2, new byte[] {'x', (byte) n});
                            } else {
                                noiseProducer.send(
                                        2,
                                        tx(
                                                "f" + n,
                                                "ahead",
                                                Instant.now().plus(Duration.ofDays(1)),
                                                1,
                                                "d"));
                            }
                        } catch (Exception e) {
                            throw new IllegalStateException(e);
                        }
                    },
                    0,
                    100,
                    TimeUnit.MILLISECONDS);
            Await.until("noise on partition 2", TIMEOUT, () -> sent.get() >= 5);
            producer.send(0, tx("p1", "pinned0", W0.plusSeconds(5), 10, "d1"));
            producer.send(1, tx("p2", "pinned1", W0.plusSeconds(6), 20, "d1"));
            producer.send(0, tx("c0", "clock0", W1.plus(BOUND), 1, "d0"));
            producer.send(1, tx("c1", "clock1", W1.plus(BOUND), 1, "d0"));

            List<FeatureRecord> features =
                    deployment.awaitCommitted(Topic.FEATURES, FeatureRecord.class, 2, TIMEOUT);
            // Both windows fired, which needs event time past their end on every active
            // partition: partition 2 stopped holding it back. (Whether a window's first pane is
            // ON_TIME or LATE depends on which of partitions 0 and 1 is read first on a loaded
            // machine, their idleness being 1 s: not what this test is about.)
            assertThat(features)
                    .extracting(FeatureRecord::getUserId, FeatureRecord::getTxCount)
                    .containsExactlyInAnyOrder(tuple("pinned0", 1L), tuple("pinned1", 1L));
            // The noise never stopped (a failing scheduled task would not run again), so the
            // partition saw records all along and went idle only because none could be windowed.
            int atFire = sent.get();
            Await.until(
                    "noise still flowing after the window fired",
                    TIMEOUT,
                    () -> sent.get() > atFire + 3);
        } finally {
            noise.shutdownNow();
            noise.awaitTermination(10, TimeUnit.SECONDS);
            job.cancel();
        }
    }

    @Test
    @DisplayName(
            "#7.6 future-dated record: quarantined before the watermark, later valid records are"
                    + " not late")
    void futureDatedRecordIsQuarantinedAndDoesNotMakeLaterRecordsLate(
            @InjectMiniCluster MiniCluster cluster) throws Exception {
        JobDeployment deployment = deployment("future");
        RunningJob job = new RunningJob(cluster, deployment.start());
        Instant future = Instant.now().plus(Duration.ofDays(1));
        try (TransactionProducer producer = deployment.producer()) {
            producer.send(0, tx("e1", "early", W0.plusSeconds(10), 100, "d1"));
            producer.send(0, tx("f1", "future", future, 5, "d5"));
            // Had f1 moved the watermark to tomorrow, these would all be too late.
            producer.send(0, tx("e2", "early", W0.plusSeconds(20), 200, "d2"));
            producer.send(0, tx("e3", "early2", W0.plusSeconds(30), 300, "d3"));
            producer.send(0, tx("c0", "clock", W1.plus(BOUND), 1, "d0"));

            List<FeatureRecord> features =
                    deployment.awaitCommitted(Topic.FEATURES, FeatureRecord.class, 2, TIMEOUT);
            assertThat(features)
                    .extracting(
                            FeatureRecord::getUserId,
                            FeatureRecord::getTxCount,
                            FeatureRecord::getRevision,
                            FeatureRecord::getTiming)
                    .containsExactlyInAnyOrder(
                            tuple("early", 2L, 0, Timing.ON_TIME),
                            tuple("early2", 1L, 0, Timing.ON_TIME));
            assertThat(features)
                    .allSatisfy(f -> assertThat(f.getWatermark()).isEqualTo(W1.minusMillis(1)));

            List<LateRecord> late =
                    deployment.awaitCommitted(Topic.LATE, LateRecord.class, 1, TIMEOUT);
            assertThat(late)
                    .singleElement()
                    .satisfies(
                            l -> {
                                assertThat(l.getReason()).isEqualTo(LateReason.FUTURE_DATED);
                                assertThat(l.getTransaction().getTransactionId()).isEqualTo("f1");
                            });
            assertThat(METRICS.counter(job.id(), IngestRouter.RECORDS_QUARANTINED)).isEqualTo(1);
            assertThat(METRICS.counter(job.id(), TooLateRecordFunction.TOO_LATE_RECORDS_METRIC))
                    .isZero();
        } finally {
            job.cancel();
        }
    }
}
