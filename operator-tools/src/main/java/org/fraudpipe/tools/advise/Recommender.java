package org.fraudpipe.tools.advise;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import org.fraudpipe.job.config.Durations;
import org.fraudpipe.job.config.JobOption;

/**
 * Chooses the pair to recommend: of those meeting both targets (too-late share at most {@code
 * maxTooLateShare}, p99 of the first result's delay at most {@code maxFirstResultDelay}), the one
 * with the least peak state, then the least p99 first-result delay, then the smaller lateness and
 * bound. Without one, says which target to relax and by how much the nearest pair misses it.
 */
final class Recommender {

    /** Cheapest first: state, then first-result delay, then lateness, then bound. */
    static final Comparator<Advice.Pair> CHEAPEST =
            Comparator.comparingLong(Advice.Pair::peakStateBytesEstimate)
                    .thenComparingLong(p -> p99(p))
                    .thenComparingLong(Advice.Pair::allowedLatenessMillis)
                    .thenComparingLong(Advice.Pair::outOfOrdernessMillis);

    private Recommender() {}

    static long p99(Advice.Pair p) {
        Long v = p.firstResultDelay().p99Millis();
        return v == null ? Long.MIN_VALUE : v;
    }

    /** The targets a pair misses, in words (empty: it meets both). */
    static List<String> misses(double tooLateShare, Long firstResultP99, Advice.Targets targets) {
        List<String> out = new ArrayList<>();
        if (tooLateShare > targets.maxTooLateShare()) {
            out.add(
                    "too late "
                            + Human.share(tooLateShare)
                            + " > "
                            + Human.share(targets.maxTooLateShare()));
        }
        if (firstResultP99 != null && firstResultP99 > targets.maxFirstResultDelayMillis()) {
            out.add(
                    "first result p99 "
                            + Human.duration(firstResultP99)
                            + " > "
                            + Human.duration(targets.maxFirstResultDelayMillis()));
        }
        return out;
    }

    /** The job's command line with a pair (and the window size when not the job's default). */
    static String command(String bound, String lateness, Duration windowSize) {
        StringBuilder b = new StringBuilder("./fraud job");
        if (!Durations.format(windowSize).equals(JobOption.WINDOW_SIZE.defaultValue())) {
            b.append(" --").append(JobOption.WINDOW_SIZE.key()).append(' ');
            b.append(Durations.format(windowSize));
        }
        b.append(" --").append(JobOption.OUT_OF_ORDERNESS.key()).append(' ').append(bound);
        b.append(" --").append(JobOption.ALLOWED_LATENESS.key()).append(' ').append(lateness);
        return b.toString();
    }

    static Advice.Recommendation recommend(
            List<Advice.Pair> grid, Advice.Targets targets, Duration windowSize) {
        List<Advice.Pair> meeting =
                grid.stream().filter(Advice.Pair::meetsTargets).sorted(CHEAPEST).toList();
        String goals =
                "at most "
                        + Human.share(targets.maxTooLateShare())
                        + " of the records too late and the first result of a window within "
                        + Human.duration(targets.maxFirstResultDelayMillis())
                        + " of its end at p99";
        if (!meeting.isEmpty()) {
            Advice.Pair best = meeting.get(0);
            StringBuilder r = new StringBuilder();
            r.append("Of ")
                    .append(grid.size())
                    .append(" pairs replayed over the recorded arrival order, ")
                    .append(meeting.size())
                    .append(" meet the targets (")
                    .append(goals)
                    .append("). The cheapest is ")
                    .append(name(best))
                    .append(": ")
                    .append(describe(best))
                    .append('.');
            grid.stream()
                    .filter(p -> !p.meetsTargets())
                    .filter(p -> CHEAPEST.compare(p, best) < 0)
                    .sorted(CHEAPEST.reversed())
                    .findFirst()
                    .ifPresent(
                            cheaper ->
                                    r.append(" The next cheaper pair, ")
                                            .append(name(cheaper))
                                            .append(", would keep ")
                                            .append(Human.bytes(cheaper.peakStateBytesEstimate()))
                                            .append(" but misses ")
                                            .append(String.join(" and ", cheaper.misses()))
                                            .append('.'));
            grid.stream()
                    .filter(Advice.Pair::current)
                    .findFirst()
                    .filter(c -> c != best)
                    .ifPresent(
                            c ->
                                    r.append(" The job runs with ")
                                            .append(name(c))
                                            .append(" now: ")
                                            .append(describe(c))
                                            .append(
                                                    c.meetsTargets()
                                                            ? " (it meets the targets, at more"
                                                                    + " cost)."
                                                            : "; it misses "
                                                                    + String.join(
                                                                            " and ", c.misses())
                                                                    + "."));
            if (best.current()) {
                r.append(" It is what the job runs with now.");
            }
            return new Advice.Recommendation(
                    true,
                    best.outOfOrderness(),
                    best.allowedLateness(),
                    command(best.outOfOrderness(), best.allowedLateness(), windowSize),
                    r.toString(),
                    List.of());
        }
        // No pair meets both: the nearest pair for each target alone.
        List<String> relax = new ArrayList<>();
        List<Double> excess = new ArrayList<>();
        grid.stream()
                .filter(p -> within(p99(p), targets.maxFirstResultDelayMillis()))
                .min(Comparator.comparingDouble(Advice.Pair::tooLateShare).thenComparing(CHEAPEST))
                .ifPresent(
                        p -> {
                            relax.add(
                                    "relax --max-too-late to "
                                            + Human.share(p.tooLateShare())
                                            + ": the nearest pair, "
                                            + name(p)
                                            + ", meets the first-result target but puts "
                                            + Human.share(p.tooLateShare())
                                            + " of the records too late, "
                                            + points(p.tooLateShare() - targets.maxTooLateShare())
                                            + " over the target");
                            excess.add(
                                    p.tooLateShare() / Math.max(1e-12, targets.maxTooLateShare()));
                        });
        grid.stream()
                .filter(p -> p.tooLateShare() <= targets.maxTooLateShare())
                .min(Comparator.comparingLong(Recommender::p99).thenComparing(CHEAPEST))
                .ifPresent(
                        p -> {
                            relax.add(
                                    "relax --max-first-result-delay to "
                                            + Human.duration(p99(p))
                                            + ": the nearest pair, "
                                            + name(p)
                                            + ", meets the too-late target but gives the first"
                                            + " result at p99 "
                                            + Human.duration(p99(p))
                                            + " after a window's end, "
                                            + Human.duration(
                                                    p99(p) - targets.maxFirstResultDelayMillis())
                                            + " over the target");
                            excess.add(
                                    (double) p99(p)
                                            / Math.max(1, targets.maxFirstResultDelayMillis()));
                        });
        if (relax.size() == 2 && excess.get(1) < excess.get(0)) {
            relax.add(0, relax.remove(1));
        }
        if (relax.isEmpty()) {
            Advice.Pair p =
                    grid.stream()
                            .min(
                                    Comparator.comparingDouble(Advice.Pair::tooLateShare)
                                            .thenComparing(CHEAPEST))
                            .orElseThrow();
            relax.add(
                    "relax both: no pair meets either target alone; the nearest, "
                            + name(p)
                            + ", misses "
                            + String.join(" and ", p.misses()));
        }
        String reasons =
                "None of the "
                        + grid.size()
                        + " pairs replayed over the recorded arrival order meets the targets ("
                        + goals
                        + "). To get advice, "
                        + relax.get(0)
                        + (relax.size() > 1 ? "; or " + relax.get(1) : "")
                        + ". Or try other --bounds and --lateness.";
        return new Advice.Recommendation(false, null, null, null, reasons, relax);
    }

    private static boolean within(long p99, long max) {
        return p99 == Long.MIN_VALUE || p99 <= max;
    }

    private static String points(double share) {
        return Human.share(share).replace(" %", " percentage points");
    }

    static String name(Advice.Pair p) {
        return "--out-of-orderness "
                + p.outOfOrderness()
                + " --allowed-lateness "
                + p.allowedLateness();
    }

    /** One pair's price, in words. */
    static String describe(Advice.Pair p) {
        return Human.share(p.tooLateShare())
                + " of the records too late ("
                + Human.count(p.tooLate())
                + "), the first result "
                + Human.duration(p.firstResultDelay().p99Millis())
                + " after a window's end at p99 ("
                + Human.duration(p.firstResultDelay().p50Millis())
                + " at p50), "
                + Human.count(p.refires())
                + " re-fires in "
                + Human.count(p.windowsRefired())
                + " windows, state at most about "
                + Human.bytes(p.peakStateBytesEstimate())
                + " ("
                + Human.count(p.peakLiveWindows())
                + " live windows, up to "
                + p.maxLiveWindowsOfOneUser()
                + " for one user; estimate)";
    }
}
