package org.fraudpipe.parity.report;

import java.util.List;
import java.util.Map;

/**
 * The per-transaction part of a parity run (scores at arrival), beside the window part of {@link
 * ParityReport}: every scored transaction of the period judged against its as-of-arrival and ideal
 * recomputations ({@link org.fraudpipe.parity.transaction.TransactionJudge}). Aggregated on the
 * cluster ({@link TransactionReportBuilder}), so only this summary reaches the client.
 *
 * @param checked false when the inputs hold no per-transaction scores (an archive written before
 *     scores at arrival, or replay files without {@code --transaction-scores}): everything else is
 *     then empty
 * @param notChecked why not (empty when checked)
 * @param transactions counts of judged transactions
 * @param byCause transactions per main cause, every cause listed (zeros included)
 * @param records what the run read for them
 * @param arrivedLaterDelay how late (arrival minus event time) each record named ARRIVED_LATER was,
 *     each record once
 * @param scoreSkew the ideal features re-scored by the serving per-transaction model
 * @param examples up to {@link TransactionReportBuilder#EXAMPLES_PER_CAUSE} transactions per cause
 *     other than MATCH, first by user, event time and id
 * @param worst the differing transactions (explained or not) with the largest score delta, then
 *     feature difference, with the records that explain them
 */
public record TransactionSection(
        boolean checked,
        String notChecked,
        Counts transactions,
        Map<String, Long> byCause,
        Records records,
        List<Histogram.Bucket> arrivedLaterDelay,
        Skew scoreSkew,
        Map<String, List<TransactionFinding>> examples,
        List<TransactionFinding> worst) {

    /**
     * @param judged transactions with an event time in the period that were scored or should have
     *     been
     * @param matched served equals ideal, every answer accounted for
     * @param explained differ, exactly explained (ARRIVED_LATER, EVICTED, QUARANTINED,
     *     DEAD_LETTERED, DUPLICATE)
     * @param alarms main cause an alarm (UNEXPLAINED, MISSING_SCORE, EXTRA_SCORE, RETRY_CONFLICT,
     *     ARRIVAL_ORDER_UNKNOWN)
     * @param compared transactions with both a served answer and an ideal recomputation
     * @param differing of those, served features differ from ideal
     * @param differingRate differing / compared, 0 if nothing was compared
     */
    public record Counts(
            long judged,
            long matched,
            long explained,
            long alarms,
            long compared,
            long differing,
            double differingRate) {}

    /**
     * @param users users with a judged transaction
     * @param arrivals archived copies of the judged ids the job should have answered (retries
     *     included)
     * @param answers archived answers of them
     * @param retries arrivals beyond each id's first
     * @param quarantinedInPeriod archived copies of the period the job quarantined (no answer due)
     * @param historyIncomplete answers with {@code historyComplete=false} (the state bound)
     * @param historyIncompleteUnproven of those, where the archive could not bound the watermark
     *     (partition possibly idle): the eviction was checked against any watermark
     * @param evictedRecords records the state bound had evicted from the answers' trailing windows
     *     (counted per answer)
     * @param arrivedLaterRecords distinct records that arrived after a transaction they belonged to
     * @param usersOnSeveralPartitions users whose records came from more than one partition
     * @param usersOnSeveralPartitionsExamples some of them
     * @param decisionsOffThresholds answers whose decision is not what the given thresholds make of
     *     their score (the run then stops: exit 2)
     */
    public record Records(
            long users,
            long arrivals,
            long answers,
            long retries,
            long quarantinedInPeriod,
            long historyIncomplete,
            long historyIncompleteUnproven,
            long evictedRecords,
            long arrivedLaterRecords,
            long usersOnSeveralPartitions,
            List<String> usersOnSeveralPartitionsExamples,
            long decisionsOffThresholds) {}

    /**
     * @param modelVersion the checker's model ({@code name:version}), empty without re-scoring
     * @param compared transactions with a served and an ideal score
     * @param neverScored transactions with ideal features but no served answer
     * @param meanAbsDelta mean |ideal - served| over compared
     * @param maxAbsDelta largest |ideal - served|
     * @param flippedDecisions compared transactions whose decision the ideal features change
     * @param flippedRate flippedDecisions / compared
     * @param flips per {@code SERVED->IDEAL} pair
     * @param neverScoredDecisions the ideal decisions of never-scored transactions
     * @param histogram ideal minus served score
     * @param labels the fraud labels, when given
     * @param byRelease per model release that served
     * @param shadow each champion against the challenger that shadowed it (frauds each let through,
     *     with labels)
     */
    public record Skew(
            String modelVersion,
            long compared,
            long neverScored,
            double meanAbsDelta,
            double maxAbsDelta,
            long flippedDecisions,
            double flippedRate,
            Map<String, Long> flips,
            Map<String, Long> neverScoredDecisions,
            List<Histogram.Bucket> histogram,
            Labels labels,
            List<ReleaseFigures.ReleaseRow> byRelease,
            List<ReleaseFigures.ShadowRow> shadow) {}

    /**
     * What the lateness cost in fraud, where the input carries labels ({@code --labels}).
     *
     * @param given whether labels were given
     * @param labelled compared transactions with a label
     * @param unlabelled compared transactions without one
     * @param fraudulent labelled fraudulent
     * @param fraudsAllowed fraudulent transactions the served answer allowed
     * @param fraudsLetThrough fraudulent transactions the served answer allowed but the ideal
     *     features would have reviewed or blocked: the frauds the lateness let through
     * @param fraudFlips flips among fraudulent transactions, per {@code SERVED->IDEAL}
     * @param legitimateFlips flips among legitimate ones
     */
    public record Labels(
            boolean given,
            long labelled,
            long unlabelled,
            long fraudulent,
            long fraudsAllowed,
            long fraudsLetThrough,
            Map<String, Long> fraudFlips,
            Map<String, Long> legitimateFlips) {}

    /** A section for a run that could not check scores at arrival, saying why. */
    public static TransactionSection notChecked(String reason) {
        return new TransactionReportBuilder(false).section(false, reason, "");
    }
}
