package org.fraudpipe.parity.transaction;

import org.fraudpipe.schemas.avro.TransactionFeatures;

/**
 * One training row of the per-transaction export from an archive ({@link ArchivedTransactionRows}):
 * a scored transaction with its features as served or ideal, its label, and what the parity check
 * found about it (so that the export can say what it wrote).
 *
 * <p>A Flink POJO (public fields, no-arg constructor).
 */
public final class TransactionRow {

    /** User, event time, id: the order of the file ({@link #sortKeyOf}). */
    public String sortKey;

    /** The features the semantics asks for; null when there are none (e.g. never scored). */
    public TransactionFeatures features;

    /** Whether {@link #fraud} is known (a label was given for the id). */
    public boolean labelled;

    public boolean fraud;

    /** The parity cause of the transaction ({@link TransactionCause} name). */
    public String cause;

    /** Whether the served features differ from the ideal ones. */
    public boolean differsFromIdeal;

    public TransactionRow() {}

    /**
     * The order of the rows: by user, then event time, then id (what the simulator export sorts
     * by). Event times are non-negative epoch millis, zero-padded to sort as text.
     */
    public static String sortKeyOf(String userId, long eventTimeMillis, String transactionId) {
        return userId
                + '\u0000'
                + String.format(java.util.Locale.ROOT, "%019d", Math.max(0, eventTimeMillis))
                + '\u0000'
                + transactionId;
    }
}
