package org.fraudpipe.job.features;

import java.time.Duration;
import java.util.Objects;
import org.fraudpipe.schemas.avro.Transaction;
import org.fraudpipe.schemas.avro.TransactionFeatures;

/**
 * The features of one transaction as of its arrival: the one definition of the per-transaction path
 * ("scores at arrival"), for the streaming job, training export and (later) parity.
 *
 * <p>Definition. For a valid transaction x of user u with event time t and a trailing length T: the
 * six features of the feature core ({@link FeatureAggregator}'s {@link FeatureAccumulator}, so the
 * same duplicate rule: a {@code transactionId} counts once, with the payload that arrived first)
 * over u's valid transactions with event time in {@code (t - T, t]} that were received up to and
 * including x, added in arrival order, x last; and x's own fields: its amount, and whether its
 * device, merchant and country are <em>new</em>, i.e. not among the other qualifying transactions.
 * Which transactions "were received before x" is the caller's business: the job passes what its
 * state holds when x arrives, training export passes the earlier lines of the file ({@link
 * #compute}), or every line of the user for the ideal value.
 *
 * <p>Invariants: x always counts (txCount &gt;= 1, x's amount in the sum and the maximum); a
 * transaction of the history with x's own id is ignored (x's payload counts: for the first arrival
 * of an id, history holds no other copy; for an ideal value, later duplicates of x do not replace
 * it); transactions of another user are ignored; the result does not depend on anything but the
 * qualifying transactions and their order (and, with distinct ids, not even on that).
 *
 * <p>Use: {@link #of}, then {@link #add} each earlier transaction in arrival order (or {@link
 * #add(String, long, long, String, String, String)} with its fields), then {@link #result()} once.
 * Not thread-safe; cheap to create (one small accumulator).
 */
public final class TrailingFeatures {

    /**
     * The per-transaction features of x.
     *
     * @param values the six window features over the trailing window, x included ({@code
     *     recordsSeen}: the records added, duplicates included; not a model input)
     * @param newDevice x's device is not among the other qualifying transactions
     * @param newMerchant x's merchant is not among them
     * @param newCountry x's country is not among them
     */
    public record Result(
            FeatureValues values, boolean newDevice, boolean newMerchant, boolean newCountry) {

        public Result {
            Objects.requireNonNull(values, "values");
        }

        /**
         * Sets the feature fields of a {@link TransactionFeatures} (the six window features and the
         * three novelty flags): the one place the definition meets the record, for the streaming
         * job and training export alike. Ids, times, x's amount and {@code historyComplete} are the
         * caller's.
         */
        public TransactionFeatures.Builder writeTo(TransactionFeatures.Builder record) {
            return record.setTxCount(values.txCount())
                    .setAmountSum(values.amountSum())
                    .setAmountMax(values.amountMax())
                    .setDistinctDevices(values.distinctDevices())
                    .setDistinctMerchants(values.distinctMerchants())
                    .setDistinctCountries(values.distinctCountries())
                    .setNewDevice(newDevice)
                    .setNewMerchant(newMerchant)
                    .setNewCountry(newCountry);
        }
    }

    private final Transaction x;
    private final long lowerExclusive;
    private final long upperInclusive;
    private final FeatureAccumulator others = new FeatureAccumulator();
    private final Transaction scratch = new Transaction();
    private boolean done;

    private TrailingFeatures(Transaction x, Duration trailing) {
        this.x = Objects.requireNonNull(x, "x");
        long t = x.getEventTime().toEpochMilli();
        long length = trailing.toMillis();
        if (length <= 0) {
            throw new IllegalArgumentException("trailing window must be positive: " + trailing);
        }
        this.upperInclusive = t;
        this.lowerExclusive = t >= Long.MIN_VALUE + length ? t - length : Long.MIN_VALUE;
        scratch.setUserId(x.getUserId());
        scratch.setCurrency(x.getCurrency());
    }

    /** The features of {@code x} over a trailing window of length {@code trailing}, to fill. */
    public static TrailingFeatures of(Transaction x, Duration trailing) {
        return new TrailingFeatures(x, trailing);
    }

    /**
     * The features of {@code x} over the transactions of {@code history} (arrival order) in its
     * trailing window: the definition in one call.
     */
    public static Result compute(Iterable<Transaction> history, Transaction x, Duration trailing) {
        TrailingFeatures f = of(x, trailing);
        for (Transaction tx : history) {
            f.add(tx);
        }
        return f.result();
    }

    /** Whether a transaction with this event time lies in x's trailing window {@code (t-T, t]}. */
    public boolean covers(long eventTimeMillis) {
        return eventTimeMillis > lowerExclusive && eventTimeMillis <= upperInclusive;
    }

    /**
     * Adds the next earlier-received transaction; ignored unless it is the same user's, in the
     * trailing window, and not x's own id.
     */
    public void add(Transaction earlier) {
        if (earlier.getUserId().equals(x.getUserId())) {
            add(
                    earlier.getTransactionId(),
                    earlier.getEventTime().toEpochMilli(),
                    earlier.getAmountMinor(),
                    earlier.getDeviceId(),
                    earlier.getMerchantId(),
                    earlier.getCountry());
        }
    }

    /**
     * Adds the next earlier-received transaction of x's user by its fields (the job's compact
     * state); ignored unless it is in the trailing window and not x's own id.
     */
    public void add(
            String transactionId,
            long eventTimeMillis,
            long amountMinor,
            String deviceId,
            String merchantId,
            String country) {
        if (done) {
            throw new IllegalStateException("result() was already taken");
        }
        if (!covers(eventTimeMillis) || transactionId.equals(x.getTransactionId())) {
            return;
        }
        // The accumulator copies the fields it keeps (not the event time), so one scratch record
        // serves every add.
        scratch.setTransactionId(transactionId);
        scratch.setAmountMinor(amountMinor);
        scratch.setDeviceId(deviceId);
        scratch.setMerchantId(merchantId);
        scratch.setCountry(country);
        others.add(scratch);
    }

    /** x's features: x added last. Once. */
    public Result result() {
        if (done) {
            throw new IllegalStateException("result() was already taken");
        }
        done = true;
        FeatureValues without = others.toValues();
        others.add(x);
        FeatureValues with = others.toValues();
        return new Result(
                with,
                with.distinctDevices() > without.distinctDevices(),
                with.distinctMerchants() > without.distinctMerchants(),
                with.distinctCountries() > without.distinctCountries());
    }
}
