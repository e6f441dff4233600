package org.fraudpipe.job.reliability;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.apache.flink.runtime.minicluster.MiniCluster;
import org.apache.flink.runtime.testutils.MiniClusterResourceConfiguration;
import org.apache.flink.test.junit5.InjectMiniCluster;
import org.apache.flink.test.junit5.MiniClusterExtension;
import org.fraudpipe.job.scoring.release.ServingScorer;
import org.fraudpipe.job.testing.Await;
import org.fraudpipe.job.testing.JobDeployment;
import org.fraudpipe.job.testing.JobMetrics;
import org.fraudpipe.job.testing.RegistryPublisher;
import org.fraudpipe.job.testing.RunningJob;
import org.fraudpipe.job.testing.TrainedReleases;
import org.fraudpipe.job.testing.TransactionProducer;
import org.fraudpipe.local.KafkaTestBroker;
import org.fraudpipe.schemas.Topic;
import org.fraudpipe.schemas.avro.AssignmentAction;
import org.fraudpipe.schemas.avro.ChallengerScore;
import org.fraudpipe.schemas.avro.FeatureRecord;
import org.fraudpipe.schemas.avro.ModelKind;
import org.fraudpipe.schemas.avro.ScoreRecord;
import org.fraudpipe.schemas.avro.Transaction;
import org.fraudpipe.schemas.avro.TransactionFeatures;
import org.fraudpipe.schemas.avro.TransactionScore;
import org.fraudpipe.scoring.FeatureLayout;
import org.fraudpipe.scoring.OnnxScorer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * Model releases in the running job (issue #30), on a real broker and the job as {@code ./fraud
 * job} builds it, exactly-once: releases published and assigned while traffic flows, each
 * assignment published only after the traffic before it was sent, so that every phase's records
 * have coordinates (Kafka append times, window starts) on their side of each switch by
 * construction, not by timing.
 *
 * <p>Timeline: the start-up models; v1 promoted; v2 promoted with v3 as challenger, then late,
 * repeated (same and other payload), hours-late, future-dated and malformed records and a task
 * failure with replay; a rollback (to v1) and the challenger withdrawn; a corrupt transaction
 * release and a window release of the wrong layout promoted. The oracle is the timeline itself, not
 * the job's rule.
 */
class ModelReleasesIT {

    private static final int PARTITIONS = 2;
    private static final Duration LEAD = Duration.ofSeconds(15);
    private static final Duration TIMEOUT = Duration.ofMinutes(3);
    private static final int USERS = 6;
    private static final Duration WINDOW = Duration.ofSeconds(10);

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

    /** Every model of the test by kind and version ("startup": the shipped one). */
    private static final Map<String, OnnxScorer<FeatureRecord>> WINDOW_MODELS = new HashMap<>();

    private static final Map<String, OnnxScorer<TransactionFeatures>> TX_MODELS = new HashMap<>();
    private static String startupWindow;
    private static String startupTx;

    @TempDir Path checkpoints;

    @BeforeAll
    static void loadModels() throws Exception {
        OnnxScorer<FeatureRecord> w = OnnxScorer.loadDefault();
        OnnxScorer<TransactionFeatures> t = OnnxScorer.loadDefaultTransactionModel();
        startupWindow = w.metadata().version();
        startupTx = t.metadata().version();
        WINDOW_MODELS.put(startupWindow, w);
        TX_MODELS.put(startupTx, t);
        for (String v : List.of("v1", "v2", "v3")) {
            WINDOW_MODELS.put(
                    v, OnnxScorer.fromBytes(TrainedReleases.windowModel(v), v, FeatureLayout.V1));
            TX_MODELS.put(
                    v,
                    OnnxScorer.fromBytes(
                            TrainedReleases.transactionModel(v), v, FeatureLayout.TRANSACTION_V1));
        }
    }

    @AfterAll
    static void closeModels() {
        WINDOW_MODELS.values().forEach(OnnxScorer::close);
        TX_MODELS.values().forEach(OnnxScorer::close);
    }

    /** The effective times of one kind's assignments, as published. */
    private static final class Timeline {
        Instant v1;
        Instant v2;
        Instant shadowV3;
        Instant rollback;
        Instant withdraw;
        Instant broken;

        /** Which version decides at {@code coordinate} (the broken release never does). */
        String champion(long coordinate, String startup) {
            if (coordinate < v1.toEpochMilli()) {
                return startup;
            }
            if (coordinate < v2.toEpochMilli()) {
                return "v1";
            }
            return coordinate < rollback.toEpochMilli() ? "v2" : "v1";
        }

        /** Which version shadows at {@code coordinate}, or null. */
        String challenger(long coordinate) {
            return coordinate >= shadowV3.toEpochMilli() && coordinate < withdraw.toEpochMilli()
                    ? "v3"
                    : null;
        }
    }

    private int sequence;

    /** {@code perUser} transactions of every user, dated now, each to its user's partition. */
    private List<TransactionProducer.PartitionedTransaction> phase(String phase, int perUser) {
        List<TransactionProducer.PartitionedTransaction> out = new ArrayList<>();
        for (int i = 0; i < perUser; i++) {
            for (int u = 0; u < USERS; u++) {
                out.add(
                        new TransactionProducer.PartitionedTransaction(
                                u % PARTITIONS,
                                transaction(phase + "-" + (sequence++), u, Instant.now())));
            }
        }
        return out;
    }

    private static Transaction transaction(String id, int user, Instant eventTime) {
        return Transaction.newBuilder()
                .setTransactionId(id)
                .setUserId("u" + user)
                .setAmountMinor(1_000L + 37L * (id.hashCode() & 0xff))
                .setCurrency("EUR")
                .setMerchantId("m" + (id.hashCode() & 3))
                .setDeviceId("d" + user + "-" + (id.hashCode() & 1))
                .setCountry("DE")
                .setEventTime(eventTime)
                .build();
    }

    /**
     * Waits until the clock is past {@code effective} and past the start of the first window that
     * starts at or after it: records sent then are on the new side of the switch both by their
     * Kafka timestamps and by their windows' starts.
     */
    private static void awaitClockPast(Instant effective) {
        long window = WINDOW.toMillis();
        Instant firstWindowAfter =
                Instant.ofEpochMilli((effective.toEpochMilli() + window - 1) / window * window);
        Await.until(
                "the clock past " + firstWindowAfter,
                TIMEOUT,
                () -> Instant.now().isAfter(firstWindowAfter.plusMillis(200)));
    }

    @Test
    @DisplayName(
            "#30 releases promoted, shadowed, rolled back and refused mid-stream, exactly-once,"
                    + " through a failover: every score by the release of its coordinate, with"
                    + " that release's value")
    void everyScoreIsByTheReleaseOfItsCoordinateThroughPromotionsAFailoverAndRefusals(
            @InjectMiniCluster MiniCluster cluster) throws Exception {
        JobDeployment deployment =
                JobDeployment.create(
                        KAFKA,
                        "releases",
                        PARTITIONS,
                        checkpoints,
                        Map.of(
                                "window-size", Long.toString(WINDOW.toSeconds()) + "s",
                                "allowed-lateness", "2m",
                                "out-of-orderness", "1s",
                                "transaction-scores-delivery", "exactly-once"));
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
        Map<ModelKind, Timeline> timelines =
                Map.of(ModelKind.WINDOW, new Timeline(), ModelKind.TRANSACTION, new Timeline());
        int validArrivals = 0;
        Transaction lateForItsWindow;
        try (TransactionProducer producer = deployment.producer();
                RegistryPublisher registry = new RegistryPublisher(deployment.config())) {
            job.awaitAllTasksRunning(TIMEOUT);
            for (ModelKind kind : ModelKind.values()) {
                for (String v : List.of("v1", "v2", "v3")) {
                    registry.publish(kind, v, TrainedReleases.model(kind, v));
                }
            }
            byte[] v2Tx = TrainedReleases.transactionModel("v2");
            registry.publish(
                    ModelKind.TRANSACTION, "v4-corrupt", Arrays.copyOf(v2Tx, v2Tx.length / 2));
            registry.publish(ModelKind.WINDOW, "v4-misfit", v2Tx);

            // Phase 0: the start-up models. Sent before v1's assignment is published.
            List<TransactionProducer.PartitionedTransaction> p0 = phase("p0", 3);
            producer.sendAll(p0);
            validArrivals += p0.size();
            lateForItsWindow = p0.get(0).transaction();
            for (ModelKind kind : ModelKind.values()) {
                timelines.get(kind).v1 =
                        registry.assign(kind, AssignmentAction.PROMOTE, "v1", LEAD);
            }

            // Phase 1: v1.
            awaitClockPast(latest(timelines, t -> t.v1));
            List<TransactionProducer.PartitionedTransaction> p1 = phase("p1", 3);
            producer.sendAll(p1);
            validArrivals += p1.size();
            for (ModelKind kind : ModelKind.values()) {
                timelines.get(kind).v2 =
                        registry.assign(kind, AssignmentAction.PROMOTE, "v2", LEAD);
                timelines.get(kind).shadowV3 =
                        registry.assign(kind, AssignmentAction.SHADOW, "v3", LEAD);
            }

            // Phase 2: v2 with v3 in the shadow, what hurts, and a failure with replay.
            awaitClockPast(latest(timelines, t -> t.shadowV3));
            List<TransactionProducer.PartitionedTransaction> p2 = phase("p2", 3);
            Transaction original = p1.get(1).transaction();
            p2.add(new TransactionProducer.PartitionedTransaction(1 % PARTITIONS, original));
            p2.add(
                    new TransactionProducer.PartitionedTransaction(
                            1 % PARTITIONS,
                            Transaction.newBuilder(p1.get(7).transaction())
                                    .setAmountMinor(p1.get(7).transaction().getAmountMinor() + 1)
                                    .build()));
            // Late: in phase 0's window, which re-fires (still within the allowed lateness).
            p2.add(
                    new TransactionProducer.PartitionedTransaction(
                            0, transaction("p2-late", 0, lateForItsWindow.getEventTime())));
            // Hours late: too late for any window, scored at once with what is held.
            p2.add(
                    new TransactionProducer.PartitionedTransaction(
                            0,
                            transaction("p2-hours-late", 2, Instant.now().minusSeconds(3 * 3600))));
            producer.sendAll(p2);
            validArrivals += p2.size();
            // Never scored: future-dated (quarantined) and malformed (a dead letter).
            producer.send(0, transaction("p2-future", 4, Instant.now().plusSeconds(3600)));
            producer.sendRaw(1, "not avro".getBytes(StandardCharsets.UTF_8));
            deployment.awaitCommitted(
                    Topic.TRANSACTION_SCORES, TransactionScore.class, validArrivals, TIMEOUT);
            failure.arm();
            List<TransactionProducer.PartitionedTransaction> p2b = phase("p2b", 2);
            producer.sendAll(p2b);
            validArrivals += p2b.size();
            failure.awaitTripped(TIMEOUT);
            for (ModelKind kind : ModelKind.values()) {
                timelines.get(kind).rollback =
                        registry.assign(kind, AssignmentAction.ROLLBACK, null, LEAD);
                timelines.get(kind).withdraw =
                        registry.assign(kind, AssignmentAction.WITHDRAW, null, LEAD);
            }

            // Phase 3: rolled back to v1, no challenger.
            awaitClockPast(latest(timelines, t -> t.withdraw));
            List<TransactionProducer.PartitionedTransaction> p3 = phase("p3", 3);
            producer.sendAll(p3);
            validArrivals += p3.size();
            timelines.get(ModelKind.TRANSACTION).broken =
                    registry.assign(
                            ModelKind.TRANSACTION, AssignmentAction.PROMOTE, "v4-corrupt", LEAD);
            timelines.get(ModelKind.WINDOW).broken =
                    registry.assign(ModelKind.WINDOW, AssignmentAction.PROMOTE, "v4-misfit", LEAD);

            // Phase 4: the broken releases refused, v1 keeps serving; its records also fire
            // phase 3's windows.
            awaitClockPast(latest(timelines, t -> t.broken));
            List<TransactionProducer.PartitionedTransaction> p4 = phase("p4", 3);
            producer.sendAll(p4);
            validArrivals += p4.size();

            deployment.awaitCommitted(
                    Topic.TRANSACTION_SCORES, TransactionScore.class, validArrivals, TIMEOUT);
            assertThat(job.restarts()).as("the injected failure restarted the job").isPositive();

            // Phase 5: stopped with a savepoint and restored (the registry is read again, nothing
            // of it is in the savepoint); a retry of a phase-2 id is answered by v2, its
            // original's release, a new transaction by v1.
            org.apache.flink.api.common.JobID beforeRestore = job.id();
            String savepoint = job.stopWithSavepoint(checkpoints.resolve("savepoints"), TIMEOUT);
            job =
                    new RunningJob(
                            cluster,
                            deployment
                                    .job()
                                    .restoringFrom(savepoint)
                                    .withSinks(
                                            s ->
                                                    FailBeforeTransactionScoresSink.wrap(
                                                            s, deployment.config().groupId()))
                                    .start());
            job.awaitAllTasksRunning(TIMEOUT);
            // Dated past phase 4's windows, so that their panes fire (scored by v1: the misfit
            // window release is refused).
            awaitClockPast(p4.get(0).transaction().getEventTime().plus(WINDOW).plusSeconds(1));
            List<TransactionProducer.PartitionedTransaction> p5 = phase("p5", 2);
            p5.add(
                    new TransactionProducer.PartitionedTransaction(
                            2 % PARTITIONS, p2.get(2).transaction()));
            producer.sendAll(p5);
            validArrivals += p5.size();
            deployment.awaitCommitted(
                    Topic.TRANSACTION_SCORES, TransactionScore.class, validArrivals, TIMEOUT);
            long brokenFrom = timelines.get(ModelKind.WINDOW).broken.toEpochMilli();
            Await.until(
                    "a committed pane of a window after the broken window release's promotion",
                    TIMEOUT,
                    () ->
                            deployment.committed(Topic.SCORES, ScoreRecord.class).stream()
                                    .anyMatch(
                                            s -> s.getWindowStart().toEpochMilli() >= brokenFrom));
            job.awaitNewCheckpoint(TIMEOUT);

            List<TransactionScore> answers =
                    deployment.committed(Topic.TRANSACTION_SCORES, TransactionScore.class);
            List<ScoreRecord> panes = deployment.committed(Topic.SCORES, ScoreRecord.class);

            assertThat(answers)
                    .as("exactly-once: one answer per valid arrival, none for the two refused")
                    .hasSize(validArrivals);
            assertTransactionsScoredByTheirCoordinatesRelease(
                    answers, timelines.get(ModelKind.TRANSACTION), original.getTransactionId());
            String restoredRetry = p2.get(2).transaction().getTransactionId();
            assertThat(answers)
                    .filteredOn(a -> a.getTransactionId().equals(restoredRetry))
                    .as("a phase-2 id retried after the restore: answered by v2, as before")
                    .hasSize(2)
                    .allMatch(a -> a.getModelVersion().equals("v2"));
            assertPanesScoredByTheirWindowStartsRelease(
                    panes, timelines.get(ModelKind.WINDOW), lateForItsWindow);
            assertThat(
                            answers.stream()
                                    .filter(
                                            a ->
                                                    a.getRecordTimestamp().toEpochMilli()
                                                            >= timelines
                                                                    .get(ModelKind.TRANSACTION)
                                                                    .broken
                                                                    .toEpochMilli()))
                    .as("answers after the corrupt release's promotion, all by v1")
                    .isNotEmpty()
                    .allMatch(a -> a.getModelVersion().equals("v1"));
            assertThat(panes)
                    .filteredOn(p -> p.getWindowStart().toEpochMilli() >= brokenFrom)
                    .as("panes of windows after the misfit release's promotion, all by v1")
                    .isNotEmpty()
                    .allMatch(p -> p.getModelVersion().equals("v1"));
            assertThat(METRICS.counter(job.id(), ServingScorer.REFUSED))
                    .as(
                            "refusals counted: every scoring subtask of the restored job refuses the"
                                    + " broken releases when it opens")
                    .isPositive();
            assertThat(METRICS.counter(beforeRestore, ServingScorer.SWITCHES))
                    .as("switches counted before the restore (a subtask scored phases 0 and 1)")
                    .isPositive();
        } finally {
            job.cancel();
        }
    }

    private static Instant latest(
            Map<ModelKind, Timeline> timelines, java.util.function.Function<Timeline, Instant> at) {
        return timelines.values().stream().map(at).max(Instant::compareTo).orElseThrow();
    }

    /**
     * Every answer is by the champion of its coordinate (the first arrival's Kafka timestamp), with
     * exactly that model's score of the features it carries, and the challenger's beside it where
     * one was assigned; every version of the timeline decided something; a retry is answered with
     * the original's values.
     */
    private static void assertTransactionsScoredByTheirCoordinatesRelease(
            List<TransactionScore> answers, Timeline t, String retriedId) {
        Set<String> deciders = new HashSet<>();
        Map<String, TransactionScore> firstById = new HashMap<>();
        for (TransactionScore a : answers) {
            long c = a.getRecordTimestamp().toEpochMilli();
            String expected = t.champion(c, startupTx);
            assertThat(a.getModelVersion())
                    .as("model of %s at %s", a.getTransactionId(), c)
                    .isEqualTo(expected);
            assertThat(a.getScore())
                    .as("score of %s", a.getTransactionId())
                    .isEqualTo(TX_MODELS.get(expected).score(a.getFeatures()));
            assertChallenger(a.getChallenger(), t.challenger(c), TX_MODELS, a.getFeatures(), c);
            deciders.add(expected);
            TransactionScore first = firstById.putIfAbsent(a.getTransactionId(), a);
            if (first != null) {
                assertThat(withoutArrival(a)).isEqualTo(withoutArrival(first));
            }
        }
        assertThat(deciders).containsExactlyInAnyOrder(startupTx, "v1", "v2");
        assertThat(answers)
                .filteredOn(a -> a.getTransactionId().equals(retriedId))
                .as("the retry of a phase-1 id after v2's promotion: answered with v1's values")
                .hasSize(2)
                .allMatch(a -> a.getModelVersion().equals("v1"));
    }

    /**
     * Every pane is by the champion of its window start, re-fires included (a late record's window,
     * started before v1, re-fired after v2's promotion, stays with the start-up model), with that
     * model's score and the challenger's where one was assigned.
     */
    private static void assertPanesScoredByTheirWindowStartsRelease(
            List<ScoreRecord> panes, Timeline t, Transaction late) {
        Set<String> deciders = new HashSet<>();
        for (ScoreRecord p : panes) {
            long c = p.getWindowStart().toEpochMilli();
            String expected = t.champion(c, startupWindow);
            assertThat(p.getModelVersion())
                    .as("model of %s %s rev %d", p.getUserId(), p.getWindowStart(), p.getRevision())
                    .isEqualTo(expected);
            assertThat(p.getScore()).isEqualTo(WINDOW_MODELS.get(expected).score(p.getFeatures()));
            assertChallenger(p.getChallenger(), t.challenger(c), WINDOW_MODELS, p.getFeatures(), c);
            deciders.add(expected);
        }
        assertThat(deciders).contains(startupWindow, "v1", "v2");
        assertThat(panes)
                .as("the late record's window re-fired, scored by the release of its start")
                .anySatisfy(
                        p -> {
                            assertThat(p.getUserId()).isEqualTo(late.getUserId());
                            assertThat(p.getRevision()).isPositive();
                            assertThat(p.getWindowStart()).isBefore(t.v1);
                            assertThat(p.getModelVersion()).isEqualTo(startupWindow);
                        });
        assertThat(panes).as("some panes shadowed by v3").anyMatch(p -> p.getChallenger() != null);
    }

    private static <R> void assertChallenger(
            ChallengerScore actual,
            String expectedVersion,
            Map<String, OnnxScorer<R>> models,
            R features,
            long coordinate) {
        if (expectedVersion == null) {
            assertThat(actual).as("no challenger at %s", coordinate).isNull();
            return;
        }
        assertThat(actual).as("challenger at %s", coordinate).isNotNull();
        assertThat(actual.getModelVersion()).isEqualTo(expectedVersion);
        assertThat(actual.getScore()).isEqualTo(models.get(expectedVersion).score(features));
    }

    /** An answer without what differs between two arrivals of one id. */
    private static TransactionScore withoutArrival(TransactionScore s) {
        return TransactionScore.newBuilder(s)
                .setScoredAt(Instant.EPOCH)
                .setSourcePartition(null)
                .setSourceOffset(null)
                .build();
    }
}
