package org.fraudpipe.job.features;

import static org.assertj.core.api.Assertions.assertThat;
import static org.fraudpipe.job.features.TestTransactions.tx;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import org.fraudpipe.schemas.avro.Transaction;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * {@link FeatureAggregator} (incremental adds in random arrival order, random partial accumulators,
 * random merges) against the naive {@link FeatureOracle}, on random out-of-order input over several
 * users and windows with duplicates.
 */
class FeatureAggregatorPropertyTest {

    private static final Duration WINDOW = Duration.ofMinutes(10);
    private static final long SIZE = WINDOW.toMillis();
    private static final long BASE = 1_735_725_600_000L; // 2025-01-01T10:00Z, window-aligned
    private static final int WINDOWS = 6;
    private static final List<String> USERS = List.of("u-1", "u-2", "u-3", "u-4");

    private record WindowKey(String userId, long start) {}

    /**
     * Random transactions in arrival order. Retries repeat an earlier record exactly; when {@code
     * conflicting}, some duplicates reuse an id with a different payload (a data error upstream) or
     * a different event time (possibly in another window).
     */
    private static List<Transaction> randomArrivals(Random random, boolean conflicting) {
        List<Transaction> originals = new ArrayList<>();
        int n = 200 + random.nextInt(200);
        for (int i = 0; i < n; i++) {
            // a few records sit before the first window (negative offsets from BASE)
            long eventTime = BASE - SIZE / 2 + (long) (random.nextDouble() * WINDOWS * SIZE);
            originals.add(
                    tx(
                            "tx-" + i,
                            USERS.get(random.nextInt(USERS.size())),
                            random.nextInt(5) == 0 ? 0 : 1 + random.nextInt(100_000),
                            "dev-" + random.nextInt(4),
                            "m-" + random.nextInt(12),
                            List.of("DE", "FR", "NL").get(random.nextInt(3)),
                            eventTime));
        }
        List<Transaction> arrivals = new ArrayList<>(originals);
        int duplicates = n / 5;
        for (int i = 0; i < duplicates; i++) {
            Transaction original = originals.get(random.nextInt(n));
            Transaction duplicate = Transaction.newBuilder(original).build();
            if (conflicting && random.nextBoolean()) {
                duplicate.setAmountMinor(original.getAmountMinor() + 1 + random.nextInt(1000));
                duplicate.setDeviceId("dev-dup-" + random.nextInt(3));
                if (random.nextBoolean()) {
                    duplicate.setEventTime(
                            original.getEventTime().plusMillis(random.nextInt((int) SIZE)));
                }
            }
            arrivals.add(duplicate);
        }
        Collections.shuffle(arrivals, random); // out of order: arrival order != event-time order
        return arrivals;
    }

    /** Groups arrivals by (user, window), keeping arrival order inside each group. */
    private static Map<WindowKey, List<Transaction>> byWindow(List<Transaction> arrivals) {
        WindowAssignment assignment = WindowAssignment.tumbling(WINDOW);
        Map<WindowKey, List<Transaction>> groups = new HashMap<>();
        for (Transaction tx : arrivals) {
            WindowKey key =
                    new WindowKey(
                            tx.getUserId(), assignment.startOf(tx.getEventTime().toEpochMilli()));
            groups.computeIfAbsent(key, k -> new ArrayList<>()).add(tx);
        }
        return groups;
    }

    /**
     * Splits the records into random contiguous chunks, aggregates each chunk, then merges random
     * neighbours until one accumulator is left. With {@code keepOrder} a merge always puts the
     * earlier chunk first (as the duplicate rule requires); without, either side may be first.
     */
    private static FeatureAccumulator aggregateInRandomChunks(
            List<Transaction> records, Random random, boolean keepOrder) {
        FeatureAggregator aggregator = new FeatureAggregator();
        List<FeatureAccumulator> chunks = new ArrayList<>();
        FeatureAccumulator current = aggregator.createAccumulator();
        for (Transaction tx : records) {
            current = aggregator.add(tx, current);
            if (random.nextInt(4) == 0) {
                chunks.add(current);
                current = aggregator.createAccumulator();
            }
        }
        chunks.add(current);
        if (random.nextBoolean()) {
            chunks.add(random.nextInt(chunks.size() + 1), aggregator.createAccumulator());
        }
        while (chunks.size() > 1) {
            int i = random.nextInt(chunks.size() - 1);
            FeatureAccumulator left = chunks.get(i);
            FeatureAccumulator right = chunks.remove(i + 1);
            boolean swap = !keepOrder && random.nextBoolean();
            chunks.set(i, swap ? aggregator.merge(right, left) : aggregator.merge(left, right));
        }
        return chunks.get(0);
    }

    private static void assertAgreesWithOracle(
            List<Transaction> arrivals, Random random, boolean keepOrder) {
        Map<WindowKey, List<Transaction>> groups = byWindow(arrivals);
        Set<WindowKey> checked = new HashSet<>();
        for (String user : USERS) {
            for (int w = -1; w <= WINDOWS; w++) {
                long start = BASE + w * SIZE;
                WindowKey key = new WindowKey(user, start);
                FeatureValues expected = FeatureOracle.compute(arrivals, user, start, start + SIZE);
                List<Transaction> group = groups.get(key);
                FeatureAccumulator actual =
                        group == null
                                ? new FeatureAccumulator()
                                : aggregateInRandomChunks(group, random, keepOrder);
                assertThat(actual.toValues()).as("%s", key).isEqualTo(expected);
                // Conflicts do not depend on arrival or merge order.
                assertThat(actual.conflictingTransactionIds())
                        .as("conflicting ids of %s", key)
                        .containsExactlyInAnyOrderElementsOf(
                                FeatureOracle.conflictingIds(arrivals, user, start, start + SIZE));
                checked.add(key);
            }
        }
        assertThat(checked).containsAll(groups.keySet());
    }

    @ParameterizedTest(name = "seed {0}")
    @ValueSource(longs = {1, 2, 3, 42, 2025, 987_654_321})
    void randomOrderAndMergesEqualTheOracleWithRetriedDuplicates(long seed) {
        Random random = new Random(seed);
        List<Transaction> arrivals = randomArrivals(random, false);

        // retries carry the same payload: any merge order gives the same features
        assertAgreesWithOracle(arrivals, random, false);
    }

    @ParameterizedTest(name = "seed {0}")
    @ValueSource(longs = {7, 11, 13, 99, 31_337})
    void orderPreservingMergesEqualTheOracleWithConflictingDuplicates(long seed) {
        Random random = new Random(seed);
        List<Transaction> arrivals = randomArrivals(random, true);

        assertAgreesWithOracle(arrivals, random, true);
    }

    @ParameterizedTest(name = "seed {0}")
    @ValueSource(longs = {5, 17, 23})
    void conflictingIdsDoNotDependOnArrivalOrMergeOrder(long seed) {
        Random random = new Random(seed);
        List<Transaction> arrivals = randomArrivals(random, true);

        for (Map.Entry<WindowKey, List<Transaction>> group : byWindow(arrivals).entrySet()) {
            WindowKey key = group.getKey();
            List<Transaction> shuffled = new ArrayList<>(group.getValue());
            Collections.shuffle(shuffled, random);
            assertThat(aggregateInRandomChunks(shuffled, random, false).conflictingTransactionIds())
                    .as("conflicting ids of %s", key)
                    .containsExactlyInAnyOrderElementsOf(
                            FeatureOracle.conflictingIds(
                                    arrivals, key.userId(), key.start(), key.start() + SIZE));
        }
    }
}
