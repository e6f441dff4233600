package org.fraudpipe.parity.report;

/**
 * When a parity run fails (exit code 1). Defaults, for a scheduler that pages on exit 1 (why:
 * docs/PARITY.md, "Defaults"): no alarm window at all (UNEXPLAINED, MISSING_IN_STREAM,
 * EXTRA_IN_STREAM, REVISION_REGRESSED, LOST_IN_KAFKA, EXTRA_IN_KAFKA); at most {@value
 * #DEFAULT_MAX_MISMATCH_RATE} of the windows served differently from the batch value, explained or
 * not; at most {@value #DEFAULT_MAX_FLIPPED_RATE} of the compared scored windows with a decision
 * the ideal features would change; at most {@value #DEFAULT_MAX_TRANSACTION_FLIPPED_RATE} of the
 * compared scored transactions (scores at arrival) with a decision the ideal features would change.
 * Alarms of both sections count toward {@code maxUnexplained}; {@code maxMismatchRate} applies to
 * each section on its own (windows served differently; transactions whose served features differ
 * from ideal).
 *
 * @param maxUnexplained alarm windows allowed (option {@code --max-unexplained})
 * @param maxMismatchRate largest fraction of judged windows whose served value differs from the
 *     ideal, explained or not (option {@code --max-mismatch-rate}, 1 = no limit)
 * @param maxFlippedDecisions decisions the ideal features would have changed (option {@code
 *     --max-flipped-decisions}, -1 = no limit)
 * @param maxFlippedRate largest fraction of the compared scored windows whose decision the ideal
 *     features change (option {@code --max-flipped-rate}, 1 = no limit)
 * @param maxTransactionFlippedRate largest fraction of the compared scored transactions whose
 *     decision the ideal features change (option {@code --max-transaction-flipped-rate}, 1 = no
 *     limit)
 */
public record ParityThresholds(
        long maxUnexplained,
        double maxMismatchRate,
        long maxFlippedDecisions,
        double maxFlippedRate,
        double maxTransactionFlippedRate) {

    /** Default of {@code --max-mismatch-rate}: 1 %. */
    public static final double DEFAULT_MAX_MISMATCH_RATE = 0.01;

    /** Default of {@code --max-flipped-rate}: 0.1 %. */
    public static final double DEFAULT_MAX_FLIPPED_RATE = 0.001;

    /** Default of {@code --max-transaction-flipped-rate}: 0.1 % (docs/PARITY.md, "Defaults"). */
    public static final double DEFAULT_MAX_TRANSACTION_FLIPPED_RATE = 0.001;

    public static final ParityThresholds DEFAULT =
            new ParityThresholds(
                    0,
                    DEFAULT_MAX_MISMATCH_RATE,
                    -1,
                    DEFAULT_MAX_FLIPPED_RATE,
                    DEFAULT_MAX_TRANSACTION_FLIPPED_RATE);

    /** No limit on explained skew or flipped decisions: only alarms fail a run. */
    public static final ParityThresholds ALARMS_ONLY = new ParityThresholds(0, 1.0, -1, 1.0, 1.0);

    /** The window thresholds, with the default limit on flipped transaction decisions. */
    public ParityThresholds(
            long maxUnexplained,
            double maxMismatchRate,
            long maxFlippedDecisions,
            double maxFlippedRate) {
        this(
                maxUnexplained,
                maxMismatchRate,
                maxFlippedDecisions,
                maxFlippedRate,
                DEFAULT_MAX_TRANSACTION_FLIPPED_RATE);
    }

    public ParityThresholds {
        if (maxUnexplained < 0) {
            throw new IllegalArgumentException(
                    "--max-unexplained must be >= 0, got " + maxUnexplained);
        }
        if (!(maxMismatchRate >= 0 && maxMismatchRate <= 1)) {
            throw new IllegalArgumentException(
                    "--max-mismatch-rate must be in [0, 1], got " + maxMismatchRate);
        }
        if (maxFlippedDecisions < -1) {
            throw new IllegalArgumentException(
                    "--max-flipped-decisions must be >= 0 or -1 (no limit), got "
                            + maxFlippedDecisions);
        }
        if (!(maxFlippedRate >= 0 && maxFlippedRate <= 1)) {
            throw new IllegalArgumentException(
                    "--max-flipped-rate must be in [0, 1], got " + maxFlippedRate);
        }
        if (!(maxTransactionFlippedRate >= 0 && maxTransactionFlippedRate <= 1)) {
            throw new IllegalArgumentException(
                    "--max-transaction-flipped-rate must be in [0, 1], got "
                            + maxTransactionFlippedRate);
        }
    }
}
