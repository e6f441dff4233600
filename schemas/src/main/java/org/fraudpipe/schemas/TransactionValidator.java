package org.fraudpipe.schemas;

import java.time.Instant;
import java.util.Optional;
import java.util.regex.Pattern;
import org.fraudpipe.schemas.avro.Transaction;

/**
 * The rules a decoded transaction must satisfy before it may reach a window. A record that breaks
 * one goes to the dead-letter stream with reason INVALID and the message returned here; it never
 * reaches the features, so the rules are part of the feature contract.
 *
 * <p>Pure and stateless.
 */
public final class TransactionValidator {

    /** Event times before this are treated as missing (a zero or garbage timestamp). */
    public static final Instant EARLIEST_EVENT_TIME = Instant.parse("2000-01-01T00:00:00Z");

    private static final Pattern CURRENCY = Pattern.compile("[A-Z]{3}");
    private static final Pattern COUNTRY = Pattern.compile("[A-Z]{2}");

    private TransactionValidator() {}

    /** The first rule {@code tx} breaks, as a message naming the field, or empty if it is valid. */
    public static Optional<String> problem(Transaction tx) {
        if (isBlank(tx.getTransactionId())) {
            return Optional.of("transactionId is empty");
        }
        if (isBlank(tx.getUserId())) {
            return Optional.of("userId is empty (transaction " + tx.getTransactionId() + ")");
        }
        if (tx.getAmountMinor() < 0) {
            return Optional.of(
                    "amountMinor is negative ("
                            + tx.getAmountMinor()
                            + ") in transaction "
                            + tx.getTransactionId());
        }
        if (tx.getCurrency() == null || !CURRENCY.matcher(tx.getCurrency()).matches()) {
            return Optional.of(
                    "currency '"
                            + tx.getCurrency()
                            + "' is not an ISO 4217 code in transaction "
                            + tx.getTransactionId());
        }
        if (isBlank(tx.getMerchantId())) {
            return Optional.of("merchantId is empty in transaction " + tx.getTransactionId());
        }
        if (isBlank(tx.getDeviceId())) {
            return Optional.of("deviceId is empty in transaction " + tx.getTransactionId());
        }
        if (tx.getCountry() == null || !COUNTRY.matcher(tx.getCountry()).matches()) {
            return Optional.of(
                    "country '"
                            + tx.getCountry()
                            + "' is not an ISO 3166-1 alpha-2 code in transaction "
                            + tx.getTransactionId());
        }
        if (tx.getEventTime() == null || tx.getEventTime().isBefore(EARLIEST_EVENT_TIME)) {
            return Optional.of(
                    "eventTime "
                            + tx.getEventTime()
                            + " is missing or before "
                            + EARLIEST_EVENT_TIME
                            + " in transaction "
                            + tx.getTransactionId());
        }
        return Optional.empty();
    }

    private static boolean isBlank(String s) {
        return s == null || s.isBlank();
    }
}
