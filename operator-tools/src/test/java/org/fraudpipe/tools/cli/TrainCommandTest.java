package org.fraudpipe.tools.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.fraudpipe.tools.testing.Fraud.fraud;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.fraudpipe.job.testing.Cli.Run;
import org.fraudpipe.schemas.avro.TransactionFeatures;
import org.fraudpipe.scoring.FeatureLayout;
import org.fraudpipe.scoring.OnnxScorer;
import org.fraudpipe.scoring.SyntheticTransactions;
import org.fraudpipe.scoring.TrainedModels;
import org.fraudpipe.scoring.data.LabelledFeaturesJson;
import org.fraudpipe.scoring.data.LabelledTransaction;
import org.fraudpipe.scoring.data.LabelledTransactionsJson;
import org.fraudpipe.scoring.data.LabelledWindow;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class TrainCommandTest {

    @TempDir Path tmp;
    private Path features;

    @BeforeEach
    void writeFeatures() throws Exception {
        features = tmp.resolve("features.jsonl");
        List<String> lines = new ArrayList<>();
        for (LabelledWindow w : TrainedModels.DATA) {
            lines.add(LabelledFeaturesJson.toJsonLine(w));
        }
        Files.write(features, lines, StandardCharsets.UTF_8);
    }

    private Run train(Path out, String... extra) {
        List<String> args =
                new ArrayList<>(
                        List.of(
                                "train",
                                "--features",
                                features.toString(),
                                "--out",
                                out.toString(),
                                "--seed",
                                "3",
                                "--epochs",
                                "3"));
        args.addAll(List.of(extra));
        return fraud(args.toArray(String[]::new));
    }

    @Test
    void writesAModelTheScorerLoadsAndACardWithTheHeadlineNumbers() throws Exception {
        Path out = tmp.resolve("model");
        Run r = train(out);
        assertThat(r.exitCode()).as(r.err()).isZero();
        assertThat(r.out()).contains("holdout ROC AUC").contains("fraud-model.onnx");
        try (OnnxScorer<?> s = OnnxScorer.load(out.resolve(TrainCommand.MODEL_FILE))) {
            assertThat(s.metadata().name()).isEqualTo("fraud-window");
            // default version: last day of the period + first 8 hex digits of the input's sha256
            String sha = TrainCommand.sha256(Files.readAllBytes(features));
            assertThat(s.metadata().version()).isEqualTo("2026-11-28-" + sha.substring(0, 8));
        }
        String card = Files.readString(out.resolve(TrainCommand.CARD_FILE));
        assertThat(card)
                .contains("| holdout ROC AUC | 0.9")
                .contains("precision / recall at the review threshold 0.5")
                .contains("precision / recall at the block threshold 0.9")
                .contains("| 6 | `tx_count` |")
                .contains("training period | windows from 2026-11-28T00:00:00Z to")
                .contains("**Split by user**")
                .contains("## Threshold table (holdout)")
                .contains("| 0.5 (review) |")
                .contains("./fraud train --features " + features);
    }

    @Test
    void theSameInputAndOptionsGiveByteIdenticalFiles() throws Exception {
        assertThat(train(tmp.resolve("a"), "--algorithm", "logistic-regression").exitCode())
                .isZero();
        assertThat(train(tmp.resolve("b"), "--algorithm", "logistic-regression").exitCode())
                .isZero();
        for (String f : List.of(TrainCommand.MODEL_FILE)) {
            assertThat(Files.readAllBytes(tmp.resolve("b").resolve(f)))
                    .isEqualTo(Files.readAllBytes(tmp.resolve("a").resolve(f)));
        }
        // The cards differ only in the --out path of the reproduce line.
        String a = Files.readString(tmp.resolve("a").resolve(TrainCommand.CARD_FILE));
        String b = Files.readString(tmp.resolve("b").resolve(TrainCommand.CARD_FILE));
        assertThat(b.replace(tmp.resolve("b").toString(), tmp.resolve("a").toString()))
                .isEqualTo(a);
    }

    @Test
    void theCardSaysWhichFeatureSemanticsTheModelLearned() throws Exception {
        assertThat(train(tmp.resolve("ideal"), "--algorithm", "logistic-regression").exitCode())
                .isZero();
        assertThat(Files.readString(tmp.resolve("ideal").resolve(TrainCommand.CARD_FILE)))
                .contains("Features are ideal values")
                .doesNotContain("as served");
        Run asServed =
                train(
                        tmp.resolve("served"),
                        "--algorithm",
                        "logistic-regression",
                        "--feature-semantics",
                        "as-served");
        assertThat(asServed.exitCode()).as(asServed.err()).isZero();
        assertThat(Files.readString(tmp.resolve("served").resolve(TrainCommand.CARD_FILE)))
                .contains("Features are as served")
                .doesNotContain("Features are ideal values");

        Run bad = train(tmp.resolve("bad"), "--feature-semantics", "perfect");
        assertThat(bad.exitCode()).isEqualTo(2);
        assertThat(bad.err()).contains("--feature-semantics must be ideal or as-served");
        assertThat(tmp.resolve("bad")).doesNotExist();
    }

    private Path transactionRows(String name, boolean hideHistory) throws Exception {
        Path file = tmp.resolve(name);
        List<String> lines = new ArrayList<>();
        for (LabelledTransaction t : SyntheticTransactions.generate(5, hideHistory)) {
            lines.add(LabelledTransactionsJson.toJsonLine(t));
        }
        Files.write(file, lines, StandardCharsets.UTF_8);
        return file;
    }

    @Test
    void perTransactionTrainsTheTransactionLayoutAndReportsTheSkewOfIdealTraining()
            throws Exception {
        Path asOf = transactionRows("as-of-arrival.jsonl", true);
        Path ideal = transactionRows("ideal.jsonl", false);
        Path out = tmp.resolve("tx-model");

        Run r =
                fraud(
                        "train",
                        "--per-transaction",
                        "--features",
                        asOf.toString(),
                        "--ideal-features",
                        ideal.toString(),
                        "--out",
                        out.toString(),
                        "--seed",
                        "3",
                        "--epochs",
                        "3",
                        "--algorithm",
                        "logistic-regression");

        assertThat(r.exitCode()).as(r.err()).isZero();
        assertThat(r.out())
                .contains("trained fraud-transaction ")
                .contains(" transactions of 160 users")
                .contains("the same training on ideal features");
        try (OnnxScorer<TransactionFeatures> s =
                OnnxScorer.load(
                        out.resolve(TrainCommand.MODEL_FILE), FeatureLayout.TRANSACTION_V1)) {
            assertThat(s.metadata().name()).isEqualTo("fraud-transaction");
        }
        assertThat(Files.readString(out.resolve(TrainCommand.CARD_FILE)))
                .contains("Features are as of arrival")
                .contains("## Training-serving skew")
                .contains("`ideal.jsonl`");

        Run windowsFile =
                fraud(
                        "train",
                        "--per-transaction",
                        "--features",
                        features.toString(),
                        "--out",
                        tmp.resolve("no").toString());
        assertThat(windowsFile.exitCode()).isEqualTo(1);
        assertThat(windowsFile.err()).contains("unknown field");
        Run bad =
                fraud(
                        "train",
                        "--features",
                        asOf.toString(),
                        "--out",
                        tmp.resolve("no").toString(),
                        "--feature-semantics",
                        "as-of-arrival");
        assertThat(bad.exitCode()).isEqualTo(2);
        assertThat(bad.err()).contains("as-of-arrival is for --per-transaction");
    }

    @Test
    void reviewAboveBlockIsAUsageErrorNamingBothOptions() {
        Run r = train(tmp.resolve("m"), "--review-threshold", "0.95");
        assertThat(r.exitCode()).isEqualTo(2);
        assertThat(r.err())
                .contains("--review-threshold (0.95) must not exceed --block-threshold (0.9)");
    }

    @Test
    void unknownAlgorithmIsAUsageError() {
        Run r = train(tmp.resolve("m"), "--algorithm", "xgboost");
        assertThat(r.exitCode()).isEqualTo(2);
        assertThat(r.err()).contains("unknown algorithm `xgboost`");
    }

    @Test
    void missingFeaturesFileIsAUsageErrorNamingTheOption() {
        Run r =
                fraud(
                        "train",
                        "--features",
                        tmp.resolve("none.jsonl").toString(),
                        "--out",
                        tmp.toString());
        assertThat(r.exitCode()).isEqualTo(2);
        assertThat(r.err()).contains("--features " + tmp.resolve("none.jsonl") + " does not exist");
    }

    @Test
    void malformedFeaturesFileFailsNamingTheLine() throws Exception {
        Files.writeString(features, "{\"userId\":\"u-1\"}\n", StandardCharsets.UTF_8);
        Run r = train(tmp.resolve("m"));
        assertThat(r.exitCode()).isEqualTo(1);
        assertThat(r.err()).contains(features + ":1: missing field");
        assertThat(tmp.resolve("m")).doesNotExist();
    }
}
