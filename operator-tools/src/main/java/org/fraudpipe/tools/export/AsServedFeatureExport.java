package org.fraudpipe.tools.export;

import java.io.BufferedReader;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.NavigableMap;
import java.util.Objects;
import java.util.TreeMap;
import java.util.stream.Stream;
import org.fraudpipe.job.cli.ProgressLine;
import org.fraudpipe.job.config.JobConfig;
import org.fraudpipe.job.replay.AvroJson;
import org.fraudpipe.job.replay.Replay;
import org.fraudpipe.job.replay.ReplayConfig;
import org.fraudpipe.job.replay.ReplayOutput;
import org.fraudpipe.job.replay.ReplaySummary;
import org.fraudpipe.schemas.avro.FeatureRecord;
import org.fraudpipe.scoring.data.LabelledFeaturesJson;
import org.fraudpipe.scoring.data.LabelledWindow;
import org.fraudpipe.sim.WindowLabels;
import org.fraudpipe.sim.WindowLabels.WindowRef;

/**
 * Labelled training features <em>as served</em> ({@code ./fraud features --semantics as-served}):
 * the window features the streaming job actually serves for a transactions file, so that a model
 * can be trained on what it will see in production rather than on the ideal values.
 *
 * <p>How: the job's own topology runs over the file with the deterministic replay ({@link
 * Replay#run}), with the job's lateness options from a {@link JobConfig} ({@code --window-size},
 * {@code --allowed-lateness}, {@code --out-of-orderness}, {@code --future-tolerance}), in a
 * temporary directory removed afterwards. Its {@code features.jsonl} holds every pane; per (user,
 * window) the export keeps the <b>last served revision</b> (the highest {@code revision}): what a
 * reader of the upsert topic holds once the window is closed, and what the last score of the window
 * was computed on. Windows the stream never served (every record of them too late, or quarantined
 * as future-dated) are absent: that is the point. Output records keep the served pane fields
 * ({@code revision}, {@code timing}, {@code lateRecordsIncluded}, {@code emittedAt}, {@code
 * watermark}).
 *
 * <p>Labels follow the same rule as the ideal export ({@link WindowLabels#fraudulentWindows}, via
 * the ideal result), so a window present in both exports carries the same label in both. The ideal
 * export also runs first and gives its consistency checks (labels of this file) before any job
 * starts, and the comparison reported in {@link Summary}.
 *
 * <p>Invariants: every served window is an ideal window (the stream counts a subset of what the
 * ideal counts; anything else is a bug and fails); output sorted by user, then window start, in the
 * labelled-features format. Limits: the replay's files are written to disk next to the output (the
 * directory is deleted afterwards, also on failure, but not if the JVM is killed); the replay runs
 * a Flink MiniCluster in this JVM, and scores every pane with the default model although the scores
 * are not used.
 */
public final class AsServedFeatureExport {

    /** Prefix of the temporary directory that holds the replay's files. */
    static final String WORK_PREFIX = ".fraud-features-as-served-";

    /**
     * What an as-served export read and wrote.
     *
     * @param ideal the ideal export of the same input (its lines, invalid lines, windows, ...)
     * @param windows windows written: those the stream served
     * @param fraudulentWindows of those, labelled fraudulent
     * @param users distinct users of the windows written
     * @param differing served windows whose last revision's features differ from the ideal ones
     * @param absent ideal windows the stream never served (not written)
     * @param absentFraudulent of those, fraudulent ones
     * @param quarantined future-dated records the stream set aside (the replay's count)
     * @param tooLate records that arrived after their window's end plus the allowed lateness
     */
    public record Summary(
            TrainingFeatureExport.Summary ideal,
            long windows,
            long fraudulentWindows,
            long users,
            long differing,
            long absent,
            long absentFraudulent,
            long quarantined,
            long tooLate) {}

    /** The labelled served windows and what they were compared with. */
    public record Result(List<LabelledWindow> windows, Summary summary) {}

    private final JobConfig job;

    /**
     * @param job the streaming options the replay runs with (window size, allowed lateness,
     *     out-of-orderness, future tolerance; also its parallelism and state backend, which do not
     *     change the result)
     */
    public AsServedFeatureExport(JobConfig job) {
        this.job = Objects.requireNonNull(job, "job");
    }

    /**
     * Runs the ideal export and the replay of {@code transactions} and labels the served windows.
     *
     * @param workParent directory in which the replay's temporary directory is created
     * @throws IllegalArgumentException if the labels do not belong to the transactions (nothing has
     *     run then)
     * @throws Exception if the replay fails
     */
    public Result compute(Path transactions, Path labels, Path workParent) throws Exception {
        return compute(transactions, labels, workParent, ProgressLine.off());
    }

    /** {@link #compute(Path, Path, Path)}, showing its stages on {@code progress}. */
    public Result compute(Path transactions, Path labels, Path workParent, ProgressLine progress)
            throws Exception {
        TrainingFeatureExport.Result ideal =
                new TrainingFeatureExport(job.windowSize(), job.futureTolerance())
                        .compute(transactions, labels, progress);
        Files.createDirectories(workParent);
        try (WorkDir work = new WorkDir(Files.createTempDirectory(workParent, WORK_PREFIX))) {
            ReplaySummary replay =
                    Replay.run(ReplayConfig.of(transactions, work.dir(), job), progress);
            progress.stage("labelling the served windows");
            List<FeatureRecord> panes =
                    readPanes(work.dir().resolve(ReplayOutput.FEATURES.fileName()));
            return label(ideal, panes, replay.quarantined(), replay.tooLate());
        }
    }

    /**
     * The served windows (last revision of each) labelled as in {@code ideal}, compared with it.
     *
     * @param panes every pane the stream emitted, in any order
     * @param quarantined the stream's count of future-dated records, for the summary
     * @param tooLate the stream's count of too-late records, for the summary
     * @throws IllegalStateException if a window has two panes of one revision or was served but has
     *     no ideal value (both impossible for the job: a bug, not bad input)
     */
    static Result label(
            TrainingFeatureExport.Result ideal,
            Iterable<FeatureRecord> panes,
            long quarantined,
            long tooLate) {
        NavigableMap<WindowRef, LabelledWindow> idealByWindow = new TreeMap<>();
        for (LabelledWindow w : ideal.windows()) {
            idealByWindow.put(ref(w.features()), w);
        }
        NavigableMap<WindowRef, FeatureRecord> last = lastRevisions(panes);
        List<LabelledWindow> out = new ArrayList<>(last.size());
        long fraudulent = 0;
        long differing = 0;
        for (Map.Entry<WindowRef, FeatureRecord> e : last.entrySet()) {
            LabelledWindow i = idealByWindow.get(e.getKey());
            if (i == null) {
                throw new IllegalStateException(
                        "the stream served window "
                                + describe(e.getKey())
                                + " that has no valid transaction in the input: the job counted"
                                + " something the ideal export did not read");
            }
            out.add(new LabelledWindow(e.getValue(), i.fraud()));
            fraudulent += i.fraud() ? 1 : 0;
            differing += sameFeatures(e.getValue(), i.features()) ? 0 : 1;
        }
        long absent = 0;
        long absentFraudulent = 0;
        for (Map.Entry<WindowRef, LabelledWindow> e : idealByWindow.entrySet()) {
            if (!last.containsKey(e.getKey())) {
                absent++;
                absentFraudulent += e.getValue().fraud() ? 1 : 0;
            }
        }
        long users = last.keySet().stream().map(WindowRef::userId).distinct().count();
        return new Result(
                List.copyOf(out),
                new Summary(
                        ideal.summary(),
                        out.size(),
                        fraudulent,
                        users,
                        differing,
                        absent,
                        absentFraudulent,
                        quarantined,
                        tooLate));
    }

    /** Per window, the pane with the highest revision: what an upsert reader ends up holding. */
    static NavigableMap<WindowRef, FeatureRecord> lastRevisions(Iterable<FeatureRecord> panes) {
        NavigableMap<WindowRef, FeatureRecord> last = new TreeMap<>();
        for (FeatureRecord pane : panes) {
            WindowRef ref = ref(pane);
            FeatureRecord held = last.get(ref);
            if (held != null && held.getRevision() == pane.getRevision()) {
                throw new IllegalStateException(
                        "window "
                                + describe(ref)
                                + " was served twice with revision "
                                + pane.getRevision());
            }
            if (held == null || pane.getRevision() > held.getRevision()) {
                last.put(ref, pane);
            }
        }
        return last;
    }

    private static boolean sameFeatures(FeatureRecord a, FeatureRecord b) {
        return a.getWindowEnd().equals(b.getWindowEnd())
                && a.getTxCount() == b.getTxCount()
                && a.getAmountSum() == b.getAmountSum()
                && a.getAmountMax() == b.getAmountMax()
                && a.getDistinctDevices() == b.getDistinctDevices()
                && a.getDistinctMerchants() == b.getDistinctMerchants()
                && a.getDistinctCountries() == b.getDistinctCountries();
    }

    private static WindowRef ref(FeatureRecord r) {
        return new WindowRef(r.getUserId(), r.getWindowStart());
    }

    private static String describe(WindowRef w) {
        return "(" + w.userId() + ", " + LabelledFeaturesJson.formatInstant(w.windowStart()) + ")";
    }

    private static List<FeatureRecord> readPanes(Path features) throws IOException {
        List<FeatureRecord> panes = new ArrayList<>();
        try (BufferedReader in = Files.newBufferedReader(features, StandardCharsets.UTF_8)) {
            String line;
            while ((line = in.readLine()) != null) {
                panes.add(AvroJson.fromJsonLine(line, FeatureRecord.class));
            }
        }
        return panes;
    }

    /** The replay's output directory, deleted with its content on close. */
    private record WorkDir(Path dir) implements AutoCloseable {
        @Override
        public void close() throws IOException {
            if (!Files.exists(dir)) {
                return;
            }
            try (Stream<Path> walk = Files.walk(dir)) {
                for (Path p : walk.sorted(Comparator.reverseOrder()).toList()) {
                    Files.delete(p);
                }
            }
        }
    }
}
