package org.fraudpipe.job.cli;

import java.io.PrintWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Locale;
import java.util.concurrent.Callable;
import org.fraudpipe.job.config.Durations;
import org.fraudpipe.job.export.TrainingFeatureExport;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;

/**
 * {@code ./fraud features}: labelled training features from a simulation ({@link
 * TrainingFeatureExport}), the input of {@code ./fraud train}. Exit codes: 0 done, 1 failure while
 * running (I/O, labels that do not match the transactions), 2 bad usage (the message names the
 * option).
 */
@Command(
        name = "features",
        mixinStandardHelpOptions = true,
        sortOptions = false,
        usageHelpAutoWidth = true,
        description = {
            "Compute labelled training features from a simulation: the ideal features of every"
                    + " (user, window) over all valid, not future-dated transactions (the feature"
                    + " job's own feature code, duplicates counted once), each labelled fraudulent"
                    + " iff it contains a fraudulent transaction.",
            "Writes JSON Lines: a FeatureRecord per window (as ./fraud replay writes them) plus"
                    + " \"fraud\": true|false, sorted by user and window start.",
        },
        footer = {
            "",
            "Example:",
            "  ./fraud simulate --users 500 --duration 1d --fraud-share 0.05 --out tx.jsonl",
            "  ./fraud features --transactions tx.jsonl --out features.jsonl",
            "  ./fraud train --features features.jsonl --out model",
        })
public final class FeaturesCommand implements Callable<Integer> {

    @Spec CommandSpec spec;

    @Option(
            names = "--transactions",
            paramLabel = "FILE",
            required = true,
            description = "Transactions in the replay format (./fraud simulate --out).")
    Path transactions;

    @Option(
            names = "--labels",
            paramLabel = "FILE",
            description = "The simulation's labels file (default: <transactions>.labels.jsonl).")
    Path labels;

    @Option(
            names = "--out",
            paramLabel = "FILE",
            required = true,
            description = "Where to write the labelled features (replaced if it exists).")
    Path out;

    @Option(
            names = {"--window", "--window-size"},
            paramLabel = "D",
            defaultValue = "10m",
            converter = DurationConverter.class,
            description =
                    "Tumbling window size, as the job's --window-size: "
                            + Durations.ACCEPTED
                            + " (default: ${DEFAULT-VALUE}).")
    Duration window;

    @Option(
            names = "--future-tolerance",
            paramLabel = "D",
            defaultValue = "5m",
            converter = DurationConverter.class,
            description =
                    "Transactions dated beyond their arrival plus this are left out, as the job"
                            + " quarantines them (default: ${DEFAULT-VALUE}).")
    Duration futureTolerance;

    @Override
    public Integer call() throws Exception {
        if (!Files.isReadable(transactions)) {
            throw usage("--transactions " + transactions + " does not exist or is not readable");
        }
        Path labelsPath =
                labels != null
                        ? labels
                        : transactions.resolveSibling(transactions.getFileName() + ".labels.jsonl");
        if (!Files.isReadable(labelsPath)) {
            throw usage(
                    "--labels "
                            + labelsPath
                            + " does not exist or is not readable"
                            + (labels == null ? " (the default next to --transactions)" : ""));
        }
        if (window.isZero() || window.isNegative()) {
            throw usage("--window must be positive, got " + window);
        }
        if (futureTolerance.isNegative()) {
            throw usage("--future-tolerance must not be negative, got " + futureTolerance);
        }
        TrainingFeatureExport export = new TrainingFeatureExport(window, futureTolerance);
        TrainingFeatureExport.Result result;
        try {
            result = export.compute(transactions, labelsPath);
        } catch (IllegalArgumentException e) {
            spec.commandLine().getErr().println("fraud features: " + e.getMessage());
            return 1;
        }
        TrainingFeatureExport.write(result.windows(), out);
        TrainingFeatureExport.Summary s = result.summary();
        PrintWriter stdout = spec.commandLine().getOut();
        stdout.printf(
                Locale.ROOT,
                "wrote %s: %d windows of %d users, %d fraudulent (%.2f %%), window %s%n"
                        + "  from %s: %d lines, %d not valid transactions and %d future-dated"
                        + " left out%n",
                out,
                s.windows(),
                s.users(),
                s.fraudulentWindows(),
                s.windows() == 0 ? 0.0 : 100.0 * s.fraudulentWindows() / s.windows(),
                window,
                transactions,
                s.lines(),
                s.invalidLines(),
                s.futureDated());
        stdout.flush();
        return 0;
    }

    private ParameterException usage(String message) {
        return new ParameterException(spec.commandLine(), message);
    }
}
