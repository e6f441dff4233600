package org.fraudpipe.parity.report;

/**
 * When a parity run fails (exit code 1). Defaults: no alarm window at all (UNEXPLAINED,
 * MISSING_IN_STREAM, EXTRA_IN_STREAM), explained skew and flipped decisions unlimited.
 *
 * @param maxUnexplained alarm windows allowed (option {@code --max-unexplained})
 * @param maxMismatchRate largest fraction of judged windows whose served value differs from the
 *     ideal, explained or not (option {@code --max-mismatch-rate}, 1 = no limit)
 * @param maxFlippedDecisions decisions the ideal features would have changed (option {@code
 *     --max-flipped-decisions}, -1 = no limit)
 */
public record ParityThresholds(
        long maxUnexplained, double maxMismatchRate, long maxFlippedDecisions) {

    public static final ParityThresholds DEFAULT = new ParityThresholds(0, 1.0, -1);

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
    }
}
