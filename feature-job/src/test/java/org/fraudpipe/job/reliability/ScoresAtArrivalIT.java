package org.fraudpipe.job.reliability;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.DataInputStream;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.apache.flink.api.common.JobStatus;
import org.apache.flink.core.execution.SavepointFormatType;
import org.apache.flink.metrics.Histogram;
import org.apache.flink.runtime.checkpoint.Checkpoints;
import org.apache.flink.runtime.checkpoint.OperatorState;
import org.apache.flink.runtime.checkpoint.metadata.CheckpointMetadata;
import org.apache.flink.runtime.jobgraph.OperatorID;
import org.apache.flink.runtime.minicluster.MiniCluster;
import org.apache.flink.runtime.testutils.MiniClusterResourceConfiguration;
import org.apache.flink.shaded.guava33.com.google.common.hash.Hashing;
import org.apache.flink.test.junit5.InjectMiniCluster;
import org.apache.flink.test.junit5.MiniClusterExtension;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.fraudpipe.job.features.TrailingFeatures;
import org.fraudpipe.job.testing.Await;
import org.fraudpipe.job.testing.JobDeployment;
import org.fraudpipe.job.testing.JobMetrics;
import org.fraudpipe.job.testing.RunningJob;
import org.fraudpipe.job.testing.TransactionProducer;
import org.fraudpipe.job.testing.TransactionProducer.PartitionedTransaction;
import org.fraudpipe.job.topology.Uids;
import org.fraudpipe.job.transaction.TransactionScoring;
import org.fraudpipe.local.KafkaTestBroker;
import org.fraudpipe.schemas.Topic;
import org.fraudpipe.schemas.avro.DeadLetter;
import org.fraudpipe.schemas.avro.FeatureRecord;
import org.fraudpipe.schemas.avro.LateRecord;
import org.fraudpipe.schemas.avro.Transaction;
import org.fraudpipe.schemas.avro.TransactionFeatures;
import org.fraudpipe.schemas.avro.TransactionScore;
import org.fraudpipe.scoring.DecisionThresholds;
import org.fraudpipe.scoring.OnnxScorer;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * Issue #16, scores at arrival, end to end: the production job (Kafka source, RocksDB, both paths,
 * Kafka sinks; parallelism 2) on a real broker. Every valid transaction gets its score at once
 * (before any checkpoint, with the default at-least-once delivery), none of the invalid or
 * future-dated ones; a stop with savepoint and restore, and a task failure with the replay of the
 * records since the last checkpoint, leave for every transaction id the very values (features,
 * score, decision, model) of the definition.
 *
 * <p>The expected values are computed here, independently of the job: {@link TrailingFeatures} over
 * each user's transactions in the order they were produced to the user's partition (the order the
 * job receives them), scored by the shipped per-transaction model through {@link OnnxScorer}. The
 * traffic is {@link KnownCountTraffic} (every partition's event time only grows, no partition ever
 * idle), so every transaction is within the allowed lateness of the watermark and its history is
 * complete whatever fails when.
 */
class ScoresAtArrivalIT {

    private static final int PARTITIONS = 3;
    private static final Instant START = Instant.parse("2025-01-06T00:00:00Z");
    private static final Duration WINDOW = Duration.ofMinutes(10);
    private static final Duration TIMEOUT = Duration.ofMinutes(3);

    private static final JobMetrics METRICS = new JobMetrics();

    @RegisterExtension static final KafkaTestBroker KAFKA = new KafkaTestBroker(PARTITIONS);

    @RegisterExtension
    static final MiniClusterExtension FLINK =
            new MiniClusterExtension(
                    new MiniClusterResourceConfiguration.Builder()
                            .setNumberTaskManagers(1)
                            // two jobs of parallelism 2 side by side (the split deployment)
                            .setNumberSlotsPerTaskManager(4)
                            .setConfiguration(METRICS.clusterConfiguration())
                            .build());

    @TempDir Path checkpoints;

    /** {@code users} users x 4 windows x 3 transactions, over all three partitions. */
    private static KnownCountTraffic traffic(int users) {
        return new KnownCountTraffic(users, 4, 3, START, WINDOW, PARTITIONS);
    }

    private JobDeployment deployment(String name, Map<String, String> more) {
        Map<String, String> options = new HashMap<>(Map.of("idleness", "30m"));
        options.putAll(more);
        return JobDeployment.create(KAFKA, name, PARTITIONS, checkpoints, options);
    }

    /** What the job must answer, per transaction id: the definition, scored by the model. */
    private static Map<String, TransactionScore> expected(List<PartitionedTransaction> produced)
            throws Exception {
        return expected(produced, Set.of());
    }

    /**
     * What the job must answer, per transaction id, for {@code produced} in production order: the
     * definition over the user's earlier-received transactions, scored by the model. A repeated id
     * (a producer retry, or the same id with another payload) is answered with its first arrival's
     * values and adds nothing to the history; the ids in {@code beyondRetention} arrive later than
     * the job keeps history for (their {@code historyComplete} is false).
     */
    private static Map<String, TransactionScore> expected(
            List<PartitionedTransaction> produced, Set<String> beyondRetention) throws Exception {
        Map<String, List<Transaction>> byUser = new LinkedHashMap<>();
        Map<String, TransactionFeatures> features = new LinkedHashMap<>();
        for (PartitionedTransaction p : produced) {
            Transaction x = p.transaction();
            if (features.containsKey(x.getTransactionId())) {
                continue;
            }
            List<Transaction> earlier =
                    byUser.computeIfAbsent(x.getUserId(), u -> new ArrayList<>());
            features.put(
                    x.getTransactionId(),
                    TrailingFeatures.compute(earlier, x, WINDOW)
                            .writeTo(TransactionFeatures.newBuilder())
                            .setTransactionId(x.getTransactionId())
                            .setUserId(x.getUserId())
                            .setEventTime(x.getEventTime())
                            .setTrailingWindowMillis(WINDOW.toMillis())
                            .setAmountMinor(x.getAmountMinor())
                            .setHistoryComplete(!beyondRetention.contains(x.getTransactionId()))
                            .build());
            earlier.add(x);
        }
        Map<String, TransactionScore> out = new LinkedHashMap<>();
        try (OnnxScorer<TransactionFeatures> model = OnnxScorer.loadDefaultTransactionModel()) {
            List<TransactionFeatures> rows = new ArrayList<>(features.values());
            double[] scores = model.score(rows);
            for (int i = 0; i < rows.size(); i++) {
                TransactionFeatures f = rows.get(i);
                out.put(
                        f.getTransactionId(),
                        TransactionScore.newBuilder()
                                .setTransactionId(f.getTransactionId())
                                .setUserId(f.getUserId())
                                .setEventTime(f.getEventTime())
                                .setFeatures(f)
                                .setScore(scores[i])
                                .setDecision(DecisionThresholds.DEFAULT.decide(scores[i]))
                                .setModelName(model.metadata().name())
                                .setModelVersion(model.metadata().version())
                                .setRecordTimestamp(null)
                                .setScoredAt(Instant.EPOCH)
                                .build());
            }
        }
        return out;
    }

    /**
     * The values a score must never change: everything but the arrival (its Kafka timestamp and
     * position) and processing time.
     */
    private static TransactionScore values(TransactionScore s) {
        return TransactionScore.newBuilder(s)
                .setRecordTimestamp(null)
                .setScoredAt(Instant.EPOCH)
                // where the arrival answered was read: a retry's own, not the id's value
                .setSourcePartition(null)
                .setSourceOffset(null)
                .build();
    }

    /**
     * Every record of the topic carries its id's expected values, every expected id is there, and
     * nothing else is.
     */
    private static void assertEveryIdHasItsValues(
            List<TransactionScore> written, Map<String, TransactionScore> expected) {
        Set<String> seen = new HashSet<>();
        for (TransactionScore s : written) {
            assertThat(values(s))
                    .as("score of %s", s.getTransactionId())
                    .isEqualTo(expected.get(s.getTransactionId()));
            seen.add(s.getTransactionId());
        }
        assertThat(seen).isEqualTo(expected.keySet());
    }

    @Test
    @DisplayName(
            "#16 every valid transaction is scored at arrival, visible before any checkpoint;"
                    + " none of the invalid or future-dated ones; a retry gets the same values")
    void everyValidTransactionIsScoredAtOnceAndNoInvalidOrFutureDatedOne(
            @InjectMiniCluster MiniCluster cluster) throws Exception {
        // Checkpoints every 4 minutes: the window topics commit nothing during this test.
        JobDeployment deployment = deployment("arrival-fates", Map.of("checkpoint-interval", "4m"));
        KnownCountTraffic traffic = traffic(6);
        RunningJob job = new RunningJob(cluster, deployment.start()).awaitAllTasksRunning(TIMEOUT);
        List<PartitionedTransaction> valid = new ArrayList<>(traffic.all());
        long producedFrom = System.currentTimeMillis();
        try (TransactionProducer producer = deployment.producer()) {
            producer.sendAll(traffic.all());
            // a producer retry of the last record (still in state), to the same partition
            PartitionedTransaction retried = traffic.all().get(traffic.all().size() - 1);
            producer.sendAll(List.of(retried));
            valid.add(retried);
            producer.sendRaw(1, "not avro".getBytes(StandardCharsets.UTF_8));
            Transaction invalid =
                    Transaction.newBuilder(traffic.all().get(1).transaction())
                            .setTransactionId("invalid-1")
                            .setAmountMinor(-5)
                            .build();
            producer.send(0, invalid);
            Transaction future =
                    Transaction.newBuilder(traffic.all().get(2).transaction())
                            .setTransactionId("future-1")
                            .setEventTime(Instant.now().plus(Duration.ofDays(1)))
                            .build();
            RecordMetadata futureAt = producer.send(null, future);
            assertThat(futureAt.offset()).isNotNegative();

            List<TransactionScore> written =
                    deployment.awaitCommitted(
                            Topic.TRANSACTION_SCORES,
                            TransactionScore.class,
                            valid.size(),
                            TIMEOUT);
            long producedTo = System.currentTimeMillis();
            assertThat(job.completedCheckpoints())
                    .as("visible before the first checkpoint: at-least-once, at once")
                    .isZero();

            Map<String, TransactionScore> expected = expected(valid);
            assertThat(written).hasSize(valid.size());
            assertEveryIdHasItsValues(written, expected);
            assertThat(
                            written.stream()
                                    .filter(
                                            s ->
                                                    s.getTransactionId()
                                                            .equals(
                                                                    retried.transaction()
                                                                            .getTransactionId())))
                    .hasSize(2);
            assertThat(written)
                    .allSatisfy(
                            s -> {
                                assertThat(s.getRecordTimestamp().toEpochMilli())
                                        .isBetween(producedFrom, producedTo);
                                assertThat(s.getScoredAt())
                                        .isAfterOrEqualTo(s.getRecordTimestamp());
                            });
            // The key is the transactionId, as plain text.
            for (ConsumerRecord<byte[], byte[]> r :
                    deployment.committedRecords(Topic.TRANSACTION_SCORES)) {
                TransactionScore s =
                        deployment
                                .codec(Topic.TRANSACTION_SCORES, TransactionScore.class)
                                .decode(r.value());
                assertThat(new String(r.key(), StandardCharsets.UTF_8))
                        .isEqualTo(s.getTransactionId());
            }
            // The invalid and the future-dated records took their usual ways, without a score
            // (written in the window path's open transactions: read uncommitted).
            Await.until(
                    "the dead letters and the quarantined record in their topics",
                    TIMEOUT,
                    () ->
                            deployment.uncommitted(Topic.DEAD_LETTERS, DeadLetter.class).size() == 2
                                    && deployment.uncommitted(Topic.LATE, LateRecord.class).stream()
                                            .anyMatch(
                                                    l ->
                                                            l.getTransaction()
                                                                    .getTransactionId()
                                                                    .equals("future-1")));

            assertThat(METRICS.counter(job.id(), TransactionScoring.METRICS.scored()))
                    .isEqualTo(valid.size());
            assertThat(
                            METRICS.counter(
                                    job.id(),
                                    org.fraudpipe.job.transaction.TrailingFeatureFunction.RETRIES))
                    .isEqualTo(1);
            List<Histogram> latency =
                    METRICS.histograms(job.id(), TransactionScoring.METRICS.latency());
            assertThat(latency).isNotEmpty();
            long measured = latency.stream().mapToLong(Histogram::getCount).sum();
            assertThat(measured).isEqualTo(valid.size());
            for (Histogram h : latency) {
                if (h.getCount() > 0) {
                    System.out.printf(
                            "score latency (Kafka record timestamp to the sink), one subtask of"
                                    + " this IT: n=%d p50=%.0f ms p99=%.0f ms p99.9=%.0f ms max=%d"
                                    + " ms%n",
                            h.getCount(),
                            h.getStatistics().getQuantile(0.5),
                            h.getStatistics().getQuantile(0.99),
                            h.getStatistics().getQuantile(0.999),
                            h.getStatistics().getMax());
                }
            }
        } finally {
            job.cancel();
        }
    }

    @Test
    @DisplayName(
            "#16 stop with savepoint, input while down, restore: every transaction id keeps the"
                    + " values of the definition; the state a user costs, measured")
    void aRestoreFromASavepointLeavesTheValuesOfTheDefinition(
            @InjectMiniCluster MiniCluster cluster) throws Exception {
        JobDeployment deployment = deployment("arrival-savepoint", Map.of());
        KnownCountTraffic traffic = traffic(20);
        Instant cut = traffic.windowStart(2).plus(Duration.ofMinutes(5));
        List<PartitionedTransaction> before = traffic.before(cut);
        RunningJob first = new RunningJob(cluster, deployment.start());
        String savepoint;
        try (TransactionProducer producer = deployment.producer()) {
            producer.sendAll(before);
            deployment.awaitCommitted(
                    Topic.TRANSACTION_SCORES, TransactionScore.class, before.size(), TIMEOUT);
            savepoint =
                    first.client()
                            .stopWithSavepoint(
                                    false,
                                    checkpoints.resolve("savepoints").toUri().toString(),
                                    SavepointFormatType.CANONICAL)
                            .get();
            Await.until(
                    "job finished after its savepoint",
                    TIMEOUT,
                    () -> first.client().getJobStatus().get() == JobStatus.FINISHED);
            // produced while the job is down: their trailing windows reach into the savepoint
            producer.sendAll(traffic.from(cut));
        }
        long stateBytes = operatorStateBytes(Path.of(java.net.URI.create(savepoint)));
        System.out.printf(
                "per-transaction state in a canonical savepoint: %d bytes for 20 users (%d bytes"
                        + " per user, about 4 received transactions each)%n",
                stateBytes, stateBytes / 20);
        assertThat(stateBytes).isPositive();

        RunningJob restored =
                new RunningJob(cluster, deployment.job().restoringFrom(savepoint).start());
        try {
            List<TransactionScore> written =
                    deployment.awaitCommitted(
                            Topic.TRANSACTION_SCORES,
                            TransactionScore.class,
                            traffic.all().size(),
                            TIMEOUT);
            assertThat(written).hasSize(traffic.all().size());
            assertEveryIdHasItsValues(written, expected(traffic.all()));
        } finally {
            restored.cancel();
        }
    }

    @Test
    @DisplayName(
            "#16 a task failure after a checkpoint, at-least-once: the answers since the"
                    + " checkpoint are written again with the same values, every id has the values"
                    + " of the definition")
    void aFailureWithReplayWritesTheSameValuesAgainAtLeastOnce(
            @InjectMiniCluster MiniCluster cluster) throws Exception {
        assertFailureKeepsTheValues(cluster, "at-least-once");
    }

    @Test
    @DisplayName(
            "#16 a task failure after a checkpoint, exactly-once: read_committed sees every id"
                    + " once, with the values of the definition")
    void aFailureWithReplayKeepsEveryIdOnceExactlyOnce(@InjectMiniCluster MiniCluster cluster)
            throws Exception {
        assertFailureKeepsTheValues(cluster, "exactly-once");
    }

    private void assertFailureKeepsTheValues(MiniCluster cluster, String delivery)
            throws Exception {
        JobDeployment deployment =
                deployment(
                        "arrival-failure-" + delivery,
                        Map.of("transaction-scores-delivery", delivery));
        KnownCountTraffic traffic = traffic(6);
        Instant cut = traffic.windowStart(2).plus(Duration.ofMinutes(5));
        FailureSwitch failure = FailureSwitch.create(deployment.config().groupId());
        RunningJob job =
                new RunningJob(
                        cluster,
                        deployment
                                .job()
                                .withSinks(
                                        s ->
                                                FailBeforeTransactionScoresSink.wrap(
                                                        s, deployment.config().groupId()))
                                .start());
        try (TransactionProducer producer = deployment.producer()) {
            List<PartitionedTransaction> before = traffic.before(cut);
            producer.sendAll(before);
            deployment.awaitCommitted(
                    Topic.TRANSACTION_SCORES, TransactionScore.class, before.size(), TIMEOUT);
            job.awaitNewCheckpoint(TIMEOUT);

            failure.arm();
            producer.sendAll(traffic.from(cut));
            failure.awaitTripped(TIMEOUT);

            List<TransactionScore> written =
                    deployment.awaitCommitted(
                            Topic.TRANSACTION_SCORES,
                            TransactionScore.class,
                            traffic.all().size(),
                            TIMEOUT);
            awaitEveryIdAnswered(deployment, traffic.all().size());
            if (delivery.equals("exactly-once")) {
                job.awaitNewCheckpoint(TIMEOUT);
            }
            written = deployment.committed(Topic.TRANSACTION_SCORES, TransactionScore.class);
            assertThat(job.restarts()).as("task restarts").isPositive();
            assertEveryIdHasItsValues(written, expected(traffic.all()));
            if (delivery.equals("exactly-once")) {
                assertThat(written).hasSize(traffic.all().size());
            } else {
                assertThat(written).hasSizeGreaterThanOrEqualTo(traffic.all().size());
            }
        } finally {
            job.cancel();
        }
    }

    /** Waits until {@code ids} distinct transaction ids are answered on the deployment's topic. */
    private static void awaitEveryIdAnswered(JobDeployment deployment, long ids) {
        Await.until(
                "every transaction id answered",
                TIMEOUT,
                () ->
                        deployment
                                        .committed(Topic.TRANSACTION_SCORES, TransactionScore.class)
                                        .stream()
                                        .map(TransactionScore::getTransactionId)
                                        .distinct()
                                        .count()
                                == ids);
    }

    /** The id of the hours-late transaction in {@link #hostile}. */
    private static final String HOURS_LATE_ID = "u02-hours-late";

    /**
     * The traffic from {@code cut} with what hurts mixed in, in production order: a producer retry
     * of a transaction sent before {@code cut} (still held, so answered with its original), a
     * transaction a minute late (behind the watermark, within the allowed lateness), a producer
     * retry and a second payload under an id sent a moment earlier, and a transaction three hours
     * late (beyond what the job keeps: scored over nothing, {@code historyComplete} false). Each
     * goes to its user's partition, so per partition the order is the production order.
     */
    private static List<PartitionedTransaction> hostile(KnownCountTraffic traffic, Instant cut) {
        List<PartitionedTransaction> before = traffic.before(cut);
        List<PartitionedTransaction> from = traffic.from(cut);
        int n = from.size();
        List<PartitionedTransaction> out = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            if (i == 1) {
                out.add(before.get(before.size() - 1)); // retry of a record before the cut
            }
            if (i == n / 4) {
                Transaction previous = from.get(i - 1).transaction();
                out.add(
                        new PartitionedTransaction(
                                1,
                                Transaction.newBuilder(previous)
                                        .setTransactionId("u01-late")
                                        .setUserId(KnownCountTraffic.user(1))
                                        .setAmountMinor(777)
                                        .setDeviceId("d-late")
                                        .setEventTime(
                                                previous.getEventTime()
                                                        .minus(Duration.ofMinutes(1)))
                                        .build()));
            }
            if (i == n / 2) {
                PartitionedTransaction original = from.get(i - 3);
                out.add(original); // a producer retry
                PartitionedTransaction other = from.get(i - 5);
                out.add(
                        new PartitionedTransaction(
                                other.partition(),
                                Transaction.newBuilder(other.transaction())
                                        .setAmountMinor(other.transaction().getAmountMinor() + 1)
                                        .build()));
            }
            if (i == 3 * n / 4) {
                out.add(
                        new PartitionedTransaction(
                                2,
                                Transaction.newBuilder(from.get(i).transaction())
                                        .setTransactionId(HOURS_LATE_ID)
                                        .setUserId(KnownCountTraffic.user(2))
                                        .setEventTime(START.minus(Duration.ofHours(3)))
                                        .build()));
            }
            out.add(from.get(i));
        }
        return out;
    }

    /**
     * The traffic of a split failover case: the records before {@code cut}, then those from it with
     * what hurts mixed in ({@link #hostile}), and the answers they must get.
     */
    private record HostileRun(
            List<PartitionedTransaction> beforeTheCut,
            List<PartitionedTransaction> fromTheCut,
            Map<String, TransactionScore> expected) {

        static HostileRun of(KnownCountTraffic traffic, Instant cut) throws Exception {
            List<PartitionedTransaction> before = traffic.before(cut);
            List<PartitionedTransaction> from = hostile(traffic, cut);
            List<PartitionedTransaction> all = new ArrayList<>(before);
            all.addAll(from);
            return new HostileRun(
                    before, from, ScoresAtArrivalIT.expected(all, Set.of(HOURS_LATE_ID)));
        }

        /** Every record, in production order. */
        List<PartitionedTransaction> all() {
            List<PartitionedTransaction> all = new ArrayList<>(beforeTheCut);
            all.addAll(fromTheCut);
            return all;
        }

        /**
         * Sends the records before the cut, waits until the decision job answered them and its
         * keyed operator's watermark is past their first eviction (so the hours-late record is
         * judged against it, also after a restore from the next checkpoint).
         */
        void sendBeforeTheCut(TransactionProducer producer, JobDeployment d, RunningJob decisions)
                throws Exception {
            producer.sendAll(beforeTheCut);
            d.awaitCommitted(
                    Topic.TRANSACTION_SCORES, TransactionScore.class, beforeTheCut.size(), TIMEOUT);
            awaitTrailingWatermarkPast(decisions, START.plus(Duration.ofMinutes(15)));
        }
    }

    /**
     * Waits until every subtask of the decision path's keyed operator has seen a watermark past the
     * first transactions' eviction, so the hours-late one is judged against it (and, after a
     * restore, against the highest watermark in the checkpoint taken after this).
     */
    private static void awaitTrailingWatermarkPast(RunningJob job, Instant at) {
        Await.until(
                "the trailing features' watermark past " + at,
                TIMEOUT,
                () ->
                        METRICS.lowestInputWatermark(
                                        job.id(),
                                        org.fraudpipe.job.topology.OperatorNames.TRAILING_FEATURES)
                                >= at.toEpochMilli());
    }

    /**
     * Every answer on the topic has its id's expected values (so no id has two different ones), and
     * every expected id is answered.
     */
    private static void assertNoScoreLostOrChanged(
            List<TransactionScore> written, Map<String, TransactionScore> expected) {
        assertEveryIdHasItsValues(written, expected);
        assertThat(expected.get(HOURS_LATE_ID).getFeatures().getHistoryComplete()).isFalse();
        assertThat(expected.get("u01-late").getFeatures().getHistoryComplete()).isTrue();
    }

    /** The split deployment of {@code name}: the window job and the decision job, one each. */
    private record Split(JobDeployment windows, JobDeployment decisions) {}

    private Split split(String name) {
        JobDeployment one = deployment(name, Map.of());
        return new Split(
                one.with("paths", "windows"),
                one.with("paths", "decisions")
                        .with(
                                "transactional-id-prefix",
                                one.config().transactionalIdPrefix() + "-decisions"));
    }

    @Test
    @DisplayName(
            "#29 split deployment: the decision job fails alone while late, repeated and hours-late"
                    + " records flow; every id keeps the values of the definition, the window job"
                    + " never restarts")
    void theDecisionJobFailingAloneLosesAndChangesNoScore(@InjectMiniCluster MiniCluster cluster)
            throws Exception {
        Split split = split("split-decision-failure");
        KnownCountTraffic traffic = traffic(6);
        Instant cut = traffic.windowStart(2).plus(Duration.ofMinutes(5));
        String name = split.decisions().config().transactionalIdPrefix();
        FailureSwitch failure = FailureSwitch.create(name);
        RunningJob windows = new RunningJob(cluster, split.windows().start());
        RunningJob decisions =
                new RunningJob(
                        cluster,
                        split.decisions()
                                .job()
                                .withSinks(s -> FailBeforeTransactionScoresSink.wrap(s, name))
                                .start());
        JobDeployment d = split.decisions();
        HostileRun run = HostileRun.of(traffic, cut);
        Map<String, TransactionScore> expected = run.expected();
        List<PartitionedTransaction> all = run.all();
        try (TransactionProducer producer = d.producer()) {
            run.sendBeforeTheCut(producer, d, decisions);
            decisions.awaitNewCheckpoint(TIMEOUT);

            // Late, repeated and hours-late records flow while the decision job fails and
            // replays from that checkpoint.
            failure.arm();
            producer.sendAll(run.fromTheCut());
            failure.awaitTripped(TIMEOUT);
            awaitEveryIdAnswered(d, expected.size());
            assertThat(decisions.restarts()).as("decision job restarts").isPositive();
            assertThat(windows.restarts()).as("window job restarts").isZero();
            List<TransactionScore> written =
                    d.committed(Topic.TRANSACTION_SCORES, TransactionScore.class);
            assertNoScoreLostOrChanged(written, expected);
            assertThat(written).hasSizeGreaterThanOrEqualTo(all.size());
            // The window job served its panes meanwhile, untouched by the other's failure.
            assertThat(split.windows().committed(Topic.FEATURES, FeatureRecord.class)).isNotEmpty();
        } finally {
            decisions.cancel();
            windows.cancel();
        }
    }

    @Test
    @DisplayName(
            "#29 split deployment: the window job fails alone while late, repeated and hours-late"
                    + " records flow; the decision job answers every arrival once, with the values"
                    + " of the definition, and never restarts")
    void theWindowJobFailingAloneLeavesEveryScoreAsItWas(@InjectMiniCluster MiniCluster cluster)
            throws Exception {
        Split split = split("split-window-failure");
        KnownCountTraffic traffic = traffic(6);
        Instant cut = traffic.windowStart(2).plus(Duration.ofMinutes(5));
        String name = split.windows().config().groupId() + "-windows";
        FailureSwitch failure = FailureSwitch.create(name);
        RunningJob windows =
                new RunningJob(
                        cluster,
                        split.windows()
                                .job()
                                .withSinks(s -> FailBeforeFeaturesSink.wrap(s, name))
                                .start());
        RunningJob decisions = new RunningJob(cluster, split.decisions().start());
        JobDeployment d = split.decisions();
        HostileRun run = HostileRun.of(traffic, cut);
        Map<String, TransactionScore> expected = run.expected();
        List<PartitionedTransaction> all = run.all();
        try (TransactionProducer producer = d.producer()) {
            run.sendBeforeTheCut(producer, d, decisions);
            windows.awaitNewCheckpoint(TIMEOUT);
            // Late, repeated and hours-late records flow while the window job fails.
            failure.arm();
            producer.sendAll(run.fromTheCut());
            failure.awaitTripped(TIMEOUT);
            failure.release();
            List<TransactionScore> written =
                    d.awaitCommitted(
                            Topic.TRANSACTION_SCORES, TransactionScore.class, all.size(), TIMEOUT);
            Await.until("the window job restarted", TIMEOUT, () -> windows.restarts() > 0);
            assertThat(decisions.restarts()).as("decision job restarts").isZero();
            // One answer per arrival (the decision job never replayed), none changed.
            assertThat(written).hasSize(all.size());
            assertNoScoreLostOrChanged(written, expected);
        } finally {
            decisions.cancel();
            windows.cancel();
        }
    }

    /**
     * State size of the trailing features operator, as the savepoint's metadata records it (the
     * operator id is the murmur3-128 of its uid, as Flink derives it).
     */
    private static long operatorStateBytes(Path savepointDir) throws Exception {
        CheckpointMetadata metadata;
        try (InputStream in = Files.newInputStream(savepointDir.resolve("_metadata"))) {
            metadata =
                    Checkpoints.loadCheckpointMetadata(
                            new DataInputStream(in),
                            ScoresAtArrivalIT.class.getClassLoader(),
                            savepointDir.toUri().toString());
        }
        OperatorID id =
                new OperatorID(
                        Hashing.murmur3_128(0)
                                .newHasher()
                                .putString(Uids.TRAILING_FEATURES, StandardCharsets.UTF_8)
                                .hash()
                                .asBytes());
        for (OperatorState op : metadata.getOperatorStates()) {
            if (op.getOperatorID().equals(id)) {
                return op.getStateSize();
            }
        }
        throw new AssertionError("no state of " + Uids.TRAILING_FEATURES + " in " + savepointDir);
    }
}
