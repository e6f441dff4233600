package org.fraudpipe.job.reliability;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.apache.flink.runtime.minicluster.MiniCluster;
import org.apache.flink.runtime.testutils.MiniClusterResourceConfiguration;
import org.apache.flink.test.junit5.InjectMiniCluster;
import org.apache.flink.test.junit5.MiniClusterExtension;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.fraudpipe.job.testing.ArchiveFiles;
import org.fraudpipe.job.testing.Await;
import org.fraudpipe.job.testing.BatchRecomputation;
import org.fraudpipe.job.testing.JobDeployment;
import org.fraudpipe.job.testing.Panes;
import org.fraudpipe.job.testing.RunningJob;
import org.fraudpipe.job.testing.TransactionProducer;
import org.fraudpipe.job.window.FeatureWindowSpec;
import org.fraudpipe.local.KafkaTestBroker;
import org.fraudpipe.schemas.Topic;
import org.fraudpipe.schemas.archive.ArchiveStream;
import org.fraudpipe.schemas.avro.ArchivedTransaction;
import org.fraudpipe.schemas.avro.DeadLetter;
import org.fraudpipe.schemas.avro.FeatureRecord;
import org.fraudpipe.schemas.avro.LateReason;
import org.fraudpipe.schemas.avro.LateRecord;
import org.fraudpipe.schemas.avro.Transaction;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * Issue #15, item 1, on the production job against a real broker, with the traffic that hurts: one
 * job lineage restored from savepoints three times, at more subtasks than partitions (a source
 * subtask and window subtasks that never see a record), then rescaled down to one and up to four.
 * After every restore, before event time moves, a record late for a window dropped before the
 * savepoint and a producer's retry of a record that window counted arrive: both are too late, and
 * no window ever gets a new revision-0 pane; a window still within its grace period counts its late
 * record. Duplicates, a future-dated record and a malformed one ride along. At the end, the last
 * pane per (user, window) equals the batch recomputation of what the job had to count, and no key's
 * revisions ever go down in the topic's order (what an upsert reader keeps).
 *
 * <p>Every "too late" and "within grace" here is certain, not a race: event time is moved only by
 * the test's ticks; a tick past a window's cleanup is sent only once the window's whole content was
 * seen in a pane, and a record meant to be too late only once a later window fired. The idleness is
 * short (a subtask without a partition must go idle for event time to move at all), so a partition
 * may be idle when another's tick arrives: that can only turn an on-time record into a late one
 * within grace, which changes the revision it is counted in, not the final value.
 */
class RestoreNeverRevivesWindowsIT {

    private static final int PARTITIONS = 2;
    private static final Instant S = Instant.parse("2025-02-03T00:00:00Z");
    private static final Duration WINDOW = Duration.ofMinutes(10);
    private static final Duration LATENESS = Duration.ofMinutes(2);
    private static final Duration TIMEOUT = Duration.ofMinutes(3);

    @RegisterExtension static final KafkaTestBroker KAFKA = new KafkaTestBroker(PARTITIONS);

    /** Four slots for the job at its widest, two for the batch recomputation next to it. */
    @RegisterExtension
    static final MiniClusterExtension FLINK =
            new MiniClusterExtension(
                    new MiniClusterResourceConfiguration.Builder()
                            .setNumberTaskManagers(1)
                            .setNumberSlotsPerTaskManager(6)
                            .build());

    @TempDir Path checkpoints;
    @TempDir Path savepoints;

    /** What the job must count: every valid, not future-dated, not too-late record. */
    private final List<Transaction> counted = new ArrayList<>();

    private final List<Transaction> tooLate = new ArrayList<>();

    private static Instant window(int w) {
        return S.plus(WINDOW.multipliedBy(w));
    }

    private static Transaction tx(String id, String user, Instant at, long amount, String device) {
        return Transaction.newBuilder()
                .setTransactionId(id)
                .setUserId(user)
                .setAmountMinor(amount)
                .setCurrency("EUR")
                .setMerchantId("m-" + id.charAt(id.length() - 1))
                .setDeviceId(device)
                .setCountry("DE")
                .setEventTime(at)
                .build();
    }

    /** Users pinned to partitions, as the producer's key would pin them. */
    private static final String U0 = "u0";

    private static final String U1 = "u1";

    private void send(TransactionProducer producer, int partition, Transaction tx, boolean counts)
            throws Exception {
        producer.send(partition, tx);
        if (counts) {
            counted.add(tx);
        }
    }

    /** Moves every partition's event time to {@code at} (tick users' own windows never fire). */
    private static void tick(TransactionProducer producer, Instant at) throws Exception {
        for (int p = 0; p < PARTITIONS; p++) {
            producer.send(p, tx("tick-" + p + "-" + at.toEpochMilli(), "tick-" + p, at, 1, "t"));
        }
    }

    /** Stops the job with a canonical savepoint (no drain: windows stay open) and returns it. */
    private String stopWithSavepoint(RunningJob job) throws Exception {
        return job.stopWithSavepoint(savepoints, TIMEOUT);
    }

    /** Waits until {@code user}'s window holds {@code txCount} transactions in some pane. */
    private static List<FeatureRecord> awaitPane(
            JobDeployment d, String user, Instant windowStart, long txCount) {
        Await.until(
                user + "'s window " + windowStart + " with " + txCount + " transactions",
                TIMEOUT,
                () ->
                        d.committed(Topic.FEATURES, FeatureRecord.class).stream()
                                .anyMatch(
                                        f ->
                                                f.getUserId().equals(user)
                                                        && f.getWindowStart().equals(windowStart)
                                                        && f.getTxCount() == txCount));
        return d.committed(Topic.FEATURES, FeatureRecord.class);
    }

    private static List<LateRecord> awaitTooLate(JobDeployment d, int count) {
        Await.until(
                count + " TOO_LATE records",
                TIMEOUT,
                () ->
                        d.committed(Topic.LATE, LateRecord.class).stream()
                                        .filter(l -> l.getReason() == LateReason.TOO_LATE)
                                        .count()
                                >= count);
        return d.committed(Topic.LATE, LateRecord.class);
    }

    /**
     * Right after a restore, before event time moves: a record late for {@code dropped} (a window
     * of {@code user} dropped before the savepoint) and a retry of {@code original}, one it
     * counted.
     */
    private void lateAndRetryForADroppedWindow(
            TransactionProducer producer,
            int partition,
            String user,
            Instant dropped,
            Transaction original,
            String tag)
            throws Exception {
        Transaction late = tx(tag + "-late", user, dropped.plusSeconds(90), 999, "d-late");
        producer.send(partition, late);
        producer.send(partition, original); // the producer's retry: same id, same payload
        tooLate.add(late);
        tooLate.add(original);
    }

    @Test
    @DisplayName(
            "#15.1 restore at more subtasks than partitions, then rescaled to 1 and to 4: a late"
                    + " record and a retry for a dropped window are too late, never a new pane;"
                    + " final values equal the batch recomputation")
    void aDroppedWindowNeverGetsANewPaneAcrossRestoresAndRescales(
            @InjectMiniCluster MiniCluster cluster) throws Exception {
        JobDeployment atThree =
                JobDeployment.create(
                        KAFKA,
                        "revive",
                        PARTITIONS,
                        checkpoints,
                        Map.of("idleness", "3s", "parallelism", "3"));
        JobDeployment atOne = atThree.with("parallelism", "1");
        JobDeployment atFour = atThree.with("parallelism", "4");

        try (TransactionProducer producer = atThree.producer()) {
            // Run 1, parallelism 3 over 2 partitions: windows 0 and 1 of both users, with a
            // duplicate, an out-of-order record, a future-dated and a malformed one.
            RunningJob run = new RunningJob(cluster, atThree.start());
            Transaction u0w0a = tx("u0-w0-a", U0, window(0).plusSeconds(60), 100, "d0");
            send(producer, 0, u0w0a, true);
            send(producer, 0, tx("u0-w0-b", U0, window(0).plusSeconds(120), 200, "d1"), true);
            producer.send(0, u0w0a); // duplicate while the window is open: counted once
            send(producer, 1, tx("u1-w0-a", U1, window(0).plusSeconds(300), 50, "d9"), true);
            send(producer, 1, tx("u1-w0-b", U1, window(0).plusSeconds(200), 70, "d9"), true);
            producer.send(1, tx("future", U1, Instant.parse("2099-01-01T00:00:00Z"), 5, "dx"));
            producer.sendRaw(0, "not avro".getBytes(StandardCharsets.UTF_8));
            send(producer, 0, tx("u0-w1-a", U0, window(1).plusSeconds(30), 300, "d0"), true);
            Transaction u1w1a = tx("u1-w1-a", U1, window(1).plusSeconds(40), 80, "d9");
            send(producer, 1, u1w1a, true);
            // A tick past a window's cleanup only once its content is seen in a pane: a record
            // still unread then (its partition idle meanwhile) would be too late by accident.
            tick(producer, window(1).plusSeconds(30));
            awaitPane(atThree, U0, window(0), 2);
            awaitPane(atThree, U1, window(0), 2);
            tick(producer, window(2).plusSeconds(30)); // window 0 dropped, window 1 fired
            awaitPane(atThree, U0, window(1), 1);
            awaitPane(atThree, U1, window(1), 1);
            String first = stopWithSavepoint(run);

            // Restore 1: same parallelism (3 > 2 partitions).
            run = new RunningJob(cluster, atThree.job().restoringFrom(first).start());
            lateAndRetryForADroppedWindow(producer, 0, U0, window(0), u0w0a, "r1");
            // Window 1 is still within its grace period: this one counts.
            send(producer, 1, tx("u1-w1-late", U1, window(1).plusSeconds(50), 20, "d8"), true);
            tick(producer, window(2).plusSeconds(40));
            awaitPane(atThree, U1, window(1), 2);
            awaitTooLate(atThree, 2);
            tick(producer, window(3).plusSeconds(30)); // window 1 dropped
            Transaction u0w3a = tx("u0-w3-a", U0, window(3).plusSeconds(35), 400, "d0");
            send(producer, 0, u0w3a, true);
            tick(producer, window(4).plusSeconds(10));
            awaitPane(atThree, U0, window(3), 1);
            String second = stopWithSavepoint(run);

            // Restore 2: rescaled down to one subtask.
            run = new RunningJob(cluster, atOne.job().restoringFrom(second).start());
            lateAndRetryForADroppedWindow(producer, 1, U1, window(1), u1w1a, "r2");
            lateAndRetryForADroppedWindow(producer, 0, U0, window(0), u0w0a, "r2b");
            awaitTooLate(atOne, 6);
            send(producer, 1, tx("u1-w4-a", U1, window(4).plusSeconds(20), 90, "d9"), true);
            tick(producer, window(5).plusSeconds(10)); // window 3 dropped, window 4 fired
            awaitPane(atOne, U1, window(4), 1);
            String third = stopWithSavepoint(run);

            // Restore 3: rescaled up to four subtasks (two of them never get a partition).
            run = new RunningJob(cluster, atFour.job().restoringFrom(third).start());
            try {
                lateAndRetryForADroppedWindow(producer, 0, U0, window(3), u0w3a, "r3");
                awaitTooLate(atFour, 8);
                send(producer, 0, tx("u0-w5-a", U0, window(5).plusSeconds(20), 500, "d0"), true);
                tick(producer, window(6).plusSeconds(10));
                List<FeatureRecord> features = awaitPane(atFour, U0, window(5), 1);

                // No window ever reopened: revisions only go up per key, in the topic's order.
                Panes.assertNoRevisionRegression(features);
                Panes.assertNoPaneTwice(features);
                List<LateRecord> late = atFour.committed(Topic.LATE, LateRecord.class);
                assertThat(late)
                        .filteredOn(l -> l.getReason() == LateReason.TOO_LATE)
                        .extracting(LateRecord::getTransaction)
                        .containsExactlyInAnyOrderElementsOf(tooLate);
                assertThat(late)
                        .filteredOn(l -> l.getReason() == LateReason.FUTURE_DATED)
                        .extracting(l -> l.getTransaction().getTransactionId())
                        .containsExactly("future");
                assertThat(atFour.committed(Topic.DEAD_LETTERS, DeadLetter.class)).hasSize(1);
                // The last pane per (user, window) is what the job had to count.
                assertThat(Panes.finalFeatures(withoutTicks(features)))
                        .isEqualTo(
                                BatchRecomputation.features(
                                        counted, new FeatureWindowSpec(WINDOW, LATENESS)));
            } finally {
                run.cancel();
            }
        }
    }

    @Test
    @DisplayName(
            "#15 exactly-once with the traffic that hurts: a task fails after windows were"
                    + " dropped while a late record, a retry and a late-within-grace record are in"
                    + " flight; final values equal the batch recomputation, dropped windows stay"
                    + " dropped, and the archive holds every received record and every pane once")
    void aTaskFailureWithMessyTrafficKeepsEveryValueExactAndTheArchiveExactlyOnce(
            @InjectMiniCluster MiniCluster cluster) throws Exception {
        JobDeployment deployment =
                JobDeployment.create(
                        KAFKA, "messy-failure", PARTITIONS, checkpoints, Map.of("idleness", "3s"));
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
        List<RecordMetadata> received = new ArrayList<>();
        try (TransactionProducer producer = deployment.producer()) {
            Transaction u0w0a = tx("u0-w0-a", U0, window(0).plusSeconds(60), 100, "d0");
            received.add(sendCounted(producer, 0, u0w0a));
            received.add(
                    sendCounted(
                            producer, 0, tx("u0-w0-b", U0, window(0).plusSeconds(90), 40, "d1")));
            received.add(producer.send(0, u0w0a)); // duplicate
            received.add(
                    sendCounted(
                            producer, 1, tx("u1-w0-a", U1, window(0).plusSeconds(300), 5, "d9")));
            received.add(
                    sendCounted(
                            producer, 1, tx("u1-w0-b", U1, window(0).plusSeconds(100), 7, "d8")));
            received.add(
                    producer.send(
                            1, tx("future", U1, Instant.parse("2099-01-01T00:00:00Z"), 5, "dx")));
            producer.sendRaw(1, "not avro".getBytes(StandardCharsets.UTF_8));
            received.addAll(ticks(producer, window(1).plusSeconds(30)));
            awaitPane(deployment, U0, window(0), 2);
            awaitPane(deployment, U1, window(0), 2);
            received.add(
                    sendCounted(
                            producer, 0, tx("u0-w1-a", U0, window(1).plusSeconds(20), 9, "d0")));
            received.add(
                    sendCounted(
                            producer, 1, tx("u1-w1-a", U1, window(1).plusSeconds(25), 3, "d9")));
            received.addAll(ticks(producer, window(2).plusSeconds(30))); // window 0 dropped
            awaitPane(deployment, U0, window(1), 1);
            awaitPane(deployment, U1, window(1), 1);
            // The restore point: window 0 dropped, window 1 fired and within its grace period.
            job.awaitNewCheckpoint(TIMEOUT);

            failure.arm();
            Transaction late = tx("late", U0, window(0).plusSeconds(200), 999, "d-late");
            received.add(producer.send(0, late));
            received.add(producer.send(0, u0w0a)); // a retry, after its window was dropped
            tooLate.add(late);
            tooLate.add(u0w0a);
            received.add(
                    sendCounted(
                            producer, 1, tx("u1-w1-late", U1, window(1).plusSeconds(9), 2, "d7")));
            received.addAll(ticks(producer, window(2).plusSeconds(40)));
            failure.awaitTripped(TIMEOUT); // the re-fire of u1's window 1 reached the sink
            failure.release();

            received.addAll(ticks(producer, window(3).plusSeconds(30))); // window 1 dropped
            List<FeatureRecord> features = awaitPane(deployment, U1, window(1), 2);
            awaitTooLate(deployment, 2);
            assertThat(job.restarts()).as("task restarts").isGreaterThan(0);

            Panes.assertNoPaneTwice(features);
            Panes.assertNoRevisionRegression(features);
            assertThat(deployment.committed(Topic.LATE, LateRecord.class))
                    .filteredOn(l -> l.getReason() == LateReason.TOO_LATE)
                    .extracting(LateRecord::getTransaction)
                    .containsExactlyInAnyOrderElementsOf(tooLate);
            assertThat(deployment.committed(Topic.DEAD_LETTERS, DeadLetter.class)).hasSize(1);
            assertThat(Panes.finalFeatures(withoutTicks(features)))
                    .isEqualTo(
                            BatchRecomputation.features(
                                    counted, new FeatureWindowSpec(WINDOW, LATENESS)));

            // The archive, exactly once across the failure: every valid record received once,
            // by its Kafka position, and the panes as the Kafka topic holds them.
            Path archive = Path.of(deployment.config().archiveDir().orElseThrow());
            Await.until(
                    received.size() + " received records archived",
                    TIMEOUT,
                    () -> archived(archive).size() >= received.size());
            job.awaitNewCheckpoint(TIMEOUT); // a duplicate would be committed by now
            assertThat(archived(archive))
                    .extracting(a -> a.getSourcePartition() + "@" + a.getSourceOffset())
                    .containsExactlyInAnyOrderElementsOf(
                            received.stream().map(m -> m.partition() + "@" + m.offset()).toList());
            List<FeatureRecord> committed =
                    deployment.committed(Topic.FEATURES, FeatureRecord.class);
            Await.until(
                    "every committed pane archived",
                    TIMEOUT,
                    () ->
                            ArchiveFiles.records(
                                                    archive,
                                                    ArchiveStream.FEATURES,
                                                    FeatureRecord.class)
                                            .size()
                                    >= committed.size());
            job.awaitNewCheckpoint(TIMEOUT);
            assertThat(ArchiveFiles.records(archive, ArchiveStream.FEATURES, FeatureRecord.class))
                    .containsExactlyInAnyOrderElementsOf(committed);
        } finally {
            job.cancel();
        }
    }

    private RecordMetadata sendCounted(TransactionProducer producer, int partition, Transaction tx)
            throws Exception {
        counted.add(tx);
        return producer.send(partition, tx);
    }

    private static List<RecordMetadata> ticks(TransactionProducer producer, Instant at)
            throws Exception {
        List<RecordMetadata> sent = new ArrayList<>();
        for (int p = 0; p < PARTITIONS; p++) {
            sent.add(
                    producer.send(
                            p, tx("tick-" + p + "-" + at.toEpochMilli(), "tick-" + p, at, 1, "t")));
        }
        return sent;
    }

    private static List<ArchivedTransaction> archived(Path archive) {
        return ArchiveFiles.records(archive, ArchiveStream.TRANSACTIONS, ArchivedTransaction.class);
    }

    private static List<FeatureRecord> withoutTicks(List<FeatureRecord> features) {
        return features.stream().filter(f -> !f.getUserId().startsWith("tick-")).toList();
    }
}
