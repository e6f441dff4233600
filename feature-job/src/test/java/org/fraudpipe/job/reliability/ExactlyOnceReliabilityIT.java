package org.fraudpipe.job.reliability;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.WebOptions;
import org.apache.flink.runtime.minicluster.MiniCluster;
import org.apache.flink.runtime.testutils.MiniClusterResourceConfiguration;
import org.apache.flink.test.junit5.InjectMiniCluster;
import org.apache.flink.test.junit5.MiniClusterExtension;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.fraudpipe.job.testing.Await;
import org.fraudpipe.job.testing.BatchRecomputation;
import org.fraudpipe.job.testing.JobDeployment;
import org.fraudpipe.job.testing.Panes;
import org.fraudpipe.job.testing.RunningJob;
import org.fraudpipe.job.testing.TransactionProducer;
import org.fraudpipe.job.window.FeatureWindowSpec;
import org.fraudpipe.local.KafkaTestBroker;
import org.fraudpipe.schemas.Topic;
import org.fraudpipe.schemas.avro.DeadLetter;
import org.fraudpipe.schemas.avro.FeatureRecord;
import org.fraudpipe.schemas.avro.LateRecord;
import org.fraudpipe.schemas.avro.ScoreRecord;
import org.fraudpipe.schemas.avro.WindowKey;
import org.fraudpipe.schemas.wire.ConfluentAvroCodec;
import org.fraudpipe.schemas.wire.TopicSerdes;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * Issue #7, items 1, 8, 9 and 10: exactly-once output of the production job (Kafka source, RocksDB,
 * scoring, transactional Kafka sinks; parallelism 2, checkpoints every 300 ms) under a task
 * failure, a broker restart and a killed TaskManager, and idempotent upserts on replay. One real
 * broker and one MiniCluster for the class; every test has its own topics.
 *
 * <p>The input is {@link KnownCountTraffic}: exactly 3 transactions per user and 10-minute window,
 * event time growing in every partition and an idleness longer than any test, so no record is ever
 * late and each window has exactly one correct result whatever fails when. A test produces it in
 * phases and waits on conditions (output committed, a checkpoint completed, the failure tripped),
 * never on time alone.
 */
class ExactlyOnceReliabilityIT {

    private static final int PARTITIONS = 3;
    private static final Instant START = Instant.parse("2025-01-06T00:00:00Z");
    private static final Duration WINDOW = Duration.ofMinutes(10);
    private static final Duration TIMEOUT = Duration.ofMinutes(3);

    /** Longer than any test: no partition ever drops out of the watermark. */
    private static final Map<String, String> NEVER_IDLE = Map.of("idleness", "30m");

    private static final AtomicInteger TASK_MANAGERS = new AtomicInteger(1);

    @RegisterExtension static final KafkaTestBroker KAFKA = new KafkaTestBroker(PARTITIONS);

    /**
     * Two slots for the streaming job, two for the batch recomputation running next to it; a
     * checkpoint history long enough to see what a broker outage did to checkpointing.
     */
    @RegisterExtension
    static final MiniClusterExtension FLINK =
            new MiniClusterExtension(
                    new MiniClusterResourceConfiguration.Builder()
                            .setNumberTaskManagers(1)
                            .setNumberSlotsPerTaskManager(4)
                            .setConfiguration(
                                    Configuration.fromMap(
                                            Map.of(
                                                    WebOptions.CHECKPOINTS_HISTORY_SIZE.key(),
                                                    "1000")))
                            .build());

    @TempDir Path checkpoints;

    /** 6 users x 4 windows x 3 transactions, over all three partitions. */
    private static KnownCountTraffic traffic() {
        return new KnownCountTraffic(6, 4, 3, START, WINDOW, PARTITIONS);
    }

    /** Mid-window 2: after it, windows 0 and 1 have fired and window 2 is half full in state. */
    private static Instant cut(KnownCountTraffic traffic) {
        return traffic.windowStart(2).plus(Duration.ofMinutes(5));
    }

    /** Past the last window's end plus the watermark bound: every window fires. */
    private static Instant closing(KnownCountTraffic traffic) {
        return traffic.end().plus(Duration.ofMinutes(1));
    }

    private static Map<Panes.Key, Panes.Features> batch(KnownCountTraffic traffic)
            throws Exception {
        return BatchRecomputation.features(
                KnownCountTraffic.transactions(traffic.all()),
                new FeatureWindowSpec(WINDOW, Duration.ofMinutes(2)));
    }

    /**
     * The exactly-once checks every test of this class ends with: each pane of features and scores
     * committed once, one result per (user, window), every count exact and every feature equal to
     * the batch recomputation; no late records, no dead letters.
     */
    private static List<FeatureRecord> assertExactlyOnceAndExact(
            JobDeployment deployment, KnownCountTraffic traffic) throws Exception {
        List<FeatureRecord> features =
                deployment.awaitCommitted(
                        Topic.FEATURES, FeatureRecord.class, traffic.windowResults(), TIMEOUT);
        Panes.assertEachPaneOnce(features);
        assertThat(features).hasSize(traffic.windowResults());
        assertThat(features)
                .allSatisfy(f -> assertThat(f.getTxCount()).isEqualTo(traffic.perWindow()));
        assertThat(Panes.finalFeatures(features)).isEqualTo(batch(traffic));

        List<ScoreRecord> scores =
                deployment.awaitCommitted(
                        Topic.SCORES, ScoreRecord.class, traffic.windowResults(), TIMEOUT);
        Panes.assertEachPaneOnce(Panes.scoredPanes(scores));
        assertThat(Panes.scoredPanes(scores)).containsExactlyInAnyOrderElementsOf(features);

        assertThat(deployment.committed(Topic.LATE, LateRecord.class)).isEmpty();
        assertThat(deployment.committed(Topic.DEAD_LETTERS, DeadLetter.class)).isEmpty();
        return features;
    }

    @Test
    @DisplayName(
            "#7.1 exactly-once under failure: a task fails after a completed checkpoint with"
                    + " output in open transactions; read_committed sees every window result once,"
                    + " equal to a run without failure")
    void taskFailureAfterACompletedCheckpointKeepsEveryWindowResultExactlyOnce(
            @InjectMiniCluster MiniCluster cluster) throws Exception {
        KnownCountTraffic traffic = traffic();
        JobDeployment deployment =
                JobDeployment.create(KAFKA, "eo-failure", PARTITIONS, checkpoints, NEVER_IDLE);
        FailureSwitch failure = FailureSwitch.create(deployment.config().groupId());
        RunningJob job =
                new RunningJob(
                        cluster,
                        deployment
                                .job()
                                .withSinks(
                                        s ->
                                                FailBeforeFeaturesSink.wrap(
                                                        s, deployment.config().groupId()))
                                .start());
        List<FeatureRecord> features;
        try (TransactionProducer producer = deployment.producer()) {
            producer.sendAll(traffic.before(cut(traffic)));
            // Windows 0 and 1 committed: a checkpoint completed after they fired.
            deployment.awaitCommitted(Topic.FEATURES, FeatureRecord.class, 12, TIMEOUT);

            failure.arm();
            producer.sendAll(traffic.from(cut(traffic)));
            producer.sendAll(traffic.closingTicks(closing(traffic)));
            failure.awaitTripped(TIMEOUT);
            // The job now holds window results in open transactions and cannot commit them.
            Await.until(
                    "uncommitted window results in the features topic",
                    TIMEOUT,
                    () ->
                            KAFKA.readAllUncommitted(deployment.topic(Topic.FEATURES)).size()
                                    > KAFKA.readAllCommitted(deployment.topic(Topic.FEATURES))
                                            .size());
            failure.release();
            // The stream goes on, as a live one does. Flink does not checkpoint watermarks: the
            // restored job's event time starts over and moves with the records read after the
            // restore point. If that checkpoint completed after the closing ticks were read but
            // before the windows fired (a race the machine's load decides), nothing read after
            // it would move event time, and the restored windows would wait for more traffic.
            // Ticks again (same ids and time: their own windows never fire) are that traffic.
            producer.sendAll(traffic.closingTicks(closing(traffic)));

            features = assertExactlyOnceAndExact(deployment, traffic);
            assertThat(job.restarts()).as("task restarts").isGreaterThan(0);
            // The aborted attempt's records are in the log: read_committed hid them.
            assertThat(deployment.uncommitted(Topic.FEATURES, FeatureRecord.class).size())
                    .isGreaterThan(features.size());
        } finally {
            job.cancel();
        }

        // The same input without a failure gives the same final value per key.
        JobDeployment reference =
                JobDeployment.create(
                        KAFKA,
                        "eo-reference",
                        PARTITIONS,
                        checkpoints,
                        Map.of(
                                "idleness",
                                "30m",
                                "topic.transactions",
                                deployment.topic(Topic.TRANSACTIONS),
                                "schema-registry-url",
                                deployment.config().schemaRegistryUrl()));
        RunningJob referenceJob = new RunningJob(cluster, reference.start());
        try {
            List<FeatureRecord> expected = assertExactlyOnceAndExact(reference, traffic);
            assertThat(Panes.finalOutcomes(features)).isEqualTo(Panes.finalOutcomes(expected));
        } finally {
            referenceJob.cancel();
        }
    }

    @Test
    @DisplayName(
            "#7.8 broker restart while the job runs: the job recovers, nothing is lost or"
                    + " duplicated")
    void brokerRestartWhileTheJobRunsLosesAndDuplicatesNothing(
            @InjectMiniCluster MiniCluster cluster) throws Exception {
        KnownCountTraffic traffic = traffic();
        JobDeployment deployment =
                JobDeployment.create(
                        KAFKA, "eo-broker-restart", PARTITIONS, checkpoints, NEVER_IDLE);
        RunningJob job = new RunningJob(cluster, deployment.start());
        try {
            List<TransactionProducer.PartitionedTransaction> rest = traffic.from(cut(traffic));
            try (TransactionProducer producer = deployment.producer()) {
                producer.sendAll(traffic.before(cut(traffic)));
                deployment.awaitCommitted(Topic.FEATURES, FeatureRecord.class, 12, TIMEOUT);
                // The job is busy with these when the broker goes away.
                producer.sendAll(rest.subList(0, rest.size() / 2));
            }
            long down = System.currentTimeMillis();
            KAFKA.restart();
            long up = System.currentTimeMillis();
            try (TransactionProducer producer = deployment.producer()) {
                producer.sendAll(rest.subList(rest.size() / 2, rest.size()));
                producer.sendAll(traffic.closingTicks(closing(traffic)));
            }

            assertExactlyOnceAndExact(deployment, traffic);
            job.awaitAllTasksRunning(TIMEOUT);
            // The outage was felt, so the scenario tested what it says: the job restarted, a
            // checkpoint failed, or checkpointing stalled while the broker was away (the sinks
            // cannot flush the records in flight; every 300 ms otherwise).
            assertThat(up - down).as("broker downtime, ms").isGreaterThan(2_000);
            long restarts = job.restarts();
            long failed = job.failedCheckpoints();
            long completedWhileDown = job.checkpointsCompletedBetween(down + 1_000, up);
            assertThat(restarts > 0 || failed > 0 || completedWhileDown == 0)
                    .as(
                            "outage felt: %d restarts, %d failed checkpoints, %d checkpoints"
                                    + " completed while the broker was down (%d ms)",
                            restarts, failed, completedWhileDown, up - down)
                    .isTrue();
        } finally {
            job.cancel();
        }
    }

    @Test
    @DisplayName(
            "#7.9 known-count invariant: exactly N events per user and window, a TaskManager"
                    + " killed mid-run; every window count is exact afterwards")
    void everyWindowCountIsExactAfterATaskManagerIsKilledMidRun(
            @InjectMiniCluster MiniCluster cluster) throws Exception {
        KnownCountTraffic traffic = traffic();
        JobDeployment deployment =
                JobDeployment.create(KAFKA, "eo-task-killed", PARTITIONS, checkpoints, NEVER_IDLE);
        RunningJob job = new RunningJob(cluster, deployment.start());
        try (TransactionProducer producer = deployment.producer()) {
            List<TransactionProducer.PartitionedTransaction> rest = traffic.from(cut(traffic));
            producer.sendAll(traffic.before(cut(traffic)));
            deployment.awaitCommitted(Topic.FEATURES, FeatureRecord.class, 12, TIMEOUT);
            // A checkpoint after that holds window 2 half counted: the restore point.
            job.awaitNewCheckpoint(TIMEOUT);
            producer.sendAll(rest.subList(0, rest.size() / 2));

            // Kill the TaskManager running every task of the job; give the job a new one.
            cluster.terminateTaskManager(TASK_MANAGERS.get() - 1).get();
            cluster.startTaskManager();
            TASK_MANAGERS.incrementAndGet();
            producer.sendAll(rest.subList(rest.size() / 2, rest.size()));
            producer.sendAll(traffic.closingTicks(closing(traffic)));

            assertExactlyOnceAndExact(deployment, traffic);
            assertThat(job.restarts()).as("task restarts").isGreaterThan(0);
        } finally {
            job.cancel();
        }
    }

    @Test
    @DisplayName(
            "#7.10 upsert idempotence: replaying the same input twice leaves the last value per"
                    + " key unchanged")
    void replayingTheSameInputLeavesTheLastValuePerKeyUnchanged(
            @InjectMiniCluster MiniCluster cluster) throws Exception {
        KnownCountTraffic traffic = traffic();
        JobDeployment deployment =
                JobDeployment.create(KAFKA, "eo-replay", PARTITIONS, checkpoints, NEVER_IDLE);
        RunningJob first = new RunningJob(cluster, deployment.start());
        try (TransactionProducer producer = deployment.producer()) {
            producer.sendAll(traffic.all());
            producer.sendAll(traffic.closingTicks(closing(traffic)));
            assertExactlyOnceAndExact(deployment, traffic);
        } finally {
            first.cancel();
        }
        Map<WindowKey, FeatureRecord> featuresBefore = lastValuePerKey(deployment, Topic.FEATURES);
        Map<WindowKey, ScoreRecord> scoresBefore = lastScorePerKey(deployment);

        // An operator replays the topic from the beginning into the same output topics.
        RunningJob replay =
                new RunningJob(cluster, deployment.with("starting-offsets", "earliest").start());
        try {
            List<FeatureRecord> all =
                    deployment.awaitCommitted(
                            Topic.FEATURES,
                            FeatureRecord.class,
                            2 * traffic.windowResults(),
                            TIMEOUT);
            assertThat(Panes.countPerKey(all)).allSatisfy((k, n) -> assertThat(n).isEqualTo(2));
            deployment.awaitCommitted(
                    Topic.SCORES, ScoreRecord.class, 2 * traffic.windowResults(), TIMEOUT);
        } finally {
            replay.cancel();
        }
        Map<WindowKey, FeatureRecord> featuresAfter = lastValuePerKey(deployment, Topic.FEATURES);
        assertThat(featuresAfter.keySet()).isEqualTo(featuresBefore.keySet());
        featuresAfter.forEach(
                (key, after) ->
                        assertThat(Panes.Outcome.of(after))
                                .as("last value of %s", key)
                                .isEqualTo(Panes.Outcome.of(featuresBefore.get(key))));
        Map<WindowKey, ScoreRecord> scoresAfter = lastScorePerKey(deployment);
        assertThat(scoresAfter.keySet()).isEqualTo(scoresBefore.keySet());
        scoresAfter.forEach(
                (key, after) -> {
                    ScoreRecord before = scoresBefore.get(key);
                    assertThat(after.getScore())
                            .as("score of %s", key)
                            .isEqualTo(before.getScore());
                    assertThat(after.getDecision()).isEqualTo(before.getDecision());
                    assertThat(Panes.Outcome.of(after.getFeatures()))
                            .isEqualTo(Panes.Outcome.of(before.getFeatures()));
                });
    }

    /**
     * What a compacted topic keeps (and an upsert consumer holds): per record key, the last record
     * in the log. A key's records share a partition, so log order is the order read.
     */
    private static Map<WindowKey, FeatureRecord> lastValuePerKey(
            JobDeployment deployment, Topic topic) {
        ConfluentAvroCodec<WindowKey> keys = keyCodec(deployment, topic);
        ConfluentAvroCodec<FeatureRecord> values = deployment.codec(topic, FeatureRecord.class);
        Map<WindowKey, FeatureRecord> last = new java.util.HashMap<>();
        for (ConsumerRecord<byte[], byte[]> r : deployment.committedRecords(topic)) {
            last.put(keys.decode(r.key()), values.decode(r.value()));
        }
        return last;
    }

    private static Map<WindowKey, ScoreRecord> lastScorePerKey(JobDeployment deployment) {
        ConfluentAvroCodec<WindowKey> keys = keyCodec(deployment, Topic.SCORES);
        ConfluentAvroCodec<ScoreRecord> values = deployment.codec(Topic.SCORES, ScoreRecord.class);
        Map<WindowKey, ScoreRecord> last = new java.util.HashMap<>();
        for (ConsumerRecord<byte[], byte[]> r : deployment.committedRecords(Topic.SCORES)) {
            last.put(keys.decode(r.key()), values.decode(r.value()));
        }
        return last;
    }

    private static ConfluentAvroCodec<WindowKey> keyCodec(JobDeployment deployment, Topic topic) {
        return TopicSerdes.forRegistry(deployment.config().schemaRegistryUrl())
                .windowKeyCodec(topic, deployment.topic(topic));
    }
}
