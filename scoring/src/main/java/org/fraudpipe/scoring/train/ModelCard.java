package org.fraudpipe.scoring.train;

import java.util.Locale;
import java.util.Map;
import org.fraudpipe.scoring.FeatureLayout;
import org.fraudpipe.scoring.ModelMetadata;
import org.fraudpipe.scoring.OnnxScorer;
import org.fraudpipe.scoring.TestVectors;
import org.fraudpipe.scoring.train.Trainer.Candidate;
import org.fraudpipe.scoring.train.Trainer.PartCounts;
import org.fraudpipe.scoring.train.UserSplit.Part;
import org.tribuo.Tribuo;

/**
 * The model card ({@code MODEL_CARD.md}) written next to a trained model: what it is, what it was
 * trained on, how it was measured, how well it does, and how to rebuild it. Deterministic: the same
 * result and context give the same text (no clock, no host).
 */
public final class ModelCard {

    /**
     * Where the model came from, for the card.
     *
     * @param modelFile file name of the ONNX model
     * @param modelSha256 hex SHA-256 of the ONNX file
     * @param featuresFile name of the labelled-features file
     * @param featuresSha256 hex SHA-256 of it
     * @param reproduce the command that rebuilds the model
     * @param asServed whether the features are what the streaming job serves rather than ideal
     *     values: as served ({@code ./fraud features --semantics as-served}) for a window model, as
     *     of arrival ({@code ./fraud features --per-transaction}) for a per-transaction model
     * @param skew the same model trained on ideal features and measured on the served ones, or null
     */
    public record Context(
            String modelFile,
            String modelSha256,
            String featuresFile,
            String featuresSha256,
            String reproduce,
            boolean asServed,
            SkewCost skew) {

        /** A context without a skew comparison. */
        public Context(
                String modelFile,
                String modelSha256,
                String featuresFile,
                String featuresSha256,
                String reproduce,
                boolean asServed) {
            this(modelFile, modelSha256, featuresFile, featuresSha256, reproduce, asServed, null);
        }
    }

    private ModelCard() {}

    /** The card as Markdown. */
    public static String markdown(TrainingResult r, Context c) {
        ModelMetadata m = r.metadata();
        FeatureLayout<?> layout = r.set().layout();
        boolean tx = r.set().unit() == TrainingSet.Unit.TRANSACTION;
        String rows = r.set().unit().plural();
        Trainer.Config config = r.config();
        Metrics.AtThreshold review = r.at(config.thresholds().review());
        Metrics.AtThreshold block = r.at(config.thresholds().block());
        PartCounts holdout = r.parts().get(Part.HOLDOUT);
        StringBuilder s = new StringBuilder(8192);
        s.append("# Model card: ").append(m.name()).append(' ').append(m.version()).append("\n\n");
        s.append("Written by `./fraud train` together with `")
                .append(c.modelFile())
                .append("`; regenerate both rather than editing this file.\n\n");

        s.append("## Headline\n\n");
        s.append(
                String.format(
                        Locale.ROOT,
                        "On %d "
                                + rows
                                + " of %d holdout users (%d fraudulent) never used for training"
                                + " or model selection, scored by ONNX Runtime from the exported"
                                + " file:%n%n",
                        holdout.windows(),
                        holdout.users(),
                        holdout.fraudulent()));
        s.append("| metric | value |\n|---|---|\n");
        s.append(row("holdout ROC AUC", fmt4(r.holdoutAuc())));
        s.append(
                row(
                        "precision / recall at the review threshold "
                                + fmt(config.thresholds().review()),
                        fmt3(review.precision()) + " / " + fmt3(review.recall())));
        s.append(
                row(
                        "precision / recall at the block threshold "
                                + fmt(config.thresholds().block()),
                        fmt3(block.precision()) + " / " + fmt3(block.recall())));
        s.append("\n");

        s.append("## Model\n\n| | |\n|---|---|\n");
        s.append(
                row(
                        "file",
                        "`"
                                + c.modelFile()
                                + "`, sha256 `"
                                + c.modelSha256()
                                + "`, "
                                + r.onnx().length
                                + " bytes"));
        s.append(
                row(
                        "name / version",
                        "`"
                                + m.name()
                                + "` / `"
                                + m.version()
                                + "` (ONNX metadata `"
                                + ModelMetadata.NAME
                                + "`, `"
                                + ModelMetadata.VERSION
                                + "`)"));
        s.append(row("algorithm", describe(r.algorithm(), config)));
        s.append(
                row(
                        "input",
                        "`"
                                + OnnxScorer.INPUT_NAME
                                + "` float32 [batch, "
                                + layout.size()
                                + "], columns = the features below, in that order"));
        s.append(
                row(
                        "output",
                        "`"
                                + OnnxScorer.OUTPUT_NAME
                                + "` float32 [batch, "
                                + m.labels().size()
                                + "], probabilities of the labels "
                                + code(m.labels())
                                + " in that order; the score is the `"
                                + ModelMetadata.FRAUD_LABEL
                                + "` column ("
                                + m.fraudColumn()
                                + ")"));
        s.append(
                row(
                        "window",
                        tx
                                ? "trailing, (t - "
                                        + r.set().windowSize()
                                        + ", t] as of the transaction's arrival (metadata `"
                                        + ModelMetadata.WINDOW_SIZE
                                        + "`): serve with this --trailing-window"
                                : "tumbling, "
                                        + r.set().windowSize()
                                        + " (metadata `"
                                        + ModelMetadata.WINDOW_SIZE
                                        + "`): score windows of this size only"));
        s.append(
                row(
                        "training period",
                        (tx ? "transactions (event time) from " : "windows from ")
                                + r.set().periodStart()
                                + " to "
                                + r.set().periodEnd()));
        s.append(
                row(
                        "training data",
                        "`"
                                + c.featuresFile()
                                + "` (sha256 `"
                                + c.featuresSha256()
                                + "`): "
                                + r.set().size()
                                + " "
                                + rows
                                + " of "
                                + r.set().users()
                                + " users, "
                                + r.set().fraudulent()
                                + " fraudulent ("
                                + pct(r.set().fraudulent(), r.set().size())
                                + ")"));
        s.append(
                row(
                        "decision thresholds",
                        "REVIEW if score >= "
                                + fmt(config.thresholds().review())
                                + ", BLOCK if score >= "
                                + fmt(config.thresholds().block())
                                + (tx
                                        ? " (configurable in the job: `--transaction-review-threshold`,"
                                                + " `--transaction-block-threshold`)"
                                        : " (configurable: `--review-threshold`,"
                                                + " `--block-threshold`)")));
        s.append(
                row(
                        "test vectors",
                        TestVectors.DEFAULT_COUNT
                                + " holdout "
                                + rows
                                + " spread over the score range, with Tribuo's predicted"
                                + " probability (metadata `"
                                + TestVectors.METADATA_KEY
                                + "`): a release serves only where ONNX Runtime reproduces every"
                                + " one within "
                                + TestVectors.TOLERANCE));
        s.append("\n");

        s.append(
                tx
                        ? "## Features\n\nComputed by `FeatureLayout.TRANSACTION_V1` (scoring"
                                + " module) from a `TransactionFeatures`, for training and serving"
                                + " alike: the trailing window (t - T, t] of transaction x holds the"
                                + " user's valid, deduplicated transactions received up to and"
                                + " including x (`TrailingFeatures`, feature-job).\n\n"
                        : "## Features\n\nComputed by `FeatureLayout.V1` (scoring module) from a"
                                + " `FeatureRecord`, for training and serving alike.\n\n");
        s.append("| column | name | definition |\n|---|---|---|\n");
        for (int i = 0; i < layout.size(); i++) {
            FeatureLayout.Feature<?> f = layout.features().get(i);
            s.append("| ")
                    .append(i)
                    .append(" | `")
                    .append(f.name())
                    .append("` | ")
                    .append(f.definition())
                    .append(" |\n");
        }
        s.append("\n");

        s.append("## How it was measured\n\n");
        s.append(
                tx
                        ? "- **Labels.** A transaction is fraudulent iff the simulator labelled its id"
                                + " so (ground truth, the labels file). "
                                + (c.asServed()
                                        ? "Features are as of arrival (`./fraud features"
                                                + " --per-transaction`): what the job computes when"
                                                + " the transaction arrives, over what had arrived"
                                                + " before it.\n"
                                        : "Features are ideal (`./fraud features"
                                                + " --per-transaction --semantics ideal`): every"
                                                + " transaction of the trailing window, however late"
                                                + " it arrived.\n")
                        : "- **Labels.** A window is fraudulent iff it contains a fraudulent transaction"
                                + " (simulator ground truth, `WindowLabels`). "
                                + (c.asServed()
                                        ? "Features are as served: the streaming job's last revision of"
                                                + " each window under its lateness policy (`./fraud features"
                                                + " --semantics as-served`); windows it never served are"
                                                + " absent.\n"
                                        : "Features are ideal values over all stored transactions"
                                                + " (`./fraud features`).\n"));
        s.append(
                String.format(
                        Locale.ROOT,
                        "- **Split by user**, not by "
                                + r.set().unit().noun()
                                + ": SHA-256 of"
                                + " `seed:userId` puts each user in training (%.0f %%), validation (%.0f %%) or"
                                + " holdout (%.0f %%), seed %d. Every fraud burst and every user's habits stay on"
                                + " one side, so neighbouring "
                                + rows
                                + " of one burst cannot leak from training into"
                                + " the holdout; every side covers the whole period.%n",
                        100 * (1 - config.validationFraction() - config.holdoutFraction()),
                        100 * config.validationFraction(),
                        100 * config.holdoutFraction(),
                        config.seed()));
        s.append(
                "- **Model selection** on the validation users only (higher ROC AUC wins);"
                        + " the holdout users are used once, for the numbers in this card.\n");
        String noun = r.set().unit().noun();
        s.append(
                "- **ROC AUC** = probability that a random fraudulent "
                        + noun
                        + " scores higher"
                        + " than a random legitimate one (Mann-Whitney, ties count 1/2). **Precision** ="
                        + " fraudulent share of "
                        + rows
                        + " with score >= threshold; **recall** = share of"
                        + " fraudulent "
                        + rows
                        + " with score >= threshold.\n");
        s.append(
                String.format(
                        Locale.ROOT,
                        "- **Scores** are ONNX Runtime's, from the exported"
                                + " file through `OnnxScorer`; they equal Tribuo's predictions within %.1e"
                                + " (largest difference on the holdout: %.1e).%n%n",
                        Trainer.PARITY_TOLERANCE,
                        r.maxOnnxTribuoDifference()));

        s.append(
                "## Data split\n\n| part | users | "
                        + rows
                        + " | fraudulent |\n|---|---|---|---|\n");
        for (Map.Entry<Part, PartCounts> e : r.parts().entrySet()) {
            PartCounts p = e.getValue();
            s.append("| ")
                    .append(e.getKey().name().toLowerCase(Locale.ROOT))
                    .append(" | ")
                    .append(p.users())
                    .append(" | ")
                    .append(p.windows())
                    .append(" | ")
                    .append(p.fraudulent())
                    .append(" |\n");
        }
        s.append("\n");

        s.append("## Model selection (validation users)\n\n");
        s.append("| algorithm | validation ROC AUC | chosen |\n|---|---|---|\n");
        for (Candidate cand : r.candidates()) {
            s.append("| ")
                    .append(cand.algorithm().id())
                    .append(" | ")
                    .append(fmt4(cand.validationAuc()))
                    .append(" | ")
                    .append(cand.algorithm() == r.algorithm() ? "yes" : "")
                    .append(" |\n");
        }
        s.append("\n");

        s.append("## Threshold table (holdout)\n\n");
        s.append("A " + noun + " is flagged when its score >= the threshold.\n\n");
        s.append(
                "| threshold | flagged "
                        + rows
                        + " | precision | recall | legitimate "
                        + rows
                        + " flagged |\n|---|---|---|---|---|\n");
        for (Metrics.AtThreshold t : r.thresholdTable()) {
            String mark =
                    t.threshold() == config.thresholds().block()
                            ? " (block)"
                            : t.threshold() == config.thresholds().review() ? " (review)" : "";
            s.append("| ")
                    .append(fmt(t.threshold()))
                    .append(mark)
                    .append(" | ")
                    .append(t.flagged())
                    .append(" | ")
                    .append(fmt3(t.precision()))
                    .append(" | ")
                    .append(fmt3(t.recall()))
                    .append(" | ")
                    .append(t.falsePositives())
                    .append(" (")
                    .append(pct(t.falsePositives(), t.negatives()))
                    .append(") |\n");
        }
        s.append("\n");

        s.append("## Limitations\n\n");
        s.append(
                "- Trained and measured on simulated traffic (docs/SIMULATOR.md): two fraud"
                        + " patterns, account takeover and card testing, that are easy to separate from"
                        + " the simulated card holders. Real fraud is harder; these numbers say the"
                        + " pipeline works end to end, not how a bank's model would do.\n");
        s.append(
                "- Probabilities are calibrated to the training base rate ("
                        + pct(r.set().fraudulent(), r.set().size())
                        + " fraudulent "
                        + rows
                        + "); a different fraud rate shifts them.\n");
        s.append(
                tx
                        ? (c.asServed()
                                ? "- Features are as of arrival, which is what the job serves for"
                                        + " every transaction that arrives at most the allowed"
                                        + " lateness behind the watermark; a later one is scored"
                                        + " with the part of its trailing window the job still holds"
                                        + " (`historyComplete` false), which training rows never"
                                        + " show.\n\n"
                                : "- Features are ideal values: they count records that, when the"
                                        + " job scores the transaction, have not arrived yet. Served"
                                        + " features are as of arrival; see the skew section.\n\n")
                        : c.asServed()
                                ? "- Features are as served (last revision per window): the model learned"
                                        + " what the stream serves after lateness; its first firing of a"
                                        + " window may still lack records that arrive within the allowed"
                                        + " lateness.\n\n"
                                : "- Features are ideal values. The streaming job serves a window's value at"
                                        + " each firing; late records change it (later revisions) and too-late"
                                        + " ones never reach it: that skew is what the parity check"
                                        + " measures.\n\n");

        if (c.skew() != null) {
            skew(s, r, c.skew(), config);
        }

        s.append("## Reproduce\n\n    ").append(c.reproduce()).append("\n");
        return s.toString();
    }

    /** The training-serving skew section: the same model trained on ideal features. */
    private static void skew(
            StringBuilder s, TrainingResult served, SkewCost k, Trainer.Config config) {
        String rows = served.set().unit().plural();
        String servedAs =
                served.set().unit() == TrainingSet.Unit.TRANSACTION ? "as of arrival" : "as served";
        double review = config.thresholds().review();
        double block = config.thresholds().block();
        s.append("## Training-serving skew\n\n");
        s.append(
                String.format(
                        Locale.ROOT,
                        "The same training (algorithm %s, seed, epochs, user split) on *ideal*"
                                + " features (`%s`, sha256 `%s`: every record of the window,"
                                + " however late it arrived), measured on the same holdout users."
                                + " In serving a model only ever sees served features; %d of the"
                                + " %d holdout %s (%s) have served features that differ from"
                                + " ideal.%n%n",
                        served.algorithm().id(),
                        k.idealFeaturesFile(),
                        k.idealFeaturesSha256(),
                        k.differingHoldoutRows(),
                        k.holdoutRows(),
                        rows,
                        pct(k.differingHoldoutRows(), k.holdoutRows())));
        s.append(
                "| model trained on | measured on (holdout) | ROC AUC | precision / recall at "
                        + fmt(review)
                        + " | precision / recall at "
                        + fmt(block)
                        + " |\n|---|---|---|---|---|\n");
        skewRow(
                s,
                servedAs + " (this model)",
                servedAs,
                served.holdoutAuc(),
                served.at(review),
                served.at(block));
        skewRow(
                s,
                "ideal",
                "ideal",
                k.ideal().holdoutAuc(),
                k.ideal().at(review),
                k.ideal().at(block));
        skewRow(
                s,
                "ideal",
                servedAs,
                k.idealOnServed().auc(),
                k.idealOnServed().at(review),
                k.idealOnServed().at(block));
        s.append(
                String.format(
                        Locale.ROOT,
                        "%nTrained on ideal features, the model's holdout ROC AUC drops by %s when it"
                                + " is served %s features, as it would be in production (what"
                                + " training-serving skew costs it); trained on what it is served,"
                                + " it reaches %s on them (%s against the ideal-trained model on"
                                + " them).%n%n",
                        fmt4(k.ideal().holdoutAuc() - k.idealOnServed().auc()),
                        servedAs.replace(' ', '-'),
                        fmt4(served.holdoutAuc()),
                        signed4(served.holdoutAuc() - k.idealOnServed().auc())));
    }

    private static void skewRow(
            StringBuilder s,
            String trainedOn,
            String measuredOn,
            double auc,
            Metrics.AtThreshold review,
            Metrics.AtThreshold block) {
        s.append("| ")
                .append(trainedOn)
                .append(" | ")
                .append(measuredOn)
                .append(" | ")
                .append(fmt4(auc))
                .append(" | ")
                .append(fmt3(review.precision()))
                .append(" / ")
                .append(fmt3(review.recall()))
                .append(" | ")
                .append(fmt3(block.precision()))
                .append(" / ")
                .append(fmt3(block.recall()))
                .append(" |\n");
    }

    private static String describe(Trainer.Algorithm a, Trainer.Config c) {
        String common =
                "log loss, AdaGrad, "
                        + c.epochs()
                        + " epochs, seed "
                        + c.seed()
                        + ", Tribuo "
                        + Tribuo.VERSION;
        return switch (a) {
            case LOGISTIC_REGRESSION -> "logistic regression (" + common + ")";
            case FACTORIZATION_MACHINE -> "factorization machine, 4 factors (" + common + ")";
        };
    }

    private static String row(String key, String value) {
        return "| " + key + " | " + value + " |\n";
    }

    private static String code(java.util.List<String> items) {
        return items.stream().map(i -> "`" + i + "`").toList().toString();
    }

    private static String fmt(double d) {
        return java.math.BigDecimal.valueOf(d).stripTrailingZeros().toPlainString();
    }

    private static String fmt3(double d) {
        return Double.isNaN(d) ? "n/a" : String.format(Locale.ROOT, "%.3f", d);
    }

    private static String signed4(double d) {
        return Math.abs(d) < 0.00005 ? "0.0000" : String.format(Locale.ROOT, "%+.4f", d);
    }

    private static String fmt4(double d) {
        return String.format(Locale.ROOT, "%.4f", d);
    }

    private static String pct(long part, long whole) {
        return whole == 0 ? "n/a" : String.format(Locale.ROOT, "%.2f %%", 100.0 * part / whole);
    }
}
