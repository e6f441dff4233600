package org.fraudpipe.job.features;

import org.fraudpipe.schemas.avro.FeatureRecord;

/**
 * The features of one user over one window: the result of {@link FeatureAggregator}, identical for
 * the streaming job, the batch parity check and training export.
 *
 * <p>Invariants: all counts and amounts are non-negative; {@code txCount <= recordsSeen}; the three
 * distinct counts are at most {@code txCount}; {@code amountMax <= amountSum}; an empty window has
 * all zeros (it never fires in Flink, but the oracle and training can ask for one).
 *
 * @param txCount distinct {@code transactionId}s
 * @param amountSum sum of {@code amountMinor} over those transactions, each id once
 * @param amountMax largest {@code amountMinor} among them, 0 if there are none
 * @param distinctDevices distinct {@code deviceId}s among them
 * @param distinctMerchants distinct {@code merchantId}s among them
 * @param distinctCountries distinct {@code country} codes among them
 * @param recordsSeen raw records that reached the window, duplicates included (not a model feature:
 *     it drives the pane bookkeeping and explains duplicates in parity)
 */
public record FeatureValues(
        long txCount,
        long amountSum,
        long amountMax,
        int distinctDevices,
        int distinctMerchants,
        int distinctCountries,
        long recordsSeen) {

    /** The values of a window no transaction reached. */
    public static final FeatureValues EMPTY = new FeatureValues(0, 0, 0, 0, 0, 0, 0);

    public FeatureValues {
        if (txCount < 0 || recordsSeen < txCount) {
            throw new IllegalArgumentException(
                    "need 0 <= txCount <= recordsSeen, got txCount="
                            + txCount
                            + ", recordsSeen="
                            + recordsSeen);
        }
        if (distinctDevices < 0 || distinctMerchants < 0 || distinctCountries < 0) {
            throw new IllegalArgumentException("distinct counts must not be negative");
        }
    }

    /**
     * Sets the six feature fields of a {@link FeatureRecord} to these values: the one place the
     * feature contract meets the record, for the streaming window and for training export alike.
     */
    public FeatureRecord.Builder writeTo(FeatureRecord.Builder record) {
        return record.setTxCount(txCount)
                .setAmountSum(amountSum)
                .setAmountMax(amountMax)
                .setDistinctDevices(distinctDevices)
                .setDistinctMerchants(distinctMerchants)
                .setDistinctCountries(distinctCountries);
    }
}
