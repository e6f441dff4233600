package org.fraudpipe.tools.export;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.NavigableSet;
import java.util.TreeSet;
import org.fraudpipe.job.features.FeatureAggregator;
import org.fraudpipe.job.features.FeatureValues;
import org.fraudpipe.job.testing.LatenessFixture;
import org.fraudpipe.schemas.avro.FeatureRecord;
import org.fraudpipe.schemas.avro.Timing;
import org.fraudpipe.schemas.avro.Transaction;
import org.fraudpipe.schemas.json.ReplayFormatException;
import org.fraudpipe.schemas.json.TransactionJson;
import org.fraudpipe.scoring.data.LabelledFeaturesJson;
import org.fraudpipe.scoring.data.LabelledWindow;
import org.fraudpipe.sim.Label;
import org.fraudpipe.sim.LabelJson;
import org.fraudpipe.sim.SimulatedRecord;
import org.fraudpipe.sim.SimulationConfig;
import org.fraudpipe.sim.TransactionSimulator;
import org.fraudpipe.sim.WindowLabels;
import org.fraudpipe.sim.WindowLabels.WindowRef;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class TrainingFeatureExportTest {

    private static final Duration WINDOW = Duration.ofMinutes(10);
    private static final Duration TOLERANCE = Duration.ofMinutes(5);

    @TempDir Path tmp;

    /** A small simulation with every anomaly: duplicates, future-dated, malformed, hours late. */
    private Path simulate(String name, long seed) throws Exception {
        SimulationConfig config =
                SimulationConfig.builder()
                        .users(30)
                        .duration(Duration.ofHours(3))
                        .seed(seed)
                        .txPerUserDay(400)
                        .fraudShare(0.1)
                        .duplicateRate(0.05)
                        .futureRate(0.01)
                        .hoursLateShare(0.02)
                        .malformedRate(0.02)
                        .build();
        List<String> tx = new ArrayList<>();
        List<String> labels = new ArrayList<>();
        for (SimulatedRecord r : TransactionSimulator.generateAll(config)) {
            tx.add(r.jsonLine());
            if (!r.retryCopy()) {
                labels.add(LabelJson.toJsonLine(r.label()));
            }
        }
        Path file = tmp.resolve(name);
        Files.write(file, tx, StandardCharsets.UTF_8);
        Files.write(labelsOf(file), labels, StandardCharsets.UTF_8);
        return file;
    }

    private static Path labelsOf(Path tx) {
        return tx.resolveSibling(tx.getFileName() + ".labels.jsonl");
    }

    /**
     * The ideal's transactions, read the plain way, in file order: every valid line, future-dated
     * ones included.
     */
    private static List<Transaction> countable(Path file) throws Exception {
        List<Transaction> out = new ArrayList<>();
        List<String> lines = Files.readAllLines(file, StandardCharsets.UTF_8);
        for (int i = 0; i < lines.size(); i++) {
            try {
                out.add(TransactionJson.parseValidLine("f", lines.get(i), i + 1).transaction());
            } catch (ReplayFormatException e) {
                // not a valid transaction: in no window
            }
        }
        return out;
    }

    @Test
    void featuresEqualAFeatureAggregatorRecomputationAndLabelsFollowWindowLabels()
            throws Exception {
        Path file = simulate("tx.jsonl", 5);
        TrainingFeatureExport.Result result =
                new TrainingFeatureExport(WINDOW, TOLERANCE).compute(file, labelsOf(file));
        List<Transaction> countable = countable(file);
        List<Label> labels = LabelJson.readAll(labelsOf(file));
        NavigableSet<WindowRef> fraudulent = WindowLabels.fraudulentWindows(labels, WINDOW);

        NavigableSet<WindowRef> expectedWindows = new TreeSet<>();
        for (Transaction tx : countable) {
            expectedWindows.add(
                    new WindowRef(
                            tx.getUserId(), WindowLabels.windowStart(tx.getEventTime(), WINDOW)));
        }
        List<WindowRef> got = new ArrayList<>();
        for (LabelledWindow w : result.windows()) {
            FeatureRecord r = w.features();
            WindowRef ref = new WindowRef(r.getUserId(), r.getWindowStart());
            got.add(ref);
            List<Transaction> inWindow =
                    countable.stream()
                            .filter(tx -> tx.getUserId().equals(r.getUserId()))
                            .filter(tx -> !tx.getEventTime().isBefore(r.getWindowStart()))
                            .filter(tx -> tx.getEventTime().isBefore(r.getWindowEnd()))
                            .toList();
            FeatureValues v = FeatureAggregator.compute(inWindow);
            assertThat(r.getWindowEnd()).isEqualTo(r.getWindowStart().plus(WINDOW));
            assertThat(r.getTxCount()).as("%s", ref).isEqualTo(v.txCount());
            assertThat(r.getAmountSum()).isEqualTo(v.amountSum());
            assertThat(r.getAmountMax()).isEqualTo(v.amountMax());
            assertThat(r.getDistinctDevices()).isEqualTo(v.distinctDevices());
            assertThat(r.getDistinctMerchants()).isEqualTo(v.distinctMerchants());
            assertThat(r.getDistinctCountries()).isEqualTo(v.distinctCountries());
            assertThat(w.fraud()).as("label of %s", ref).isEqualTo(fraudulent.contains(ref));
            assertThat(r.getRevision()).isZero();
            assertThat(r.getTiming()).isEqualTo(Timing.ON_TIME);
            assertThat(r.getWatermark()).isEqualTo(LabelledFeaturesJson.END_OF_INPUT);
        }
        // Every window with a countable transaction, once, sorted by user then start.
        assertThat(got).containsExactlyElementsOf(expectedWindows);

        // The simulation exercised what the export must handle.
        TrainingFeatureExport.Summary s = result.summary();
        assertThat(s.invalidLines()).isPositive();
        assertThat(s.futureDated())
                .isPositive()
                .isEqualTo(labels.stream().filter(Label::futureDated).count());
        // Future-dated transactions are in the ideal: each one's window is written.
        for (Label l : labels) {
            if (l.futureDated()) {
                assertThat(got)
                        .contains(
                                new WindowRef(
                                        l.userId(),
                                        WindowLabels.windowStart(l.eventTime(), WINDOW)));
            }
        }
        assertThat(s.fraudulentWindows()).isPositive().isEqualTo(fraudulent.size());
        assertThat(s.windows()).isEqualTo(expectedWindows.size());
        assertThat(labels.stream().filter(Label::duplicate)).isNotEmpty();
        assertThat(labels.stream().filter(Label::hoursLate)).isNotEmpty();
    }

    @Test
    void idealCountsTooLateAndFutureDatedTransactionsButNotMalformedLines() throws Exception {
        Path file = LatenessFixture.write(tmp);
        TrainingFeatureExport.Result result =
                new TrainingFeatureExport(WINDOW, TOLERANCE)
                        .compute(file, LatenessFixture.labelsOf(file));

        List<String> windows =
                result.windows().stream()
                        .map(
                                w ->
                                        w.features().getUserId()
                                                + "@"
                                                + w.features().getWindowStart()
                                                + " n="
                                                + w.features().getTxCount()
                                                + " sum="
                                                + w.features().getAmountSum()
                                                + (w.fraud() ? " fraud" : ""))
                        .toList();
        assertThat(windows)
                .containsExactly(
                        // t9 arrived too late for the stream: counted in the ideal
                        "alice@2026-11-28T12:00:00Z n=2 sum=3000 fraud",
                        "bob@2026-11-28T12:00:00Z n=2 sum=750",
                        // t4 is future-dated (quarantined by the stream): counted in the ideal
                        "bob@2026-11-28T13:00:00Z n=1 sum=700",
                        "carol@2026-11-28T12:00:00Z n=1 sum=300",
                        "dave@2026-11-28T12:10:00Z n=1 sum=300",
                        "erin@2026-11-28T12:10:00Z n=1 sum=100",
                        // only a too-late transaction: still an ideal window, and fraudulent
                        "frank@2026-11-28T12:00:00Z n=1 sum=150 fraud");
        assertThat(result.summary())
                .isEqualTo(new TrainingFeatureExport.Summary(10, 1, 1, 7, 2, 6));
    }

    @Test
    void writtenFileReadsBackAsTheSameLabelledWindows() throws Exception {
        Path file = simulate("tx.jsonl", 6);
        TrainingFeatureExport.Result result =
                new TrainingFeatureExport(WINDOW, TOLERANCE).compute(file, labelsOf(file));
        Path out = tmp.resolve("out/features.jsonl");
        TrainingFeatureExport.write(result.windows(), out);
        assertThat(LabelledFeaturesJson.readAll(out)).isEqualTo(result.windows());
        try (var files = Files.list(out.getParent())) {
            assertThat(files).containsExactly(out.toAbsolutePath());
        }
    }

    @Test
    void labelsOfAnotherSimulationAreRejected() throws Exception {
        Path a = simulate("a.jsonl", 1);
        Path b = simulate("b.jsonl", 2);
        assertThatThrownBy(
                        () -> new TrainingFeatureExport(WINDOW, TOLERANCE).compute(a, labelsOf(b)))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("are the labels those of this transactions file?");
    }
}
