package org.fraudpipe.job.transaction;

import java.time.Instant;
import java.util.Objects;
import org.fraudpipe.job.features.TrailingFeatures;
import org.fraudpipe.schemas.avro.Transaction;
import org.fraudpipe.schemas.avro.TransactionFeatures;

/**
 * What the per-transaction path keeps of one received transaction, keyed by its {@code
 * transactionId} in its user's state: the fields the trailing features of later transactions need
 * (event time, amount, device, merchant, country) and the features it was scored with, so that a
 * producer retry is answered with the very same values. Immutable.
 *
 * <p>Compact on purpose (about 50 bytes plus the id, {@link ReceivedTransactionSerializer}): no
 * user id (the key), no currency, no model output (the score is a pure function of the features and
 * the model, recomputed for a retry).
 *
 * @param eventTime event time, epoch millis
 * @param amountMinor amount, minor units
 * @param deviceId device
 * @param merchantId merchant
 * @param country country
 * @param firstArrival its first arrival's Kafka record timestamp, epoch millis, or where the record
 *     had none (a replay) its arrival time: the transaction's coordinate (which release scores it
 *     and its retries), and what a retry's answer names as the record timestamp scored. (Written as
 *     {@code recordTimestamp} before releases; live records always have one, so state written then
 *     holds the same value.)
 * @param txCount the features it was scored with, as in {@link TransactionFeatures}
 * @param amountSum as in {@link TransactionFeatures}
 * @param amountMax as in {@link TransactionFeatures}
 * @param distinctDevices as in {@link TransactionFeatures}
 * @param distinctMerchants as in {@link TransactionFeatures}
 * @param distinctCountries as in {@link TransactionFeatures}
 * @param flags {@link #NEW_DEVICE}, {@link #NEW_MERCHANT}, {@link #NEW_COUNTRY}, {@link
 *     #HISTORY_COMPLETE}, {@link #ARRIVAL_NOT_RECORD_TIMESTAMP}
 */
public record ReceivedTransaction(
        long eventTime,
        long amountMinor,
        String deviceId,
        String merchantId,
        String country,
        long firstArrival,
        long txCount,
        long amountSum,
        long amountMax,
        int distinctDevices,
        int distinctMerchants,
        int distinctCountries,
        int flags) {

    static final int NEW_DEVICE = 1;
    static final int NEW_MERCHANT = 2;
    static final int NEW_COUNTRY = 4;
    static final int HISTORY_COMPLETE = 8;

    /**
     * {@link #firstArrival} is an arrival time, the record having had no Kafka timestamp (a
     * replay). Never set in state written before releases (live records always have one).
     */
    static final int ARRIVAL_NOT_RECORD_TIMESTAMP = 16;

    /** A Kafka record timestamp of a record without one. */
    public static final long NO_TIMESTAMP = Long.MIN_VALUE;

    public ReceivedTransaction {
        Objects.requireNonNull(deviceId, "deviceId");
        Objects.requireNonNull(merchantId, "merchantId");
        Objects.requireNonNull(country, "country");
    }

    /**
     * The entry of {@code tx}, scored with {@code features}.
     *
     * @param recordTimestamp its Kafka record timestamp, or {@link #NO_TIMESTAMP}
     * @param receivedAt its arrival time: the coordinate where it has no record timestamp
     */
    static ReceivedTransaction of(
            Transaction tx,
            long recordTimestamp,
            long receivedAt,
            TrailingFeatures.Result features,
            boolean historyComplete) {
        boolean stamped = recordTimestamp != NO_TIMESTAMP;
        var v = features.values();
        return new ReceivedTransaction(
                tx.getEventTime().toEpochMilli(),
                tx.getAmountMinor(),
                tx.getDeviceId(),
                tx.getMerchantId(),
                tx.getCountry(),
                stamped ? recordTimestamp : receivedAt,
                v.txCount(),
                v.amountSum(),
                v.amountMax(),
                v.distinctDevices(),
                v.distinctMerchants(),
                v.distinctCountries(),
                (features.newDevice() ? NEW_DEVICE : 0)
                        | (features.newMerchant() ? NEW_MERCHANT : 0)
                        | (features.newCountry() ? NEW_COUNTRY : 0)
                        | (historyComplete ? HISTORY_COMPLETE : 0)
                        | (stamped ? 0 : ARRIVAL_NOT_RECORD_TIMESTAMP));
    }

    /** Its first arrival's Kafka record timestamp, or {@link #NO_TIMESTAMP} if it had none. */
    long recordTimestamp() {
        return (flags & ARRIVAL_NOT_RECORD_TIMESTAMP) != 0 ? NO_TIMESTAMP : firstArrival;
    }

    /** The features this transaction was scored with. */
    TransactionFeatures features(String transactionId, String userId, long trailingMillis) {
        return TransactionFeatures.newBuilder()
                .setTransactionId(transactionId)
                .setUserId(userId)
                .setEventTime(Instant.ofEpochMilli(eventTime))
                .setTrailingWindowMillis(trailingMillis)
                .setTxCount(txCount)
                .setAmountSum(amountSum)
                .setAmountMax(amountMax)
                .setDistinctDevices(distinctDevices)
                .setDistinctMerchants(distinctMerchants)
                .setDistinctCountries(distinctCountries)
                .setAmountMinor(amountMinor)
                .setNewDevice((flags & NEW_DEVICE) != 0)
                .setNewMerchant((flags & NEW_MERCHANT) != 0)
                .setNewCountry((flags & NEW_COUNTRY) != 0)
                .setHistoryComplete((flags & HISTORY_COMPLETE) != 0)
                .build();
    }
}
