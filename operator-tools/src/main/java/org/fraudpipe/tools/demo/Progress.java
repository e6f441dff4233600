package org.fraudpipe.tools.demo;

import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.ArrayDeque;
import java.util.Locale;
import java.util.Map;
import java.util.OptionalLong;
import org.fraudpipe.job.ingest.IngestRouter;
import org.fraudpipe.job.metrics.LatencyHistogram;
import org.fraudpipe.job.scoring.BatchScoringOperator;
import org.fraudpipe.job.topology.PaneMetrics;
import org.fraudpipe.job.transaction.TransactionScoring;
import org.fraudpipe.job.window.TooLateRecordFunction;

/**
 * The demo's progress line, from the job's own counters (its accumulators: the same counts as the
 * metrics of the README's reference, summed over subtasks) and the window operator's watermark.
 * Nothing here is estimated except the rate, which is the change of {@code fraudRecordsIn} over the
 * last few seconds. The per-transaction latency percentiles come from the job's latency accumulator
 * ({@link LatencyHistogram}): every score since the job started, over all subtasks.
 */
final class Progress {

    /** The job's counts, as its accumulators report them (absent: 0). */
    record Counters(
            long in,
            long deadLettered,
            long quarantined,
            long tooLate,
            long windowsFired,
            long lateRefires,
            long scored,
            long allow,
            long review,
            long block,
            long txScored,
            long txAllow,
            long txReview,
            long txBlock,
            LatencyHistogram.Distribution txLatency) {

        static final Counters NONE =
                new Counters(
                        0,
                        0,
                        0,
                        0,
                        0,
                        0,
                        0,
                        0,
                        0,
                        0,
                        0,
                        0,
                        0,
                        0,
                        LatencyHistogram.Distribution.EMPTY);

        /** Reads {@code accumulators} by metric name. */
        static Counters of(Map<String, ?> accumulators) {
            return new Counters(
                    count(accumulators, IngestRouter.RECORDS_IN),
                    count(accumulators, IngestRouter.RECORDS_DEAD_LETTERED),
                    count(accumulators, IngestRouter.RECORDS_QUARANTINED),
                    count(accumulators, TooLateRecordFunction.TOO_LATE_RECORDS_METRIC),
                    count(accumulators, PaneMetrics.WINDOWS_FIRED),
                    count(accumulators, PaneMetrics.LATE_REFIRES),
                    count(accumulators, BatchScoringOperator.SCORED),
                    count(accumulators, BatchScoringOperator.DECISIONS_ALLOW),
                    count(accumulators, BatchScoringOperator.DECISIONS_REVIEW),
                    count(accumulators, BatchScoringOperator.DECISIONS_BLOCK),
                    count(accumulators, TX.scored()),
                    count(accumulators, TX.allow()),
                    count(accumulators, TX.review()),
                    count(accumulators, TX.block()),
                    accumulators.get(TX.latency()) instanceof LatencyHistogram.Distribution d
                            ? d
                            : LatencyHistogram.Distribution.EMPTY);
        }

        private static long count(Map<String, ?> accumulators, String name) {
            Object v = accumulators.get(name);
            return v instanceof Number n ? n.longValue() : 0L;
        }
    }

    private static final BatchScoringOperator.MetricNames TX = TransactionScoring.METRICS;

    /** What the columns mean, printed once above the lines. */
    static final String LEGEND =
            String.join(
                    "\n",
                    "Progress, once a second, from the job's counters (docs/OPERATIONS.md, Metrics):",
                    "  sent          records the simulator published to Kafka",
                    "  in            records the job read (fraudRecordsIn), and per second",
                    "  wm            the window operator's watermark (UTC); lag: how far it trails"
                            + " the traffic's clock in event time (and that in wall time: Flink"
                            + " refreshes the metric about once a second)",
                    "  windows       first firings (fraudWindowsFired)",
                    "  re-fires      corrected results of windows that received late records"
                            + " (fraudLateRefires)",
                    "  too late      records past the allowed lateness, kept in the late topic"
                            + " (fraudRecordsTooLate)",
                    "  quarantined   future-dated records (fraudRecordsQuarantined)",
                    "  dead letters  unreadable or invalid records (fraudRecordsDeadLettered)",
                    "  scores        panes scored, by decision (fraudPanesScored,"
                            + " fraudDecisions*)",
                    "  tx scores     transactions scored at arrival, by decision"
                            + " (fraudTransactionsScored, fraudTransactionDecisions*): every valid,"
                            + " not future-dated record, retries answered again",
                    "  latency       from a transaction's Kafka timestamp to its score handed to"
                            + " the sink, p50 / p99 / p99.9 over every score since the start"
                            + " (fraudTransactionScoreLatencyMs)");

    private static final DateTimeFormatter CLOCK =
            DateTimeFormatter.ofPattern("HH:mm:ss", Locale.ROOT).withZone(ZoneOffset.UTC);
    private static final long RATE_WINDOW_NANOS = 5_000_000_000L;

    /** (nanoTime, records in) of recent polls, oldest first. */
    private final ArrayDeque<long[]> recent = new ArrayDeque<>();

    /**
     * Records a poll and returns records in per second since the latest poll at least five seconds
     * old (since the first poll until then; 0 for the first poll).
     */
    double rate(long nanoTime, long in) {
        recent.addLast(new long[] {nanoTime, in});
        while (recent.size() > 2 && nanoTime - second()[0] >= RATE_WINDOW_NANOS) {
            recent.removeFirst();
        }
        long[] first = recent.peekFirst();
        long dt = nanoTime - first[0];
        return dt <= 0 ? 0 : (in - first[1]) * 1e9 / dt;
    }

    private long[] second() {
        var it = recent.iterator();
        it.next();
        return it.next();
    }

    /**
     * One progress line.
     *
     * @param label the first column: elapsed time, or e.g. {@code final}
     * @param rate records in per second, or a negative number to leave it out
     * @param watermark the window operator's watermark, empty if unknown
     * @param trafficClock the traffic's clock (epoch millis), or {@link Long#MIN_VALUE} if none
     * @param speedup how much faster than real time the traffic runs (to show the lag in wall time)
     */
    static String line(
            String label,
            long sent,
            Counters c,
            double rate,
            OptionalLong watermark,
            long trafficClock,
            double speedup) {
        StringBuilder b = new StringBuilder();
        b.append(label).append(" | sent ").append(sent).append(" | in ").append(c.in());
        if (rate >= 0) {
            b.append(String.format(Locale.ROOT, " (%.0f/s)", rate));
        }
        b.append(" | wm ").append(watermark(watermark, trafficClock, speedup));
        b.append(" | windows ").append(c.windowsFired());
        b.append(" | re-fires ").append(c.lateRefires());
        b.append(" | too late ").append(c.tooLate());
        b.append(" | quarantined ").append(c.quarantined());
        b.append(" | dead letters ").append(c.deadLettered());
        b.append(" | scores ")
                .append(c.scored())
                .append(": allow ")
                .append(c.allow())
                .append(", review ")
                .append(c.review())
                .append(", block ")
                .append(c.block());
        b.append(" | tx scores ")
                .append(c.txScored())
                .append(": allow ")
                .append(c.txAllow())
                .append(", review ")
                .append(c.txReview())
                .append(", block ")
                .append(c.txBlock());
        b.append(" | latency ").append(latency(c.txLatency()));
        return b.toString();
    }

    /**
     * The final summary of the per-transaction path: transactions scored by decision and the
     * latency percentiles and maximum over all of them.
     */
    static String transactionSummary(Counters c) {
        LatencyHistogram.Distribution d = c.txLatency();
        return String.format(
                Locale.ROOT,
                "  scores at arrival: %d transactions scored (allow %d, review %d, block %d); from"
                        + " the Kafka timestamp to the sink %s",
                c.txScored(),
                c.txAllow(),
                c.txReview(),
                c.txBlock(),
                d.count() == 0
                        ? "not measured (no score)"
                        : "p50 "
                                + d.percentile(0.5)
                                + " ms, p99 "
                                + d.percentile(0.99)
                                + " ms, p99.9 "
                                + d.percentile(0.999)
                                + " ms, max "
                                + d.max()
                                + " ms over "
                                + d.count()
                                + " scores");
    }

    /** {@code p50 4 ms, p99 12 ms, p99.9 31 ms}, or {@code -} before the first score. */
    static String latency(LatencyHistogram.Distribution d) {
        if (d.count() == 0) {
            return "-";
        }
        return String.format(
                Locale.ROOT,
                "p50 %d ms, p99 %d ms, p99.9 %d ms",
                d.percentile(0.5),
                d.percentile(0.99),
                d.percentile(0.999));
    }

    static String watermark(OptionalLong watermark, long trafficClock, double speedup) {
        if (watermark.isEmpty() || watermark.getAsLong() == Long.MIN_VALUE) {
            return "-";
        }
        long wm = watermark.getAsLong();
        if (wm == Long.MAX_VALUE) {
            return "end of time (drained)";
        }
        String s = CLOCK.format(Instant.ofEpochMilli(wm));
        if (trafficClock == Long.MIN_VALUE) {
            return s;
        }
        long lag = trafficClock - wm;
        return s
                + ", lag "
                + human(lag)
                + (speedup == 1
                        ? ""
                        : String.format(Locale.ROOT, " (%.1f s wall)", lag / 1000.0 / speedup));
    }

    /** {@code 850ms}, {@code 7s}, {@code 2m05s}, {@code 1h02m}; negative with a minus sign. */
    static String human(long millis) {
        if (millis < 0) {
            return "-" + human(-millis);
        }
        if (millis < 1_000) {
            return millis + "ms";
        }
        long s = millis / 1000;
        if (s < 60) {
            return s + "s";
        }
        if (s < 3600) {
            return String.format(Locale.ROOT, "%dm%02ds", s / 60, s % 60);
        }
        return String.format(Locale.ROOT, "%dh%02dm", s / 3600, (s % 3600) / 60);
    }

    /** {@code m:ss} (or {@code h:mm:ss}) of an elapsed time. */
    static String elapsed(Duration d) {
        long s = Math.max(0, d.toSeconds());
        return s >= 3600
                ? String.format(Locale.ROOT, "%d:%02d:%02d", s / 3600, (s % 3600) / 60, s % 60)
                : String.format(Locale.ROOT, "%d:%02d", s / 60, s % 60);
    }
}
