package org.fraudpipe.scoring.train;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;

/**
 * Which part of the data a user's windows go to: training, validation (model selection) or holdout
 * (the numbers in the model card). All windows of a user go to the same part.
 *
 * <p>Why by user: a fraud burst can span two adjacent windows, and a user's habits (amounts,
 * devices) repeat across windows; a random split by window would put half of a burst in training
 * and the other half in the holdout and overstate the AUC. Splitting by user keeps every burst and
 * every user's habits on one side, and keeps the whole period (daily rhythm included) on every
 * side. The simulator's traffic is stationary, so an out-of-time split would measure the same thing
 * with fewer days of training.
 *
 * <p>Rule: {@code u} = the first 8 bytes of SHA-256({@code seed + ":" + userId}) as an unsigned
 * fraction of 2^64; {@code u < holdout} is holdout, {@code u < holdout + validation} validation,
 * the rest training. Deterministic, independent of file order and platform.
 *
 * @param validationFraction expected share of users for validation
 * @param holdoutFraction expected share of users for the holdout
 * @param seed mixes the assignment (the training seed)
 */
public record UserSplit(double validationFraction, double holdoutFraction, long seed) {

    /** The three parts. */
    public enum Part {
        TRAIN,
        VALIDATION,
        HOLDOUT
    }

    public UserSplit {
        if (!(validationFraction > 0
                && holdoutFraction > 0
                && validationFraction + holdoutFraction < 1)) {
            throw new IllegalArgumentException(
                    "validation and holdout fractions must be > 0 and leave users for training,"
                            + " got "
                            + validationFraction
                            + " and "
                            + holdoutFraction);
        }
    }

    /** The part of {@code userId}. */
    public Part partOf(String userId) {
        double u = unitInterval(seed + ":" + userId);
        if (u < holdoutFraction) {
            return Part.HOLDOUT;
        }
        return u < holdoutFraction + validationFraction ? Part.VALIDATION : Part.TRAIN;
    }

    private static double unitInterval(String key) {
        try {
            byte[] digest =
                    MessageDigest.getInstance("SHA-256")
                            .digest(key.getBytes(StandardCharsets.UTF_8));
            long bits = ByteBuffer.wrap(digest, 0, 8).getLong() >>> 11; // 53 random bits
            return bits / (double) (1L << 53);
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("every JVM has SHA-256", e);
        }
    }
}
