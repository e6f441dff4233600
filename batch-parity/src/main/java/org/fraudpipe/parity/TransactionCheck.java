package org.fraudpipe.parity;

import java.time.Duration;
import org.fraudpipe.job.position.ReadPositions;
import org.fraudpipe.job.transaction.OnnxTransactionScorer;
import org.fraudpipe.parity.input.StreamInput;
import org.fraudpipe.scoring.DecisionThresholds;

/**
 * What the per-transaction part of a parity run (scores at arrival) checks, or why it checks
 * nothing.
 *
 * @param notChecked why the run does not check scores at arrival (an archive without a
 *     transaction-scores stream, replay files without {@code --transaction-scores}); null when it
 *     does
 * @param trailing T, the trailing window the scores were computed over
 * @param scores the served transaction scores (an archive stream: possibly no file in the period)
 * @param history the transactions before the period within T of its start (archives), or null
 * @param labels a labels file ({@code --labels}), or null
 * @param scorer the serving per-transaction model to re-score ideal features with, or null
 * @param thresholds its decision thresholds (with a scorer)
 * @param positions where the job's readers stood when the archive was last committed ({@link
 *     ReadPositions#NONE} when the archive records none: replay files, older archives)
 */
public record TransactionCheck(
        String notChecked,
        Duration trailing,
        StreamInput scores,
        StreamInput history,
        String labels,
        OnnxTransactionScorer.Factory scorer,
        DecisionThresholds thresholds,
        ReadPositions positions) {

    /** A run that does not check scores at arrival, saying why. */
    public static TransactionCheck off(String reason) {
        return new TransactionCheck(reason, null, null, null, null, null, null, ReadPositions.NONE);
    }

    public boolean checked() {
        return notChecked == null;
    }
}
