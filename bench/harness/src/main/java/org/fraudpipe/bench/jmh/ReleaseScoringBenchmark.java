package org.fraudpipe.bench.jmh;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.TimeUnit;
import org.fraudpipe.job.scoring.OnnxPaneScorer;
import org.fraudpipe.job.scoring.PaneScorer;
import org.fraudpipe.job.scoring.ScorerContext;
import org.fraudpipe.job.scoring.release.FixedRegistry;
import org.fraudpipe.job.scoring.release.ModelReleases;
import org.fraudpipe.job.transaction.ArrivalFeatures;
import org.fraudpipe.job.transaction.OnnxTransactionScorer;
import org.fraudpipe.job.transaction.TransactionScorer;
import org.fraudpipe.schemas.avro.AssignmentAction;
import org.fraudpipe.schemas.avro.FeatureRecord;
import org.fraudpipe.schemas.avro.ModelEvent;
import org.fraudpipe.schemas.avro.ModelKind;
import org.fraudpipe.schemas.avro.ScoreRecord;
import org.fraudpipe.schemas.avro.Timing;
import org.fraudpipe.schemas.avro.TransactionFeatures;
import org.fraudpipe.schemas.avro.TransactionScore;
import org.fraudpipe.scoring.DecisionThresholds;
import org.fraudpipe.scoring.OnnxScorer;
import org.fraudpipe.scoring.release.ModelRegistry;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;

/**
 * The job's scorers (issue #30) as the scoring operator calls them, per batch: panes (batch 512, a
 * window-close burst) and transactions (batch 1, the decision path scores alone when idle), with
 * the registry as each case has it: {@code none} (the start-up model, no registry), {@code
 * champion} (a release promoted: every row looked up by its coordinate, then one model call) and
 * {@code challenger} (a challenger shadowing that champion: two model calls and the challenger
 * field). The releases are the shipped models (the champion the default, the challenger the shipped
 * challenger), so the model calls cost what they cost in the demo.
 */
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
@State(Scope.Thread)
public class ReleaseScoringBenchmark {

    private static final Instant T0 = Instant.parse("2026-12-07T00:00:00Z");
    private static final Duration LEAD = Duration.ofSeconds(30);

    @Param({"none", "champion", "challenger"})
    public String registry;

    private PaneScorer panes;
    private TransactionScorer transactions;
    private List<FeatureRecord> paneBatch;
    private List<ArrivalFeatures> transactionBatch;

    @Setup(Level.Trial)
    public void setUp() throws Exception {
        ModelReleases releases = releases(registry);
        DecisionThresholds thresholds = DecisionThresholds.DEFAULT;
        panes =
                OnnxPaneScorer.Factory.of(null, thresholds)
                        .withReleases(releases)
                        .create(ScorerContext.unregistered("bench"));
        transactions =
                OnnxTransactionScorer.Factory.of(null, thresholds)
                        .withReleases(releases)
                        .create(ScorerContext.unregistered("bench"));
        SplittableRandom rng = new SplittableRandom(30);
        Instant after = T0.plus(Duration.ofHours(1));
        paneBatch = new ArrayList<>();
        for (int i = 0; i < 512; i++) {
            paneBatch.add(pane(rng, after.plusSeconds(600L * (i % 6))));
        }
        transactionBatch = List.of(arrival(rng, after));
    }

    @TearDown(Level.Trial)
    public void tearDown() {
        panes.close();
        transactions.close();
    }

    /** A window-close burst's batch of 512 panes. */
    @Benchmark
    public List<ScoreRecord> panes512() {
        return panes.score(paneBatch, 0L);
    }

    /** One transaction, alone, as the decision path scores it when idle. */
    @Benchmark
    public List<TransactionScore> transaction1() {
        return transactions.score(transactionBatch, 0L);
    }

    /**
     * The registry of {@code which}: the shipped default models published as releases and promoted,
     * and for {@code challenger} the shipped challengers published and shadowing.
     */
    static ModelReleases releases(String which) throws Exception {
        if (which.equals("none")) {
            return ModelReleases.startupOnly();
        }
        ModelRegistry registry = new ModelRegistry();
        List<FixedRegistry.Entry> entries = new ArrayList<>();
        for (ModelKind kind : ModelKind.values()) {
            String dir = kind == ModelKind.WINDOW ? "models/default/" : "models/transaction/";
            String name = kind == ModelKind.WINDOW ? "fraud-window" : "fraud-transaction";
            append(
                    registry,
                    entries,
                    registry.release(
                            kind,
                            name,
                            "champion",
                            OnnxScorer.resourceBytes(dir + "fraud-model.onnx"),
                            null,
                            5,
                            T0,
                            "bench"),
                    T0);
            append(
                    registry,
                    entries,
                    registry.assign(
                            kind, AssignmentAction.PROMOTE, "champion", T0, LEAD, "", "bench"),
                    T0);
            if (which.equals("challenger")) {
                String challenger =
                        kind == ModelKind.WINDOW
                                ? "models/challenger/window/"
                                : "models/challenger/transaction/";
                append(
                        registry,
                        entries,
                        registry.release(
                                kind,
                                name,
                                "challenger",
                                OnnxScorer.resourceBytes(challenger + "fraud-model.onnx"),
                                null,
                                5,
                                T0,
                                "bench"),
                        T0);
                append(
                        registry,
                        entries,
                        registry.assign(
                                kind, AssignmentAction.SHADOW, "challenger", T0, LEAD, "", "bench"),
                        T0);
            }
        }
        return ModelReleases.Fixed.of(entries);
    }

    private static void append(
            ModelRegistry registry, List<FixedRegistry.Entry> entries, ModelEvent e, Instant at) {
        if (!(registry.apply(e, at.toEpochMilli()) instanceof ModelRegistry.Applied)) {
            throw new IllegalStateException("the benchmark's registry event was ignored: " + e);
        }
        entries.add(new FixedRegistry.Entry(e, at.toEpochMilli()));
    }

    private static FeatureRecord pane(SplittableRandom rng, Instant start) {
        int n = 1 + rng.nextInt(12);
        return FeatureRecord.newBuilder()
                .setUserId("u-" + rng.nextInt(100_000))
                .setWindowStart(start)
                .setWindowEnd(start.plusSeconds(600))
                .setTxCount(n)
                .setAmountSum(n * (500L + rng.nextInt(20_000)))
                .setAmountMax(500L + rng.nextInt(20_000))
                .setDistinctDevices(1 + rng.nextInt(Math.min(n, 3)))
                .setDistinctMerchants(1 + rng.nextInt(n))
                .setDistinctCountries(1)
                .setRevision(0)
                .setTiming(Timing.ON_TIME)
                .setLateRecordsIncluded(0)
                .setEmittedAt(start.plusSeconds(605))
                .setWatermark(start.plusSeconds(605))
                .build();
    }

    private static ArrivalFeatures arrival(SplittableRandom rng, Instant at) {
        ArrivalFeatures a = new ArrivalFeatures();
        a.features =
                TransactionFeatures.newBuilder()
                        .setTransactionId("t-" + rng.nextInt(1_000_000))
                        .setUserId("u-1")
                        .setEventTime(at)
                        .setTrailingWindowMillis(600_000)
                        .setTxCount(3)
                        .setAmountSum(4_200)
                        .setAmountMax(2_500)
                        .setDistinctDevices(2)
                        .setDistinctMerchants(2)
                        .setDistinctCountries(1)
                        .setAmountMinor(2_500)
                        .setNewDevice(true)
                        .setNewMerchant(false)
                        .setNewCountry(false)
                        .setHistoryComplete(true)
                        .build();
        a.recordTimestamp = at.toEpochMilli();
        a.arrivalRecordTimestamp = at.toEpochMilli();
        a.receivedAt = at.toEpochMilli();
        a.coordinate = at.toEpochMilli();
        return a;
    }
}
