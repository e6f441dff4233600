package org.fraudpipe.job.reliability;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.net.URISyntaxException;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.stream.Collectors;
import org.apache.flink.runtime.minicluster.MiniCluster;
import org.apache.flink.runtime.testutils.MiniClusterResourceConfiguration;
import org.apache.flink.test.junit5.InjectMiniCluster;
import org.apache.flink.test.junit5.MiniClusterExtension;
import org.fraudpipe.job.savepoint.SavepointGuard;
import org.fraudpipe.job.testing.BatchRecomputation;
import org.fraudpipe.job.testing.Cli;
import org.fraudpipe.job.testing.JobDeployment;
import org.fraudpipe.job.testing.Panes;
import org.fraudpipe.job.testing.RunningJob;
import org.fraudpipe.job.testing.TransactionProducer;
import org.fraudpipe.job.testing.TransactionProducer.PartitionedTransaction;
import org.fraudpipe.job.window.FeatureWindowSpec;
import org.fraudpipe.local.KafkaTestBroker;
import org.fraudpipe.schemas.Topic;
import org.fraudpipe.schemas.avro.DeadLetter;
import org.fraudpipe.schemas.avro.FeatureRecord;
import org.fraudpipe.schemas.avro.LateRecord;
import org.fraudpipe.schemas.avro.ScoreRecord;
import org.fraudpipe.schemas.avro.Timing;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.EnabledIfSystemProperty;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * Issue #7, items 2, 3 and 11: what survives a stop with savepoint, a rescale and an upgrade, on
 * the production job (parallelism 2, checkpoints every 300 ms, RocksDB, canonical savepoints)
 * against a real broker. The final results are always compared with the batch recomputation of the
 * complete input ({@link BatchRecomputation}).
 *
 * <p>Input: {@link KnownCountTraffic} (event time growing per partition, idleness longer than the
 * test), so that the only way to get a result wrong is to lose or double state or input across a
 * stop.
 *
 * <p>{@link #regenerateUpgradeSavepoint} rewrites the committed savepoint of {@link UpgradeFixture}
 * with the current build; it runs only when asked (see the fixture's README).
 */
class SavepointReliabilityIT {

    private static final int PARTITIONS = 3;
    private static final Instant START = Instant.parse("2025-01-06T00:00:00Z");
    private static final Duration WINDOW = Duration.ofMinutes(10);
    private static final Duration TIMEOUT = Duration.ofMinutes(3);
    private static final Map<String, String> NEVER_IDLE = Map.of("idleness", "30m");

    /** The system property naming where {@link #regenerateUpgradeSavepoint} writes. */
    static final String REGENERATE_PROPERTY = "fraud.savepoint.fixture.out";

    @RegisterExtension static final KafkaTestBroker KAFKA = new KafkaTestBroker(PARTITIONS);

    /** Two slots for the streaming job, two for the batch recomputation running next to it. */
    @RegisterExtension
    static final MiniClusterExtension FLINK =
            new MiniClusterExtension(
                    new MiniClusterResourceConfiguration.Builder()
                            .setNumberTaskManagers(1)
                            .setNumberSlotsPerTaskManager(4)
                            .build());

    @TempDir Path checkpoints;
    @TempDir Path savepoints;

    private static KnownCountTraffic traffic() {
        return new KnownCountTraffic(6, 4, 3, START, WINDOW, PARTITIONS);
    }

    private static List<PartitionedTransaction> closingTicks(KnownCountTraffic traffic) {
        return traffic.closingTicks(traffic.end().plus(Duration.ofMinutes(1)));
    }

    private static Map<Panes.Key, Panes.Features> batch(
            List<org.fraudpipe.schemas.avro.Transaction> all) throws Exception {
        return BatchRecomputation.features(
                all, new FeatureWindowSpec(WINDOW, Duration.ofMinutes(2)));
    }

    /** Stops the job with a canonical savepoint (no drain: windows stay open) and returns it. */
    private String stopWithSavepoint(RunningJob job) throws Exception {
        return job.stopWithSavepoint(savepoints, TIMEOUT);
    }

    /**
     * Each pane once, features and scores; nothing late or dead-lettered. With {@code
     * fromRevisionZero}, every window's panes are in the topic (the first one included).
     */
    private static List<FeatureRecord> assertEachPaneOnce(
            JobDeployment deployment, int expectedPanes, boolean fromRevisionZero) {
        List<FeatureRecord> features =
                deployment.awaitCommitted(
                        Topic.FEATURES, FeatureRecord.class, expectedPanes, TIMEOUT);
        if (fromRevisionZero) {
            Panes.assertEachPaneOnce(features);
        } else {
            Panes.assertNoPaneTwice(features);
        }
        assertThat(features).hasSize(expectedPanes);
        List<ScoreRecord> scores =
                deployment.awaitCommitted(Topic.SCORES, ScoreRecord.class, expectedPanes, TIMEOUT);
        assertThat(Panes.scoredPanes(scores)).containsExactlyInAnyOrderElementsOf(features);
        assertThat(deployment.committed(Topic.LATE, LateRecord.class)).isEmpty();
        assertThat(deployment.committed(Topic.DEAD_LETTERS, DeadLetter.class)).isEmpty();
        return features;
    }

    @Test
    @DisplayName(
            "#7.2 stop with savepoint, input produced while down, restart from the savepoint:"
                    + " final results equal the batch recomputation")
    void stopWithSavepointThenRestoreEqualsTheBatchRecomputation(
            @InjectMiniCluster MiniCluster cluster) throws Exception {
        KnownCountTraffic traffic = traffic();
        Instant cut = traffic.windowStart(2).plus(Duration.ofMinutes(5));
        JobDeployment deployment =
                JobDeployment.create(KAFKA, "sp-stop", PARTITIONS, checkpoints, NEVER_IDLE);
        try (TransactionProducer producer = deployment.producer()) {
            RunningJob first = new RunningJob(cluster, deployment.start());
            producer.sendAll(traffic.before(cut));
            deployment.awaitCommitted(Topic.FEATURES, FeatureRecord.class, 12, TIMEOUT);
            String savepoint = stopWithSavepoint(first);

            // While the job is down: the rest of the input.
            producer.sendAll(traffic.from(cut));
            producer.sendAll(closingTicks(traffic));

            RunningJob second =
                    new RunningJob(cluster, deployment.job().restoringFrom(savepoint).start());
            try {
                List<FeatureRecord> features =
                        assertEachPaneOnce(deployment, traffic.windowResults(), true);
                assertThat(Panes.finalFeatures(features))
                        .isEqualTo(batch(KnownCountTraffic.transactions(traffic.all())));
            } finally {
                second.cancel();
            }
        }
    }

    @Test
    @DisplayName(
            "#7.3 rescale: savepoint at parallelism 2, restore at 1, savepoint, restore at 2:"
                    + " results identical to the batch recomputation")
    void rescaleTwoToOneToTwoGivesIdenticalResults(@InjectMiniCluster MiniCluster cluster)
            throws Exception {
        KnownCountTraffic traffic = traffic();
        Instant cut1 = traffic.windowStart(1).plus(Duration.ofMinutes(5));
        Instant cut2 = traffic.windowStart(2).plus(Duration.ofMinutes(5));
        JobDeployment atTwo =
                JobDeployment.create(KAFKA, "sp-rescale", PARTITIONS, checkpoints, NEVER_IDLE);
        JobDeployment atOne = atTwo.with("parallelism", "1");
        List<PartitionedTransaction> all = traffic.all();
        try (TransactionProducer producer = atTwo.producer()) {
            RunningJob two = new RunningJob(cluster, atTwo.start());
            producer.sendAll(traffic.before(cut1));
            atTwo.awaitCommitted(Topic.FEATURES, FeatureRecord.class, 6, TIMEOUT);
            String savepointAtTwo = stopWithSavepoint(two);

            RunningJob one =
                    new RunningJob(cluster, atOne.job().restoringFrom(savepointAtTwo).start());
            producer.sendAll(
                    all.stream()
                            .filter(
                                    r ->
                                            !r.transaction().getEventTime().isBefore(cut1)
                                                    && r.transaction()
                                                            .getEventTime()
                                                            .isBefore(cut2))
                            .toList());
            atOne.awaitCommitted(Topic.FEATURES, FeatureRecord.class, 12, TIMEOUT);
            String savepointAtOne = stopWithSavepoint(one);

            RunningJob twoAgain =
                    new RunningJob(cluster, atTwo.job().restoringFrom(savepointAtOne).start());
            try {
                producer.sendAll(traffic.from(cut2));
                producer.sendAll(closingTicks(traffic));
                List<FeatureRecord> features =
                        assertEachPaneOnce(atTwo, traffic.windowResults(), true);
                assertThat(features)
                        .allSatisfy(f -> assertThat(f.getTxCount()).isEqualTo(traffic.perWindow()));
                assertThat(Panes.finalFeatures(features))
                        .isEqualTo(batch(KnownCountTraffic.transactions(all)));
            } finally {
                twoAgain.cancel();
            }
        }
    }

    @Test
    @DisplayName(
            "#7.2 upgrade safety, #7.11 state schema evolution and #8's window state: the committed"
                    + " savepoint of the first release is refused as it is, migrated by ./fraud"
                    + " savepoint migrate (window operator state and old accumulator format), and"
                    + " the migrated savepoint restores and finishes every window exactly")
    void theCommittedSavepointOfTheFirstReleaseMigratesAndRestores(
            @InjectMiniCluster MiniCluster cluster) throws Exception {
        JobDeployment deployment = UpgradeFixture.deployment(KAFKA, checkpoints, UpgradeFixture.V1);
        Path original = savepoints.resolve(UpgradeFixture.V1);
        UpgradeFixture.copySavepoint(fixtureDirectory(UpgradeFixture.V1), original);
        String originalUri = original.toUri().toString();
        Path migrated = savepoints.resolve("upgrade-v1-migrated");

        // As it is, the savepoint is refused before anything starts, naming the fix.
        assertThatThrownBy(() -> deployment.job().restoringFrom(originalUri).start())
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("first release's window state")
                .hasMessageContaining("./fraud savepoint migrate --from " + originalUri);

        // A migration with another lateness than the job's stops, saying so, and writes nothing.
        Cli.Run wrongLateness = migrate(originalUri, migrated, "5m");
        assertThat(wrongLateness.exitCode()).isEqualTo(1);
        assertThat(wrongLateness.err())
                .contains("has no cleanup timer PT5M after its end")
                .contains("pass the --allowed-lateness the job ran with");
        assertThat(migrated).doesNotExist();

        Cli.Run migration = migrate(originalUri, migrated, "2m");
        // Windows 1 (fired, within lateness) and 2 (open) of the 4 users; window 0 was dropped.
        assertThat(migration.exitCode()).as(migration.err()).isZero();
        assertThat(migration.out()).contains("Migrated 8 windows");
        assertThat(SavepointGuard.needsMigration(migrated.toString())).isFalse();
        assertThat(SavepointGuard.needsMigration(originalUri))
                .as("the input is left as it was")
                .isTrue();

        restoreAndFinishEveryWindow(cluster, deployment, migrated.toUri().toString());
    }

    @Test
    @DisplayName(
            "#8 upgrade safety of the current window state: the committed savepoint of the build"
                    + " that introduced it restores as it is and the job finishes every window"
                    + " exactly")
    void theCommittedSavepointOfTheCurrentWindowStateRestoresAsItIs(
            @InjectMiniCluster MiniCluster cluster) throws Exception {
        restoreTheCommittedSavepointAsItIs(cluster, UpgradeFixture.V2);
    }

    @Test
    @DisplayName(
            "#33 window state format 3: the committed savepoint whose windows fired on time without"
                    + " their panes being written back restores as it is, and their late records"
                    + " re-fire them as revision 1")
    void theCommittedSavepointOfStateFormatThreeRestoresAsItIs(
            @InjectMiniCluster MiniCluster cluster) throws Exception {
        restoreTheCommittedSavepointAsItIs(cluster, UpgradeFixture.V3);
    }

    /**
     * The committed savepoint {@code run} of the current window operator: no migration needed, it
     * restores as it is and the job finishes every window exactly.
     */
    private void restoreTheCommittedSavepointAsItIs(MiniCluster cluster, String run)
            throws Exception {
        JobDeployment deployment = UpgradeFixture.deployment(KAFKA, checkpoints, run);
        Path savepoint = savepoints.resolve(run);
        UpgradeFixture.copySavepoint(fixtureDirectory(run), savepoint);
        assertThat(SavepointGuard.needsMigration(savepoint.toString())).isFalse();

        restoreAndFinishEveryWindow(cluster, deployment, savepoint.toUri().toString());
    }

    /** {@code ./fraud savepoint migrate} of the fixture's window size, with {@code lateness}. */
    private static Cli.Run migrate(String from, Path to, String lateness) {
        return Cli.fraud(
                "savepoint",
                "migrate",
                "--from",
                from,
                "--to",
                to.toString(),
                "--allowed-lateness",
                lateness);
    }

    /**
     * Produces the fixture's phase A at the same offsets, restores the job from {@code savepoint},
     * produces phase B, and checks every pane after the restore: u01's window 1 re-fires as
     * revision 1 with 6 transactions, windows 2 and 3 fire on time with all 5, and every final
     * value equals the batch recomputation.
     */
    private void restoreAndFinishEveryWindow(
            MiniCluster cluster, JobDeployment deployment, String savepoint) throws Exception {
        try (TransactionProducer producer = deployment.producer()) {
            // The input the savepoint was taken over, at the same offsets; then what came after.
            producer.sendAll(UpgradeFixture.phaseA());
            RunningJob job =
                    new RunningJob(cluster, deployment.job().restoringFrom(savepoint).start());
            try {
                producer.sendAll(UpgradeFixture.phaseB());
                // After the restore (this broker never saw the panes before it): u01's window 1
                // re-fires (revision 1), windows 2 and 3 fire.
                List<FeatureRecord> features = assertEachPaneOnce(deployment, 1 + 4 + 4, false);
                Map<Panes.Key, FeatureRecord> last = Panes.finalPerKey(features);

                FeatureRecord refire =
                        last.get(new Panes.Key("u01", UpgradeFixture.TRAFFIC.windowStart(1)));
                assertThat(refire).as("u01's window 1 re-fired after the restore").isNotNull();
                // Revision 1 and 6 transactions: pane progress and accumulators were restored.
                assertThat(refire.getRevision()).isEqualTo(1);
                assertThat(refire.getTiming()).isEqualTo(Timing.LATE);
                assertThat(refire.getLateRecordsIncluded()).isEqualTo(1);
                assertThat(refire.getTxCount()).isEqualTo(6);
                // Window 2 had one transaction per user in the savepoint: all 5 are counted, in
                // its on-time pane (the restored timer fired it).
                assertThat(features)
                        .filteredOn(
                                f ->
                                        f.getWindowStart()
                                                .equals(UpgradeFixture.TRAFFIC.windowStart(2)))
                        .hasSize(4)
                        .allSatisfy(
                                f -> {
                                    assertThat(f.getTxCount()).isEqualTo(5);
                                    assertThat(f.getTiming()).isEqualTo(Timing.ON_TIME);
                                    assertThat(f.getRevision()).isZero();
                                });

                Map<Panes.Key, Panes.Features> ideal = batch(UpgradeFixture.allTransactions());
                Map<Panes.Key, Panes.Features> streamed = Panes.finalFeatures(features);
                assertThat(streamed).isEqualTo(restrict(ideal, streamed.keySet()));
            } finally {
                job.cancel();
            }
        }
    }

    private static Map<Panes.Key, Panes.Features> restrict(
            Map<Panes.Key, Panes.Features> map, Set<Panes.Key> keys) {
        return map.entrySet().stream()
                .filter(e -> keys.contains(e.getKey()))
                .collect(
                        Collectors.toMap(
                                Map.Entry::getKey, Map.Entry::getValue, (a, b) -> a, TreeMap::new));
    }

    private static Path fixtureDirectory(String run) throws URISyntaxException {
        return Path.of(
                SavepointReliabilityIT.class.getResource(UpgradeFixture.resource(run)).toURI());
    }

    /**
     * Not a test: writes a savepoint of {@link UpgradeFixture} with the current build into the
     * directory named by {@value #REGENERATE_PROPERTY}, for the deployment named like that
     * directory ({@code .../upgrade-v3} runs deployment {@code upgrade-v3}). Only for a deliberate
     * new fixture (README in the fixtures' directory): a committed one must stay its build's.
     */
    @Test
    @EnabledIfSystemProperty(named = REGENERATE_PROPERTY, matches = ".+")
    void regenerateUpgradeSavepoint(@InjectMiniCluster MiniCluster cluster) throws Exception {
        Path out = Path.of(System.getProperty(REGENERATE_PROPERTY));
        JobDeployment deployment =
                UpgradeFixture.deployment(KAFKA, checkpoints, out.getFileName().toString());
        try (TransactionProducer producer = deployment.producer()) {
            RunningJob job = new RunningJob(cluster, deployment.start());
            producer.sendAll(UpgradeFixture.phaseA());
            // Windows 0 and 1 of the 4 users committed: all of phase A was read.
            deployment.awaitCommitted(Topic.FEATURES, FeatureRecord.class, 8, TIMEOUT);
            // A checkpoint with nothing new to commit, so the savepoint holds no Kafka
            // transaction of this broker (a restoring test has a fresh broker).
            job.awaitNewCheckpoint(TIMEOUT);
            String savepoint = stopWithSavepoint(job);
            UpgradeFixture.copySavepoint(Path.of(java.net.URI.create(savepoint)), out);
        }
    }
}
