package org.fraudpipe.bench;

import java.util.HashMap;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import org.fraudpipe.bench.FinalFeatures.WindowId;
import org.fraudpipe.schemas.avro.Transaction;

/**
 * What the input topic says about selected windows, read in each partition's offset order (the
 * order every system read it in): records, distinct transaction ids, whether an id came with two
 * different payloads, and how late the window's latest-arriving record was: its partition's largest
 * event time seen before it, minus the window's end.
 */
final class InputIndex {

    /** Facts about one window's input. */
    record WindowFacts(
            int records, int distinctIds, boolean conflictingDuplicate, long maxArrivalLagMillis) {}

    private static final class Builder {
        int records;
        final Map<String, Transaction> byId = new HashMap<>();
        boolean conflict;
        long maxLag = Long.MIN_VALUE;
    }

    private final Map<WindowId, WindowFacts> facts = new HashMap<>();

    /**
     * Indexes the windows in {@code wanted} from the records of one topic.
     *
     * @param windowMillis tumbling window size (windows aligned to the epoch, as in every system)
     */
    static InputIndex build(
            BenchKafka kafka,
            String topic,
            java.util.function.Function<byte[], Transaction> decode,
            Set<WindowId> wanted,
            long windowMillis) {
        InputIndex index = new InputIndex();
        if (wanted.isEmpty()) {
            return index;
        }
        Map<WindowId, Builder> builders = new HashMap<>();
        Map<Integer, Long> partitionMax = new HashMap<>();
        kafka.readCommitted(
                topic,
                r -> {
                    Transaction tx = decode.apply(r.value());
                    long t = tx.getEventTime().toEpochMilli();
                    long before = partitionMax.getOrDefault(r.partition(), Long.MIN_VALUE);
                    partitionMax.put(r.partition(), Math.max(before, t));
                    long start = Math.floorDiv(t, windowMillis) * windowMillis;
                    WindowId id = new WindowId(tx.getUserId(), start);
                    if (!wanted.contains(id)) {
                        return;
                    }
                    Builder b = builders.computeIfAbsent(id, k -> new Builder());
                    b.records++;
                    Transaction first = b.byId.putIfAbsent(tx.getTransactionId(), tx);
                    if (first != null && !samePayload(first, tx)) {
                        b.conflict = true;
                    }
                    if (before != Long.MIN_VALUE) {
                        b.maxLag = Math.max(b.maxLag, before - (start + windowMillis));
                    }
                });
        builders.forEach(
                (id, b) ->
                        index.facts.put(
                                id,
                                new WindowFacts(b.records, b.byId.size(), b.conflict, b.maxLag)));
        return index;
    }

    private static boolean samePayload(Transaction a, Transaction b) {
        return a.getAmountMinor() == b.getAmountMinor()
                && Objects.equals(a.getDeviceId(), b.getDeviceId())
                && Objects.equals(a.getMerchantId(), b.getMerchantId())
                && Objects.equals(a.getCountry(), b.getCountry())
                && a.getEventTime().equals(b.getEventTime());
    }

    /** The facts of a window, or null if no input record falls in it. */
    WindowFacts facts(WindowId id) {
        return facts.get(id);
    }
}
