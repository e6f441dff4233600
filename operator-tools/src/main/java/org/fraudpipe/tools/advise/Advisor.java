package org.fraudpipe.tools.advise;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.atomic.AtomicLong;
import org.fraudpipe.job.cli.ProgressLine;
import org.fraudpipe.job.config.Durations;
import org.fraudpipe.job.features.WindowAssignment;
import org.fraudpipe.parity.ParityPeriod;

/**
 * From recorded traffic to {@link Advice}: the delay distribution, the grid of pairs replayed by
 * {@link EventTimeModel}, the per-transaction count of {@link TrailingArrivals}, the recommendation
 * of {@link Recommender}.
 */
final class Advisor {

    /**
     * What to advise on.
     *
     * @param kind {@code replay-file} or {@code archive}
     * @param idleness null: none (a replay file, or an archive the replay wrote)
     * @param bounds null: chosen from the distribution
     * @param lateness null: chosen from the distribution
     * @param currentBound the bound the job recorded, or null
     * @param currentLateness the lateness the job recorded, or null
     */
    record Options(
            String kind,
            String source,
            ParityPeriod period,
            String periodLabel,
            Duration windowSize,
            Duration futureTolerance,
            Duration idleness,
            String policySource,
            Duration currentBound,
            Duration currentLateness,
            List<Duration> bounds,
            List<Duration> lateness,
            Advice.Targets targets) {}

    static final String FILE = "replay-file";
    static final String ARCHIVE = "archive";

    private Advisor() {}

    static Advice advise(RecordedTraffic t, Options o, ProgressLine progress) {
        WindowAssignment windows = WindowAssignment.tumbling(o.windowSize());
        progress.stage("modelling event time");
        EventTimeModel model = new EventTimeModel(t, o.windowSize(), o.period(), o.idleness());
        Advice.Delays delays = DelayProfile.of(t, windows, o.period(), model, o.idleness());

        long[] windowable = windowableDelays(t, windows, o.period());
        List<Duration> bounds =
                o.bounds() != null
                        ? o.bounds()
                        : Grid.bounds(windowable, o.windowSize(), o.currentBound());
        List<Duration> lateness =
                o.lateness() != null
                        ? o.lateness()
                        : Grid.lateness(windowable, o.currentLateness());
        List<Advice.Pair> grid = new ArrayList<>();
        AtomicLong done = new AtomicLong();
        long pairs = (long) bounds.size() * lateness.size();
        progress.stage("replaying " + pairs + " pairs", done::get, () -> pairs);
        for (Duration b : bounds) {
            for (Duration l : lateness) {
                grid.add(pair(model.evaluate(b, l), o));
                done.incrementAndGet();
            }
        }
        Advice.Recommendation recommendation =
                Recommender.recommend(grid, o.targets(), o.windowSize());

        long[] trailing = TrailingArrivals.count(t, o.windowSize(), windows, o.period());
        Advice.PerTransaction perTransaction =
                new Advice.PerTransaction(
                        Durations.format(o.windowSize()),
                        trailing[0],
                        trailing[1],
                        trailing[0] == 0 ? 0 : (double) trailing[1] / trailing[0],
                        "A score at arrival (the per-transaction path) sees a user's trailing"
                                + " window as received so far: this many transactions would be"
                                + " scored before a record of their trailing window arrived,"
                                + " whatever the bound and lateness (they decide the window"
                                + " features only). The job of this build has no per-transaction"
                                + " path: each pair's perTransactionScoring is null.");

        long quarantined = 0;
        for (int i = 0; i < t.size; i++) {
            if (t.futureDated[i]) {
                quarantined++;
            }
        }
        Advice.Input input =
                new Advice.Input(
                        o.kind(),
                        o.source(),
                        o.periodLabel(),
                        Durations.format(o.windowSize()),
                        Durations.format(o.futureTolerance()),
                        o.idleness() == null ? "none" : Durations.format(o.idleness()),
                        o.policySource(),
                        o.currentBound() == null ? null : Durations.format(o.currentBound()),
                        o.currentLateness() == null ? null : Durations.format(o.currentLateness()),
                        watermarkModel(o, t.partitionNames.size()),
                        t.size,
                        t.deadLetters,
                        quarantined,
                        model.records,
                        model.countedRecords,
                        t.users,
                        t.partitionNames,
                        "window state estimated as "
                                + EventTimeModel.STATE_BYTES_PER_WINDOW
                                + " bytes per user and live window plus "
                                + EventTimeModel.STATE_BYTES_PER_TRANSACTION
                                + " per distinct transaction in it (Flink's canonical format,"
                                + " measured in docs/BENCHMARKS.md); RocksDB's files differ");
        boolean met = recommendation.targetsMet();
        return new Advice(
                met ? Advice.TARGETS_MET : Advice.NO_PAIR_MEETS_TARGETS,
                met ? 0 : 1,
                input,
                delays,
                o.targets(),
                grid,
                recommendation,
                perTransaction);
    }

    private static Advice.Pair pair(EventTimeModel.Outcome x, Options o) {
        Advice.DelayStats first = DelayProfile.stats(x.firstResultDelay);
        List<String> misses = Recommender.misses(x.tooLateShare(), first.p99Millis(), o.targets());
        return new Advice.Pair(
                Durations.format(x.bound),
                Durations.format(x.lateness),
                x.bound.toMillis(),
                x.lateness.toMillis(),
                Objects.equals(x.bound, o.currentBound())
                        && Objects.equals(x.lateness, o.currentLateness()),
                x.records,
                x.onTime,
                x.lateWithinGrace,
                x.tooLate,
                x.tooLateShare(),
                x.refires,
                x.windowsRefired,
                x.windows,
                x.windowsFiredOnTime,
                x.windowsFirstFiredLate,
                x.windowsOpenAtEnd,
                x.windows + x.refires,
                first,
                x.liveWindowsRule,
                x.peakLiveWindows,
                x.usersWithStateAtPeak == 0
                        ? 0
                        : Math.round(100.0 * x.peakLiveWindows / x.usersWithStateAtPeak) / 100.0,
                x.maxLiveWindowsOfOneUser,
                x.peakStateBytes,
                misses.isEmpty(),
                misses,
                null);
    }

    /** Delays of the windowable records of the period, ascending: what the default grid uses. */
    private static long[] windowableDelays(
            RecordedTraffic t, WindowAssignment windows, ParityPeriod period) {
        long[] d = new long[t.size];
        int n = 0;
        for (int i = 0; i < t.size; i++) {
            if (t.isWindowable(i) && period.containsWindowStart(windows.startOf(t.eventTime[i]))) {
                d[n++] = t.arrival[i] - t.eventTime[i];
            }
        }
        d = Arrays.copyOf(d, n);
        Arrays.sort(d);
        return d;
    }

    static String watermarkModel(Options o, int partitions) {
        if (o.kind().equals(FILE)) {
            return "exact: the replay's watermark, one after every windowable record (largest"
                    + " event time so far - bound - 1 ms), judged before each record, in file"
                    + " order; the same fates as ./fraud replay with each pair";
        }
        String order =
                " Arrival order: per Kafka partition by offset, across partitions by arrival time"
                        + " (the record timestamp, else receivedAt).";
        if (o.idleness() == null) {
            return "per-partition watermarks without idleness (the policy recorded none: a"
                    + " replay's archive), their minimum, emitted after every record;"
                    + (partitions == 1 ? " with one partition exactly the replay's watermark." : "")
                    + order;
        }
        return "the live job's watermark, modelled: per partition the largest event time so far"
                + " - bound - 1 ms; the window sees the minimum over the active partitions (a"
                + " partition is idle after "
                + Durations.format(o.idleness())
                + " without windowable records, measured on arrival times, until its next"
                + " record), never going back; emitted at once after each record or idle"
                + " transition (the job emits every 200 ms: first results up to that much later)."
                + order;
    }
}
