package org.fraudpipe.job.features;

import static org.assertj.core.api.Assertions.assertThat;
import static org.fraudpipe.job.features.TestTransactions.tx;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashSet;
import java.util.List;
import java.util.Random;
import java.util.Set;
import org.fraudpipe.schemas.avro.Transaction;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * {@link TrailingFeatures} against the naive {@link TrailingOracle} on random out-of-order input
 * over several users with retries and conflicting duplicates: as of arrival (the history is what
 * arrived before) and ideal (the history is everything), for every first arrival of an id.
 */
class TrailingFeaturesPropertyTest {

    private static final long BASE = 1_735_725_600_000L;
    private static final long MINUTE = 60_000;
    private static final List<String> USERS = List.of("u-1", "u-2", "u-3");

    /**
     * Random transactions in arrival order: event times over an hour, shuffled (so arrival order is
     * not event-time order, with some records arriving long after their neighbours), a fifth of
     * them repeated later, half of those with another payload or event time.
     */
    static List<Transaction> randomArrivals(Random random) {
        List<Transaction> originals = new ArrayList<>();
        int n = 150 + random.nextInt(150);
        for (int i = 0; i < n; i++) {
            originals.add(
                    tx(
                            "tx-" + i,
                            USERS.get(random.nextInt(USERS.size())),
                            random.nextInt(5) == 0 ? 0 : 1 + random.nextInt(100_000),
                            "dev-" + random.nextInt(4),
                            "m-" + random.nextInt(8),
                            List.of("DE", "FR", "NL").get(random.nextInt(3)),
                            // whole seconds now and then: equal event times and exact bounds
                            BASE
                                    + (random.nextBoolean()
                                            ? random.nextInt(60) * MINUTE
                                            : (long) (random.nextDouble() * 60 * MINUTE))));
        }
        List<Transaction> arrivals = new ArrayList<>(originals);
        Collections.shuffle(arrivals, random);
        for (int i = 0; i < n / 5; i++) {
            Transaction original = originals.get(random.nextInt(n));
            Transaction duplicate = Transaction.newBuilder(original).build();
            if (random.nextBoolean()) {
                duplicate.setAmountMinor(original.getAmountMinor() + 1 + random.nextInt(1000));
                duplicate.setDeviceId("dev-dup");
                if (random.nextBoolean()) {
                    duplicate.setEventTime(
                            original.getEventTime().plusMillis(random.nextInt(10 * 60_000)));
                }
            }
            // later than its original
            int at = arrivals.indexOf(original) + 1 + random.nextInt(arrivals.size());
            arrivals.add(Math.min(at, arrivals.size()), duplicate);
        }
        return arrivals;
    }

    @ParameterizedTest(name = "seed {0}")
    @ValueSource(longs = {1, 2, 3, 42, 2025, 987_654_321})
    void asOfArrivalAndIdealEqualTheOracleForEveryFirstArrival(long seed) {
        Random random = new Random(seed);
        List<Transaction> arrivals = randomArrivals(random);
        Duration trailing = Duration.ofMinutes(1 + random.nextInt(15));
        Set<String> seen = new HashSet<>();
        int checked = 0;
        for (int i = 0; i < arrivals.size(); i++) {
            Transaction x = arrivals.get(i);
            if (!seen.add(x.getTransactionId())) {
                continue; // a retry: the job answers it with the first arrival's values
            }
            List<Transaction> before = arrivals.subList(0, i);
            assertThat(TrailingOracle.Answer.of(TrailingFeatures.compute(before, x, trailing)))
                    .as("as of arrival of %s (#%d)", x.getTransactionId(), i)
                    .isEqualTo(TrailingOracle.compute(before, x, trailing.toMillis()));
            assertThat(TrailingOracle.Answer.of(TrailingFeatures.compute(arrivals, x, trailing)))
                    .as("ideal of %s (#%d)", x.getTransactionId(), i)
                    .isEqualTo(TrailingOracle.compute(arrivals, x, trailing.toMillis()));
            checked++;
        }
        assertThat(checked).isGreaterThan(100);
    }
}
