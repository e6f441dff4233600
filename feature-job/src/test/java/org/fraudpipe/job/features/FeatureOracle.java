package org.fraudpipe.job.features;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.fraudpipe.schemas.avro.Transaction;

/**
 * The feature contract computed the obvious way, to check {@link FeatureAggregator} against: take
 * the user's transactions with eventTime in [start, end), keep the first record (in the given
 * arrival order) of each transactionId, and count. No accumulators, no merges, no windows.
 */
final class FeatureOracle {

    private FeatureOracle() {}

    private static List<Transaction> inWindow(
            List<Transaction> arrivalOrder, String userId, long start, long end) {
        List<Transaction> inWindow = new ArrayList<>();
        for (Transaction tx : arrivalOrder) {
            long t = tx.getEventTime().toEpochMilli();
            if (tx.getUserId().equals(userId) && t >= start && t < end) {
                inWindow.add(tx);
            }
        }
        return inWindow;
    }

    /**
     * The ids of the window that came with more than one payload (amount, device, merchant,
     * country): conflicting duplicates. Independent of arrival order.
     */
    static Set<String> conflictingIds(
            List<Transaction> arrivalOrder, String userId, long start, long end) {
        Map<String, Set<List<Object>>> payloads = new HashMap<>();
        for (Transaction tx : inWindow(arrivalOrder, userId, start, end)) {
            payloads.computeIfAbsent(tx.getTransactionId(), id -> new HashSet<>())
                    .add(
                            List.of(
                                    tx.getAmountMinor(),
                                    tx.getDeviceId(),
                                    tx.getMerchantId(),
                                    tx.getCountry()));
        }
        Set<String> conflicting = new HashSet<>();
        payloads.forEach(
                (id, distinct) -> {
                    if (distinct.size() > 1) {
                        conflicting.add(id);
                    }
                });
        return conflicting;
    }

    static FeatureValues compute(
            List<Transaction> arrivalOrder, String userId, long start, long end) {
        List<Transaction> inWindow = inWindow(arrivalOrder, userId, start, end);
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
