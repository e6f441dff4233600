package org.fraudpipe.scoring;

import org.fraudpipe.schemas.avro.Decision;

/**
 * How a fraud probability becomes a {@link Decision}: {@code BLOCK} if {@code score >= block}, else
 * {@code REVIEW} if {@code score >= review}, else {@code ALLOW}.
 *
 * <p>Invariant: {@code 0 <= review <= block <= 1}. {@code review == block} means "never review";
 * {@code block == 1} blocks only certain fraud. Errors name the options users set them with,
 * {@value #REVIEW_OPTION} and {@value #BLOCK_OPTION}.
 *
 * @param review lowest score that is reviewed
 * @param block lowest score that is blocked
 */
public record DecisionThresholds(double review, double block) implements java.io.Serializable {

    public static final String REVIEW_OPTION = "--review-threshold";
    public static final String BLOCK_OPTION = "--block-threshold";

    /** Default review threshold. */
    public static final double DEFAULT_REVIEW = 0.5;

    /** Default block threshold. */
    public static final double DEFAULT_BLOCK = 0.9;

    /** The defaults: review from 0.5, block from 0.9. */
    public static final DecisionThresholds DEFAULT =
            new DecisionThresholds(DEFAULT_REVIEW, DEFAULT_BLOCK);

    public DecisionThresholds {
        requireProbability(REVIEW_OPTION, review);
        requireProbability(BLOCK_OPTION, block);
        if (review > block) {
            throw new IllegalArgumentException(
                    REVIEW_OPTION
                            + " ("
                            + review
                            + ") must not exceed "
                            + BLOCK_OPTION
                            + " ("
                            + block
                            + "): a score that is blocked must also be one that would be"
                            + " reviewed");
        }
    }

    /**
     * The decision for a fraud probability.
     *
     * @throws IllegalArgumentException if {@code score} is NaN or outside [0, 1] (a broken model)
     */
    public Decision decide(double score) {
        if (!(score >= 0 && score <= 1)) {
            throw new IllegalArgumentException("a fraud score must be in [0, 1], got " + score);
        }
        if (score >= block) {
            return Decision.BLOCK;
        }
        return score >= review ? Decision.REVIEW : Decision.ALLOW;
    }

    private static void requireProbability(String option, double value) {
        if (!(value >= 0 && value <= 1)) {
            throw new IllegalArgumentException(
                    option + " must be a probability in [0, 1], got " + value);
        }
    }
}
