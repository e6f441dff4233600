package org.fraudpipe.scoring;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.within;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.fraudpipe.schemas.avro.FeatureRecord;
import org.fraudpipe.schemas.avro.TransactionFeatures;
import org.fraudpipe.scoring.TestModels.Spec;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class OnnxScorerTest {

    @TempDir Path tmp;

    private Path write(String name, byte[] bytes) throws Exception {
        Path p = tmp.resolve(name);
        Files.write(p, bytes);
        return p;
    }

    private Path model(Spec spec) throws Exception {
        return write("model.onnx", TestModels.build(spec));
    }

    private static List<FeatureRecord> records(int n) {
        List<FeatureRecord> all = SyntheticWindows.records(TrainedModels.DATA);
        List<FeatureRecord> out = new ArrayList<>(n);
        for (int i = 0; i < n; i++) {
            out.add(all.get(i % all.size()));
        }
        return out;
    }

    private OnnxScorer<FeatureRecord> trained() throws Exception {
        return OnnxScorer.load(write("trained.onnx", TrainedModels.logistic().onnx()));
    }

    // ---- metadata and the fraud column ----

    @Test
    void loadReadsNameVersionFeaturesLabelsAndWindowSizeFromTheMetadata() throws Exception {
        try (OnnxScorer<FeatureRecord> s =
                OnnxScorer.load(
                        model(Spec.valid().withMetadata(ModelMetadata.WINDOW_SIZE, "PT10M")))) {
            ModelMetadata m = s.metadata();
            assertThat(m.name()).isEqualTo("test-model");
            assertThat(m.version()).isEqualTo("7");
            assertThat(m.id()).isEqualTo("test-model:7");
            assertThat(m.featureNames()).isEqualTo(FeatureLayout.V1.names());
            assertThat(m.labels()).containsExactly("fraud", "legit");
            assertThat(m.windowSize()).contains(Duration.ofMinutes(10));
        }
    }

    @Test
    void scoreIsTheFraudLabelsProbabilityColumnNotTheArgmax() throws Exception {
        // Logits give [0.3, 0.7]: argmax would pick column 1 whatever it is called.
        FeatureRecord r = records(1).get(0);
        try (OnnxScorer<FeatureRecord> s = OnnxScorer.load(model(Spec.valid()))) {
            assertThat(s.score(r)).isCloseTo(0.3, within(1e-6));
        }
        Spec fraudSecond =
                Spec.valid()
                        .withMetadata(
                                TestModels.metadata(
                                        FeatureLayout.V1.names(), List.of("legit", "fraud")));
        try (OnnxScorer<FeatureRecord> s = OnnxScorer.load(model(fraudSecond))) {
            assertThat(s.score(r)).isCloseTo(0.7, within(1e-6));
        }
    }

    // ---- signature mismatches ----

    private void assertLoadFails(Spec spec, String... messageParts) throws Exception {
        Path p = model(spec);
        assertThatThrownBy(() -> OnnxScorer.load(p))
                .isInstanceOf(ModelLoadException.class)
                .hasMessageStartingWith("cannot load model " + p + ": ")
                .hasMessageContainingAll(messageParts);
    }

    @Test
    void wrongInputWidthFailsNamingBothWidths() throws Exception {
        assertLoadFails(
                Spec.valid().withInputWidth(5),
                "model input `input` has 5 feature columns but the layout has 7 [amount_max_log,");
    }

    @Test
    void wrongInputNameFailsNamingTheName() throws Exception {
        assertLoadFails(
                Spec.valid().withInputName("features"),
                "model input is named `features` but the scorer feeds `input`");
    }

    @Test
    void fixedBatchDimensionFails() throws Exception {
        assertLoadFails(Spec.valid().withInputBatch(1), "fixed batch size of 1");
    }

    @Test
    void outputWidthOtherThanTheLabelCountFails() throws Exception {
        assertLoadFails(
                Spec.valid().withOutputWidth(3),
                "model output `output` has shape [-1, 3] but the metadata declares 2 labels"
                        + " [fraud, legit]");
    }

    @Test
    void wrongOutputNameFails() throws Exception {
        assertLoadFails(
                Spec.valid().withOutputName("probabilities"),
                "model outputs are [probabilities], expected exactly one, `output`");
    }

    @Test
    void featureNameMismatchNamesTheColumnAndBothFeatures() throws Exception {
        List<String> swapped = new ArrayList<>(FeatureLayout.V1.names());
        swapped.set(0, "tx_count");
        swapped.set(6, "amount_max_log");
        assertLoadFails(
                Spec.valid().withMetadata(TestModels.metadata(swapped, List.of("fraud", "legit"))),
                "model expects feature `tx_count` at column 0 but the layout has `amount_max_log`"
                        + " there");
    }

    @Test
    void declaredFeatureCountOtherThanTheLayoutsFails() throws Exception {
        List<String> fewer = FeatureLayout.V1.names().subList(0, 6);
        assertLoadFails(
                Spec.valid().withMetadata(TestModels.metadata(fewer, List.of("fraud", "legit"))),
                "model declares 6 features",
                "but the layout has 7");
    }

    @Test
    void missingMetadataFailsNamingTheKey() throws Exception {
        assertLoadFails(
                Spec.valid().withoutMetadata(ModelMetadata.FEATURES),
                "model metadata has no `fraudpipe.features`",
                "./fraud train");
        assertLoadFails(
                Spec.valid().withMetadata(java.util.Map.of()),
                "model metadata has no `fraudpipe.model.name`");
    }

    @Test
    void labelsWithoutFraudFail() throws Exception {
        assertLoadFails(
                Spec.valid()
                        .withMetadata(
                                TestModels.metadata(
                                        FeatureLayout.V1.names(), List.of("good", "bad"))),
                "has no `fraud` label");
    }

    // ---- files ----

    @Test
    void missingFileFailsNamingThePath() {
        Path p = tmp.resolve("nowhere/fraud-model.onnx");
        assertThatThrownBy(() -> OnnxScorer.load(p))
                .isInstanceOf(ModelLoadException.class)
                .hasMessage("cannot load model " + p + ": no such file");
    }

    @Test
    void corruptFileFailsNamingThePath() throws Exception {
        Path p = write("corrupt.onnx", "this is not a protobuf model".getBytes());
        assertThatThrownBy(() -> OnnxScorer.load(p))
                .isInstanceOf(ModelLoadException.class)
                .hasMessageStartingWith("cannot load model " + p + ": not a valid ONNX model");
    }

    @Test
    void truncatedModelFailsNamingThePath() throws Exception {
        byte[] good = TrainedModels.logistic().onnx();
        Path p = write("truncated.onnx", java.util.Arrays.copyOf(good, good.length / 2));
        assertThatThrownBy(() -> OnnxScorer.load(p))
                .isInstanceOf(ModelLoadException.class)
                .hasMessageStartingWith("cannot load model " + p + ": ");
    }

    @Test
    void emptyFileAndDirectoryFailNamingThePath() throws Exception {
        Path empty = write("empty.onnx", new byte[0]);
        assertThatThrownBy(() -> OnnxScorer.load(empty))
                .hasMessage("cannot load model " + empty + ": the file is empty");
        assertThatThrownBy(() -> OnnxScorer.load(tmp))
                .hasMessageStartingWith("cannot load model " + tmp + ": it is a directory");
    }

    // ---- scoring ----

    @Test
    void batchedAndSingleScoringAgree() throws Exception {
        List<FeatureRecord> rs = records(300);
        try (OnnxScorer<FeatureRecord> s = trained()) {
            double[] batch = s.score(rs);
            for (int i = 0; i < rs.size(); i++) {
                assertThat(s.score(rs.get(i))).as("row %d", i).isCloseTo(batch[i], within(1e-6));
            }
        }
    }

    @Test
    void batchesLargerThanOneRunAreScoredInChunksWithTheSameResults() throws Exception {
        int n = OnnxScorer.MAX_ROWS_PER_RUN * 2 + 3;
        List<FeatureRecord> rs = records(n);
        try (OnnxScorer<FeatureRecord> s = trained()) {
            double[] all = s.score(rs);
            assertThat(all).hasSize(n);
            double[] tail = s.score(rs.subList(n - 100, n));
            for (int i = 0; i < 100; i++) {
                assertThat(all[n - 100 + i]).isCloseTo(tail[i], within(1e-6));
            }
            assertThat(s.score(List.of())).isEmpty();
        }
    }

    @Test
    void scoreVectorsEqualsScoringTheRecords() throws Exception {
        List<FeatureRecord> rs = records(50);
        FeatureLayout<FeatureRecord> layout = FeatureLayout.V1;
        float[] v = new float[rs.size() * layout.size()];
        int k = 0;
        for (FeatureRecord r : rs) {
            for (double d : layout.values(r)) {
                v[k++] = (float) d;
            }
        }
        try (OnnxScorer<FeatureRecord> s = trained()) {
            assertThat(s.scoreVectors(v, rs.size())).isEqualTo(s.score(rs));
            assertThatThrownBy(() -> s.scoreVectors(new float[10], 2))
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining("10 floats are not 2 rows of 7 features");
        }
    }

    @Test
    void concurrentScoringGivesTheSameResultsAsSequential() throws Exception {
        List<FeatureRecord> rs = records(500);
        try (OnnxScorer<FeatureRecord> s = trained()) {
            double[] expected = s.score(rs);
            ExecutorService pool = Executors.newFixedThreadPool(4);
            try {
                List<Future<Boolean>> futures = new ArrayList<>();
                for (int t = 0; t < 4; t++) {
                    int batch = 1 + t * 60; // different sizes: buffers grow differently per thread
                    futures.add(
                            pool.submit(
                                    () -> {
                                        for (int round = 0; round < 20; round++) {
                                            for (int from = 0; from < rs.size(); from += batch) {
                                                int to = Math.min(rs.size(), from + batch);
                                                double[] got = s.score(rs.subList(from, to));
                                                for (int i = from; i < to; i++) {
                                                    if (Math.abs(got[i - from] - expected[i])
                                                            > 1e-6) {
                                                        return false;
                                                    }
                                                }
                                            }
                                        }
                                        return true;
                                    }));
                }
                for (Future<Boolean> f : futures) {
                    assertThat(f.get()).isTrue();
                }
            } finally {
                pool.shutdownNow();
            }
        }
    }

    @Test
    void closedScorerRefusesToScore() throws Exception {
        OnnxScorer<FeatureRecord> s = trained();
        s.close();
        s.close(); // idempotent
        assertThatThrownBy(() -> s.score(records(1)))
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("is closed");
    }

    // ---- the shipped model ----

    @Test
    void defaultModelLoadsFromTheClasspathAndSeparatesTypicalWindows() throws Exception {
        try (OnnxScorer<FeatureRecord> s = OnnxScorer.loadDefault()) {
            assertThat(s.source()).isEqualTo("classpath:models/default/fraud-model.onnx");
            assertThat(s.metadata().name()).isEqualTo("fraud-window");
            assertThat(s.metadata().featureNames()).isEqualTo(FeatureLayout.V1.names());
            assertThat(s.metadata().windowSize()).contains(Duration.ofMinutes(10));
            FeatureRecord shopping =
                    SyntheticWindows.record(
                            "u-1", SyntheticWindows.START, 1, 2_500, 2_500, 1, 1, 1);
            FeatureRecord cardTesting =
                    SyntheticWindows.record(
                            "u-1", SyntheticWindows.START, 20, 6_000, 499, 1, 20, 1);
            FeatureRecord takeover =
                    SyntheticWindows.record(
                            "u-1", SyntheticWindows.START, 9, 360_000, 90_000, 2, 9, 2);
            double[] scores = s.score(List.of(shopping, cardTesting, takeover));
            assertThat(scores[0]).isLessThan(0.05);
            assertThat(scores[1]).isGreaterThan(0.9);
            assertThat(scores[2]).isGreaterThan(0.9);
        }
    }

    @Test
    void defaultTransactionModelLoadsForTheTransactionLayoutOnlyAndSeparatesTypicalOnes()
            throws Exception {
        try (OnnxScorer<TransactionFeatures> s = OnnxScorer.loadDefaultTransactionModel()) {
            assertThat(s.source()).isEqualTo("classpath:models/transaction/fraud-model.onnx");
            assertThat(s.metadata().name()).isEqualTo("fraud-transaction");
            assertThat(s.metadata().featureNames()).isEqualTo(FeatureLayout.TRANSACTION_V1.names());
            assertThat(s.metadata().windowSize()).contains(Duration.ofMinutes(10));
            TransactionFeatures shopping = transaction(1, 2_500, 2_500, 1, 1, 2_500, false);
            TransactionFeatures takeover = transaction(9, 360_000, 90_000, 2, 9, 60_000, true);
            double[] scores = s.score(List.of(shopping, takeover));
            assertThat(scores[0]).isLessThan(0.05);
            assertThat(scores[1]).isGreaterThan(0.9);
        }
        assertThatThrownBy(
                        () ->
                                OnnxScorer.fromBytes(
                                        OnnxScorer.resourceBytes(
                                                OnnxScorer.DEFAULT_TRANSACTION_MODEL_RESOURCE),
                                        "tx",
                                        FeatureLayout.V1))
                .isInstanceOf(ModelLoadException.class);
    }

    /**
     * The per-transaction path answers a retry with the original's features and scores them again:
     * the same bits only if a row's score does not depend on the rest of its batch.
     */
    @Test
    void aRowScoresTheSameBitsAloneAndInAnyBatchWithBothShippedModels() throws Exception {
        java.util.SplittableRandom rnd = new java.util.SplittableRandom(17);
        List<TransactionFeatures> rows = new java.util.ArrayList<>();
        for (int i = 0; i < 300; i++) {
            int n = 1 + rnd.nextInt(12);
            long amount = 100 + rnd.nextInt(90_000);
            rows.add(
                    transaction(
                            n,
                            amount * n,
                            amount,
                            1 + rnd.nextInt(3),
                            1 + rnd.nextInt(n),
                            amount,
                            rnd.nextBoolean()));
        }
        try (OnnxScorer<TransactionFeatures> s = OnnxScorer.loadDefaultTransactionModel()) {
            double[] batch = s.score(rows);
            double[] odd = s.score(rows.subList(7, 7 + 129));
            for (int i = 0; i < rows.size(); i++) {
                assertThat(s.score(rows.get(i))).as("row %d alone", i).isEqualTo(batch[i]);
            }
            for (int i = 0; i < odd.length; i++) {
                assertThat(odd[i]).as("row %d in another batch", i + 7).isEqualTo(batch[i + 7]);
            }
        }
        try (OnnxScorer<FeatureRecord> s = OnnxScorer.loadDefault()) {
            List<FeatureRecord> windows = records(200);
            double[] batch = s.score(windows);
            for (int i = 0; i < windows.size(); i++) {
                assertThat(s.score(windows.get(i))).as("window %d alone", i).isEqualTo(batch[i]);
            }
        }
    }

    private static TransactionFeatures transaction(
            long txCount,
            long amountSum,
            long amountMax,
            int devices,
            int merchants,
            long amount,
            boolean newDevice) {
        return TransactionFeatures.newBuilder()
                .setTransactionId("t")
                .setUserId("u-1")
                .setEventTime(SyntheticWindows.START)
                .setTrailingWindowMillis(600_000)
                .setTxCount(txCount)
                .setAmountSum(amountSum)
                .setAmountMax(amountMax)
                .setDistinctDevices(devices)
                .setDistinctMerchants(merchants)
                .setDistinctCountries(newDevice ? 2 : 1)
                .setAmountMinor(amount)
                .setNewDevice(newDevice)
                .setNewMerchant(newDevice)
                .setNewCountry(newDevice)
                .setHistoryComplete(true)
                .build();
    }
}
