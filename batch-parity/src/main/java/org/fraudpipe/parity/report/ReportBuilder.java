package org.fraudpipe.parity.report;

import java.io.Serializable;
import java.math.BigDecimal;
import java.math.MathContext;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.EnumMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.TreeSet;
import org.fraudpipe.parity.Cause;
import org.fraudpipe.parity.FeatureVector;
import org.fraudpipe.parity.WindowVerdict;
import org.fraudpipe.schemas.avro.ScoreRecord;

/**
 * Folds the verdicts of a run, in any order, into a {@link ParityReport}. Memory is bounded by the
 * number of hours and the example limits, not by the number of windows.
 *
 * <p>Partial builders merge ({@link #merge}): each judging subtask folds its own windows on the
 * cluster and hands its builder on as bytes ({@link #toBytes}), so the client's memory and work do
 * not grow with the windows. Every kept set has a total order and every sum is exact, so the merged
 * report is the same whichever windows each subtask judged and in whichever order partials arrive.
 */
public final class ReportBuilder implements Serializable {

    private static final long serialVersionUID = 1L;

    /** Examples kept per cause (other than MATCH). */
    public static final int EXAMPLES_PER_CAUSE = 5;

    /** Alarm windows listed as the worst. */
    public static final int WORST_UNEXPLAINED = 20;

    private static final Comparator<WindowVerdict> BY_WINDOW =
            Comparator.comparing((WindowVerdict v) -> v.userId)
                    .thenComparingLong(v -> v.windowStart);

    /**
     * Worst first: largest |score delta|, then largest relative feature difference, then by window
     * (a total order, so the kept set does not depend on arrival order).
     */
    private static final Comparator<WindowVerdict> WORST_FIRST =
            Comparator.comparingDouble((WindowVerdict v) -> -absDelta(v))
                    .thenComparingDouble(v -> -featureDistance(v))
                    .thenComparing(BY_WINDOW);

    /** The two orders by name: a serializable comparator, so that the kept sets travel. */
    private enum Order implements Comparator<WindowVerdict> {
        BY_WINDOW_ORDER {
            @Override
            public int compare(WindowVerdict a, WindowVerdict b) {
                return BY_WINDOW.compare(a, b);
            }
        },
        WORST_FIRST_ORDER {
            @Override
            public int compare(WindowVerdict a, WindowVerdict b) {
                return WORST_FIRST.compare(a, b);
            }
        }
    }

    private final Map<Cause, Long> byCause = new EnumMap<>(Cause.class);
    private final Map<Cause, TreeSet<WindowVerdict>> examples = new EnumMap<>(Cause.class);
    private final TreeSet<WindowVerdict> worst = new TreeSet<>(Order.WORST_FIRST_ORDER);
    private final TreeMap<Instant, long[]> byHour = new TreeMap<>();
    private final Histogram lateness = Histogram.lateness();
    private final Histogram scoreDelta = Histogram.scoreDelta();
    private final TreeMap<String, Long> flips = new TreeMap<>();
    private final TreeMap<String, Long> neverScoredDecisions = new TreeMap<>();
    private final TreeSet<String> modelVersions = new TreeSet<>();
    private final ReleaseFigures releases = new ReleaseFigures();
    private BigDecimal absDeltaSum = BigDecimal.ZERO;
    private double maxAbsDelta;
    private long compared;
    private long otherModelVersion;
    private long neverScored;
    private long archived;
    private long servedPanes;
    private long tooLate;
    private long quarantined;
    private long deadLettered;
    private long contradictedLabels;
    private long uncheckedLabels;

    public ReportBuilder() {
        for (Cause c : Cause.values()) {
            byCause.put(c, 0L);
        }
    }

    /** Adds one window's verdict. */
    public ReportBuilder add(WindowVerdict v) {
        byCause.merge(v.cause, 1L, Long::sum);
        boolean mismatched = !v.differingFeatures.isEmpty();
        boolean alarm = !v.cause.isExplained();
        long[] hour =
                byHour.computeIfAbsent(
                        Instant.ofEpochMilli(v.windowStart).truncatedTo(ChronoUnit.HOURS),
                        h -> new long[3]);
        hour[0]++;
        hour[1] += mismatched ? 1 : 0;
        hour[2] += alarm ? 1 : 0;
        if (v.cause != Cause.MATCH) {
            TreeSet<WindowVerdict> kept =
                    examples.computeIfAbsent(v.cause, c -> new TreeSet<>(Order.BY_WINDOW_ORDER));
            keepFirst(kept, v, EXAMPLES_PER_CAUSE);
        }
        if (alarm) {
            keepFirst(worst, v, WORST_UNEXPLAINED);
        }
        for (long l : v.lateByMillis) {
            lateness.add(l);
        }
        archived += v.archivedRecords;
        servedPanes += v.servedPanes;
        tooLate += v.lateDropped;
        quarantined += v.quarantined;
        deadLettered += v.deadLettered;
        contradictedLabels += v.contradictedLabels;
        uncheckedLabels += v.uncheckedLabels;
        if (v.idealModelVersion != null) {
            modelVersions.add(v.idealModelVersion);
        }
        if (v.servedScore != null) {
            ScoreRecord s = v.servedScore;
            releases.served(
                    s.getModelName() + ":" + s.getModelVersion(),
                    v.hasScoreDelta() ? v.scoreDelta() : Double.NaN,
                    v.hasScoreDelta() && v.decisionFlipped());
            if (s.getChallenger() != null) {
                releases.shadow(
                        s.getModelName() + ":" + s.getModelVersion(),
                        s.getScore(),
                        s.getDecision().name(),
                        s.getChallenger().getModelName()
                                + ":"
                                + s.getChallenger().getModelVersion(),
                        s.getChallenger().getScore(),
                        s.getChallenger().getDecision().name(),
                        null);
            }
        }
        if (v.hasScoreDelta()) {
            compared++;
            double delta = v.scoreDelta();
            scoreDelta.add(delta);
            absDeltaSum = absDeltaSum.add(new BigDecimal(Math.abs(delta)));
            maxAbsDelta = Math.max(maxAbsDelta, Math.abs(delta));
            if (v.decisionFlipped()) {
                flips.merge(
                        v.servedScore.getDecision().name() + "->" + v.idealDecision, 1L, Long::sum);
            }
        } else if (v.modelVersionDiffers()) {
            otherModelVersion++;
        } else if (v.servedScore == null && v.idealDecision != null) {
            neverScored++;
            neverScoredDecisions.merge(v.idealDecision, 1L, Long::sum);
        }
        return this;
    }

    /** Adds what {@code other} folded: as if its verdicts had been added to this one. */
    public ReportBuilder merge(ReportBuilder other) {
        other.byCause.forEach((c, n) -> byCause.merge(c, n, Long::sum));
        other.examples.forEach(
                (c, vs) -> {
                    TreeSet<WindowVerdict> kept =
                            examples.computeIfAbsent(c, k -> new TreeSet<>(Order.BY_WINDOW_ORDER));
                    vs.forEach(v -> keepFirst(kept, v, EXAMPLES_PER_CAUSE));
                });
        other.worst.forEach(v -> keepFirst(worst, v, WORST_UNEXPLAINED));
        other.byHour.forEach(
                (h, c) -> {
                    long[] hour = byHour.computeIfAbsent(h, k -> new long[3]);
                    for (int i = 0; i < hour.length; i++) {
                        hour[i] += c[i];
                    }
                });
        lateness.merge(other.lateness);
        scoreDelta.merge(other.scoreDelta);
        releases.merge(other.releases);
        other.flips.forEach((k, n) -> flips.merge(k, n, Long::sum));
        other.neverScoredDecisions.forEach((k, n) -> neverScoredDecisions.merge(k, n, Long::sum));
        modelVersions.addAll(other.modelVersions);
        absDeltaSum = absDeltaSum.add(other.absDeltaSum);
        maxAbsDelta = Math.max(maxAbsDelta, other.maxAbsDelta);
        compared += other.compared;
        otherModelVersion += other.otherModelVersion;
        neverScored += other.neverScored;
        archived += other.archived;
        servedPanes += other.servedPanes;
        tooLate += other.tooLate;
        quarantined += other.quarantined;
        deadLettered += other.deadLettered;
        contradictedLabels += other.contradictedLabels;
        uncheckedLabels += other.uncheckedLabels;
        return this;
    }

    /** This builder as bytes (what a judging subtask hands on). */
    public byte[] toBytes() {
        return PartialReports.toBytes(this);
    }

    /** A builder from {@link #toBytes}. */
    public static ReportBuilder fromBytes(byte[] bytes) {
        return PartialReports.fromBytes(bytes, ReportBuilder.class);
    }

    /** The report without scores at arrival, judged against {@code thresholds}. */
    public ParityReport build(Map<String, Object> run, ParityThresholds thresholds) {
        return build(
                run, thresholds, TransactionSection.notChecked("no per-transaction scores given"));
    }

    /**
     * The report, judged against {@code thresholds}: the alarms of both sections count toward
     * {@code maxUnexplained}; the mismatch limit applies to each section's share on its own.
     */
    public ParityReport build(
            Map<String, Object> run, ParityThresholds thresholds, TransactionSection tx) {
        long judged = byCause.values().stream().mapToLong(Long::longValue).sum();
        long matched = byCause.get(Cause.MATCH);
        long alarms = 0;
        long explained = 0;
        for (Map.Entry<Cause, Long> e : byCause.entrySet()) {
            if (!e.getKey().isExplained()) {
                alarms += e.getValue();
            } else if (e.getKey() != Cause.MATCH) {
                explained += e.getValue();
            }
        }
        long mismatched = byHour.values().stream().mapToLong(h -> h[1]).sum();
        double mismatchRate = judged == 0 ? 0 : (double) mismatched / judged;
        long flipped = flips.values().stream().mapToLong(Long::longValue).sum();

        List<String> violations = new ArrayList<>();
        long txAlarms = tx.transactions().alarms();
        if (alarms + txAlarms > thresholds.maxUnexplained()) {
            violations.add(
                    txAlarms == 0
                            ? alarms
                                    + " unexplained window(s) ("
                                    + alarmNames()
                                    + "), allowed "
                                    + thresholds.maxUnexplained()
                            : alarms
                                    + " unexplained window(s) and "
                                    + txAlarms
                                    + " transaction alarm(s) ("
                                    + transactionAlarmNames()
                                    + "), allowed "
                                    + thresholds.maxUnexplained()
                                    + " together");
        }
        if (mismatchRate > thresholds.maxMismatchRate()) {
            violations.add(
                    String.format(
                            "mismatch rate %.6f over the allowed %.6f",
                            mismatchRate, thresholds.maxMismatchRate()));
        }
        double txDiffering = tx.transactions().differingRate();
        if (txDiffering > thresholds.maxMismatchRate()) {
            violations.add(
                    String.format(
                            "transactions: served features differ from ideal for %.6f of them"
                                    + " (%d of %d), over the allowed %.6f",
                            txDiffering,
                            tx.transactions().differing(),
                            tx.transactions().compared(),
                            thresholds.maxMismatchRate()));
        }
        TransactionSection.Skew txSkew = tx.scoreSkew();
        if (txSkew.flippedRate() > thresholds.maxTransactionFlippedRate()) {
            violations.add(
                    String.format(
                            "transactions: flipped decision rate %.6f (%d of %d compared) over the"
                                    + " allowed %.6f",
                            txSkew.flippedRate(),
                            txSkew.flippedDecisions(),
                            txSkew.compared(),
                            thresholds.maxTransactionFlippedRate()));
        }
        if (thresholds.maxFlippedDecisions() >= 0 && flipped > thresholds.maxFlippedDecisions()) {
            violations.add(
                    flipped + " flipped decision(s), allowed " + thresholds.maxFlippedDecisions());
        }
        double flippedRate = compared == 0 ? 0 : (double) flipped / compared;
        if (flippedRate > thresholds.maxFlippedRate()) {
            violations.add(
                    String.format(
                            "flipped decision rate %.6f (%d of %d compared) over the allowed %.6f",
                            flippedRate, flipped, compared, thresholds.maxFlippedRate()));
        }

        Map<String, Long> causes = new LinkedHashMap<>();
        byCause.forEach((c, n) -> causes.put(c.name(), n));
        List<ParityReport.HourRow> hours = new ArrayList<>();
        byHour.forEach((h, c) -> hours.add(new ParityReport.HourRow(h, c[0], c[1], c[2])));
        Map<String, List<WindowFinding>> exampleFindings = new LinkedHashMap<>();
        examples.forEach(
                (c, vs) ->
                        exampleFindings.put(c.name(), vs.stream().map(WindowFinding::of).toList()));
        double meanAbsDelta =
                compared == 0
                        ? 0
                        : absDeltaSum
                                .divide(BigDecimal.valueOf(compared), MathContext.DECIMAL64)
                                .doubleValue();
        ParityReport.ScoreSkew skew =
                new ParityReport.ScoreSkew(
                        String.join(",", modelVersions),
                        compared,
                        otherModelVersion,
                        neverScored,
                        meanAbsDelta,
                        maxAbsDelta,
                        flipped,
                        flips,
                        neverScoredDecisions,
                        scoreDelta.buckets(),
                        releases.releaseRows(),
                        releases.shadowRows());
        return new ParityReport(
                violations.isEmpty() ? "PASS" : "FAIL",
                violations.isEmpty() ? 0 : 1,
                violations,
                run,
                new ParityReport.WindowCounts(judged, matched, explained, alarms, mismatchRate),
                causes,
                new ParityReport.RecordCounts(
                        archived,
                        servedPanes,
                        tooLate,
                        quarantined,
                        deadLettered,
                        contradictedLabels,
                        uncheckedLabels),
                hours,
                lateness.buckets(),
                skew,
                exampleFindings,
                worst.stream().map(WindowFinding::of).toList(),
                tx);
    }

    /** The per-transaction alarm causes, comma-separated in their order. */
    static String transactionAlarmNames() {
        StringBuilder names = new StringBuilder();
        for (org.fraudpipe.parity.transaction.TransactionCause c :
                org.fraudpipe.parity.transaction.TransactionCause.values()) {
            if (!c.isExplained()) {
                names.append(names.length() == 0 ? "" : ", ").append(c.name());
            }
        }
        return names.toString();
    }

    /** The alarm causes, comma-separated in {@link Cause} order. */
    static String alarmNames() {
        StringBuilder names = new StringBuilder();
        for (Cause c : Cause.values()) {
            if (!c.isExplained()) {
                names.append(names.length() == 0 ? "" : ", ").append(c.name());
            }
        }
        return names.toString();
    }

    private static void keepFirst(TreeSet<WindowVerdict> kept, WindowVerdict v, int limit) {
        kept.add(v);
        if (kept.size() > limit) {
            kept.pollLast();
        }
    }

    private static double absDelta(WindowVerdict v) {
        return v.hasScoreDelta() ? Math.abs(v.scoreDelta()) : 0;
    }

    /** Sum over features of |ideal - served| / max(1, |ideal|); a missing side counts as zeros. */
    private static double featureDistance(WindowVerdict v) {
        long[] ideal = (v.ideal == null ? FeatureVector.EMPTY : FeatureVector.of(v.ideal)).values();
        long[] served =
                (v.served == null ? FeatureVector.EMPTY : FeatureVector.of(v.served)).values();
        double d = 0;
        for (int i = 0; i < ideal.length; i++) {
            d += Math.abs(ideal[i] - served[i]) / (double) Math.max(1, Math.abs(ideal[i]));
        }
        return d;
    }
}
