package org.fraudpipe.parity.report;

import java.time.Instant;
import java.util.List;
import java.util.Map;

/**
 * Everything a parity run found, as written to {@code report.json} (and rendered in {@code
 * report.html}). Deterministic: the same inputs give the same report, byte for byte, whatever the
 * order Flink delivered the verdicts in (no wall-clock time in it; examples are the first by user
 * and window).
 *
 * @param status {@code PASS} (exit 0) or {@code FAIL} (exit 1)
 * @param violations the thresholds exceeded, in words (empty on PASS)
 * @param run what was checked: period, inputs, window size, model
 * @param windows counts of judged windows
 * @param byCause windows per main cause, every cause listed (zeros included)
 * @param records counts of the records read
 * @param byHour per hour of window start: windows, mismatched (served != ideal), alarms
 * @param lateness histogram of how late the too-late records were
 * @param scoreSkew score-level cost of the skew
 * @param examples up to {@link ReportBuilder#EXAMPLES_PER_CAUSE} windows per cause other than MATCH
 * @param worstUnexplained the alarm windows with the largest score delta / feature difference
 * @param transactions the per-transaction section (scores at arrival), or what says it was not
 *     checked
 */
public record ParityReport(
        String status,
        int exitCode,
        List<String> violations,
        Map<String, Object> run,
        WindowCounts windows,
        Map<String, Long> byCause,
        RecordCounts records,
        List<HourRow> byHour,
        List<Histogram.Bucket> lateness,
        ScoreSkew scoreSkew,
        Map<String, List<WindowFinding>> examples,
        List<WindowFinding> worstUnexplained,
        TransactionSection transactions) {

    /**
     * @param judged windows with a start in the period that either side knows
     * @param matched served equals ideal
     * @param explained differ, and the difference is exactly explained
     * @param alarms windows whose main cause is an alarm (UNEXPLAINED, MISSING_IN_STREAM,
     *     EXTRA_IN_STREAM, REVISION_REGRESSED, LOST_IN_KAFKA, EXTRA_IN_KAFKA)
     * @param mismatchRate (explained + alarms) / judged, 0 if nothing was judged
     */
    public record WindowCounts(
            long judged, long matched, long explained, long alarms, double mismatchRate) {}

    /**
     * What the run read, as it reached the windows of the period.
     *
     * @param contradictedLabels late records whose TOO_LATE or FUTURE_DATED label the archive
     *     contradicts (their windows are UNEXPLAINED)
     * @param uncheckedLabels TOO_LATE labels the archive could not check (partition possibly idle,
     *     or arrived past what the run read): accepted as explained
     */
    public record RecordCounts(
            long archivedTransactions,
            long servedPanes,
            long tooLate,
            long quarantined,
            long deadLetteredArchived,
            long contradictedLabels,
            long uncheckedLabels) {}

    /** One hour of window starts. */
    public record HourRow(Instant hour, long windows, long mismatched, long alarms) {}

    /**
     * @param compared windows with a served score and an ideal score of the same model version
     * @param otherModelVersion windows whose served score came from another model version
     * @param neverScored windows with ideal features but no served score
     * @param meanAbsDelta mean |ideal - served| over compared windows
     * @param maxAbsDelta largest |ideal - served|
     * @param flippedDecisions compared windows whose decision the ideal features change
     * @param flips counts per {@code SERVED->IDEAL} decision pair
     * @param neverScoredDecisions the ideal decisions of never-scored windows (what the stream
     *     never decided)
     * @param histogram ideal minus served score
     * @param byRelease the same per model release that served
     * @param shadow each champion against the challenger that shadowed it
     */
    public record ScoreSkew(
            String modelVersion,
            long compared,
            long otherModelVersion,
            long neverScored,
            double meanAbsDelta,
            double maxAbsDelta,
            long flippedDecisions,
            Map<String, Long> flips,
            Map<String, Long> neverScoredDecisions,
            List<Histogram.Bucket> histogram,
            List<ReleaseFigures.ReleaseRow> byRelease,
            List<ReleaseFigures.ShadowRow> shadow) {}
}
