package org.fraudpipe.tools.export;

import java.io.BufferedReader;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.NavigableSet;
import java.util.Objects;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.atomic.AtomicLong;
import org.fraudpipe.job.cli.ProgressLine;
import org.fraudpipe.job.features.FeatureAggregator;
import org.fraudpipe.job.features.FeatureValues;
import org.fraudpipe.job.features.WindowAssignment;
import org.fraudpipe.job.ingest.RecordIngestor;
import org.fraudpipe.job.io.AtomicFiles;
import org.fraudpipe.schemas.avro.FeatureRecord;
import org.fraudpipe.schemas.avro.Timing;
import org.fraudpipe.schemas.avro.Transaction;
import org.fraudpipe.schemas.json.ReplayFormatException;
import org.fraudpipe.schemas.json.ReplayRecord;
import org.fraudpipe.schemas.json.TransactionJson;
import org.fraudpipe.scoring.data.LabelledFeaturesJson;
import org.fraudpipe.scoring.data.LabelledWindow;
import org.fraudpipe.sim.Label;
import org.fraudpipe.sim.LabelJson;
import org.fraudpipe.sim.WindowLabels;
import org.fraudpipe.sim.WindowLabels.WindowRef;

/**
 * Labelled training features from a simulation ({@code ./fraud features}, the default {@code
 * --semantics ideal}): the <em>ideal</em> window features of every (user, window) with at least one
 * transaction, computed by the one feature core ({@link FeatureAggregator#compute}) over all stored
 * transactions, each labelled by {@link WindowLabels#fraudulentWindows}. Plain Java, no Flink.
 * {@link AsServedFeatureExport} gives what the streaming job serves instead.
 *
 * <p>Which transactions count: the product's one definition of the ideal value (DESIGN.md: "the
 * value over all stored transactions"; the batch parity check uses the same), i.e. every line that
 * reads and validates strictly ({@link TransactionJson#parseValidLine}), at its event time, however
 * late it arrived <em>and whether or not it is future-dated</em>. Future-dated transactions are
 * valid data: the job quarantines them only so that they cannot move its watermark, and the parity
 * check explains their absence from the served values as QUARANTINED. They are counted here, and
 * reported ({@link Summary#futureDated}) by the job's own rule ({@link
 * RecordIngestor#isFutureDated}, against the line's arrival time). Lines that do not read or
 * validate are skipped and counted. Each window's transactions are fed to the aggregator in file
 * (arrival) order, so a duplicate counts once with its first payload, as in the job.
 *
 * <p>Output records are {@code FeatureRecord}s as the job would emit them if every record had been
 * on time and the input had then ended: revision 0, {@code ON_TIME}, no late records, and {@code
 * emittedAt} = {@code watermark} = the end-of-input instant ({@link
 * LabelledFeaturesJson#END_OF_INPUT}), like the replay's windows that fire at the end of the file.
 * Sorted by user, then window start; written in the labelled-features format ({@link
 * LabelledFeaturesJson}).
 *
 * <p>Consistency checks, so that labels of another simulation fail instead of mislabelling: every
 * valid transaction has a label, and every fraudulent window of the labels has features (fraud is
 * never malformed, so a fraudulent transaction is always counted here). Limit: holds the valid
 * transactions in memory (about 200 bytes each).
 */
public final class TrainingFeatureExport {

    /**
     * What an export read and wrote.
     *
     * @param lines lines of the transactions file
     * @param invalidLines lines that do not read or validate (left out)
     * @param futureDated valid lines that the job quarantines as future-dated at the export's
     *     future tolerance; counted in the ideal windows
     * @param windows windows written
     * @param fraudulentWindows of those, labelled fraudulent
     * @param users distinct users of the windows written
     */
    public record Summary(
            long lines,
            long invalidLines,
            long futureDated,
            long windows,
            long fraudulentWindows,
            long users) {}

    /** The labelled windows and the counts of what was skipped. */
    public record Result(List<LabelledWindow> windows, Summary summary) {}

    private final WindowAssignment windows;
    private final Duration windowSize;
    private final RecordIngestor ingestor;

    /**
     * @param windowSize tumbling window size (the job's {@code --window-size})
     * @param futureTolerance the job's {@code --future-tolerance}: only decides which counted
     *     transactions {@link Summary#futureDated} reports as quarantined by the job
     */
    public TrainingFeatureExport(Duration windowSize, Duration futureTolerance) {
        this.windows = WindowAssignment.tumbling(windowSize);
        this.windowSize = windowSize;
        this.ingestor = new RecordIngestor(Objects.requireNonNull(futureTolerance));
    }

    /**
     * Reads a transactions file (the replay format, arrival order) and its labels file, and
     * computes the labelled windows.
     */
    public Result compute(Path transactions, Path labels) throws IOException {
        return compute(transactions, labels, ProgressLine.off());
    }

    /** {@link #compute(Path, Path)}, showing the lines read and the stages on {@code progress}. */
    public Result compute(Path transactions, Path labels, ProgressLine progress)
            throws IOException {
        List<ReplayRecord> records = new ArrayList<>();
        AtomicLong read = new AtomicLong();
        if (progress.isOn()) {
            progress.stage(
                    "reading " + transactions.getFileName(),
                    read::get,
                    ProgressLine.countInBackground(
                            "lines", () -> ProgressLine.lines(transactions)));
        }
        long lines = 0;
        long invalid = 0;
        try (BufferedReader in = Files.newBufferedReader(transactions, StandardCharsets.UTF_8)) {
            String line;
            while ((line = in.readLine()) != null) {
                lines++;
                read.lazySet(lines);
                try {
                    records.add(
                            TransactionJson.parseValidLine(transactions.toString(), line, lines));
                } catch (ReplayFormatException e) {
                    invalid++;
                }
            }
        }
        progress.stage("reading the labels and computing the windows");
        List<Label> labelList = LabelJson.readAll(labels);
        Result r = compute(records, labelList);
        Summary s = r.summary();
        return new Result(
                r.windows(),
                new Summary(
                        lines,
                        invalid,
                        s.futureDated(),
                        s.windows(),
                        s.fraudulentWindows(),
                        s.users()));
    }

    /**
     * The labelled windows of valid transactions in arrival order (future-dated ones included).
     *
     * @throws IllegalArgumentException if a transaction has no label or a fraudulent window of the
     *     labels has no transaction (labels of another simulation)
     */
    public Result compute(List<ReplayRecord> arrivalOrder, Collection<Label> labels) {
        Set<String> labelled = new HashSet<>();
        labels.forEach(l -> labelled.add(l.transactionId()));
        Map<WindowRef, List<Transaction>> byWindow = new TreeMap<>();
        long futureDated = 0;
        for (ReplayRecord record : arrivalOrder) {
            Transaction tx = record.transaction();
            if (!labelled.contains(tx.getTransactionId())) {
                throw new IllegalArgumentException(
                        "transaction "
                                + tx.getTransactionId()
                                + " has no label: are the labels those of this transactions"
                                + " file?");
            }
            if (ingestor.isFutureDated(tx, record.arrivalOrEventTime().toEpochMilli())) {
                futureDated++; // counted all the same: the ideal holds every stored transaction
            }
            long start = windows.startOf(tx.getEventTime().toEpochMilli());
            byWindow.computeIfAbsent(
                            new WindowRef(tx.getUserId(), Instant.ofEpochMilli(start)),
                            k -> new ArrayList<>())
                    .add(tx);
        }
        NavigableSet<WindowRef> fraudulent = WindowLabels.fraudulentWindows(labels, windowSize);
        for (WindowRef w : fraudulent) {
            if (!byWindow.containsKey(w)) {
                throw new IllegalArgumentException(
                        "the labels make window ("
                                + w.userId()
                                + ", "
                                + w.windowStart()
                                + ") fraudulent but the transactions have no valid"
                                + " transaction of that user in it: are the labels those of this"
                                + " transactions file?");
            }
        }
        List<LabelledWindow> out = new ArrayList<>(byWindow.size());
        for (Map.Entry<WindowRef, List<Transaction>> e : byWindow.entrySet()) {
            WindowRef w = e.getKey();
            out.add(
                    new LabelledWindow(
                            record(w, FeatureAggregator.compute(e.getValue())),
                            fraudulent.contains(w)));
        }
        long users = byWindow.keySet().stream().map(WindowRef::userId).distinct().count();
        return new Result(
                List.copyOf(out),
                new Summary(
                        arrivalOrder.size(), 0, futureDated, out.size(), fraudulent.size(), users));
    }

    /** The ideal FeatureRecord of one window. */
    private FeatureRecord record(WindowRef w, FeatureValues v) {
        Instant start = w.windowStart();
        return v.writeTo(FeatureRecord.newBuilder())
                .setUserId(w.userId())
                .setWindowStart(start)
                .setWindowEnd(start.plus(windowSize))
                .setRevision(0)
                .setTiming(Timing.ON_TIME)
                .setLateRecordsIncluded(0)
                .setEmittedAt(LabelledFeaturesJson.END_OF_INPUT)
                .setWatermark(LabelledFeaturesJson.END_OF_INPUT)
                .build();
    }

    /**
     * Writes labelled windows in the labelled-features format, to a temporary file renamed over
     * {@code out} once complete (a failed export never leaves half a file).
     */
    public static void write(List<LabelledWindow> windows, Path out) throws IOException {
        AtomicFiles.write(
                out,
                w -> {
                    for (LabelledWindow window : windows) {
                        w.write(LabelledFeaturesJson.toJsonLine(window));
                        w.write('\n');
                    }
                });
    }
}
