package org.fraudpipe.scoring.train;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import org.fraudpipe.schemas.avro.FeatureRecord;
import org.fraudpipe.schemas.avro.TransactionFeatures;
import org.fraudpipe.scoring.DecisionThresholds;
import org.fraudpipe.scoring.FeatureLayout;
import org.fraudpipe.scoring.ModelLoadException;
import org.fraudpipe.scoring.OnnxScorer;
import org.fraudpipe.scoring.SyntheticTransactions;
import org.fraudpipe.scoring.data.LabelledTransaction;
import org.fraudpipe.scoring.data.LabelledTransactionsJson;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The trainer on per-transaction rows ({@link FeatureLayout#TRANSACTION_V1}): the export loads for
 * that layout only, the card speaks of transactions and trailing windows, and the skew section
 * compares a model trained on "ideal" rows with one trained on "as of arrival" rows.
 */
class TransactionTrainingTest {

    private static final Instant START = Instant.parse("2026-11-28T00:00:00Z");

    private static Trainer.Config config() {
        return new Trainer.Config(
                3,
                5,
                0.2,
                0.25,
                List.of(Trainer.Algorithm.LOGISTIC_REGRESSION),
                "fraud-transaction",
                "t1",
                DecisionThresholds.DEFAULT);
    }

    @Test
    void aPerTransactionModelLoadsForTheTransactionLayoutOnlyAndItsCardSaysSo() throws Exception {
        TrainingSet set =
                TrainingSet.ofTransactions(
                        FeatureLayout.TRANSACTION_V1, SyntheticTransactions.generate(5, true));
        assertThat(set.unit()).isEqualTo(TrainingSet.Unit.TRANSACTION);
        assertThat(set.windowSize()).hasMinutes(10);

        TrainingResult r = Trainer.train(set, config());

        assertThat(r.holdoutAuc()).isGreaterThan(0.8);
        try (OnnxScorer<TransactionFeatures> scorer =
                OnnxScorer.fromBytes(r.onnx(), "t", FeatureLayout.TRANSACTION_V1)) {
            assertThat(scorer.metadata().featureNames())
                    .isEqualTo(FeatureLayout.TRANSACTION_V1.names());
            assertThat(scorer.metadata().windowSize()).hasValue(java.time.Duration.ofMinutes(10));
        }
        assertThatThrownBy(() -> OnnxScorer.fromBytes(r.onnx(), "t", FeatureLayout.V1))
                .isInstanceOf(ModelLoadException.class)
                .hasMessageContaining("has 11 feature columns but the layout has 7");

        String card =
                ModelCard.markdown(
                        r, new ModelCard.Context("m.onnx", "00", "f.jsonl", "11", "cmd", true));
        assertThat(card)
                .contains("transactions of")
                .contains("FeatureLayout.TRANSACTION_V1")
                .contains("trailing, (t - PT10M, t]")
                .contains("`--transaction-review-threshold`")
                .doesNotContain("windows of")
                .doesNotContain("## Training-serving skew");
    }

    @Test
    void theSkewSectionComparesTheIdealTrainedModelOnServedFeatures() {
        TrainingSet served =
                TrainingSet.ofTransactions(
                        FeatureLayout.TRANSACTION_V1, SyntheticTransactions.generate(5, true));
        TrainingSet ideal =
                TrainingSet.ofTransactions(
                        FeatureLayout.TRANSACTION_V1, SyntheticTransactions.generate(5, false));
        TrainingResult r = Trainer.train(served, config());

        SkewCost skew = SkewCost.measure(r, ideal, "ideal.jsonl", "22");

        // The same holdout users, the same transactions: only the hidden bursts differ.
        assertThat(skew.holdoutRows()).isEqualTo(r.holdoutScores().length);
        assertThat(skew.differingHoldoutRows()).isPositive().isLessThan(skew.holdoutRows());
        assertThat(skew.ideal().algorithm()).isEqualTo(r.algorithm());
        assertThat(skew.ideal().metadata().version()).isEqualTo("t1-ideal");
        String card =
                ModelCard.markdown(
                        r,
                        new ModelCard.Context("m.onnx", "00", "f.jsonl", "11", "cmd", true, skew));
        assertThat(card)
                .contains("## Training-serving skew")
                .contains("| as of arrival (this model) | as of arrival |")
                .contains("| ideal | ideal |")
                .contains("| ideal | as of arrival |");
    }

    @Test
    void transactionRowsRoundTripThroughTheTrainingFile(@TempDir Path dir) throws Exception {
        List<LabelledTransaction> rows = SyntheticTransactions.generate(9, false).subList(0, 20);
        Path file = dir.resolve("t.jsonl");
        List<String> lines = new ArrayList<>();
        for (LabelledTransaction t : rows) {
            lines.add(LabelledTransactionsJson.toJsonLine(t));
        }
        Files.write(file, lines);

        assertThat(LabelledTransactionsJson.readAll(file)).isEqualTo(rows);
        assertThat(lines.get(0))
                .startsWith("{\"transactionId\":\"u-000000-t0\",\"userId\":\"u-000000\"")
                .contains("\"newDevice\":")
                .endsWith(",\"historyComplete\":true,\"fraud\":" + rows.get(0).fraud() + "}");
        assertThatThrownBy(
                        () ->
                                LabelledTransactionsJson.parseLine(
                                        "f", lines.get(0).replace("\"newCountry\"", "\"nc\""), 3))
                .hasMessageContaining("f:3:")
                .hasMessageContaining("unknown field \"nc\"");
    }

    @Test
    void aWindowRowCannotJoinATransactionSet() {
        FeatureRecord w =
                FeatureRecord.newBuilder()
                        .setUserId("u")
                        .setWindowStart(START)
                        .setWindowEnd(START.plusSeconds(600))
                        .setTxCount(1)
                        .setAmountSum(1)
                        .setAmountMax(1)
                        .setDistinctDevices(1)
                        .setDistinctMerchants(1)
                        .setDistinctCountries(1)
                        .setRevision(0)
                        .setTiming(org.fraudpipe.schemas.avro.Timing.ON_TIME)
                        .setLateRecordsIncluded(0)
                        .setEmittedAt(START)
                        .setWatermark(START)
                        .build();
        TrainingSet.Builder<TransactionFeatures> b =
                TrainingSet.transactionBuilder(FeatureLayout.TRANSACTION_V1);
        TransactionFeatures t = SyntheticTransactions.generate(1, false).get(0).features();
        b.add(t, false);
        assertThatThrownBy(() -> b.add(t, true)).hasMessageContaining("appears twice");
        assertThat(w.getTxCount()).isEqualTo(1);
    }
}
