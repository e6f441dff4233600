package org.fraudpipe.parity;

import java.util.ArrayList;
import java.util.List;
import org.fraudpipe.job.features.FeatureValues;
import org.fraudpipe.schemas.avro.FeatureRecord;

/**
 * The six model features of one window, the values parity compares: what a {@link FeatureRecord}
 * serves and what {@link FeatureValues} computes, without the pane bookkeeping ({@code
 * recordsSeen}, revision, timing), which is not part of the feature contract.
 */
public record FeatureVector(
        long txCount,
        long amountSum,
        long amountMax,
        int distinctDevices,
        int distinctMerchants,
        int distinctCountries) {

    /** The names of the compared features, in the order of the components. */
    public static final List<String> NAMES =
            List.of(
                    "txCount",
                    "amountSum",
                    "amountMax",
                    "distinctDevices",
                    "distinctMerchants",
                    "distinctCountries");

    /** The features of a window no transaction reached. */
    public static final FeatureVector EMPTY = of(FeatureValues.EMPTY);

    public static FeatureVector of(FeatureRecord r) {
        return new FeatureVector(
                r.getTxCount(),
                r.getAmountSum(),
                r.getAmountMax(),
                r.getDistinctDevices(),
                r.getDistinctMerchants(),
                r.getDistinctCountries());
    }

    public static FeatureVector of(FeatureValues v) {
        return new FeatureVector(
                v.txCount(),
                v.amountSum(),
                v.amountMax(),
                v.distinctDevices(),
                v.distinctMerchants(),
                v.distinctCountries());
    }

    /** The values in the order of {@link #NAMES}. */
    public long[] values() {
        return new long[] {
            txCount, amountSum, amountMax, distinctDevices, distinctMerchants, distinctCountries
        };
    }

    /** Names of the features whose values differ from {@code other}'s, in {@link #NAMES} order. */
    public List<String> differingFrom(FeatureVector other) {
        long[] mine = values();
        long[] theirs = other.values();
        List<String> out = new ArrayList<>();
        for (int i = 0; i < mine.length; i++) {
            if (mine[i] != theirs[i]) {
                out.add(NAMES.get(i));
            }
        }
        return out;
    }
}
