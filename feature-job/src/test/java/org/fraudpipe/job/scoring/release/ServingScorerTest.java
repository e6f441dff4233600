package org.fraudpipe.job.scoring.release;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.apache.flink.metrics.Counter;
import org.apache.flink.metrics.MetricGroup;
import org.apache.flink.metrics.SimpleCounter;
import org.apache.flink.metrics.groups.UnregisteredMetricsGroup;
import org.fraudpipe.job.testing.TrainedReleases;
import org.fraudpipe.schemas.avro.AssignmentAction;
import org.fraudpipe.schemas.avro.FeatureRecord;
import org.fraudpipe.schemas.avro.ModelKind;
import org.fraudpipe.schemas.avro.Timing;
import org.fraudpipe.scoring.FeatureLayout;
import org.fraudpipe.scoring.ModelMetadata;
import org.fraudpipe.scoring.OnnxScorer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The release that scores a pane is the champion at its coordinate, whatever the batch: rows of one
 * batch on both sides of a switch are scored by each side's model, with exactly the scores those
 * models give alone; a challenger scores beside the champion; a refused release never serves; a
 * registry that cannot be read stops the task, naming it.
 */
class ServingScorerTest {

    private static final Instant T0 = Instant.parse("2026-12-07T10:00:00Z");
    private static final Duration LEAD = Duration.ofSeconds(30);
    private static final Instant SWITCH = T0.plusSeconds(1).plus(LEAD);

    /** Counters by name, whatever group they were registered in. */
    private final java.util.Map<String, SimpleCounter> counters = new java.util.HashMap<>();

    private final List<AutoCloseable> open = new ArrayList<>();

    @AfterEach
    void closeAll() throws Exception {
        for (AutoCloseable c : open) {
            c.close();
        }
    }

    private MetricGroup metrics() {
        return new UnregisteredMetricsGroup() {
            @Override
            public Counter counter(String name) {
                return counters.computeIfAbsent(name, n -> new SimpleCounter());
            }

            @Override
            public MetricGroup addGroup(String key, String value) {
                return this;
            }
        };
    }

    private static OnnxScorer<FeatureRecord> load(byte[] onnx) throws Exception {
        return OnnxScorer.fromBytes(onnx, "test", FeatureLayout.V1);
    }

    private ServingScorer<FeatureRecord> scorer(RegistryFeed feed) throws Exception {
        ServingScorer<FeatureRecord> s =
                new ServingScorer<>(
                        ModelKind.WINDOW,
                        OnnxScorer.loadDefault(),
                        feed,
                        Duration.ofMillis(200),
                        metrics(),
                        "scoring (1/1)");
        open.add(s);
        return s;
    }

    private static FeatureRecord pane(Instant start, int txCount) {
        return FeatureRecord.newBuilder()
                .setUserId("u-" + txCount)
                .setWindowStart(start)
                .setWindowEnd(start.plusSeconds(600))
                .setTxCount(txCount)
                .setAmountSum(1500L * txCount)
                .setAmountMax(900)
                .setDistinctDevices(Math.min(txCount, 3))
                .setDistinctMerchants(Math.min(txCount, 2))
                .setDistinctCountries(1)
                .setRevision(0)
                .setTiming(Timing.ON_TIME)
                .setLateRecordsIncluded(0)
                .setEmittedAt(start.plusSeconds(605))
                .setWatermark(start.plusSeconds(605))
                .build();
    }

    private static long[] coordinates(List<FeatureRecord> panes) {
        return panes.stream().mapToLong(p -> p.getWindowStart().toEpochMilli()).toArray();
    }

    @Test
    void withoutARegistryTheStartUpModelScoresEverything() throws Exception {
        ServingScorer<FeatureRecord> s = scorer(null);
        List<FeatureRecord> panes = List.of(pane(T0, 3), pane(SWITCH.plusSeconds(600), 9));

        ServingScorer.Scored scored = s.score(panes, coordinates(panes));

        try (OnnxScorer<FeatureRecord> shipped = OnnxScorer.loadDefault()) {
            assertThat(scored.scores).containsExactly(shipped.score(panes));
            assertThat(scored.models).allMatch(m -> m.equals(shipped.metadata()));
        }
        assertThat(scored.challengers).containsOnlyNulls();
    }

    @Test
    void aBatchAcrossTheSwitchIsScoredByEachSidesModelWithTheScoresEachGivesAlone()
            throws Exception {
        byte[] v2 = TrainedReleases.windowModel("v2");
        TrainedReleases.History history =
                new TrainedReleases.History()
                        .publish(ModelKind.WINDOW, "v2", v2, T0)
                        .assign(
                                ModelKind.WINDOW,
                                AssignmentAction.PROMOTE,
                                "v2",
                                T0.plusSeconds(1),
                                LEAD);
        ServingScorer<FeatureRecord> s = scorer(new FixedRegistry(history.entries()));
        // Interleaved on purpose: coordinates before and after the switch, out of order.
        List<FeatureRecord> panes =
                List.of(
                        pane(SWITCH.plusSeconds(600), 4),
                        pane(SWITCH.minusMillis(1), 4),
                        pane(SWITCH, 7),
                        pane(T0.minusSeconds(600), 1));

        ServingScorer.Scored scored = s.score(panes, coordinates(panes));

        try (OnnxScorer<FeatureRecord> shipped = OnnxScorer.loadDefault();
                OnnxScorer<FeatureRecord> released = load(v2)) {
            ModelMetadata before = shipped.metadata();
            ModelMetadata after = released.metadata();
            assertThat(after.version()).isEqualTo("v2");
            assertThat(scored.models).containsExactly(after, before, after, before);
            assertThat(scored.scores[0]).isEqualTo(released.score(panes.get(0)));
            assertThat(scored.scores[1]).isEqualTo(shipped.score(panes.get(1)));
            assertThat(scored.scores[2]).isEqualTo(released.score(panes.get(2)));
            assertThat(scored.scores[3]).isEqualTo(shipped.score(panes.get(3)));
            assertThat(scored.scores[0])
                    .as("the two models differ on this pane, or the test proves nothing")
                    .isNotEqualTo(shipped.score(panes.get(0)));
        }
        assertThat(counters.get(ServingScorer.SWITCHES).getCount())
                .as("the newest coordinate's champion changed once, from none to v2: no switch")
                .isZero();
        s.score(
                List.of(pane(SWITCH.plusSeconds(1200), 2)),
                new long[] {SWITCH.plusSeconds(1200).toEpochMilli()});
        assertThat(counters.get(ServingScorer.SWITCHES).getCount()).isZero();
    }

    @Test
    void aSwitchIsCountedWhenTheNewestCoordinatesChampionChanges() throws Exception {
        TrainedReleases.History history =
                new TrainedReleases.History()
                        .publish(ModelKind.WINDOW, "v2", TrainedReleases.windowModel("v2"), T0)
                        .assign(
                                ModelKind.WINDOW,
                                AssignmentAction.PROMOTE,
                                "v2",
                                T0.plusSeconds(1),
                                LEAD);
        ServingScorer<FeatureRecord> s = scorer(new FixedRegistry(history.entries()));

        for (Instant start : List.of(T0, SWITCH.minusSeconds(1), T0.minusSeconds(600), SWITCH)) {
            s.score(List.of(pane(start, 3)), new long[] {start.toEpochMilli()});
        }

        assertThat(counters.get(ServingScorer.SWITCHES).getCount()).isEqualTo(1);
    }

    @Test
    void aChallengerScoresBesideTheChampionFromItsCoordinateOn() throws Exception {
        byte[] v3 = TrainedReleases.windowModel("v3");
        Instant shadowFrom = T0.plusSeconds(2).plus(LEAD);
        TrainedReleases.History history =
                new TrainedReleases.History()
                        .publish(ModelKind.WINDOW, "v3", v3, T0)
                        .assign(
                                ModelKind.WINDOW,
                                AssignmentAction.SHADOW,
                                "v3",
                                T0.plusSeconds(2),
                                LEAD);
        ServingScorer<FeatureRecord> s = scorer(new FixedRegistry(history.entries()));
        List<FeatureRecord> panes =
                List.of(pane(shadowFrom.minusMillis(1), 5), pane(shadowFrom, 5));

        ServingScorer.Scored scored = s.score(panes, coordinates(panes));

        try (OnnxScorer<FeatureRecord> shipped = OnnxScorer.loadDefault();
                OnnxScorer<FeatureRecord> challenger = load(v3)) {
            assertThat(scored.models).allMatch(m -> m.equals(shipped.metadata()));
            assertThat(scored.challengers[0]).isNull();
            assertThat(scored.challengerScores[0]).isNaN();
            assertThat(scored.challengers[1]).isEqualTo(challenger.metadata());
            assertThat(scored.challengerScores[1]).isEqualTo(challenger.score(panes.get(1)));
            assertThat(scored.scores[1]).isEqualTo(shipped.score(panes.get(1)));
        }
    }

    @Test
    void aCorruptReleaseAndOneOfAnotherLayoutAreRefusedAndTheReleaseBeforeKeepsServing()
            throws Exception {
        byte[] v2 = TrainedReleases.windowModel("v2");
        byte[] corrupt = Arrays.copyOf(v2, v2.length / 2);
        byte[] otherLayout = TrainedReleases.transactionModel("t9");
        TrainedReleases.History history =
                new TrainedReleases.History()
                        .publish(ModelKind.WINDOW, "v2", v2, T0)
                        .publish(ModelKind.WINDOW, "v3-corrupt", corrupt, T0)
                        .publish(ModelKind.WINDOW, "v4-misfit", otherLayout, T0)
                        .assign(ModelKind.WINDOW, AssignmentAction.PROMOTE, "v2", T0, LEAD)
                        .assign(
                                ModelKind.WINDOW,
                                AssignmentAction.PROMOTE,
                                "v3-corrupt",
                                T0.plusSeconds(60),
                                LEAD)
                        .assign(
                                ModelKind.WINDOW,
                                AssignmentAction.PROMOTE,
                                "v4-misfit",
                                T0.plusSeconds(120),
                                LEAD);
        ServingScorer<FeatureRecord> s = scorer(new FixedRegistry(history.entries()));
        Instant late = T0.plusSeconds(3600);

        ServingScorer.Scored scored =
                s.score(List.of(pane(late, 6)), new long[] {late.toEpochMilli()});

        assertThat(scored.models[0].version()).isEqualTo("v2");
        assertThat(counters.get(ServingScorer.REFUSED).getCount()).isEqualTo(2);
    }

    @Test
    void aRegistryThatIsNotReadThroughARecordsCoordinateStopsTheTaskNamingIt() throws Exception {
        RegistryFeed behind =
                new RegistryFeed() {
                    private final RegistryView view =
                            new RegistryView(
                                    new org.fraudpipe.scoring.release.ModelRegistry(),
                                    T0.toEpochMilli(),
                                    0);

                    @Override
                    public RegistryView current() {
                        return view;
                    }

                    @Override
                    public RegistryView awaitCovering(long coordinate, Duration timeout) {
                        if (coordinate <= view.completeThrough()) {
                            return view;
                        }
                        throw new IllegalStateException(
                                "the model registry topic model-releases has not been read through "
                                        + Instant.ofEpochMilli(coordinate));
                    }

                    @Override
                    public void close() {}
                };
        ServingScorer<FeatureRecord> s = scorer(behind);
        Instant after = T0.plusSeconds(1);

        assertThat(s.score(List.of(pane(T0, 1)), new long[] {T0.toEpochMilli()}).models[0])
                .isNotNull();
        assertThatThrownBy(
                        () -> s.score(List.of(pane(after, 1)), new long[] {after.toEpochMilli()}))
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("model-releases");
        assertThat(counters.get(ServingScorer.REGISTRY_WAITS).getCount()).isEqualTo(1);
    }
}
