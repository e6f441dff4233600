package org.fraudpipe.job.features;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.fraudpipe.schemas.avro.Transaction;

/**
 * The per-transaction contract computed the obvious way, to check {@link TrailingFeatures} against:
 * take the arrivals up to and including x, keep the user's, keep those with event time in (t - T,
 * t], keep the first record of each transactionId (x's own id: x), and count with sets. No
 * accumulator. A transaction's device (merchant, country) is new iff no other kept record has it.
 */
final class TrailingOracle {

    /** What the oracle says about x. */
    record Answer(
            long txCount,
            long amountSum,
            long amountMax,
            int distinctDevices,
            int distinctMerchants,
            int distinctCountries,
            boolean newDevice,
            boolean newMerchant,
            boolean newCountry) {

        static Answer of(TrailingFeatures.Result r) {
            FeatureValues v = r.values();
            return new Answer(
                    v.txCount(),
                    v.amountSum(),
                    v.amountMax(),
                    v.distinctDevices(),
                    v.distinctMerchants(),
                    v.distinctCountries(),
                    r.newDevice(),
                    r.newMerchant(),
                    r.newCountry());
        }
    }

    private TrailingOracle() {}

    /**
     * x's answer over {@code history} (whatever the caller says was received before x), x added
     * last; a history record with x's id does not count (x's payload does).
     */
    static Answer compute(List<Transaction> history, Transaction x, long trailingMillis) {
        long t = x.getEventTime().toEpochMilli();
        List<Transaction> kept = new ArrayList<>();
        Set<String> ids = new HashSet<>();
        ids.add(x.getTransactionId());
        for (Transaction tx : history) {
            long e = tx.getEventTime().toEpochMilli();
            if (tx.getUserId().equals(x.getUserId())
                    && e > t - trailingMillis
                    && e <= t
                    && ids.add(tx.getTransactionId())) {
                kept.add(tx);
            }
        }
        Set<String> devices = new HashSet<>();
        Set<String> merchants = new HashSet<>();
        Set<String> countries = new HashSet<>();
        long sum = 0;
        long max = 0;
        for (Transaction tx : kept) {
            devices.add(tx.getDeviceId());
            merchants.add(tx.getMerchantId());
            countries.add(tx.getCountry());
            sum += tx.getAmountMinor();
            max = Math.max(max, tx.getAmountMinor());
        }
        boolean newDevice = !devices.contains(x.getDeviceId());
        boolean newMerchant = !merchants.contains(x.getMerchantId());
        boolean newCountry = !countries.contains(x.getCountry());
        devices.add(x.getDeviceId());
        merchants.add(x.getMerchantId());
        countries.add(x.getCountry());
        return new Answer(
                kept.size() + 1,
                sum + x.getAmountMinor(),
                Math.max(max, x.getAmountMinor()),
                devices.size(),
                merchants.size(),
                countries.size(),
                newDevice,
                newMerchant,
                newCountry);
    }
}
