package org.fraudpipe.job.features;

import java.util.Collections;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import org.apache.flink.api.common.typeinfo.TypeInfo;
import org.fraudpipe.schemas.avro.Transaction;

/**
 * Mutable state of the feature aggregation of one user over one window.
 *
 * <p>What it holds: for each distinct {@code transactionId}, the one payload that counts for it
 * (amount, device, merchant, country), in arrival order; the raw number of records that reached it,
 * duplicates included; and the ids with conflicting duplicates (below). {@code txCount}, {@code
 * amountSum}, {@code amountMax} and the distinct device/merchant/country sets are derived from the
 * entries in {@link #toValues()}.
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
 * <p>Conflicting duplicates ({@link #conflictingTransactionIds()}, added with serializer format 2):
 * the ids that reached this window with more than one payload, i.e. where the duplicate rule above
 * decided which amount, device, merchant and country count. They are the only duplicates that can
 * make two computations of a window disagree (batch vs streaming, or two streaming runs whose
 * records arrived in another order after a restart): exact retries cannot. Nothing else in the
 * state can tell them from retries (a later payload is not kept), so parity and diagnostics need
 * this to explain a duplicate difference instead of calling it unexplained. Not a feature: {@link
 * FeatureValues} does not change. Exact under {@link #mergeFrom} (an id conflicts in the merge iff
 * it conflicts on either side or the two first payloads differ), so independent of merge order. A
 * window restored from a format-1 savepoint starts with none: conflicts that happened before the
 * upgrade are not known.
 *
 * <p>Why the sets are not stored: the per-id entries are needed anyway for an exact merge of
 * accumulators that share ids (only the entries say which amount and device a shared id
 * contributed), and materialized sets would store every device/merchant/country string a second
 * time. Deriving them costs O(txCount) once per firing, while the state is read and written on
 * every record with RocksDB; a user's window holds a handful of transactions.
 *
 * <p>Serialized by {@link FeatureAccumulatorSerializer} (declared through {@link TypeInfo}, so
 * Flink never falls back to Kryo for it): about {@code 16 + sum(len(id) + len(device) +
 * len(merchant) + len(country) + 12)} bytes, ~90 bytes per distinct transaction with UUID ids, plus
 * each conflicting id once more.
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

    /** Ids of {@link #byTransactionId} that arrived with another payload too, in that order. */
    private final LinkedHashSet<String> conflictingIds;

    /** An empty accumulator. */
    public FeatureAccumulator() {
        this(new LinkedHashMap<>(), 0, new LinkedHashSet<>());
    }

    private FeatureAccumulator(
            LinkedHashMap<String, Contribution> byTransactionId,
            long recordsSeen,
            LinkedHashSet<String> conflictingIds) {
        this.byTransactionId = byTransactionId;
        this.recordsSeen = recordsSeen;
        this.conflictingIds = conflictingIds;
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
        Contribution payload = Contribution.of(tx);
        Contribution first = byTransactionId.putIfAbsent(id, payload);
        if (first != null && !first.equals(payload)) {
            conflictingIds.add(id);
        }
        return first == null;
    }

    /**
     * Adds the records of {@code later} to this accumulator, as if they had arrived after this
     * one's. Ids present in both keep this accumulator's payload; records seen add up. {@code
     * later} is not modified.
     *
     * @return this accumulator
     */
    public FeatureAccumulator mergeFrom(FeatureAccumulator later) {
        later.byTransactionId.forEach(
                (id, payload) -> {
                    Contribution first = byTransactionId.putIfAbsent(id, payload);
                    if (first != null && !first.equals(payload)) {
                        conflictingIds.add(id);
                    }
                });
        conflictingIds.addAll(later.conflictingIds);
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

    /**
     * The transaction ids that reached this window with more than one payload (amount, device,
     * merchant or country), in the order their first conflict arrived: where the duplicate rule
     * chose the payload that counts. Exact retries are not among them.
     */
    public Set<String> conflictingTransactionIds() {
        return Collections.unmodifiableSet(conflictingIds);
    }

    /** The features over the transactions counted so far. */
    public FeatureValues toValues() {
        int n = byTransactionId.size();
        if (n > SMALL) {
            return toValuesWithSets();
        }
        // A user's window holds a handful of transactions: distinct counts by pairwise equality
        // cost less than three hash sets (built on every firing).
        String[] devices = new String[n];
        String[] merchants = new String[n];
        String[] countries = new String[n];
        int d = 0;
        int m = 0;
        int c = 0;
        long sum = 0;
        long max = 0;
        for (Contribution x : byTransactionId.values()) {
            sum += x.amountMinor();
            max = Math.max(max, x.amountMinor());
            d = addDistinct(devices, d, x.deviceId());
            m = addDistinct(merchants, m, x.merchantId());
            c = addDistinct(countries, c, x.country());
        }
        return new FeatureValues(n, sum, max, d, m, c, recordsSeen);
    }

    /** Up to this many distinct ids, distinct counts are found without hash sets. */
    private static final int SMALL = 8;

    /** Appends {@code value} to {@code seen[0..count)} unless equal to one there; the new count. */
    private static int addDistinct(String[] seen, int count, String value) {
        for (int i = 0; i < count; i++) {
            if (Objects.equals(seen[i], value)) {
                return count;
            }
        }
        seen[count] = value;
        return count + 1;
    }

    private FeatureValues toValuesWithSets() {
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

    /** A deep copy (entries are immutable, so copying the collections is enough). */
    public FeatureAccumulator copy() {
        return new FeatureAccumulator(
                new LinkedHashMap<>(byTransactionId),
                recordsSeen,
                new LinkedHashSet<>(conflictingIds));
    }

    // --- for FeatureAccumulatorSerializer ---

    /** Read-only view of the entries, in arrival order. */
    Set<Map.Entry<String, Contribution>> entries() {
        return Collections.unmodifiableMap(byTransactionId).entrySet();
    }

    /** Takes ownership of {@code entries} and {@code conflictingIds}. */
    static FeatureAccumulator restore(
            LinkedHashMap<String, Contribution> entries,
            long recordsSeen,
            LinkedHashSet<String> conflictingIds) {
        if (recordsSeen < entries.size() + (long) conflictingIds.size()) {
            throw new IllegalStateException(
                    "corrupt feature accumulator: "
                            + entries.size()
                            + " distinct ids and "
                            + conflictingIds.size()
                            + " conflicting duplicates but only "
                            + recordsSeen
                            + " records seen");
        }
        for (String id : conflictingIds) {
            if (!entries.containsKey(id)) {
                throw new IllegalStateException(
                        "corrupt feature accumulator: conflicting id " + id + " was never counted");
            }
        }
        return new FeatureAccumulator(entries, recordsSeen, conflictingIds);
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof FeatureAccumulator other
                && recordsSeen == other.recordsSeen
                && byTransactionId.equals(other.byTransactionId)
                && conflictingIds.equals(other.conflictingIds);
    }

    @Override
    public int hashCode() {
        return Objects.hash(byTransactionId, recordsSeen, conflictingIds);
    }

    @Override
    public String toString() {
        return "FeatureAccumulator{ids="
                + byTransactionId.keySet()
                + ", recordsSeen="
                + recordsSeen
                + (conflictingIds.isEmpty() ? "" : ", conflicting=" + conflictingIds)
                + '}';
    }
}
