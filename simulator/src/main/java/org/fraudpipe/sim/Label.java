package org.fraudpipe.sim;

import java.time.Instant;
import java.util.Objects;

/**
 * Ground truth about one generated transaction id: one line of the labels file.
 *
 * <p>Invariants: {@code fraud == pattern.isFraud()}; {@code burstId != null} exactly when {@code
 * fraud}; {@code malformedKind != null} exactly when {@code malformed}; fraudulent transactions are
 * never malformed nor future-dated (those anomalies only hit legitimate traffic, so a fraud label
 * always refers to a record that can reach a window); a duplicate is never malformed nor
 * future-dated. {@code line} and {@code arrivalTime} are those of the first copy in the output
 * file.
 *
 * @param transactionId the id; for a malformed record, the id it would have had (a {@link
 *     MalformedKind#BAD_JSON} line may have lost it, so find that line by {@code line})
 * @param userId the card holder (also for {@link MalformedKind#EMPTY_USER_ID}, whose payload lost
 *     it)
 * @param eventTime the eventTime written in the record (for a future-dated record: the skewed one)
 * @param arrivalTime arrival of the first copy
 * @param line 1-based line number of the first copy in the transactions file
 * @param fraud whether the transaction is fraudulent
 * @param pattern the traffic pattern it belongs to
 * @param burstId id of the fraud burst ({@code b-000001}, ...), {@code null} for legitimate traffic
 * @param duplicate whether a producer retry sent it twice (same id and payload, later arrival)
 * @param futureDated whether its eventTime is hours ahead of its arrival (client clock skew)
 * @param hoursLate whether it arrived 10 minutes or more after its eventTime (offline client)
 * @param malformed whether the line is not a valid transaction (never counted in any window)
 * @param malformedKind how it is broken, {@code null} unless malformed
 */
public record Label(
        String transactionId,
        String userId,
        Instant eventTime,
        Instant arrivalTime,
        long line,
        boolean fraud,
        FraudPattern pattern,
        String burstId,
        boolean duplicate,
        boolean futureDated,
        boolean hoursLate,
        boolean malformed,
        MalformedKind malformedKind) {

    public Label {
        Objects.requireNonNull(transactionId, "transactionId");
        Objects.requireNonNull(userId, "userId");
        Objects.requireNonNull(eventTime, "eventTime");
        Objects.requireNonNull(arrivalTime, "arrivalTime");
        Objects.requireNonNull(pattern, "pattern");
        if (fraud != pattern.isFraud()) {
            throw new IllegalArgumentException(
                    "fraud=" + fraud + " contradicts pattern " + pattern);
        }
        if ((burstId != null) != fraud) {
            throw new IllegalArgumentException("burstId must be set exactly for fraud");
        }
        if ((malformedKind != null) != malformed) {
            throw new IllegalArgumentException("malformedKind must be set exactly when malformed");
        }
    }

    /**
     * Whether the transaction can count in a feature window: it is a valid transaction (not
     * malformed). Future-dated transactions are valid data but the streaming job quarantines them;
     * see {@link WindowLabels} for how windows are labelled.
     */
    public boolean countsInWindows() {
        return !malformed;
    }
}
