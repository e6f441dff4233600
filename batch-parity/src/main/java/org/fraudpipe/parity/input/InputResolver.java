package org.fraudpipe.parity.input;

import java.io.IOException;
import java.time.Duration;
import java.time.Instant;
import java.time.LocalDate;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import org.apache.flink.core.fs.FileStatus;
import org.apache.flink.core.fs.FileSystem;
import org.apache.flink.core.fs.Path;
import org.fraudpipe.job.features.WindowAssignment;
import org.fraudpipe.parity.ParityPeriod;
import org.fraudpipe.schemas.archive.ArchivePartition;
import org.fraudpipe.schemas.archive.ArchiveStream;

/**
 * Turns what the user named (an archive root, or one path per stream) into the files a run reads,
 * on the client, before the job starts: so a missing partition is an error with the path in it
 * (exit 2), never an empty report.
 *
 * <p>Which partitions of an archive directory ({@code date=.../hour=...} children) a bounded run
 * reads, per {@link ArchiveStream}'s partitioning time:
 *
 * <ul>
 *   <li>late: event time {@code [from, dataEnd)} ({@link ParityPeriod#dataEnd}: the end of the last
 *       window judged, past {@code to} only when the window size does not divide the day);
 *   <li>transactions: event time {@code [from, dataEnd + arrival horizon)}: the period's records,
 *       and the later records of their partitions that bound the job's watermark when a late record
 *       arrived (partitions past {@code dataEnd} that do not exist yet are skipped);
 *   <li>features, scores: window start {@code [from, to)};
 *   <li>dead letters: arrival {@code [from - 1 h, dataEnd + arrival horizon)}, since a record
 *       arrives after its event time, up to the horizon (devices offline for hours).
 * </ul>
 *
 * <p>Required: every UTC day of {@code [from, dataEnd)} has a {@code date=} directory under the
 * transactions and features directories. Hours without a directory inside an existing day are quiet
 * hours (the job writes no empty files), listed in the report.
 */
public final class InputResolver {

    private static final Duration DEAD_LETTER_EARLY = Duration.ofHours(1);

    private final ParityPeriod period;
    private final WindowAssignment windows;
    private final Duration arrivalHorizon;
    private final List<String> quietHours = new ArrayList<>();

    public InputResolver(ParityPeriod period, WindowAssignment windows, Duration arrivalHorizon) {
        this.period = period;
        this.windows = windows;
        this.arrivalHorizon = arrivalHorizon;
    }

    /** Hours of the transactions archive with no data (quiet hours), as {@code date=/hour=}. */
    public List<String> quietHours() {
        return List.copyOf(quietHours);
    }

    /** Every stream of the archive at {@code root}. */
    public Map<ArchiveStream, StreamInput> archive(String root) throws ParityInputException {
        Path rootPath = new Path(root);
        if (!exists(rootPath)) {
            throw new ParityInputException(
                    "archive root "
                            + root
                            + " does not exist: pass the streaming job's --archive-dir (or the"
                            + " replay's --archive directory)");
        }
        Map<ArchiveStream, StreamInput> out = new EnumMap<>(ArchiveStream.class);
        for (ArchiveStream s : ArchiveStream.values()) {
            if (s == ArchiveStream.READ_POSITIONS || s == ArchiveStream.MODEL_EVENTS) {
                continue; // not inputs of the BATCH job: read whole on the client
            }
            Path dir = new Path(rootPath, s.directory());
            boolean required = s == ArchiveStream.TRANSACTIONS || s == ArchiveStream.FEATURES;
            if (!exists(dir)) {
                if (required) {
                    throw new ParityInputException(
                            "the archive "
                                    + root
                                    + " has no "
                                    + s.directory()
                                    + "/ directory: it is not a complete archive of the job");
                }
                out.put(s, new StreamInput(s, List.of(), StreamInput.Format.AVRO, dir.toString()));
            } else {
                out.put(s, stream(s, dir.toString(), required));
            }
        }
        return out;
    }

    /**
     * One stream named by the user: a JSON Lines or Avro file, a directory of files, or an archive
     * stream directory ({@code date=} partitions, selected by the period).
     */
    public StreamInput explicit(ArchiveStream stream, String path) throws ParityInputException {
        Path p = new Path(path);
        if (!exists(p)) {
            throw new ParityInputException(
                    "--" + optionOf(stream) + " " + path + " does not exist");
        }
        return stream(stream, path, false);
    }

    /**
     * The transactions the per-transaction check needs before the period: those of the trailing
     * window {@code reach} of the period's first transactions, event time {@code [from - reach,
     * from)}, from the partitions that exist (none is required: an archive may start with the
     * period). Null when {@code transactionsPath} is not a partitioned archive directory or the run
     * has no period (everything is read then).
     */
    public StreamInput transactionHistory(String transactionsPath, Duration reach)
            throws ParityInputException {
        Path p = new Path(transactionsPath);
        if (!period.isBounded() || !exists(p) || !isPartitioned(p)) {
            return null;
        }
        long from = period.from().toEpochMilli();
        List<Path> partitions = new ArrayList<>();
        for (ArchivePartition part : ArchivePartition.covering(from - reach.toMillis(), from)) {
            Path dir = new Path(p, part.path());
            if (exists(dir)) {
                partitions.add(dir);
            }
        }
        return partitions.isEmpty()
                ? null
                : new StreamInput(
                        ArchiveStream.TRANSACTIONS,
                        partitions,
                        StreamInput.Format.AVRO,
                        transactionsPath + " (the trailing window before the period)");
    }

    /** The option naming a stream on the command line. */
    public static String optionOf(ArchiveStream stream) {
        return switch (stream) {
            case TRANSACTIONS -> "transactions";
            case FEATURES -> "served";
            case SCORES -> "scores";
            case LATE -> "late";
            case DEAD_LETTERS -> "dead-letters";
            case TRANSACTION_SCORES -> "transaction-scores";
            case READ_POSITIONS, MODEL_EVENTS -> "archive";
        };
    }

    private StreamInput stream(ArchiveStream s, String path, boolean required)
            throws ParityInputException {
        Path p = new Path(path);
        StreamInput.Format format = StreamInput.formatOf(path);
        if (!isPartitioned(p) || !period.isBounded()) {
            return new StreamInput(s, List.of(p), format, path);
        }
        if (required) {
            for (LocalDate day : daysOf(s)) {
                Path dayDir = new Path(p, "date=" + day);
                if (!exists(dayDir)) {
                    throw new ParityInputException(
                            "missing archive partition "
                                    + dayDir
                                    + ": nothing was archived for "
                                    + day
                                    + " (was the job running and archiving? is the date right?)."
                                    + " A parity run needs every day of its period.");
                }
            }
        }
        List<Path> partitions = new ArrayList<>();
        for (ArchivePartition part : partitionsOf(s)) {
            Path dir = new Path(p, part.path());
            if (exists(dir)) {
                partitions.add(dir);
            } else if (s == ArchiveStream.TRANSACTIONS
                    && part.start().isBefore(period.dataEnd(windows))) {
                quietHours.add(part.path());
            }
        }
        return new StreamInput(s, partitions, StreamInput.Format.AVRO, path);
    }

    private List<LocalDate> daysOf(ArchiveStream s) {
        List<LocalDate> days = new ArrayList<>();
        List<ArchivePartition> required =
                s == ArchiveStream.TRANSACTIONS
                        ? ArchivePartition.covering(
                                period.from().toEpochMilli(),
                                period.dataEnd(windows).toEpochMilli())
                        : partitionsOf(s);
        for (ArchivePartition part : required) {
            if (!days.contains(part.date())) {
                days.add(part.date());
            }
        }
        return days;
    }

    private List<ArchivePartition> partitionsOf(ArchiveStream s) {
        long from = period.from().toEpochMilli();
        long to = period.to().toEpochMilli();
        long dataEnd = period.dataEnd(windows).toEpochMilli();
        return switch (s) {
            case TRANSACTIONS ->
                    ArchivePartition.covering(from, readEnd(period, windows, arrivalHorizon));
            case LATE, TRANSACTION_SCORES -> ArchivePartition.covering(from, dataEnd);
            case FEATURES, SCORES -> ArchivePartition.covering(from, to);
            case READ_POSITIONS, MODEL_EVENTS ->
                    throw new IllegalArgumentException(
                            s
                                    + " is read whole, on the client (ReadPositionsReader,"
                                    + " ModelEventsReader)");
            case DEAD_LETTERS ->
                    ArchivePartition.covering(
                            Instant.ofEpochMilli(from).minus(DEAD_LETTER_EARLY).toEpochMilli(),
                            Instant.ofEpochMilli(dataEnd)
                                    .plus(arrivalHorizon)
                                    .truncatedTo(ChronoUnit.MILLIS)
                                    .toEpochMilli());
        };
    }

    /**
     * How far in event time a run reads transactions: the end of the last window judged plus the
     * arrival horizon; {@link Long#MAX_VALUE} for an unbounded run (everything).
     */
    public static long readEnd(
            ParityPeriod period, WindowAssignment windows, Duration arrivalHorizon) {
        if (!period.isBounded()) {
            return Long.MAX_VALUE;
        }
        return period.dataEnd(windows)
                .plus(arrivalHorizon)
                .truncatedTo(ChronoUnit.MILLIS)
                .toEpochMilli();
    }

    private static boolean isPartitioned(Path dir) throws ParityInputException {
        try {
            FileSystem fs = dir.getFileSystem();
            if (!fs.getFileStatus(dir).isDir()) {
                return false;
            }
            FileStatus[] children = fs.listStatus(dir);
            if (children == null) {
                return false;
            }
            for (FileStatus c : children) {
                if (c.isDir() && c.getPath().getName().startsWith("date=")) {
                    return true;
                }
            }
            return false;
        } catch (IOException e) {
            throw new ParityInputException("cannot list " + dir + ": " + e.getMessage(), e);
        }
    }

    private static boolean exists(Path p) throws ParityInputException {
        try {
            return p.getFileSystem().exists(p);
        } catch (IOException e) {
            throw new ParityInputException(
                    "cannot reach "
                            + p
                            + " ("
                            + e.getMessage()
                            + "): is the file system URI right?",
                    e);
        }
    }
}
