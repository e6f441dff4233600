package org.fraudpipe.tools.cli;

import java.io.IOException;
import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.time.LocalDate;
import java.time.ZoneOffset;
import java.util.HexFormat;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.Callable;
import java.util.logging.Level;
import java.util.logging.Logger;
import org.fraudpipe.scoring.DecisionThresholds;
import org.fraudpipe.scoring.FeatureLayout;
import org.fraudpipe.scoring.data.FeatureFileException;
import org.fraudpipe.scoring.data.LabelledFeaturesJson;
import org.fraudpipe.scoring.data.LabelledTransactionsJson;
import org.fraudpipe.scoring.train.Metrics;
import org.fraudpipe.scoring.train.ModelCard;
import org.fraudpipe.scoring.train.SkewCost;
import org.fraudpipe.scoring.train.Trainer;
import org.fraudpipe.scoring.train.TrainingResult;
import org.fraudpipe.scoring.train.TrainingSet;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;

/**
 * {@code ./fraud train}: trains the fraud model from labelled features ({@link Trainer}), writes
 * {@value #MODEL_FILE} and {@value #CARD_FILE} into {@code --out}. The same input and options give
 * byte-identical files. Exit codes: 0 done, 1 failure while running (bad input file, too little
 * data), 2 bad usage (the message names the option).
 */
@Command(
        name = "train",
        mixinStandardHelpOptions = true,
        sortOptions = false,
        usageHelpAutoWidth = true,
        description = {
            "Train the fraud model on labelled window features (./fraud features), choosing"
                    + " logistic regression or a factorization machine (Tribuo) by validation"
                    + " ROC AUC; export it to ONNX with its feature names, labels, name and"
                    + " version in the metadata; measure it on holdout users; write the model"
                    + " and its model card.",
            "Users are split by a hash of seed and userId: training, validation (model"
                    + " selection), holdout (the card's numbers). Same input and options give"
                    + " byte-identical files.",
            "--per-transaction: the per-transaction model (scores at arrival) from ./fraud"
                    + " features --per-transaction rows. --ideal-features: the same training on"
                    + " ideal features too, measured on the --features of the holdout users, in"
                    + " the card (what training-serving skew costs the model).",
        },
        footer = {
            "",
            "Example:",
            "  ./fraud simulate --users 500 --duration 1d --fraud-share 0.05 --out tx.jsonl",
            "  ./fraud features --transactions tx.jsonl --out features.jsonl",
            "  ./fraud train --features features.jsonl --out model",
            "",
            "The default models are rebuilt by scoring/train-default-model.sh and"
                    + " scoring/train-transaction-model.sh.",
        })
public final class TrainCommand implements Callable<Integer> {

    /** File name of the model in {@code --out}. */
    public static final String MODEL_FILE = "fraud-model.onnx";

    /** File name of the model card in {@code --out}. */
    public static final String CARD_FILE = "MODEL_CARD.md";

    // Tribuo reports every epoch at INFO through java.util.logging; keep the loggers referenced.
    private static final List<Logger> QUIET =
            List.of(Logger.getLogger("org.tribuo"), Logger.getLogger("ai.onnxruntime"));

    @Spec CommandSpec spec;

    @Option(
            names = "--features",
            paramLabel = "FILE",
            required = true,
            description = "Labelled features, JSON Lines (./fraud features).")
    Path features;

    @Option(
            names = "--out",
            paramLabel = "DIR",
            required = true,
            description =
                    "Directory for "
                            + MODEL_FILE
                            + " and "
                            + CARD_FILE
                            + " (created if missing; both replaced).")
    Path out;

    @Option(
            names = "--seed",
            paramLabel = "S",
            defaultValue = "1",
            description = "Seed of SGD and of the user split (default: ${DEFAULT-VALUE}).")
    long seed;

    @Option(
            names = "--algorithm",
            paramLabel = "A",
            defaultValue = "auto",
            description =
                    "auto (the better on validation), logistic-regression or"
                            + " factorization-machine (default: ${DEFAULT-VALUE}).")
    String algorithm;

    @Option(
            names = "--epochs",
            paramLabel = "N",
            defaultValue = "10",
            description = "Passes over the training windows (default: ${DEFAULT-VALUE}).")
    int epochs;

    @Option(
            names = "--validation-fraction",
            paramLabel = "F",
            defaultValue = "0.2",
            description = "Share of users for model selection (default: ${DEFAULT-VALUE}).")
    double validationFraction;

    @Option(
            names = "--holdout-fraction",
            paramLabel = "F",
            defaultValue = "0.2",
            description =
                    "Share of users for the model card's measurements (default: ${DEFAULT-VALUE}).")
    double holdoutFraction;

    @Option(
            names = "--model-name",
            paramLabel = "NAME",
            defaultValue = "fraud-window",
            description = "Model name in the metadata (default: ${DEFAULT-VALUE}).")
    String modelName;

    @Option(
            names = "--model-version",
            paramLabel = "V",
            description =
                    "Model version in the metadata (default: last day of the training period and"
                            + " the first 8 hex digits of the features file's SHA-256, e.g."
                            + " 2026-11-29-3fa2b9c1).")
    String modelVersion;

    @Option(
            names = DecisionThresholds.REVIEW_OPTION,
            paramLabel = "P",
            defaultValue = "" + DecisionThresholds.DEFAULT_REVIEW,
            description =
                    "Scores from here are REVIEW; the card reports precision and recall here"
                            + " (default: ${DEFAULT-VALUE}).")
    double reviewThreshold;

    @Option(
            names = DecisionThresholds.BLOCK_OPTION,
            paramLabel = "P",
            defaultValue = "" + DecisionThresholds.DEFAULT_BLOCK,
            description =
                    "Scores from here are BLOCK; the card reports precision and recall here"
                            + " (default: ${DEFAULT-VALUE}).")
    double blockThreshold;

    @Option(
            names = "--feature-semantics",
            paramLabel = "ideal|as-served|as-of-arrival",
            defaultValue = "ideal",
            description =
                    "What the features file holds, as exported by ./fraud features --semantics;"
                            + " stated in the model card (default: ${DEFAULT-VALUE}; with"
                            + " --per-transaction: as-of-arrival).")
    String featureSemantics;

    @Option(
            names = "--per-transaction",
            description =
                    "Train the per-transaction model on ./fraud features --per-transaction rows"
                            + " (model name default: "
                            + TRANSACTION_MODEL_NAME
                            + ").")
    boolean perTransaction;

    @Option(
            names = "--ideal-features",
            paramLabel = "FILE",
            description =
                    "Ideal features of the same data (./fraud features --semantics ideal): the same"
                            + " training on them is measured on the --features of the holdout"
                            + " users and reported in the card.")
    Path idealFeatures;

    @Option(
            names = "--reproduce",
            paramLabel = "TEXT",
            description =
                    "The command that rebuilds this model, for the card (default: this train"
                            + " command).")
    String reproduce;

    /** The default model name of a per-transaction model. */
    public static final String TRANSACTION_MODEL_NAME = "fraud-transaction";

    private boolean asServed() {
        boolean given = spec.commandLine().getParseResult().hasMatchedOption("--feature-semantics");
        if (perTransaction) {
            return switch (given ? featureSemantics : "as-of-arrival") {
                case "ideal" -> false;
                case "as-of-arrival" -> true;
                default ->
                        throw new ParameterException(
                                spec.commandLine(),
                                "--feature-semantics of per-transaction features must be"
                                        + " as-of-arrival or ideal, got "
                                        + featureSemantics);
            };
        }
        return switch (featureSemantics) {
            case "ideal" -> false;
            case "as-served" -> true;
            default ->
                    throw new ParameterException(
                            spec.commandLine(),
                            "--feature-semantics must be ideal or as-served, got "
                                    + featureSemantics
                                    + (featureSemantics.equals("as-of-arrival")
                                            ? " (as-of-arrival is for --per-transaction)"
                                            : ""));
        };
    }

    private TrainingSet read(Path file) throws IOException {
        return perTransaction
                ? TrainingSet.ofTransactions(
                        FeatureLayout.TRANSACTION_V1, LabelledTransactionsJson.readAll(file))
                : TrainingSet.of(FeatureLayout.V1, LabelledFeaturesJson.readAll(file));
    }

    @Override
    public Integer call() throws IOException {
        boolean asServed = asServed(); // a usage error (exit 2) before any work
        QUIET.forEach(l -> l.setLevel(Level.WARNING));
        if (!Files.isReadable(features) || Files.isDirectory(features)) {
            throw usage("--features " + features + " does not exist or is not a readable file");
        }
        if (idealFeatures != null
                && (!Files.isReadable(idealFeatures) || Files.isDirectory(idealFeatures))) {
            throw usage(
                    "--ideal-features "
                            + idealFeatures
                            + " does not exist or is not a readable file");
        }
        String name =
                perTransaction
                                && !spec.commandLine()
                                        .getParseResult()
                                        .hasMatchedOption("--model-name")
                        ? TRANSACTION_MODEL_NAME
                        : modelName;
        DecisionThresholds thresholds;
        List<Trainer.Algorithm> candidates;
        try {
            thresholds = new DecisionThresholds(reviewThreshold, blockThreshold);
            candidates =
                    algorithm.equals("auto")
                            ? List.of(Trainer.Algorithm.values())
                            : List.of(Trainer.Algorithm.fromId(algorithm));
        } catch (IllegalArgumentException e) {
            throw usage(e.getMessage());
        }

        byte[] featureBytes = Files.readAllBytes(features);
        String featuresSha = sha256(featureBytes);
        TrainingSet set;
        try {
            set = read(features);
        } catch (FeatureFileException | IllegalArgumentException e) {
            return fail(e.getMessage());
        }
        String version =
                modelVersion != null
                        ? modelVersion
                        : LocalDate.ofInstant(set.periodEnd().minusMillis(1), ZoneOffset.UTC)
                                + "-"
                                + featuresSha.substring(0, 8);
        Trainer.Config config;
        try {
            config =
                    new Trainer.Config(
                            seed,
                            epochs,
                            validationFraction,
                            holdoutFraction,
                            candidates,
                            name,
                            version,
                            thresholds);
        } catch (IllegalArgumentException e) {
            throw usage(e.getMessage());
        }

        TrainingResult result;
        try {
            result = Trainer.train(set, config);
        } catch (IllegalArgumentException | IllegalStateException e) {
            return fail(e.getMessage());
        }

        SkewCost skew = null;
        if (idealFeatures != null) {
            byte[] idealBytes = Files.readAllBytes(idealFeatures);
            try {
                skew =
                        SkewCost.measure(
                                result,
                                read(idealFeatures),
                                idealFeatures.getFileName().toString(),
                                sha256(idealBytes));
            } catch (FeatureFileException | IllegalArgumentException | IllegalStateException e) {
                return fail("--ideal-features: " + e.getMessage());
            }
        }

        String command =
                reproduce != null
                        ? reproduce
                        : "./fraud "
                                + String.join(
                                        " ", spec.commandLine().getParseResult().originalArgs());
        ModelCard.Context context =
                new ModelCard.Context(
                        MODEL_FILE,
                        sha256(result.onnx()),
                        features.getFileName().toString(),
                        featuresSha,
                        command,
                        asServed,
                        skew);
        Files.createDirectories(out);
        writeAtomically(out.resolve(MODEL_FILE), result.onnx());
        writeAtomically(
                out.resolve(CARD_FILE),
                ModelCard.markdown(result, context).getBytes(StandardCharsets.UTF_8));

        Metrics.AtThreshold review = result.at(thresholds.review());
        Metrics.AtThreshold block = result.at(thresholds.block());
        PrintWriter stdout = spec.commandLine().getOut();
        stdout.printf(
                Locale.ROOT,
                "trained %s %s (%s) on %d %s of %d users (%d fraudulent)%n"
                        + "  holdout ROC AUC %.4f; precision/recall %.3f/%.3f at review %s,"
                        + " %.3f/%.3f at block %s%n"
                        + "  wrote %s (%d bytes, sha256 %s) and %s%n",
                name,
                version,
                result.algorithm().id(),
                set.size(),
                set.unit().plural(),
                set.users(),
                set.fraudulent(),
                result.holdoutAuc(),
                review.precision(),
                review.recall(),
                thresholds.review(),
                block.precision(),
                block.recall(),
                thresholds.block(),
                out.resolve(MODEL_FILE),
                result.onnx().length,
                context.modelSha256(),
                out.resolve(CARD_FILE));
        if (skew != null) {
            stdout.printf(
                    Locale.ROOT,
                    "  the same training on ideal features (%s): holdout ROC AUC %.4f on ideal,"
                            + " %.4f on the served features (%d of %d holdout %s differ)%n",
                    idealFeatures,
                    skew.ideal().holdoutAuc(),
                    skew.idealOnServed().auc(),
                    skew.differingHoldoutRows(),
                    skew.holdoutRows(),
                    set.unit().plural());
        }
        stdout.flush();
        return 0;
    }

    private int fail(String message) {
        spec.commandLine().getErr().println("fraud train: " + message);
        return 1;
    }

    private ParameterException usage(String message) {
        return new ParameterException(spec.commandLine(), message);
    }

    static String sha256(byte[] bytes) {
        try {
            return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(bytes));
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("every JVM has SHA-256", e);
        }
    }

    private static void writeAtomically(Path target, byte[] bytes) throws IOException {
        // Not Files.createTempFile: that file is private (0600) and the model must stay readable
        // by whoever serves it; a plain write follows the umask like any other output.
        Path tmp =
                target.resolveSibling(
                        "." + target.getFileName() + ".tmp-" + ProcessHandle.current().pid());
        try {
            Files.write(tmp, bytes);
            Files.move(
                    tmp,
                    target,
                    StandardCopyOption.REPLACE_EXISTING,
                    StandardCopyOption.ATOMIC_MOVE);
        } finally {
            Files.deleteIfExists(tmp);
        }
    }
}
