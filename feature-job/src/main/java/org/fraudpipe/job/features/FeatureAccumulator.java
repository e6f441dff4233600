package org.fraudpipe.job.features;

import java.util.Collections;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import org.apache.flink.api.common.typeinfo.TypeInfo;
import org.fraudpipe.schemas.avro.Transaction;

/**
 * Mutable state of the feature aggregation of one user over one window.
 *
 * <p>What it holds: for each distinct {@code transactionId}, the one payload that counts for it
 * (amount, device, merchant, country), in arrival order; and the raw number of records that reached
 * it, duplicates included. {@code txCount}, {@code amountSum}, {@code amountMax} and the distinct
 * device/merchant/country sets are derived from those entries in {@link #toValues()}.
 *
 * <p>Duplicate rule: a {@code transactionId} counts once, with the payload of the record that
 * arrived <em>first</em>; later records with the same id only increase {@link #recordsSeen()}. A
 * producer retry carries the same payload, so the rule only decides for conflicting duplicates (a
 * data error upstream). "First" is arrival order at this accumulator: in the streaming job the
 * order the window operator received the records; in {@link #mergeFrom} the receiver's records
 * count as earlier than the argument's. In Flink BATCH mode records reach the window sorted by key
 * and timestamp, so for conflicting duplicates with different event times batch keeps the earliest
 * event time while streaming keeps the earliest arrival: parity explains such a window as a
 * duplicate difference.
 *
 * <p>Why the sets are not stored: the per-id entries are needed anyway for an exact merge of
 * accumulators that share ids (only the entries say which amount and device a shared id
 * contributed), and materialized sets would store every device/merchant/country string a second
 * time. Deriving them costs O(txCount) once per firing, while the state is read and written on
 * every record with RocksDB; a user's window holds a handful of transactions.
 *
 * <p>Serialized by {@link FeatureAccumulatorSerializer} (declared through {@link TypeInfo}, so
 * Flink never falls back to Kryo for it): about {@code 12 + sum(len(id) + len(device) +
 * len(merchant) + len(country) + 12)} bytes, ~90 bytes per distinct transaction with UUID ids.
 */
@TypeInfo(FeatureAccumulatorTypeInfo.Factory.class)
public final class FeatureAccumulator {

    /** The payload that counts for one transaction id. */
    record Contribution(long amountMinor, String deviceId, String merchantId, String country) {
        static Contribution of(Transaction tx) {
            return new Contribution(
                    tx.getAmountMinor(), tx.getDeviceId(), tx.getMerchantId(), tx.getCountry());
        }
    }

    private final LinkedHashMap<String, Contribution> byTransactionId;
    private long recordsSeen;

    /** An empty accumulator. */
    public FeatureAccumulator() {
        this(new LinkedHashMap<>(), 0);
    }

    private FeatureAccumulator(
            LinkedHashMap<String, Contribution> byTransactionId, long recordsSeen) {
        this.byTransactionId = byTransactionId;
        this.recordsSeen = recordsSeen;
    }

    /**
     * Counts one arriving record.
     *
     * @return {@code true} if its transaction id was new here, {@code false} for a duplicate (which
     *     only counts as a record seen)
     */
    public boolean add(Transaction tx) {
        String id = Objects.requireNonNull(tx.getTransactionId(), "transactionId");
        recordsSeen++;
        return byTransactionId.putIfAbsent(id, Contribution.of(tx)) == null;
    }

    /**
     * Adds the records of {@code later} to this accumulator, as if they had arrived after this
     * one's. Ids present in both keep this accumulator's payload; records seen add up. {@code
     * later} is not modified.
     *
     * @return this accumulator
     */
    public FeatureAccumulator mergeFrom(FeatureAccumulator later) {
        later.byTransactionId.forEach(byTransactionId::putIfAbsent);
        recordsSeen += later.recordsSeen;
        return this;
    }

    /** Raw records counted so far, duplicates included. */
    public long recordsSeen() {
        return recordsSeen;
    }

    /** Distinct transaction ids counted so far. */
    public int distinctTransactions() {
        return byTransactionId.size();
    }

    /** The features over the transactions counted so far. */
    public FeatureValues toValues() {
        long sum = 0;
        long max = 0;
        Set<String> devices = new HashSet<>();
        Set<String> merchants = new HashSet<>();
        Set<String> countries = new HashSet<>();
        for (Contribution c : byTransactionId.values()) {
            sum += c.amountMinor();
            max = Math.max(max, c.amountMinor());
            devices.add(c.deviceId());
            merchants.add(c.merchantId());
            countries.add(c.country());
        }
        return new FeatureValues(
                byTransactionId.size(),
                sum,
                max,
                devices.size(),
                merchants.size(),
                countries.size(),
                recordsSeen);
    }

    /** A deep copy (entries are immutable, so copying the map is enough). */
    public FeatureAccumulator copy() {
        return new FeatureAccumulator(new LinkedHashMap<>(byTransactionId), recordsSeen);
    }

    // --- for FeatureAccumulatorSerializer ---

    /** Read-only view of the entries, in arrival order. */
    Set<Map.Entry<String, Contribution>> entries() {
        return Collections.unmodifiableMap(byTransactionId).entrySet();
    }

    /** Takes ownership of {@code entries}. */
    static FeatureAccumulator restore(
            LinkedHashMap<String, Contribution> entries, long recordsSeen) {
        if (recordsSeen < entries.size()) {
            throw new IllegalStateException(
                    "corrupt feature accumulator: "
                            + entries.size()
                            + " distinct ids but only "
                            + recordsSeen
                            + " records seen");
        }
        return new FeatureAccumulator(entries, recordsSeen);
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof FeatureAccumulator other
                && recordsSeen == other.recordsSeen
                && byTransactionId.equals(other.byTransactionId);
    }

    @Override
    public int hashCode() {
        return Objects.hash(byTransactionId, recordsSeen);
    }

    @Override
    public String toString() {
        return "FeatureAccumulator{ids="
                + byTransactionId.keySet()
                + ", recordsSeen="
                + recordsSeen
                + '}';
    }
}
