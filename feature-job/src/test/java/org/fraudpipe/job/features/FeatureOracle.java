package org.fraudpipe.job.features;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.fraudpipe.schemas.avro.Transaction;

/**
 * The feature contract computed the obvious way, to check {@link FeatureAggregator} against: take
 * the user's transactions with eventTime in [start, end), keep the first record (in the given
 * arrival order) of each transactionId, and count. No accumulators, no merges, no windows.
 */
final class FeatureOracle {

    private FeatureOracle() {}

    static FeatureValues compute(
            List<Transaction> arrivalOrder, String userId, long start, long end) {
        List<Transaction> inWindow = new ArrayList<>();
        for (Transaction tx : arrivalOrder) {
            long t = tx.getEventTime().toEpochMilli();
            if (tx.getUserId().equals(userId) && t >= start && t < end) {
                inWindow.add(tx);
            }
        }
        Set<String> ids = new HashSet<>();
        List<Transaction> firstOfEachId = new ArrayList<>();
        for (Transaction tx : inWindow) {
            if (ids.add(tx.getTransactionId())) {
                firstOfEachId.add(tx);
            }
        }
        long sum = 0;
        long max = 0;
        Set<String> devices = new HashSet<>();
        Set<String> merchants = new HashSet<>();
        Set<String> countries = new HashSet<>();
        for (Transaction tx : firstOfEachId) {
            sum += tx.getAmountMinor();
            max = Math.max(max, tx.getAmountMinor());
            devices.add(tx.getDeviceId());
            merchants.add(tx.getMerchantId());
            countries.add(tx.getCountry());
        }
        return new FeatureValues(
                firstOfEachId.size(),
                sum,
                max,
                devices.size(),
                merchants.size(),
                countries.size(),
                inWindow.size());
    }
}
