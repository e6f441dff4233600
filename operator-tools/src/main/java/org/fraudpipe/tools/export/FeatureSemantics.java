package org.fraudpipe.tools.export;

import java.util.Arrays;
import java.util.Locale;
import java.util.stream.Collectors;

/**
 * Which features a training export writes ({@code ./fraud features --semantics}): {@code ideal} or
 * {@code as-served} per window; {@code as-of-arrival} or {@code ideal} per transaction.
 */
public enum FeatureSemantics {
    /**
     * The value over every valid stored transaction at its event time, late and future-dated ones
     * included ({@link TrainingFeatureExport}): what batch recomputation and the parity check call
     * ideal.
     */
    IDEAL,
    /**
     * What the streaming job serves for the same input under its lateness policy, the last revision
     * of each window ({@link AsServedFeatureExport}): what a model scores in production.
     */
    AS_SERVED,
    /**
     * Per transaction ({@code --per-transaction}): the features of each transaction over what had
     * arrived up to and including it ({@link TransactionFeatureExport}): what the job computes when
     * it scores the transaction.
     */
    AS_OF_ARRIVAL;

    /** The name on the command line: {@code ideal}, {@code as-served}, {@code as-of-arrival}. */
    public String optionValue() {
        return name().toLowerCase(Locale.ROOT).replace('_', '-');
    }

    /** The accepted names, for help and messages: {@code ideal, as-served, as-of-arrival}. */
    public static String accepted() {
        return Arrays.stream(values())
                .map(FeatureSemantics::optionValue)
                .collect(Collectors.joining(", "));
    }

    /**
     * The semantics named {@code text} (exactly its option value).
     *
     * @throws IllegalArgumentException saying what is accepted
     */
    public static FeatureSemantics parse(String text) {
        for (FeatureSemantics s : values()) {
            if (s.optionValue().equals(text)) {
                return s;
            }
        }
        throw new IllegalArgumentException("'" + text + "' is not one of: " + accepted());
    }
}
