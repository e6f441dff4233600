package org.fraudpipe.tools.cli;

import java.io.PrintWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.LocalDate;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.Callable;
import org.fraudpipe.job.cli.DateConverter;
import org.fraudpipe.job.cli.JobOptions;
import org.fraudpipe.job.cli.ProgressLine;
import org.fraudpipe.job.config.Durations;
import org.fraudpipe.job.config.JobConfig;
import org.fraudpipe.job.config.JobOption;
import org.fraudpipe.job.io.AtomicFiles;
import org.fraudpipe.parity.ParityPeriod;
import org.fraudpipe.parity.cli.ArchiveDays;
import org.fraudpipe.parity.input.ParityInputException;
import org.fraudpipe.parity.transaction.ArchivedTransactionRows;
import org.fraudpipe.scoring.data.LabelledTransaction;
import org.fraudpipe.scoring.data.LabelledTransactionsJson;
import org.fraudpipe.tools.export.AsServedFeatureExport;
import org.fraudpipe.tools.export.FeatureSemantics;
import org.fraudpipe.tools.export.TrainingFeatureExport;
import org.fraudpipe.tools.export.TransactionFeatureExport;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;

/**
 * {@code ./fraud features}: labelled training features from a simulation, the input of {@code
 * ./fraud train}; {@code --semantics ideal} ({@link TrainingFeatureExport}, the default) or {@code
 * as-served} ({@link AsServedFeatureExport}); per transaction from a simulation ({@link
 * TransactionFeatureExport}) or from the job's archive ({@link ArchivedTransactionRows}: as served
 * or ideal, as the parity check judges them).
 *
 * <p>The streaming options are the job's ({@link JobOption}: names, descriptions, defaults and
 * validation through {@link JobConfig}), plus {@code --window} as an alias of {@code
 * --window-size}. {@code --allowed-lateness} and {@code --out-of-orderness} only mean something for
 * as-served features; with {@code ideal} they are usage errors rather than silently ignored. Exit
 * codes: 0 done, 1 failure while running (I/O, labels that do not match the transactions, a failed
 * replay), 2 bad usage (the message names the option).
 */
@Command(
        name = "features",
        mixinStandardHelpOptions = true,
        sortOptions = false,
        usageHelpAutoWidth = true,
        description = {
            "Compute labelled training features from a simulation, each (user, window) labelled"
                    + " fraudulent iff it contains a fraudulent transaction, with the feature job's"
                    + " own feature code (duplicates counted once).",
            "--semantics ideal (default): the features of every (user, window) over all valid"
                    + " transactions at their event time, however late they arrived, future-dated"
                    + " ones included (the batch parity check's ideal value).",
            "--semantics as-served: what the streaming job serves for the same file: its topology"
                    + " replayed over it (./fraud replay, in a temporary directory next to --out)"
                    + " with the lateness options below, the last revision of each window. Windows"
                    + " the stream never served (all records too late or quarantined) are absent.",
            "Writes JSON Lines: a FeatureRecord per window (as ./fraud replay writes them) plus"
                    + " \"fraud\": true|false, sorted by user and window start.",
            "--per-transaction: one row per transaction the job scores instead (first arrival of"
                    + " each valid, not future-dated id), its features over its user's"
                    + " transactions with event time in (t - T, t], T = --trailing-window, labelled"
                    + " with the simulator's label of its id: --semantics as-of-arrival (default"
                    + " here: what had arrived up to it, what the job computes when it scores it)"
                    + " or ideal (every transaction of that window, however late it arrived)."
                    + " A TransactionFeatures per line plus \"fraud\".",
            "--per-transaction --archive ROOT --date D (or --from/--to) --labels FILE: from the"
                    + " job's archive instead of a simulation, so a bank trains on what it served:"
                    + " --semantics as-served (default here: the features each transaction was"
                    + " scored with) or ideal (the parity check's recomputation over every"
                    + " archived transaction of its trailing window). The event-time policy is the"
                    + " one the job recorded in the archive; the labels are JSON Lines with"
                    + " transactionId, userId and fraud.",
        },
        footer = {
            "",
            "Example:",
            "  ./fraud simulate --users 500 --duration 1d --fraud-share 0.05 --out tx.jsonl",
            "  ./fraud features --transactions tx.jsonl --out features.jsonl",
            "  ./fraud features --transactions tx.jsonl --semantics as-served --out s.jsonl",
            "  ./fraud train --features features.jsonl --out model",
            "  ./fraud features --transactions tx.jsonl --per-transaction --out t.jsonl",
            "  ./fraud train --features tx-features.jsonl --out tx-model --per-transaction",
        })
public final class FeaturesCommand implements Callable<Integer> {

    /** The job options that decide what the stream serves, in the order of the help. */
    static final List<JobOption> OPTIONS =
            List.of(
                    JobOption.WINDOW_SIZE,
                    JobOption.ALLOWED_LATENESS,
                    JobOption.OUT_OF_ORDERNESS,
                    JobOption.FUTURE_TOLERANCE,
                    JobOption.TRAILING_WINDOW);

    /** Only with {@code --per-transaction}. */
    static final List<JobOption> PER_TRANSACTION_ONLY = List.of(JobOption.TRAILING_WINDOW);

    /** Options that change nothing in ideal features: refused with {@code --semantics ideal}. */
    static final List<JobOption> AS_SERVED_ONLY =
            List.of(JobOption.ALLOWED_LATENESS, JobOption.OUT_OF_ORDERNESS);

    @Spec CommandSpec spec;

    /** Stages and lines read, on a terminal only (created when the command runs). */
    private ProgressLine progress = ProgressLine.off();

    // Required unless --archive: checked in config() with it.
    @Option(
            names = "--transactions",
            paramLabel = "FILE",
            description =
                    "Transactions in the replay format (./fraud simulate --out). Required unless"
                            + " --archive.")
    Path transactions;

    @Option(
            names = "--archive",
            paramLabel = "ROOT",
            description =
                    "With --per-transaction: the job's archive (its --archive-dir, or a replay's"
                            + " --archive) instead of --transactions: what the job served and"
                            + " received, with --date or --from/--to, as ./fraud parity reads it."
                            + " Any Flink file system URI.")
    String archive;

    @Option(
            names = "--date",
            paramLabel = DateConverter.FORM,
            converter = DateConverter.class,
            description = "With --archive: the UTC day whose transactions to export.")
    LocalDate date;

    @Option(
            names = "--from",
            paramLabel = DateConverter.FORM,
            converter = DateConverter.class,
            description = "With --archive: first UTC day (inclusive), with --to.")
    LocalDate from;

    @Option(
            names = "--to",
            paramLabel = DateConverter.FORM,
            converter = DateConverter.class,
            description = "With --archive: last UTC day (inclusive), with --from.")
    LocalDate to;

    @Option(
            names = "--labels",
            paramLabel = "FILE",
            description =
                    "The labels file (default: <transactions>.labels.jsonl); required with"
                            + " --archive: JSON Lines with transactionId, userId and fraud per"
                            + " transaction, e.g. the simulator's.")
    Path labels;

    @Option(
            names = "--out",
            paramLabel = "FILE",
            required = true,
            description = "Where to write the labelled features (replaced if it exists).")
    Path out;

    @Option(
            names = "--semantics",
            paramLabel = "ideal|as-served|as-of-arrival",
            defaultValue = "ideal",
            converter = SemanticsConverter.class,
            description =
                    "ideal: over every valid transaction; as-served: what the streaming job serves,"
                            + " last revision per window (default: ${DEFAULT-VALUE}); with"
                            + " --per-transaction: as-of-arrival (its default) or ideal.")
    FeatureSemantics semantics;

    @Option(
            names = "--per-transaction",
            description =
                    "One row per transaction the job scores at arrival, not per window (the"
                            + " per-transaction model's training data).")
    boolean perTransaction;

    /** The command line of {@code ./fraud features}, with the job's streaming options added. */
    public static CommandLine commandLine() {
        CommandLine cl = new CommandLine(new FeaturesCommand());
        JobOptions.addSome(
                cl.getCommandSpec(),
                OPTIONS,
                ReplayCommand.WINDOW_ALIAS,
                Map.of(
                        JobOption.ALLOWED_LATENESS, "Only with --semantics as-served.",
                        JobOption.OUT_OF_ORDERNESS, "Only with --semantics as-served.",
                        JobOption.FUTURE_TOLERANCE,
                                "Ideal features count them all the same; the summary says how"
                                        + " many.",
                        JobOption.TRAILING_WINDOW, "Only with --per-transaction."),
                Map.of());
        return cl;
    }

    @Override
    public Integer call() throws Exception {
        if (archive != null) {
            Duration trailing = archiveConfig();
            progress = ProgressLine.forCommand("features");
            try {
                return perTransactionFromArchive(trailing);
            } catch (IllegalArgumentException e) {
                progress.close();
                return fail(e.getMessage());
            } finally {
                progress.close();
            }
        }
        JobConfig job = config();
        Path labelsPath = labelsPath();
        progress = ProgressLine.forCommand("features");
        try {
            if (perTransaction) {
                return perTransaction(job, labelsPath);
            }
            return switch (semantics) {
                case IDEAL -> ideal(job, labelsPath);
                case AS_SERVED -> asServed(job, labelsPath);
                case AS_OF_ARRIVAL ->
                        throw new IllegalStateException("refused by config()"); // never
            };
        } catch (IllegalArgumentException e) {
            progress.close();
            return fail(e.getMessage());
        } finally {
            progress.close();
        }
    }

    /**
     * The options of an export from the archive: {@code --per-transaction}, a period, labels; the
     * event-time policy is the one the job recorded in the archive, so the policy options are
     * refused; {@code --trailing-window} (else the recorded window size). A {@link
     * ParameterException} (exit code 2) if not.
     *
     * @return the trailing window given, or null
     */
    Duration archiveConfig() {
        if (transactions != null) {
            throw usage("give either --archive or --transactions, not both");
        }
        if (!perTransaction) {
            throw usage(
                    "--archive exports per-transaction features: add --per-transaction (the"
                            + " window features of an archive are judged by ./fraud parity)");
        }
        if (labels == null) {
            throw usage(
                    "--archive needs --labels FILE: the archive holds no fraud labels (JSON Lines"
                            + " with transactionId, userId and fraud per transaction)");
        }
        if (!Files.isReadable(labels)) {
            throw usage("--labels " + labels + " does not exist or is not readable");
        }
        if (Files.isDirectory(out)) {
            throw usage("--out " + out + " is a directory; give the file to write");
        }
        days().check(this::usage);
        if (date == null && (from == null || to == null)) {
            throw usage("--archive needs --date " + DateConverter.FORM + " or --from/--to");
        }
        boolean semanticsGiven =
                spec.commandLine().getParseResult().hasMatchedOption("--semantics");
        if (!semanticsGiven) {
            semantics = FeatureSemantics.AS_SERVED;
        }
        if (semantics == FeatureSemantics.AS_OF_ARRIVAL) {
            throw usage(
                    "with --archive the features are what the job served: --semantics as-served"
                            + " (the default here) or ideal");
        }
        Map<String, String> values = JobOptions.given(spec.commandLine().getParseResult(), OPTIONS);
        for (JobOption o : OPTIONS) {
            if (o != JobOption.TRAILING_WINDOW && values.containsKey(o.key())) {
                throw usage(
                        o.flag()
                                + " does not apply to --archive: the job recorded its event-time"
                                + " policy there, and it is used");
            }
        }
        String trailing = values.get(JobOption.TRAILING_WINDOW.key());
        try {
            return trailing == null || trailing.isEmpty() ? null : Durations.parse(trailing);
        } catch (IllegalArgumentException e) {
            throw usage(JobOption.TRAILING_WINDOW.flag() + ": " + e.getMessage());
        }
    }

    /** The validated streaming options; a {@link ParameterException} (exit code 2) if not. */
    JobConfig config() {
        if (transactions == null) {
            throw usage("give --transactions FILE (or, with --per-transaction, --archive ROOT)");
        }
        if (days().given()) {
            throw usage("--date, --from and --to go with --archive");
        }
        if (!Files.isRegularFile(transactions) || !Files.isReadable(transactions)) {
            throw usage(
                    "--transactions "
                            + transactions
                            + (Files.isDirectory(transactions)
                                    ? " is a directory; give the JSON Lines file"
                                    : " does not exist or is not a readable file"));
        }
        if (Files.isDirectory(out)) {
            throw usage("--out " + out + " is a directory; give the file to write");
        }
        Map<String, String> values = JobOptions.given(spec.commandLine().getParseResult(), OPTIONS);
        boolean semanticsGiven =
                spec.commandLine().getParseResult().hasMatchedOption("--semantics");
        if (perTransaction) {
            if (!semanticsGiven) {
                semantics = FeatureSemantics.AS_OF_ARRIVAL;
            }
            if (semantics == FeatureSemantics.AS_SERVED) {
                throw usage(
                        "--semantics as-served is per window; per transaction the job serves"
                                + " as-of-arrival features: use --semantics as-of-arrival (the"
                                + " default) or ideal");
            }
        } else {
            if (semantics == FeatureSemantics.AS_OF_ARRIVAL) {
                throw usage("--semantics as-of-arrival is per transaction: add --per-transaction");
            }
            for (JobOption o : PER_TRANSACTION_ONLY) {
                if (values.containsKey(o.key())) {
                    throw usage(o.flag() + " only applies to --per-transaction");
                }
            }
        }
        if (semantics != FeatureSemantics.AS_SERVED) {
            for (JobOption o : AS_SERVED_ONLY) {
                if (values.containsKey(o.key())) {
                    throw usage(
                            o.flag()
                                    + " only applies to --semantics as-served"
                                    + (semantics == FeatureSemantics.IDEAL
                                            ? ": ideal features count every valid transaction,"
                                                    + " however late"
                                            : ": as-of-arrival features count what had arrived,"
                                                    + " whatever the lateness policy"));
                }
            }
        }
        // As-served runs the replay: its state backend, not the job's.
        values.put(JobOption.STATE_BACKEND.key(), ReplayCommand.DEFAULT_STATE_BACKEND);
        try {
            return JobConfig.of(values);
        } catch (IllegalArgumentException e) {
            throw usage(e.getMessage());
        }
    }

    private Path labelsPath() {
        Path path =
                labels != null
                        ? labels
                        : transactions.resolveSibling(transactions.getFileName() + ".labels.jsonl");
        if (!Files.isReadable(path)) {
            throw usage(
                    "--labels "
                            + path
                            + " does not exist or is not readable"
                            + (labels == null ? " (the default next to --transactions)" : ""));
        }
        return path;
    }

    private int ideal(JobConfig job, Path labelsPath) throws Exception {
        TrainingFeatureExport.Result result =
                new TrainingFeatureExport(job.windowSize(), job.futureTolerance())
                        .compute(transactions, labelsPath, progress);
        progress.stage("writing " + out.getFileName());
        TrainingFeatureExport.write(result.windows(), out);
        progress.close();
        TrainingFeatureExport.Summary s = result.summary();
        PrintWriter stdout = spec.commandLine().getOut();
        wrote(stdout, s.windows(), s.users(), s.fraudulentWindows(), job);
        stdout.printf(
                Locale.ROOT,
                "  from %s: %d lines, %d not valid transactions left out; %d future-dated"
                        + " counted (the stream quarantines them at future-tolerance %s)%n",
                transactions,
                s.lines(),
                s.invalidLines(),
                s.futureDated(),
                Durations.format(job.futureTolerance()));
        stdout.flush();
        return 0;
    }

    private int asServed(JobConfig job, Path labelsPath) throws Exception {
        AsServedFeatureExport.Result result;
        Path work = out.toAbsolutePath().getParent();
        try {
            result =
                    new AsServedFeatureExport(job)
                            .compute(transactions, labelsPath, work, progress);
        } catch (IllegalArgumentException e) {
            throw e; // the labels do not match: reported by call()
        } catch (Exception e) {
            progress.close();
            return fail("as-served features of " + transactions + " failed: " + rootMessage(e));
        }
        progress.stage("writing " + out.getFileName());
        TrainingFeatureExport.write(result.windows(), out);
        progress.close();
        AsServedFeatureExport.Summary s = result.summary();
        TrainingFeatureExport.Summary ideal = s.ideal();
        PrintWriter stdout = spec.commandLine().getOut();
        wrote(stdout, s.windows(), s.users(), s.fraudulentWindows(), job);
        stdout.printf(
                Locale.ROOT,
                "  from %s: %d lines, %d not valid transactions left out%n"
                        + "  streamed with allowed-lateness=%s, out-of-orderness=%s,"
                        + " future-tolerance=%s: %d quarantined, %d too late; each window's last"
                        + " served revision%n"
                        + "  vs ideal (%d windows, %d fraudulent): %d never served (absent here, %d"
                        + " of them fraudulent), %d served with features that differ from ideal%n",
                transactions,
                ideal.lines(),
                ideal.invalidLines(),
                Durations.format(job.allowedLateness()),
                Durations.format(job.outOfOrderness()),
                Durations.format(job.futureTolerance()),
                s.quarantined(),
                s.tooLate(),
                ideal.windows(),
                ideal.fraudulentWindows(),
                s.absent(),
                s.absentFraudulent(),
                s.differing());
        stdout.flush();
        return 0;
    }

    private int perTransaction(JobConfig job, Path labelsPath) throws Exception {
        TransactionFeatureExport.Result result =
                new TransactionFeatureExport(job.trailingWindow(), job.futureTolerance(), semantics)
                        .compute(transactions, labelsPath);
        TransactionFeatureExport.write(result.rows(), out);
        TransactionFeatureExport.Summary s = result.summary();
        PrintWriter stdout = spec.commandLine().getOut();
        stdout.printf(
                Locale.ROOT,
                "wrote %s: %d transactions of %d users, %d fraudulent (%.2f %%), trailing window"
                        + " %s, semantics %s%n"
                        + "  from %s: %d lines, %d not valid transactions left out, %d retries"
                        + " (the job answers them with their original's values: no rows), %d"
                        + " future-dated (never scored: no rows%s)%n"
                        + "  %d transactions have as-of-arrival features that differ from ideal"
                        + " (records of their trailing window arrived after them)%n",
                out,
                s.transactions(),
                s.users(),
                s.fraudulent(),
                s.transactions() == 0 ? 0.0 : 100.0 * s.fraudulent() / s.transactions(),
                Durations.format(job.trailingWindow()),
                semantics.optionValue(),
                transactions,
                s.lines(),
                s.invalidLines(),
                s.retries(),
                s.futureDated(),
                semantics == FeatureSemantics.IDEAL ? "; counted in the others' history" : "",
                s.differingFromIdeal());
        stdout.flush();
        return 0;
    }

    /** {@code --per-transaction --archive}: rows as served or ideal, from the archive. */
    private int perTransactionFromArchive(Duration trailing) throws Exception {
        ParityPeriod period = days().period();
        String periodLabel = days().label(ParityPeriod.UNBOUNDED.toString());
        ArchivedTransactionRows.Plan plan;
        try {
            plan =
                    ArchivedTransactionRows.plan(
                            archive, period, trailing, ARRIVAL_HORIZON, labels.toString());
        } catch (ParityInputException e) {
            PrintWriter err = spec.commandLine().getErr();
            err.println("fraud features: " + e.getMessage());
            err.flush();
            return 2;
        }
        ArchivedTransactionRows.Semantics rows =
                semantics == FeatureSemantics.IDEAL
                        ? ArchivedTransactionRows.Semantics.IDEAL
                        : ArchivedTransactionRows.Semantics.AS_SERVED;
        progress.stage("judging the transactions of " + periodLabel + " in " + archive);
        ArchivedTransactionRows.Counts[] counts = new ArchivedTransactionRows.Counts[1];
        try {
            AtomicFiles.write(
                    out,
                    w -> {
                        try {
                            counts[0] =
                                    ArchivedTransactionRows.run(
                                            plan,
                                            rows,
                                            0,
                                            row -> {
                                                if (!row.labelled) {
                                                    throw new IllegalArgumentException(
                                                            "transaction "
                                                                    + row.features
                                                                            .getTransactionId()
                                                                    + " of user "
                                                                    + row.features.getUserId()
                                                                    + " has no label in "
                                                                    + labels
                                                                    + ": are the labels those of"
                                                                    + " this archive?");
                                                }
                                                w.write(
                                                        LabelledTransactionsJson.toJsonLine(
                                                                new LabelledTransaction(
                                                                        row.features, row.fraud)));
                                                w.write('\n');
                                            });
                        } catch (java.io.IOException | RuntimeException e) {
                            throw e;
                        } catch (Exception e) {
                            throw new java.io.IOException(e);
                        }
                    });
        } catch (IllegalArgumentException e) {
            throw e; // labels that do not match: reported by call()
        } catch (Exception e) {
            progress.close();
            return fail("per-transaction features of " + archive + " failed: " + rootMessage(e));
        }
        progress.close();
        ArchivedTransactionRows.Counts c = counts[0];
        PrintWriter stdout = spec.commandLine().getOut();
        stdout.printf(
                Locale.ROOT,
                "wrote %s: %d transactions of %d users, %d fraudulent (%.2f %%), trailing window"
                        + " %s, semantics %s%n"
                        + "  from the archive %s, %s (policy %s): %d transactions judged as by"
                        + " ./fraud parity%n"
                        + "  %s%n"
                        + "%s",
                out,
                c.rows(),
                c.users(),
                c.fraudulent(),
                c.rows() == 0 ? 0.0 : 100.0 * c.fraudulent() / c.rows(),
                Durations.format(plan.trailing()),
                semantics.optionValue(),
                archive,
                periodLabel,
                plan.policy().source(),
                c.judged(),
                rows == ArchivedTransactionRows.Semantics.AS_SERVED
                        ? c.neverScored()
                                + " never scored (no row), "
                                + c.differing()
                                + " served with features that differ from ideal"
                        : c.differing() + " whose served features differ from these ideal ones",
                c.alarms() == 0
                        ? ""
                        : "  "
                                + c.alarms()
                                + " transaction(s) with a parity alarm "
                                + c.byCause()
                                + ": ./fraud parity --archive "
                                + archive
                                + " explains them\n");
        stdout.flush();
        return 0;
    }

    /** How long after the period records are read to bound the watermark (parity's default). */
    private static final Duration ARRIVAL_HORIZON = Duration.ofDays(1);

    private void wrote(
            PrintWriter stdout, long windows, long users, long fraudulent, JobConfig job) {
        stdout.printf(
                Locale.ROOT,
                "wrote %s: %d windows of %d users, %d fraudulent (%.2f %%), window %s, semantics"
                        + " %s%n",
                out,
                windows,
                users,
                fraudulent,
                windows == 0 ? 0.0 : 100.0 * fraudulent / windows,
                job.windowSize(),
                semantics.optionValue());
    }

    private int fail(String message) {
        PrintWriter err = spec.commandLine().getErr();
        err.println("fraud features: " + message);
        err.flush();
        return 1;
    }

    private ArchiveDays days() {
        return new ArchiveDays(date, from, to);
    }

    private ParameterException usage(String message) {
        return new ParameterException(spec.commandLine(), message);
    }

    private static String rootMessage(Throwable e) {
        Throwable root = e;
        while (root.getCause() != null && root.getCause() != root) {
            root = root.getCause();
        }
        return root == e ? e.toString() : e.getMessage() + " (cause: " + root + ")";
    }

    /** Picocli's view of {@link FeatureSemantics#parse}. */
    static final class SemanticsConverter implements CommandLine.ITypeConverter<FeatureSemantics> {
        @Override
        public FeatureSemantics convert(String value) {
            try {
                return FeatureSemantics.parse(value);
            } catch (IllegalArgumentException e) {
                throw new CommandLine.TypeConversionException(e.getMessage());
            }
        }
    }
}
