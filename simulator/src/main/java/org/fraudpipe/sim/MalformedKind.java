package org.fraudpipe.sim;

/**
 * How a malformed payload is broken. Each kind fails {@link TransactionJson#parseValidLine}: the
 * first two at reading ({@link TransactionJson#parseLine}), the last two at validation ({@link
 * org.fraudpipe.schemas.TransactionValidator}).
 */
public enum MalformedKind {
    /** The JSON line is cut off: not parseable. */
    BAD_JSON,
    /** Valid JSON, but one of the transaction's fields is missing. */
    MISSING_FIELD,
    /** Well-formed, but {@code amountMinor} is negative. */
    NEGATIVE_AMOUNT,
    /** Well-formed, but {@code userId} is the empty string. */
    EMPTY_USER_ID
}
