package org.fraudpipe.tools.advise;

import java.time.Instant;
import java.util.List;

/**
 * Everything {@code ./fraud advise} found, as written to {@code advice.json} (and rendered in
 * {@code advice.html}). Deterministic: the same input and options give the same advice, byte for
 * byte (no wall-clock time in it). Durations are milliseconds ({@code ...Millis}) and, for the
 * options, the job's own notation ({@code 5s}).
 *
 * @param status {@code TARGETS_MET} (exit 0) or {@code NO_PAIR_MEETS_TARGETS} (exit 1)
 * @param input what was read and what the watermark model is
 * @param delays the arrival-delay distribution
 * @param targets what the recommendation must meet
 * @param grid every (out-of-orderness, allowed lateness) pair replayed, bounds then lateness
 *     ascending
 * @param recommendation the cheapest pair meeting the targets, or what to relax
 * @param perTransaction scores at arrival: what depends on the arrival order alone
 */
public record Advice(
        String status,
        int exitCode,
        Input input,
        Delays delays,
        Targets targets,
        List<Pair> grid,
        Recommendation recommendation,
        PerTransaction perTransaction) {

    public static final String TARGETS_MET = "TARGETS_MET";
    public static final String NO_PAIR_MEETS_TARGETS = "NO_PAIR_MEETS_TARGETS";

    /**
     * @param kind {@code replay-file} or {@code archive}
     * @param source the file, or the archive root
     * @param period the windows counted ({@code every window of the input} for a file)
     * @param windowSize the job's window size the windows are cut with
     * @param futureTolerance the future-dated rule's tolerance
     * @param idleness the partitions' idleness ({@code none}: a replay, one watermark per record)
     * @param policySource where window size, tolerance and idleness came from
     * @param currentOutOfOrderness the bound the job recorded with the archive, or null
     * @param currentAllowedLateness the lateness the job recorded with the archive, or null
     * @param watermarkModel what the replayed watermark is, in words
     * @param records valid transactions read (retries included)
     * @param deadLetters records that never became a transaction (a replay file's lines only: an
     *     archive keeps valid transactions)
     * @param quarantined future-dated, by the job's rule against the arrival time
     * @param windowable records that reach the windows
     * @param counted windowable records of the period's windows (what the shares divide by)
     * @param users distinct users
     * @param partitions partitions seen ({@code topic-partition}; a file is one)
     * @param stateModel how state bytes are estimated
     */
    public record Input(
            String kind,
            String source,
            String period,
            String windowSize,
            String futureTolerance,
            String idleness,
            String policySource,
            String currentOutOfOrderness,
            String currentAllowedLateness,
            String watermarkModel,
            long records,
            long deadLetters,
            long quarantined,
            long windowable,
            long counted,
            long users,
            List<String> partitions,
            String stateModel) {}

    /**
     * Arrival minus event time of the valid transactions of the period's windows.
     *
     * @param overall every record
     * @param partitions per partition, with its gaps and how much it held the watermark back
     * @param byHour per UTC hour of arrival
     * @param histogram counts on a logarithmic scale of delay
     * @param idlePartitions partitions with gaps longer than the idleness (named)
     * @param holdingBack partitions that held the watermark back (named)
     */
    public record Delays(
            DelayStats overall,
            List<PartitionDelays> partitions,
            List<HourRow> byHour,
            List<Bucket> histogram,
            List<String> idlePartitions,
            List<String> holdingBack) {}

    /**
     * Percentiles by nearest rank, milliseconds; null without records.
     *
     * @param negative records dated after their arrival (future-dated, quarantined or within the
     *     tolerance)
     */
    public record DelayStats(
            long records,
            Long p50Millis,
            Long p90Millis,
            Long p95Millis,
            Long p99Millis,
            Long p999Millis,
            Long maxMillis,
            long negative,
            double negativeShare) {}

    /**
     * @param idleGaps gaps between its windowable records longer than the idleness
     * @param longestGapMillis its longest gap between windowable records
     * @param heldBackRecords records during which it alone held the watermark back by more than 1 s
     * @param maxHoldBackMillis the most it held the watermark back
     */
    public record PartitionDelays(
            String partition,
            DelayStats delays,
            long idleGaps,
            long longestGapMillis,
            long heldBackRecords,
            long maxHoldBackMillis) {}

    /**
     * One UTC hour of arrival.
     *
     * @param over10Minutes records that arrived 10 minutes or more after their event time
     */
    public record HourRow(
            Instant hour,
            long records,
            Long p50Millis,
            Long p99Millis,
            Long maxMillis,
            long over10Minutes) {}

    /** Records with a delay in {@code [fromMillis, toMillis)}; null ends are open. */
    public record Bucket(String label, Long fromMillis, Long toMillis, long count) {}

    /**
     * @param maxTooLateShare largest share of records too late
     * @param maxFirstResultDelayMillis largest p99 delay of a window's first result
     */
    public record Targets(double maxTooLateShare, long maxFirstResultDelayMillis) {}

    /**
     * One (out-of-orderness bound, allowed lateness) pair, replayed over the recorded arrival
     * order; counts over the period's windows.
     *
     * @param current the pair the job recorded with the archive
     * @param records windowable records of the period's windows
     * @param onTime counted in a window before it fired
     * @param lateWithinGrace arrived after the window fired (or after the watermark passed its end)
     *     and still counted
     * @param tooLate the late stream's TOO_LATE records
     * @param refires re-fires: panes with revision 1 or more (the extra panes written)
     * @param windowsRefired windows with at least one re-fire
     * @param windows (user, window) pairs with a result
     * @param windowsFiredOnTime windows whose first pane fired on time (when the watermark passed)
     * @param windowsFirstFiredLate windows whose first record came within grace: their first pane,
     *     revision 0, is LATE
     * @param windowsOpenAtEnd windows the recorded traffic never closed (they fire when later
     *     traffic moves the watermark, or a replay's end of input)
     * @param panes every pane written: windows + refires
     * @param firstResultDelay of the windows fired on time: the arrival of the record that moved
     *     the watermark past the window's end (or the moment a partition went idle) minus the end
     * @param liveWindowsRule the design's bound, {@code ceil(lateness / window) + 1} per user
     * @param peakLiveWindows most windows in state at once, all users
     * @param liveWindowsPerUserAtPeak at that moment, per user holding state
     * @param maxLiveWindowsOfOneUser most windows one user held at once
     * @param peakStateBytesEstimate the largest window state at once, estimated per window and
     *     distinct transaction from the measured bytes (docs/BENCHMARKS.md)
     * @param meetsTargets whether the pair meets both targets
     * @param misses the targets it misses, in words
     * @param perTransactionScoring scores at arrival under this pair; null: the job has no
     *     per-transaction path in this build (and what the path misses does not depend on the pair:
     *     {@link Advice#perTransaction})
     */
    public record Pair(
            String outOfOrderness,
            String allowedLateness,
            long outOfOrdernessMillis,
            long allowedLatenessMillis,
            boolean current,
            long records,
            long onTime,
            long lateWithinGrace,
            long tooLate,
            double tooLateShare,
            long refires,
            long windowsRefired,
            long windows,
            long windowsFiredOnTime,
            long windowsFirstFiredLate,
            long windowsOpenAtEnd,
            long panes,
            DelayStats firstResultDelay,
            long liveWindowsRule,
            long peakLiveWindows,
            double liveWindowsPerUserAtPeak,
            long maxLiveWindowsOfOneUser,
            long peakStateBytesEstimate,
            boolean meetsTargets,
            List<String> misses,
            PerTransactionScoring perTransactionScoring) {}

    /**
     * Scores at arrival under one pair. Not produced by this build (the per-transaction path is not
     * in the job yet): the place where its per-pair figures go.
     *
     * @param scored transactions scored
     * @param scoredBeforeATrailingRecordArrived scored before a record of their trailing window
     *     arrived
     */
    public record PerTransactionScoring(long scored, long scoredBeforeATrailingRecordArrived) {}

    /**
     * @param targetsMet whether a pair meets both targets
     * @param outOfOrderness the recommended bound (null if none meets the targets)
     * @param allowedLateness the recommended lateness (null if none meets the targets)
     * @param command the job's command line with them
     * @param reasons why, in one paragraph
     * @param relax when no pair meets the targets: which target to relax, and by how much the
     *     nearest pair misses it
     */
    public record Recommendation(
            boolean targetsMet,
            String outOfOrderness,
            String allowedLateness,
            String command,
            String reasons,
            List<String> relax) {}

    /**
     * What a score at arrival misses, from the arrival order alone (whatever the bound and
     * lateness): for a transaction x of user u with event time t, a record of u with event time in
     * {@code (t - trailingWindow, t]} that arrived after x. Over windowable transactions, first
     * copies only (a retry gets the original's score).
     */
    public record PerTransaction(
            String trailingWindow,
            long transactions,
            long scoredBeforeATrailingRecordArrived,
            double share,
            String note) {}
}
