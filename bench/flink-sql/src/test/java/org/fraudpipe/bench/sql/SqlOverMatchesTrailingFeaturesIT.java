package org.fraudpipe.bench.sql;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import org.apache.flink.api.common.eventtime.WatermarkStrategy;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.table.api.bridge.java.StreamTableEnvironment;
import org.apache.flink.types.Row;
import org.apache.flink.util.CloseableIterator;
import org.fraudpipe.job.features.FeatureValues;
import org.fraudpipe.job.features.TrailingFeatures;
import org.fraudpipe.schemas.avro.Transaction;
import org.junit.jupiter.api.Test;

/**
 * The SQL peer's per-transaction OVER query against the job's definition ({@link TrailingFeatures},
 * the feature core) where both define the same value: on input that arrives in event-time order per
 * user (each user's transactions at distinct times; producer retries of the same payload
 * interleaved), "every row of the range when the watermark passes" and "what was received before x"
 * are the same set, so the six features must be equal for every transaction. Random users, devices,
 * merchants and countries, and gaps chosen at the trailing window's edges (T - 1 ms, T, T + 1 ms)
 * as well as inside it.
 */
class SqlOverMatchesTrailingFeaturesIT {

    private static final Duration T = Duration.ofMinutes(10);

    @Test
    void theOverQueryEqualsTheJobsTrailingFeaturesOnInOrderInput() throws Exception {
        Random random = new Random(16);
        long[] gaps = {T.toMillis() - 1, T.toMillis(), T.toMillis() + 1, 1, 1000};
        List<Transaction> firsts = new ArrayList<>();
        int users = 40;
        for (int u = 0; u < users; u++) {
            long t = 1_700_000_000_000L + random.nextInt(60_000);
            int n = 5 + random.nextInt(30);
            for (int k = 0; k < n; k++) {
                t +=
                        random.nextInt(4) == 0
                                ? gaps[random.nextInt(gaps.length)]
                                : 1 + random.nextInt(240_000);
                firsts.add(
                        Transaction.newBuilder()
                                .setTransactionId("tx-" + u + "-" + k)
                                .setUserId("user-" + u)
                                .setAmountMinor(1 + random.nextInt(50_000))
                                .setCurrency("EUR")
                                .setMerchantId("m-" + random.nextInt(4))
                                .setDeviceId("d-" + random.nextInt(3))
                                .setCountry(random.nextInt(5) == 0 ? "FR" : "DE")
                                .setEventTime(Instant.ofEpochMilli(t))
                                .build());
            }
        }
        // Arrival order: event time (ties between users in a fixed order); retries of a random
        // tenth come right after their original, before any later transaction of the user.
        firsts.sort(
                (a, b) -> {
                    int c = a.getEventTime().compareTo(b.getEventTime());
                    return c != 0 ? c : a.getTransactionId().compareTo(b.getTransactionId());
                });
        List<Row> arrivals = new ArrayList<>();
        for (Transaction x : firsts) {
            arrivals.add(row(x));
            if (random.nextInt(10) == 0) {
                arrivals.add(row(x));
            }
        }

        // Ours: each transaction over every transaction received before it, x last.
        Map<String, long[]> ours = new HashMap<>();
        Map<String, List<Transaction>> received = new HashMap<>();
        int atEdge = 0; // an earlier transaction exactly at t - T (out) or t - T + 1 ms (in)
        for (Transaction x : firsts) {
            List<Transaction> history =
                    received.computeIfAbsent(x.getUserId(), k -> new ArrayList<>());
            long lower = x.getEventTime().toEpochMilli() - T.toMillis();
            for (Transaction y : history) {
                long ty = y.getEventTime().toEpochMilli();
                if (ty == lower || ty == lower + 1) {
                    atEdge++;
                }
            }
            FeatureValues v = TrailingFeatures.compute(history, x, T).values();
            ours.put(
                    x.getTransactionId(),
                    new long[] {
                        v.txCount(),
                        v.amountSum(),
                        v.amountMax(),
                        v.distinctDevices(),
                        v.distinctMerchants(),
                        v.distinctCountries()
                    });
            history.add(x);
        }

        StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment();
        env.setParallelism(1);
        StreamTableEnvironment tEnv = StreamTableEnvironment.create(env);
        SqlFeatures.Queries q =
                SqlFeatures.build(
                        tEnv,
                        env.fromData(arrivals)
                                .map(r -> r, SqlFeatures.inputType())
                                .assignTimestampsAndWatermarks(
                                        WatermarkStrategy.<Row>forGenerator(
                                                        c -> new SqlFeaturesIT.PerRecord())
                                                .withTimestampAssigner(
                                                        (r, p) ->
                                                                (Long)
                                                                        r.getField(
                                                                                SqlFeatures
                                                                                        .EVENT_TIME))),
                        SqlFeatures.WindowQuery.NONE,
                        T,
                        Duration.ofMinutes(2),
                        Duration.ofHours(1),
                        T);
        Map<String, long[]> peer = new HashMap<>();
        Set<String> twice = new HashSet<>();
        try (CloseableIterator<Row> it = tEnv.toDataStream(q.transactions()).executeAndCollect()) {
            while (it.hasNext()) {
                Row r = it.next();
                long[] f = new long[6];
                for (int i = 0; i < 6; i++) {
                    f[i] = ((Number) r.getField(5 + i)).longValue();
                }
                if (peer.put((String) r.getField(0), f) != null) {
                    twice.add((String) r.getField(0));
                }
            }
        }

        assertThat(twice).as("one row per transaction id, retries included").isEmpty();
        assertThat(peer.keySet()).isEqualTo(ours.keySet());
        List<String> differ = new ArrayList<>();
        for (Map.Entry<String, long[]> e : ours.entrySet()) {
            if (!java.util.Arrays.equals(e.getValue(), peer.get(e.getKey()))) {
                differ.add(
                        e.getKey()
                                + " ours "
                                + java.util.Arrays.toString(e.getValue())
                                + " peer "
                                + java.util.Arrays.toString(peer.get(e.getKey())));
            }
        }
        assertThat(differ).as("transactions whose features differ").isEmpty();
        // The input did exercise the trailing window: some transactions saw several others, and
        // some an earlier one exactly at the window's edge.
        assertThat(ours.values()).anyMatch(f -> f[0] >= 4);
        assertThat(atEdge).isGreaterThanOrEqualTo(5);
    }

    private static Row row(Transaction x) {
        long t = x.getEventTime().toEpochMilli();
        return Row.of(
                x.getUserId(),
                x.getTransactionId(),
                x.getAmountMinor(),
                x.getDeviceId(),
                x.getMerchantId(),
                x.getCountry(),
                t,
                t + 3);
    }
}
