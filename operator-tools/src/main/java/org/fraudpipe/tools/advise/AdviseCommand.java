package org.fraudpipe.tools.advise;

import java.io.IOException;
import java.io.PrintWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.LocalDate;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeSet;
import java.util.concurrent.Callable;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.LongSupplier;
import org.fraudpipe.job.archive.ArchivePolicy;
import org.fraudpipe.job.cli.CommandLines;
import org.fraudpipe.job.cli.DateConverter;
import org.fraudpipe.job.cli.DurationConverter;
import org.fraudpipe.job.cli.ProgressLine;
import org.fraudpipe.job.config.JobOption;
import org.fraudpipe.job.features.WindowAssignment;
import org.fraudpipe.parity.ParityPeriod;
import org.fraudpipe.parity.cli.ArchiveDays;
import org.fraudpipe.parity.input.InputCounts;
import org.fraudpipe.parity.input.InputResolver;
import org.fraudpipe.parity.input.ParityInputException;
import org.fraudpipe.parity.input.PolicyResolver;
import org.fraudpipe.parity.input.StreamInput;
import org.fraudpipe.schemas.archive.ArchiveStream;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;

/**
 * {@code ./fraud advise}: chooses the watermark bound ({@code --out-of-orderness}) and the allowed
 * lateness from recorded traffic, with their price. Exit codes: {@value #EXIT_ADVICE} a pair meets
 * the targets, {@value #EXIT_NO_PAIR} none does (the advice is written all the same), {@value
 * #EXIT_BAD_INPUT} bad usage or input.
 */
@Command(
        name = "advise",
        mixinStandardHelpOptions = true,
        sortOptions = false,
        usageHelpAutoWidth = true,
        description = {
            "Chooses the job's watermark bound (--out-of-orderness) and allowed lateness from"
                    + " recorded traffic: a replay input file (file order and arrivalTime) or the"
                    + " job's archive (its arrival order: per Kafka partition by offset, across"
                    + " partitions by arrival time).",
            "Measures the arrival delay (arrival minus event time: percentiles overall, per"
                    + " partition and per hour; idle partitions and partitions holding the"
                    + " watermark back), replays a grid of (bound, lateness) pairs over the"
                    + " recorded arrival order with the job's own rules (records too late,"
                    + " re-fires, delay of each window's first result, live windows and estimated"
                    + " state) and recommends the cheapest pair meeting the targets, with the"
                    + " job's command line.",
            "For a replay file the numbers are exactly what ./fraud replay gives with each pair;"
                    + " for an archive the live job's per-partition watermark with idleness is"
                    + " modelled (the advice says how).",
            "Writes advice.json and advice.html into --out, prints a summary.",
            "Exit codes: 0 a pair meets the targets, 1 none does (the advice is still written),"
                    + " 2 bad usage or input.",
        },
        footer = {
            "",
            "Examples: a simulated file; a day of what ./fraud job archived (the recorded policy"
                    + " gives the window size, tolerance, idleness and the current pair); with"
                    + " your own grid and targets.",
            "  ./fraud advise --transactions tx.jsonl --out advice",
            "  ./fraud advise --archive .fraud/archive --date 2026-11-28 --out advice",
            "  ./fraud advise --transactions tx.jsonl --bounds 2s,5s --lateness 0s,2m --out a",
            "  ./fraud advise --transactions tx.jsonl --max-too-late 0.01% --out advice",
        })
public final class AdviseCommand implements Callable<Integer> {

    public static final int EXIT_ADVICE = 0;
    public static final int EXIT_NO_PAIR = 1;
    public static final int EXIT_BAD_INPUT = 2;

    /** The default targets. */
    public static final String DEFAULT_MAX_TOO_LATE = "0.1%";

    public static final String DEFAULT_MAX_FIRST_RESULT_DELAY = "30s";

    @Spec CommandSpec spec;

    @Option(
            names = "--transactions",
            paramLabel = "FILE",
            description =
                    "A replay input file (JSON Lines in arrival order, ./fraud simulate --out;"
                            + " .gz and the like decompressed).")
    Path transactions;

    @Option(
            names = "--archive",
            paramLabel = "ROOT",
            description =
                    "The job's archive (its --archive-dir, or a replay's --archive), with --date"
                            + " or --from/--to. Any Flink file system URI.")
    String archive;

    @Option(
            names = "--date",
            paramLabel = DateConverter.FORM,
            converter = DateConverter.class,
            description = "With --archive: the UTC day (windows starting on it).")
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
            names = "--out",
            paramLabel = "DIR",
            description = "Required: where advice.json and advice.html go (replaced on a rerun).")
    Path out;

    @Option(
            names = "--bounds",
            paramLabel = "DURATION",
            split = ",",
            converter = DurationConverter.class,
            description =
                    "Watermark bounds (--out-of-orderness) to try, comma-separated. Default: the"
                            + " p90, p95 and p99 of the arrival delay rounded up and two steps"
                            + " above the p95, those up to half the window; and the archive's"
                            + " current bound.")
    List<Duration> bounds;

    @Option(
            names = "--lateness",
            paramLabel = "DURATION",
            split = ",",
            converter = DurationConverter.class,
            description =
                    "Allowed lateness values to try, comma-separated. Default: 0, the p99, p99.8,"
                            + " p99.9 and p99.95 of the delay and its maximum (at most 1d),"
                            + " rounded up; and the archive's current lateness.")
    List<Duration> lateness;

    @Option(
            names = "--max-too-late",
            paramLabel = "SHARE",
            defaultValue = DEFAULT_MAX_TOO_LATE,
            converter = ShareConverter.class,
            description =
                    "Target: largest share of the records too late, as 0.1%% or 0.001 (default:"
                            + " ${DEFAULT-VALUE}).")
    double maxTooLate;

    @Option(
            names = "--max-first-result-delay",
            paramLabel = "DURATION",
            defaultValue = DEFAULT_MAX_FIRST_RESULT_DELAY,
            converter = DurationConverter.class,
            description =
                    "Target: largest p99 of the delay of a window's first result after its end"
                            + " (default: ${DEFAULT-VALUE}).")
    Duration maxFirstResultDelay;

    @Option(
            names = "--out-of-orderness",
            paramLabel = "DURATION",
            converter = DurationConverter.class,
            description =
                    "The bound the job runs with now, added to the grid and compared. Default: the"
                            + " policy recorded in the archive (a value that disagrees with it is"
                            + " exit 2); none for a file.")
    Duration currentBound;

    @Option(
            names = "--allowed-lateness",
            paramLabel = "DURATION",
            converter = DurationConverter.class,
            description =
                    "The lateness the job runs with now, with --out-of-orderness. Default: as"
                            + " --out-of-orderness.")
    Duration currentLateness;

    @Option(
            names = "--window-size",
            paramLabel = "DURATION",
            converter = DurationConverter.class,
            description =
                    "The job's window size. Default: the policy recorded in the archive (a value"
                            + " that disagrees with it is exit 2), else the job's default (10m).")
    Duration windowSize;

    @Option(
            names = "--future-tolerance",
            paramLabel = "DURATION",
            converter = DurationConverter.class,
            description =
                    "The job's future tolerance (future-dated records never reach a window)."
                            + " Default: as --window-size (the job's default: 5m).")
    Duration futureTolerance;

    @Option(
            names = "--idleness",
            paramLabel = "DURATION",
            converter = DurationConverter.class,
            description =
                    "With --archive: the job's idleness (a partition without records that long"
                            + " stops holding the watermark back). Default: as --window-size (the"
                            + " job's default: 1m).")
    Duration idleness;

    @Option(
            names = "--arrival-horizon",
            paramLabel = "DURATION",
            converter = DurationConverter.class,
            defaultValue = "1h",
            description =
                    "With --archive: how far past the period's end (in event time) records are"
                            + " read, for the watermark that closes its last windows (default:"
                            + " ${DEFAULT-VALUE}).")
    Duration arrivalHorizon;

    public static void main(String[] args) {
        System.exit(commandLine().execute(args));
    }

    /** The configured command line. */
    public static CommandLine commandLine() {
        return CommandLines.install(new CommandLine(new AdviseCommand()));
    }

    @Override
    public Integer call() {
        checkUsage();
        PrintWriter err = spec.commandLine().getErr();
        ProgressLine progress = ProgressLine.forCommand("advise");
        try {
            long began = System.nanoTime();
            Plan plan = plan();
            AtomicLong read = new AtomicLong();
            progress.stage("reading " + plan.what, read::get, plan.total(progress));
            RecordedTraffic traffic = plan.read(read);
            long replaying = System.nanoTime();
            Advice advice = Advisor.advise(traffic, plan.options, progress);
            long replayed = System.nanoTime();
            progress.stage("writing the advice");
            Path html = AdviceFiles.write(advice, out);
            progress.close();
            PrintWriter stdout = spec.commandLine().getOut();
            String timing =
                    String.format(
                            Locale.ROOT,
                            "%.1f s (the input read in %.1f s)",
                            (replayed - replaying) / 1e9,
                            (replaying - began) / 1e9);
            for (String line : AdviceSummary.lines(advice, html.toString(), timing)) {
                stdout.println(line);
            }
            stdout.flush();
            return advice.exitCode() == 0 ? EXIT_ADVICE : EXIT_NO_PAIR;
        } catch (ParameterException e) {
            throw e;
        } catch (ParityInputException | IllegalArgumentException | IOException e) {
            progress.close();
            err.println("advise: " + e.getMessage());
            return EXIT_BAD_INPUT;
        } catch (RuntimeException e) {
            progress.close();
            err.println("advise: the advice could not be made: " + e);
            return EXIT_BAD_INPUT;
        } finally {
            progress.close();
            err.flush();
        }
    }

    /** Missing options all at once, then conflicts: usage errors, exit 2. */
    void checkUsage() {
        List<String> missing = new ArrayList<>();
        if (out == null) {
            missing.add("--out DIR");
        }
        if (transactions == null && archive == null) {
            missing.add("--transactions FILE or --archive ROOT");
        }
        days().addMissing(missing, archive != null);
        if (!missing.isEmpty()) {
            throw CommandLines.missing(spec.commandLine(), missing);
        }
        if (transactions != null && archive != null) {
            throw usage("give either --transactions or --archive, not both");
        }
        days().check(this::usage);
        if (transactions != null && days().given()) {
            throw usage(
                    "--date and --from/--to select days of --archive; --transactions reads the"
                            + " whole file");
        }
        if (transactions != null && idleness != null) {
            throw usage(
                    "--idleness applies to --archive only: a replay has one watermark per record"
                            + " and no idleness");
        }
        if (transactions != null && !Files.isRegularFile(transactions)) {
            throw usage(
                    "--transactions "
                            + transactions
                            + (Files.isDirectory(transactions)
                                    ? " is a directory; give the JSON Lines file"
                                    : " does not exist or is not a file"));
        }
        if (out != null && Files.exists(out) && !Files.isDirectory(out)) {
            throw usage("--out " + out + " exists and is not a directory");
        }
        if ((currentBound == null) != (currentLateness == null)) {
            throw usage(
                    "give --out-of-orderness and --allowed-lateness together: the pair the job"
                            + " runs with now");
        }
        checkWholeMillis("--bounds", bounds);
        checkWholeMillis("--lateness", lateness);
        checkWholeMillis("--window-size", windowSize == null ? null : List.of(windowSize));
        if (windowSize != null && windowSize.isZero()) {
            throw usage("--window-size must be positive, got 0s");
        }
    }

    private void checkWholeMillis(String option, List<Duration> values) {
        if (values == null) {
            return;
        }
        if (values.isEmpty()) {
            throw usage(option + " needs at least one duration");
        }
        for (Duration d : values) {
            if (d.getNano() % 1_000_000 != 0) {
                throw usage(option + " must be whole milliseconds, got " + d);
            }
        }
    }

    /** What to read and how to advise. */
    private record Plan(String what, Reader reader, Total total, Advisor.Options options) {
        RecordedTraffic read(AtomicLong read) throws IOException {
            return reader.read(read);
        }

        LongSupplier total(ProgressLine progress) {
            return progress.isOn()
                    ? ProgressLine.countInBackground("records", total::count)
                    : () -> ProgressLine.UNKNOWN;
        }
    }

    @FunctionalInterface
    private interface Reader {
        RecordedTraffic read(AtomicLong read) throws IOException;
    }

    @FunctionalInterface
    private interface Total {
        Long count() throws Exception;
    }

    private Plan plan() throws ParityInputException {
        Advice.Targets targets = new Advice.Targets(maxTooLate, maxFirstResultDelay.toMillis());
        if (transactions != null) {
            ArchivePolicy d = PolicyResolver.jobDefaults();
            Duration size = windowSize != null ? windowSize : d.windowSize();
            Duration tolerance = futureTolerance != null ? futureTolerance : d.futureTolerance();
            Path file = transactions;
            Advisor.Options options =
                    new Advisor.Options(
                            Advisor.FILE,
                            file.toString(),
                            ParityPeriod.UNBOUNDED,
                            ParityPeriod.UNBOUNDED.toString(),
                            size,
                            tolerance,
                            null,
                            "options and the job's defaults (a replay file records no policy)",
                            currentBound,
                            currentLateness,
                            sorted(bounds),
                            sorted(lateness),
                            targets);
            return new Plan(
                    file.getFileName().toString(),
                    read -> TrafficReader.replayFile(file, tolerance, read),
                    () -> ProgressLine.lines(file),
                    options);
        }
        ParityPeriod period = days().period();
        String label = days().label(ParityPeriod.UNBOUNDED.toString());
        List<ArchivePolicy.Recorded> recorded = PolicyResolver.recordedInArchive(archive);
        Map<String, Duration> given = new LinkedHashMap<>();
        if (windowSize != null) {
            given.put(JobOption.WINDOW_SIZE.key(), windowSize);
        }
        if (idleness != null) {
            given.put(JobOption.IDLENESS.key(), idleness);
        }
        if (futureTolerance != null) {
            given.put(JobOption.FUTURE_TOLERANCE.key(), futureTolerance);
        }
        if (currentBound != null) {
            given.put(JobOption.OUT_OF_ORDERNESS.key(), currentBound);
        }
        if (currentLateness != null) {
            given.put(JobOption.ALLOWED_LATENESS.key(), currentLateness);
        }
        PolicyResolver.Resolved policy =
                PolicyResolver.resolve(recorded, period, period.to().plus(arrivalHorizon), given);
        ArchivePolicy p = policy.policy();
        WindowAssignment windows = WindowAssignment.tumbling(p.windowSize());
        StreamInput input =
                new InputResolver(period, windows, arrivalHorizon)
                        .archive(archive)
                        .get(ArchiveStream.TRANSACTIONS);
        boolean isRecorded = !recorded.isEmpty() || currentBound != null;
        Advisor.Options options =
                new Advisor.Options(
                        Advisor.ARCHIVE,
                        archive,
                        period,
                        label + " (windows starting " + period + ")",
                        p.windowSize(),
                        p.futureTolerance(),
                        p.idleness(),
                        policy.source(),
                        isRecorded ? p.outOfOrderness() : null,
                        isRecorded ? p.allowedLateness() : null,
                        sorted(bounds),
                        sorted(lateness),
                        targets);
        String described = archive + " " + label;
        return new Plan(
                "the archive " + label,
                read -> TrafficReader.archive(input, described, p.futureTolerance(), read),
                () -> InputCounts.records(input),
                options);
    }

    private static List<Duration> sorted(List<Duration> values) {
        return values == null ? null : List.copyOf(new TreeSet<>(values));
    }

    private ArchiveDays days() {
        return new ArchiveDays(date, from, to);
    }

    private ParameterException usage(String message) {
        return new ParameterException(spec.commandLine(), message);
    }

    /** A share given as {@code 0.1%} or {@code 0.001}, between 0 and 1. */
    public static final class ShareConverter implements CommandLine.ITypeConverter<Double> {
        @Override
        public Double convert(String value) {
            String v = value.strip();
            double share;
            try {
                share =
                        v.endsWith("%")
                                ? Double.parseDouble(v.substring(0, v.length() - 1).strip()) / 100
                                : Double.parseDouble(v);
            } catch (NumberFormatException e) {
                throw new CommandLine.TypeConversionException(
                        "'"
                                + value
                                + "' is not a share: use a percentage like 0.1% or a fraction"
                                + " like 0.001");
            }
            if (!(share >= 0 && share <= 1)) {
                throw new CommandLine.TypeConversionException(
                        "'" + value + "' is not a share between 0 and 1 (0% and 100%)");
            }
            return share;
        }
    }
}
