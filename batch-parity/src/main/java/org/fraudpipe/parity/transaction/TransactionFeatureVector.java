package org.fraudpipe.parity.transaction;

import java.io.Serializable;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.fraudpipe.job.features.FeatureValues;
import org.fraudpipe.job.features.TrailingFeatures;
import org.fraudpipe.schemas.avro.TransactionFeatures;

/**
 * The model inputs of one scored transaction, the values the per-transaction check compares: the
 * six features of the trailing window, the transaction's own amount and its three novelty flags.
 * Not compared: the ids and event time (the key), {@code trailingWindowMillis} (checked for the
 * whole run) and {@code historyComplete} (what the job says about its state, judged separately).
 */
public record TransactionFeatureVector(
        long txCount,
        long amountSum,
        long amountMax,
        int distinctDevices,
        int distinctMerchants,
        int distinctCountries,
        long amountMinor,
        boolean newDevice,
        boolean newMerchant,
        boolean newCountry)
        implements Serializable {

    /** The names of the compared values, in the order of the components. */
    public static final List<String> NAMES =
            List.of(
                    "txCount",
                    "amountSum",
                    "amountMax",
                    "distinctDevices",
                    "distinctMerchants",
                    "distinctCountries",
                    "amountMinor",
                    "newDevice",
                    "newMerchant",
                    "newCountry");

    public static TransactionFeatureVector of(TransactionFeatures f) {
        return new TransactionFeatureVector(
                f.getTxCount(),
                f.getAmountSum(),
                f.getAmountMax(),
                f.getDistinctDevices(),
                f.getDistinctMerchants(),
                f.getDistinctCountries(),
                f.getAmountMinor(),
                f.getNewDevice(),
                f.getNewMerchant(),
                f.getNewCountry());
    }

    /** The features {@link TrailingFeatures} computed for a transaction of {@code amountMinor}. */
    public static TransactionFeatureVector of(TrailingFeatures.Result r, long amountMinor) {
        FeatureValues v = r.values();
        return new TransactionFeatureVector(
                v.txCount(),
                v.amountSum(),
                v.amountMax(),
                v.distinctDevices(),
                v.distinctMerchants(),
                v.distinctCountries(),
                amountMinor,
                r.newDevice(),
                r.newMerchant(),
                r.newCountry());
    }

    /** The values in the order of {@link #NAMES} (flags as 0 and 1). */
    public long[] values() {
        return new long[] {
            txCount,
            amountSum,
            amountMax,
            distinctDevices,
            distinctMerchants,
            distinctCountries,
            amountMinor,
            newDevice ? 1 : 0,
            newMerchant ? 1 : 0,
            newCountry ? 1 : 0
        };
    }

    /** Name to value, flags as booleans: what the report shows. */
    public Map<String, Object> asMap() {
        Map<String, Object> out = new LinkedHashMap<>();
        out.put("txCount", txCount);
        out.put("amountSum", amountSum);
        out.put("amountMax", amountMax);
        out.put("distinctDevices", distinctDevices);
        out.put("distinctMerchants", distinctMerchants);
        out.put("distinctCountries", distinctCountries);
        out.put("amountMinor", amountMinor);
        out.put("newDevice", newDevice);
        out.put("newMerchant", newMerchant);
        out.put("newCountry", newCountry);
        return out;
    }

    /** Names of the values that differ from {@code other}'s, in {@link #NAMES} order. */
    public List<String> differingFrom(TransactionFeatureVector other) {
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

    /** Sum over values of |this - other| / max(1, |this|): how far apart, for ranking. */
    public double distanceTo(TransactionFeatureVector other) {
        long[] mine = values();
        long[] theirs = other.values();
        double d = 0;
        for (int i = 0; i < mine.length; i++) {
            d += Math.abs(mine[i] - theirs[i]) / (double) Math.max(1, Math.abs(mine[i]));
        }
        return d;
    }

    @Override
    public String toString() {
        return "txCount="
                + txCount
                + " amountSum="
                + amountSum
                + " amountMax="
                + amountMax
                + " devices="
                + distinctDevices
                + " merchants="
                + distinctMerchants
                + " countries="
                + distinctCountries
                + " amount="
                + amountMinor
                + " new(device,merchant,country)="
                + (newDevice ? 1 : 0)
                + (newMerchant ? 1 : 0)
                + (newCountry ? 1 : 0);
    }
}
