package org.fraudpipe.parity.cli;

import java.io.PrintWriter;
import java.nio.file.Path;
import java.time.Duration;
import java.time.LocalDate;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import org.fraudpipe.job.cli.CommandLines;
import org.fraudpipe.job.cli.DateConverter;
import org.fraudpipe.job.cli.DurationConverter;
import org.fraudpipe.job.cli.ProgressLine;
import org.fraudpipe.job.config.JobOption;
import org.fraudpipe.job.features.WindowAssignment;
import org.fraudpipe.job.position.ReadPositions;
import org.fraudpipe.job.scoring.OnnxPaneScorer;
import org.fraudpipe.job.scoring.release.ModelReleases;
import org.fraudpipe.job.transaction.OnnxTransactionScorer;
import org.fraudpipe.parity.ParityPeriod;
import org.fraudpipe.parity.ParityRun;
import org.fraudpipe.parity.TransactionCheck;
import org.fraudpipe.parity.input.InputResolver;
import org.fraudpipe.parity.input.KafkaServed;
import org.fraudpipe.parity.input.ParityInputException;
import org.fraudpipe.parity.input.PolicyResolver;
import org.fraudpipe.parity.input.ReadPositionsReader;
import org.fraudpipe.parity.input.StreamInput;
import org.fraudpipe.parity.report.ParityReport;
import org.fraudpipe.parity.report.ParityThresholds;
import org.fraudpipe.parity.report.ReportFiles;
import org.fraudpipe.parity.report.SummaryLine;
import org.fraudpipe.schemas.Topic;
import org.fraudpipe.schemas.archive.ArchiveStream;
import org.fraudpipe.schemas.security.ClientProperties;
import org.fraudpipe.scoring.DecisionThresholds;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/**
 * {@code ./fraud parity}: the nightly training-serving parity check. Exit codes, for a scheduler:
 * {@value #EXIT_PASS} within thresholds, {@value #EXIT_SKEW} skew over a threshold, {@value
 * #EXIT_BAD_INPUT} bad usage or input (a missing partition, an unreadable file, a model that does
 * not load): the message names it.
 */
@Command(
        name = "parity",
        mixinStandardHelpOptions = true,
        sortOptions = false,
        usageHelpAutoWidth = true,
        description = {
            "Recompute every (user, window) of a period from the stored transactions, in Flink BATCH"
                    + " mode with the streaming job's own window stage, compare each with the last"
                    + " value an upsert reader holds (the last pane written), and explain every"
                    + " difference (LATE_DROPPED, QUARANTINED, DEAD_LETTERED, DUPLICATE; alarms:"
                    + " MISSING_IN_STREAM, EXTRA_IN_STREAM, REVISION_REGRESSED, LOST_IN_KAFKA,"
                    + " EXTRA_IN_KAFKA, UNEXPLAINED). The job's late and quarantine labels are"
                    + " checked against the archive and the policy the job recorded. Re-scores the"
                    + " ideal features with the serving model to measure score deltas and flipped"
                    + " decisions.",
            "Scores at arrival (per transaction), when the archive has them or with"
                    + " --transaction-scores: each scored transaction recomputed as of its arrival"
                    + " (its user's records received before it, with the state bound the job"
                    + " applied: must equal what was served) and ideally (every record of its"
                    + " trailing window); differences explained (ARRIVED_LATER, EVICTED,"
                    + " QUARANTINED, DEAD_LETTERED, DUPLICATE; alarms: UNEXPLAINED,"
                    + " MISSING_SCORE, EXTRA_SCORE, RETRY_CONFLICT, ARRIVAL_ORDER_UNKNOWN), the"
                    + " ideal features re-scored by the per-transaction model, and with --labels"
                    + " the frauds the lateness let through.",
            "Writes report.json and report.html into --report, prints one summary line.",
            "Exit codes: 0 within thresholds, 1 over a threshold, 2 bad usage or input.",
        },
        footer = {
            "",
            "Examples: a day of what ./fraud job archives (by default in .fraud/archive); every"
                    + " window of the files of ./fraud replay --output out (add --scores, --late and"
                    + " --dead-letters for every cause). Each writes r/report.json and r/report.html."
                    + " A demo run archives in .fraud/demo/RUN/archive, with 1m windows: add"
                    + " --window-size 1m. Add --served-from kafka (with --bootstrap-servers and"
                    + " --schema-registry-url) to judge what the compacted topics hold.",
            "  ./fraud parity --date 2026-11-28 --archive .fraud/archive --report r",
            "  ./fraud parity --transactions tx.jsonl --served out/features.jsonl --report r",
            "",
            "Scores at arrival: an archive's transaction-scores/ is checked when it has one; with"
                    + " a replay's files add --transaction-scores out/transaction-scores.jsonl."
                    + " Add --labels FILE (e.g. the simulator's tx.jsonl.labels.jsonl) to count the"
                    + " frauds the lateness let through.",
        })
public final class ParityCommand implements Callable<Integer> {

    public static final int EXIT_PASS = 0;
    public static final int EXIT_SKEW = 1;
    public static final int EXIT_BAD_INPUT = 2;

    @Spec CommandSpec spec;

    @Option(
            names = "--date",
            paramLabel = DateConverter.FORM,
            converter = DateConverter.class,
            description = "The UTC day to check: windows starting on it.")
    LocalDate date;

    @Option(
            names = "--from",
            paramLabel = DateConverter.FORM,
            converter = DateConverter.class,
            description = "First UTC day (inclusive), with --to.")
    LocalDate from;

    @Option(
            names = "--to",
            paramLabel = DateConverter.FORM,
            converter = DateConverter.class,
            description = "Last UTC day (inclusive), with --from.")
    LocalDate to;

    @Option(
            names = "--archive",
            paramLabel = "ROOT",
            description =
                    "The job's archive (its --archive-dir, or a replay's --archive): every stream"
                            + " is read from it. Any Flink file system URI.")
    String archive;

    @Option(
            names = "--transactions",
            paramLabel = "PATH",
            description =
                    "Transactions: an archive's transactions/ directory, Avro files, or a"
                            + " JSON Lines file in the replay's input format (./fraud simulate --out).")
    String transactions;

    @Option(
            names = "--served",
            paramLabel = "PATH",
            description =
                    "Served features: an archive's features/ directory or a replay's"
                            + " features.jsonl.")
    String served;

    @Option(
            names = "--scores",
            paramLabel = "PATH",
            description =
                    "Served scores (archive scores/ or scores.jsonl); without it no score"
                            + " skew is measured.")
    String scores;

    @Option(
            names = "--late",
            paramLabel = "PATH",
            description =
                    "Late records (archive late/ or late.jsonl); without it no window is"
                            + " explained by late records.")
    String late;

    @Option(
            names = "--dead-letters",
            paramLabel = "PATH",
            description = "Dead letters (archive dead-letters/ or dead-letters.jsonl).")
    String deadLetters;

    @Option(
            names = "--transaction-scores",
            paramLabel = "PATH",
            description =
                    "Served per-transaction scores (archive transaction-scores/ or a replay's"
                            + " transaction-scores.jsonl), with --transactions; without it scores"
                            + " at arrival are not checked. An --archive is checked when it has"
                            + " them.")
    String transactionScores;

    @Option(
            names = "--labels",
            paramLabel = "FILE",
            description =
                    "Fraud labels per transaction (JSON Lines with transactionId, userId and"
                            + " fraud, e.g. the simulator's labels file): how many frauds the"
                            + " lateness let through.")
    String labels;

    // Required, but checked in call() with the other required options: all missing ones are
    // named in one message.
    @Option(
            names = "--report",
            paramLabel = "DIR",
            description = "Required: where report.json and report.html go (replaced on a rerun).")
    Path report;

    @Option(
            names = "--window-size",
            paramLabel = "DURATION",
            converter = DurationConverter.class,
            description =
                    "The job's window size. Default: the policy the job recorded with the inputs"
                            + " (else the job's default); a value that disagrees with it is exit 2.")
    Duration windowSize;

    @Option(
            names = "--allowed-lateness",
            paramLabel = "DURATION",
            converter = DurationConverter.class,
            description =
                    "The job's allowed lateness, to check TOO_LATE labels. Default: as"
                            + " --window-size.")
    Duration allowedLateness;

    @Option(
            names = "--out-of-orderness",
            paramLabel = "DURATION",
            converter = DurationConverter.class,
            description =
                    "The job's watermark bound, to bound the watermark a TOO_LATE label names."
                            + " Default: as --window-size.")
    Duration outOfOrderness;

    @Option(
            names = "--idleness",
            paramLabel = "DURATION",
            converter = DurationConverter.class,
            description =
                    "The job's idleness: after such a gap a partition's TOO_LATE labels cannot be"
                            + " checked. Default: as --window-size.")
    Duration idleness;

    @Option(
            names = "--future-tolerance",
            paramLabel = "DURATION",
            converter = DurationConverter.class,
            description =
                    "The job's future tolerance, to check FUTURE_DATED labels (and flag"
                            + " quarantined records of a JSON Lines transactions file). Default: as"
                            + " --window-size.")
    Duration futureTolerance;

    @Option(
            names = "--trailing-window",
            paramLabel = "DURATION",
            converter = DurationConverter.class,
            description =
                    "The job's trailing window, over which the transaction scores were computed."
                            + " Default: the window size (the job's default); scores computed over"
                            + " another are exit 2.")
    Duration trailingWindow;

    @Option(
            names = "--arrival-horizon",
            paramLabel = "DURATION",
            converter = DurationConverter.class,
            defaultValue = "1d",
            description =
                    "How long after the period its records' dead letters, and the later records"
                            + " of their partitions (bounding the job's watermark), are looked for"
                            + " (default: ${DEFAULT-VALUE}).")
    Duration arrivalHorizon;

    /** Where the served values are read. */
    enum ServedFrom {
        archive,
        kafka
    }

    @Option(
            names = "--served-from",
            paramLabel = "archive|kafka",
            description =
                    "Judge the served values in the archive's copy (archive), or in the compacted"
                            + " topics as an upsert reader sees them (kafka: read_committed, up to"
                            + " the latest offsets at the start; the archive's copy is then"
                            + " compared with them: LOST_IN_KAFKA, EXTRA_IN_KAFKA)"
                            + " (default: ${DEFAULT-VALUE}).")
    ServedFrom servedFrom = ServedFrom.archive;

    @Option(
            names = "--bootstrap-servers",
            paramLabel = "HOST:PORT",
            description = "With --served-from kafka: the job's Kafka (default: ${DEFAULT-VALUE}).")
    String bootstrapServers = JobOption.BOOTSTRAP_SERVERS.defaultValue();

    @Option(
            names = "--schema-registry-url",
            paramLabel = "URL",
            description =
                    "With --served-from kafka: the job's schema registry (default:"
                            + " ${DEFAULT-VALUE}).")
    String schemaRegistryUrl = JobOption.SCHEMA_REGISTRY_URL.defaultValue();

    @Option(
            names = "--kafka-config",
            paramLabel = "FILE",
            description =
                    "With --served-from kafka: client properties file (as Kafka's tools'"
                            + " --command-config) for the Kafka reads (security.protocol, sasl.*,"
                            + " ssl.*) and the registry (schema.registry.ssl.*, basic.auth.*).")
    Path kafkaConfig;

    @Option(
            names = "--topic.features",
            paramLabel = "TOPIC",
            description =
                    "With --served-from kafka: the features topic (default: ${DEFAULT-VALUE}).")
    String featuresTopic = Topic.FEATURES.defaultName();

    @Option(
            names = "--topic.scores",
            paramLabel = "TOPIC",
            description = "With --served-from kafka: the scores topic (default: ${DEFAULT-VALUE}).")
    String scoresTopic = Topic.SCORES.defaultName();

    @Option(
            names = "--model",
            paramLabel = "FILE",
            description = "The ONNX model that served (default: the shipped default model).")
    Path model;

    @Option(
            names = "--transaction-model",
            paramLabel = "FILE",
            description =
                    "The ONNX per-transaction model that served (default: the shipped"
                            + " per-transaction model); scores of another model are exit 2.")
    Path transactionModel;

    @Option(
            names = "--no-score-skew",
            description = "Do not re-score windows or transactions; no score-level skew.")
    boolean noScoreSkew;

    @Option(
            names = DecisionThresholds.REVIEW_OPTION,
            paramLabel = "SCORE",
            description = "The job's review threshold (default: ${DEFAULT-VALUE}).")
    double reviewThreshold = DecisionThresholds.DEFAULT_REVIEW;

    @Option(
            names = DecisionThresholds.BLOCK_OPTION,
            paramLabel = "SCORE",
            description = "The job's block threshold (default: ${DEFAULT-VALUE}).")
    double blockThreshold = DecisionThresholds.DEFAULT_BLOCK;

    @Option(
            names = "--transaction-review-threshold",
            paramLabel = "SCORE",
            description = "The job's per-transaction review threshold (default: ${DEFAULT-VALUE}).")
    double transactionReviewThreshold = 0.5;

    @Option(
            names = "--transaction-block-threshold",
            paramLabel = "SCORE",
            description = "The job's per-transaction block threshold (default: ${DEFAULT-VALUE}).")
    double transactionBlockThreshold = 0.9;

    @Option(
            names = "--max-unexplained",
            paramLabel = "N",
            description =
                    "Alarms allowed before exit 1, windows (UNEXPLAINED, MISSING_IN_STREAM,"
                            + " EXTRA_IN_STREAM, REVISION_REGRESSED, LOST_IN_KAFKA,"
                            + " EXTRA_IN_KAFKA) and transactions (RETRY_CONFLICT, UNEXPLAINED,"
                            + " MISSING_SCORE, EXTRA_SCORE, ARRIVAL_ORDER_UNKNOWN) together"
                            + " (default: ${DEFAULT-VALUE}).")
    long maxUnexplained = ParityThresholds.DEFAULT.maxUnexplained();

    @Option(
            names = "--max-mismatch-rate",
            paramLabel = "FRACTION",
            description =
                    "Largest share of windows whose served value differs, explained or not, and"
                            + " (on its own) of scored transactions whose served features differ"
                            + " from ideal, before exit 1; 1: no limit (default:"
                            + " ${DEFAULT-VALUE}).")
    double maxMismatchRate = ParityThresholds.DEFAULT.maxMismatchRate();

    @Option(
            names = "--max-flipped-decisions",
            paramLabel = "N",
            description =
                    "Decisions the ideal features would change, allowed before exit 1"
                            + " (default: ${DEFAULT-VALUE}, no limit).")
    long maxFlippedDecisions = ParityThresholds.DEFAULT.maxFlippedDecisions();

    @Option(
            names = "--max-flipped-rate",
            paramLabel = "FRACTION",
            description =
                    "Largest share of the compared scored windows whose decision the ideal"
                            + " features change, before exit 1; 1: no limit (default:"
                            + " ${DEFAULT-VALUE}).")
    double maxFlippedRate = ParityThresholds.DEFAULT.maxFlippedRate();

    @Option(
            names = "--max-transaction-flipped-rate",
            paramLabel = "FRACTION",
            description =
                    "Largest share of the compared scored transactions whose decision the ideal"
                            + " features change, before exit 1; 1: no limit (default:"
                            + " ${DEFAULT-VALUE}).")
    double maxTransactionFlippedRate = ParityThresholds.DEFAULT.maxTransactionFlippedRate();

    @Option(
            names = "--parallelism",
            paramLabel = "N",
            description = "Parallelism of the batch job (default: the environment's).")
    int parallelism;

    public static void main(String[] args) {
        System.exit(commandLine().execute(args));
    }

    /** The configured command line, as the launcher runs it. */
    public static CommandLine commandLine() {
        return CommandLines.install(
                new CommandLine(new ParityCommand()).setCaseInsensitiveEnumValuesAllowed(true));
    }

    /**
     * Runs the check in this JVM as a step of another command (the soak, the rehearsal): every
     * non-blank line it prints, its standard output's first, goes to {@code lines}.
     *
     * @return the exit code, as {@code ./fraud parity} would have exited
     */
    public static int runHere(List<String> args, java.util.function.Consumer<String> lines) {
        java.io.StringWriter stdout = new java.io.StringWriter();
        java.io.StringWriter stderr = new java.io.StringWriter();
        CommandLine parity = commandLine();
        parity.setOut(new PrintWriter(stdout, true));
        parity.setErr(new PrintWriter(stderr, true));
        int code = parity.execute(args.toArray(String[]::new));
        for (String line : (stdout + "\n" + stderr).strip().split("\n")) {
            if (!line.isBlank()) {
                lines.accept(line);
            }
        }
        return code;
    }

    @Override
    public Integer call() {
        checkUsage(); // a usage error (exit code 2, picocli's handler) before anything is read
        PrintWriter err = spec.commandLine().getErr();
        ProgressLine progress = ProgressLine.forCommand("parity");
        try {
            ParityRun run = plan();
            ParityReport result = run.execute(progress);
            progress.stage("writing the report");
            Path html = ReportFiles.write(result, report);
            progress.close();
            spec.commandLine()
                    .getOut()
                    .println(SummaryLine.of(result, run.periodLabel(), html.toString()));
            spec.commandLine().getOut().flush();
            return result.exitCode() == 0 ? EXIT_PASS : EXIT_SKEW;
        } catch (CommandLine.ParameterException e) {
            throw e;
        } catch (ParityInputException | IllegalArgumentException e) {
            progress.close();
            err.println("parity: " + e.getMessage());
            return EXIT_BAD_INPUT;
        } catch (Exception e) {
            progress.close();
            err.println("parity: the check could not run: " + rootMessage(e));
            return EXIT_BAD_INPUT;
        } finally {
            progress.close();
            err.flush();
        }
    }

    /**
     * The combinations of options the check needs: every required option that is missing in one
     * message, then conflicts.
     */
    void checkUsage() {
        List<String> missing = new ArrayList<>();
        if (report == null) {
            missing.add("--report DIR");
        }
        if (archive == null) {
            if (transactions == null && served == null) {
                missing.add("--archive ROOT (or --transactions PATH with --served PATH)");
            } else if (transactions == null) {
                missing.add("--transactions PATH (with --served)");
            } else if (served == null) {
                missing.add("--served PATH (with --transactions)");
            }
        }
        days().addMissing(missing, archive != null);
        if (!missing.isEmpty()) {
            throw CommandLines.missing(spec.commandLine(), missing);
        }
        if (archive != null && (transactions != null || served != null)) {
            throw usage("give either --archive or --transactions/--served, not both");
        }
        if (archive != null && transactionScores != null) {
            throw usage(
                    "--transaction-scores is for --transactions/--served: an --archive's"
                            + " transaction-scores/ is read from it");
        }
        days().check(this::usage);
    }

    /** Checks the options and resolves the inputs; nothing runs yet. */
    ParityRun plan() throws ParityInputException {
        checkUsage();
        ParityPeriod period = period();
        if (archive != null && (transactions != null || served != null)) {
            throw usage("give either --archive or --transactions/--served, not both");
        }
        if (archive == null && (transactions == null || served == null)) {
            throw usage("give --archive, or both --transactions and --served");
        }
        if (archive != null && !period.isBounded()) {
            throw usage("--archive needs --date or --from/--to");
        }
        PolicyResolver.Resolved policy =
                PolicyResolver.resolve(
                        archive != null
                                ? PolicyResolver.recordedInArchive(archive)
                                : PolicyResolver.recordedFor(served),
                        period,
                        period.isBounded() ? period.to().plus(arrivalHorizon) : null,
                        givenPolicyOptions());
        WindowAssignment windows = WindowAssignment.tumbling(policy.policy().windowSize());
        InputResolver resolver = new InputResolver(period, windows, arrivalHorizon);
        Map<ArchiveStream, StreamInput> inputs = new EnumMap<>(ArchiveStream.class);
        if (archive != null) {
            inputs.putAll(resolver.archive(archive));
        } else {
            put(inputs, resolver, ArchiveStream.TRANSACTIONS, transactions);
            put(inputs, resolver, ArchiveStream.FEATURES, served);
            put(inputs, resolver, ArchiveStream.SCORES, scores);
            put(inputs, resolver, ArchiveStream.LATE, late);
            put(inputs, resolver, ArchiveStream.DEAD_LETTERS, deadLetters);
            StreamInput tx = inputs.get(ArchiveStream.TRANSACTIONS);
            if (tx.format() == StreamInput.Format.JSON_LINES
                    && !java.nio.file.Files.isRegularFile(Path.of(transactions))) {
                throw new ParityInputException(
                        "--transactions in JSON Lines must be one file, got " + transactions);
            }
        }
        TransactionCheck transactionCheck =
                transactionCheck(resolver, inputs, policy.policy().windowSize());
        OnnxPaneScorer.Factory scorer = null;
        if (!noScoreSkew) {
            scorer =
                    OnnxPaneScorer.Factory.of(
                                    model, new DecisionThresholds(reviewThreshold, blockThreshold))
                            .withReleases(releases());
            try {
                scorer.check();
            } catch (IllegalStateException e) {
                throw new ParityInputException(e.getMessage() + " (or pass --no-score-skew)", e);
            }
        }
        KafkaServed kafka = null;
        if (servedFrom == ServedFrom.kafka) {
            kafka =
                    new KafkaServed(
                            bootstrapServers,
                            schemaRegistryUrl,
                            featuresTopic,
                            noScoreSkew ? null : scoresTopic,
                            ClientProperties.loadOrNone(kafkaConfig, "--kafka-config"));
        }
        return new ParityRun(
                period,
                label(),
                inputs,
                policy,
                InputResolver.readEnd(period, windows, arrivalHorizon),
                kafka,
                scorer,
                new ParityThresholds(
                        maxUnexplained,
                        maxMismatchRate,
                        maxFlippedDecisions,
                        maxFlippedRate,
                        maxTransactionFlippedRate),
                parallelism,
                resolver.quietHours(),
                transactionCheck);
    }

    /**
     * What the per-transaction check reads: an archive's transaction-scores/ when it has one (an
     * archive written before scores at arrival has none: not checked), or {@code
     * --transaction-scores}; the transactions of the trailing window before the period; the labels;
     * the serving per-transaction model.
     */
    private TransactionCheck transactionCheck(
            InputResolver resolver, Map<ArchiveStream, StreamInput> inputs, Duration windowSize)
            throws ParityInputException {
        String transactionsPath;
        if (archive != null) {
            org.apache.flink.core.fs.Path dir =
                    new org.apache.flink.core.fs.Path(
                            archive, ArchiveStream.TRANSACTION_SCORES.directory());
            boolean exists;
            try {
                exists = dir.getFileSystem().exists(dir);
            } catch (java.io.IOException e) {
                throw new ParityInputException("cannot reach " + dir + ": " + e.getMessage(), e);
            }
            if (!exists) {
                return checkedWithout(
                        "the archive has no "
                                + ArchiveStream.TRANSACTION_SCORES.directory()
                                + "/ (written before scores at arrival)");
            }
            transactionsPath =
                    new org.apache.flink.core.fs.Path(
                                    archive, ArchiveStream.TRANSACTIONS.directory())
                            .toString();
        } else if (transactionScores != null) {
            put(inputs, resolver, ArchiveStream.TRANSACTION_SCORES, transactionScores);
            transactionsPath = transactions;
        } else {
            return checkedWithout("no --transaction-scores given");
        }
        if (labels != null && !java.nio.file.Files.isReadable(Path.of(labels))) {
            throw new ParityInputException(
                    "--labels " + labels + " does not exist or is not readable");
        }
        Duration trailing = trailingWindow != null ? trailingWindow : windowSize;
        DecisionThresholds thresholds;
        try {
            thresholds =
                    new DecisionThresholds(transactionReviewThreshold, transactionBlockThreshold);
        } catch (IllegalArgumentException e) {
            throw usage(
                    "--transaction-review-threshold and --transaction-block-threshold: "
                            + e.getMessage());
        }
        OnnxTransactionScorer.Factory transactionScorer = null;
        if (!noScoreSkew) {
            try {
                transactionScorer =
                        OnnxTransactionScorer.Factory.of(transactionModel, thresholds)
                                .withReleases(releases());
                transactionScorer.check();
            } catch (IllegalStateException e) {
                throw new ParityInputException(e.getMessage() + " (or pass --no-score-skew)", e);
            }
        }
        return new TransactionCheck(
                null,
                trailing,
                inputs.get(ArchiveStream.TRANSACTION_SCORES),
                resolver.transactionHistory(transactionsPath, trailing),
                labels,
                transactionScorer,
                thresholds,
                archive != null ? ReadPositionsReader.read(archive) : ReadPositions.NONE);
    }

    /**
     * The model releases that served, as the archive recorded the registry (each record is
     * re-scored by the release that served it), or none without an archive.
     */
    private ModelReleases releases() throws ParityInputException {
        if (releases == null) {
            try {
                releases =
                        archive == null
                                ? ModelReleases.startupOnly()
                                : org.fraudpipe.job.archive.ArchivedRegistry.read(archive);
            } catch (java.io.UncheckedIOException e) {
                throw new ParityInputException(e.getMessage(), e);
            }
        }
        return releases;
    }

    private ModelReleases releases;

    private TransactionCheck checkedWithout(String reason) throws ParityInputException {
        if (labels != null) {
            throw new ParityInputException(
                    "--labels needs scores at arrival to judge, but " + reason);
        }
        return TransactionCheck.off(reason);
    }

    /** The policy options given on the command line, by the job's option names. */
    private Map<String, Duration> givenPolicyOptions() {
        Map<String, Duration> given = new java.util.LinkedHashMap<>();
        putIfGiven(given, JobOption.WINDOW_SIZE, windowSize);
        putIfGiven(given, JobOption.ALLOWED_LATENESS, allowedLateness);
        putIfGiven(given, JobOption.OUT_OF_ORDERNESS, outOfOrderness);
        putIfGiven(given, JobOption.IDLENESS, idleness);
        putIfGiven(given, JobOption.FUTURE_TOLERANCE, futureTolerance);
        return given;
    }

    private static void putIfGiven(Map<String, Duration> given, JobOption option, Duration value) {
        if (value != null) {
            given.put(option.key(), value);
        }
    }

    private static void put(
            Map<ArchiveStream, StreamInput> inputs,
            InputResolver resolver,
            ArchiveStream stream,
            String path)
            throws ParityInputException {
        if (path != null) {
            inputs.put(stream, resolver.explicit(stream, path));
        }
    }

    private ArchiveDays days() {
        return new ArchiveDays(date, from, to);
    }

    private ParityPeriod period() {
        return days().period();
    }

    private String label() {
        return days().label("all windows");
    }

    private CommandLine.ParameterException usage(String message) {
        return new CommandLine.ParameterException(spec.commandLine(), message);
    }

    private static String rootMessage(Throwable e) {
        Throwable t = e;
        while (t.getCause() != null && t.getCause() != t) {
            t = t.getCause();
        }
        return t == e ? String.valueOf(e.getMessage()) : e.getMessage() + ": caused by " + t;
    }
}
