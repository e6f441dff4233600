package org.fraudpipe.bench.sql;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.flink.api.common.eventtime.Watermark;
import org.apache.flink.api.common.eventtime.WatermarkGenerator;
import org.apache.flink.api.common.eventtime.WatermarkOutput;
import org.apache.flink.api.common.eventtime.WatermarkStrategy;
import org.apache.flink.streaming.api.datastream.DataStream;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.table.api.bridge.java.StreamTableEnvironment;
import org.apache.flink.types.Row;
import org.apache.flink.util.CloseableIterator;
import org.junit.jupiter.api.Test;

/**
 * The SQL peer on a small, hand-checked input with a watermark after every record (deterministic at
 * parallelism 1): distinct ids, a producer retry, a late record within the allowed lateness that
 * corrects its window, and one too late that does not.
 */
class SqlFeaturesIT {

    private static final long MIN = 60_000;

    /** Bounded out-of-orderness of 5 s with a watermark after every record. */
    static final class PerRecord implements WatermarkGenerator<Row> {
        private long max = Long.MIN_VALUE + 5001;

        @Override
        public void onEvent(Row event, long timestamp, WatermarkOutput output) {
            max = Math.max(max, timestamp);
            output.emitWatermark(new Watermark(max - 5000 - 1));
        }

        @Override
        public void onPeriodicEmit(WatermarkOutput output) {}
    }

    private static Row tx(String user, String id, long amount, String device, long t) {
        return Row.of(user, id, amount, device, "m-" + device, "DE", t, t + 7);
    }

    /** The input of every test: ids, a retry, a late row within grace, a too-late row. */
    static List<Row> input() {
        return List.of(
                tx("u1", "a", 100, "d1", 1 * MIN),
                tx("u1", "b", 250, "d2", 3 * MIN),
                tx("u1", "a", 100, "d1", 1 * MIN), // producer retry: same id, same payload
                tx("u2", "c", 70, "d9", 4 * MIN),
                tx("u1", "e", 30, "d1", 11 * MIN), // watermark passes 10 min: [0,10) fires
                tx("u1", "f", 500, "d3", 9 * MIN), // late within 2 min: corrects [0,10)
                tx("u2", "g", 1, "d9", 13 * MIN), // watermark passes 12 min + 5 s
                tx("u1", "h", 999, "d4", 2 * MIN)); // too late: dropped
    }

    private static DataStream<Row> rows(StreamExecutionEnvironment env) {
        return env.fromData(input())
                .map(r -> r, SqlFeatures.inputType())
                .assignTimestampsAndWatermarks(
                        WatermarkStrategy.<Row>forGenerator(c -> new PerRecord())
                                .withTimestampAssigner(
                                        (r, p) -> (Long) r.getField(SqlFeatures.EVENT_TIME)));
    }

    /** Last row per user@windowStart of a window query's rows. */
    private static Map<String, Row> lastPerWindow(Iterable<Row> rows) {
        Map<String, Row> last = new HashMap<>();
        for (Row r : rows) {
            last.put(r.getField(0) + "@" + SqlFeatures.millis(r.getField(1)), r);
        }
        return last;
    }

    @Test
    void computesDistinctIdFeaturesWithLateCorrections() throws Exception {
        StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment();
        env.setParallelism(1);
        DataStream<Row> rows = rows(env);
        StreamTableEnvironment tEnv = StreamTableEnvironment.create(env);
        DataStream<Row> upserts =
                SqlFeatures.upserts(
                        tEnv,
                        SqlFeatures.build(
                                tEnv,
                                rows,
                                Duration.ofMinutes(10),
                                Duration.ofMinutes(2),
                                Duration.ofHours(1)));
        Map<String, Row> last = new HashMap<>();
        List<String> all = new ArrayList<>();
        try (CloseableIterator<Row> it = upserts.executeAndCollect()) {
            while (it.hasNext()) {
                Row r = it.next();
                String key = r.getField(0) + "@" + SqlFeatures.millis(r.getField(1));
                last.put(key, r);
                all.add(key + ":" + r.getField(3));
            }
        }
        // [0,10) of u1: a, b on time; f late within grace; the retry of a and h (too late) not.
        Row u1 = last.get("u1@0");
        assertThat(u1.getField(3)).isEqualTo(3L);
        assertThat(u1.getField(4)).isEqualTo(850L);
        assertThat(u1.getField(5)).isEqualTo(500L);
        assertThat(((Number) u1.getField(6)).longValue()).isEqualTo(3L);
        assertThat(all).containsSubsequence("u1@0:2", "u1@0:3");
        assertThat(last.get("u2@0").getField(3)).isEqualTo(1L);
        // windows still open at the end of input fire with the final watermark
        assertThat(last).containsKeys("u1@" + 10 * MIN, "u2@" + 10 * MIN);
    }

    /**
     * The window TVF: one firing per window when the watermark passes its end, no lateness: the
     * late row f is dropped where the legacy window counts it.
     */
    @Test
    void theWindowTvfFiresOnceAndDropsWhatArrivesBehindTheWatermark() throws Exception {
        StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment();
        env.setParallelism(1);
        StreamTableEnvironment tEnv = StreamTableEnvironment.create(env);
        SqlFeatures.Queries q =
                SqlFeatures.build(
                        tEnv,
                        rows(env),
                        SqlFeatures.WindowQuery.TVF,
                        Duration.ofMinutes(10),
                        Duration.ofMinutes(2),
                        Duration.ofHours(1),
                        null);
        assertThat(q.transactions()).isNull();
        List<Row> all = new ArrayList<>();
        try (CloseableIterator<Row> it =
                SqlFeatures.upserts(tEnv, q.windows()).executeAndCollect()) {
            it.forEachRemaining(all::add);
        }
        assertThat(all).allMatch(r -> r.getKind() == org.apache.flink.types.RowKind.INSERT);
        Map<String, Row> last = lastPerWindow(all);
        assertThat(all).hasSameSizeAs(last.keySet()); // one result per window
        Row u1 = last.get("u1@0");
        assertThat(u1.getField(3)).as("a and b; f came behind the watermark").isEqualTo(2L);
        assertThat(u1.getField(4)).isEqualTo(350L);
    }

    /**
     * The per-transaction OVER query beside the legacy window query, the deduplication shared:
     * every first-arrival row gets the six features over {@code (t - 10 min, t]} of its user's rows
     * processed in event-time order when the watermark passes them. A row is dropped only when it
     * is not after its user's latest processed row: f (9 min) arrives behind the watermark but
     * before u1's e (11 min) was processed, so it is kept, processed before e, and counted in e's
     * features although it arrived after e; h (2 min) comes after e was processed and is dropped.
     * The retry of a has no row of its own.
     */
    @Test
    void theOverQueryGivesEachTransactionItsTrailingFeatures() throws Exception {
        StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment();
        env.setParallelism(1);
        StreamTableEnvironment tEnv = StreamTableEnvironment.create(env);
        SqlFeatures.Queries q =
                SqlFeatures.build(
                        tEnv,
                        rows(env),
                        SqlFeatures.WindowQuery.LEGACY,
                        Duration.ofMinutes(10),
                        Duration.ofMinutes(2),
                        Duration.ofHours(1),
                        Duration.ofMinutes(10));
        CloseableIterator<Row> windows = SqlFeatures.upserts(tEnv, q.windows()).collectAsync();
        CloseableIterator<Row> transactions = tEnv.toDataStream(q.transactions()).collectAsync();
        env.executeAsync("over and windows");
        Map<String, Row> byId = new HashMap<>();
        try (transactions) {
            transactions.forEachRemaining(
                    r ->
                            assertThat(byId.put((String) r.getField(0), r))
                                    .as("one row per id")
                                    .isNull());
        }
        List<Row> windowRows = new ArrayList<>();
        try (windows) {
            windows.forEachRemaining(windowRows::add);
        }

        assertThat(byId.keySet()).containsExactlyInAnyOrder("a", "b", "c", "e", "f", "g");
        // columns: id, user, eventTime, kafkaTimestamp, amount, txCount, sum, max, devices, ...
        assertThat(byId.get("a").getField(3))
                .as("the Kafka timestamp passed on")
                .isEqualTo(MIN + 7);
        assertThat(features(byId.get("a"))).containsExactly(1L, 100L, 100L, 1L, 1L, 1L);
        assertThat(features(byId.get("b"))).containsExactly(2L, 350L, 250L, 2L, 2L, 1L);
        assertThat(features(byId.get("f"))).containsExactly(3L, 850L, 500L, 3L, 3L, 1L);
        // (1 min, 11 min]: a at exactly 1 min is out (the job's exclusive lower bound); f in,
        // though it arrived after e (the job's e would count b alone besides itself)
        assertThat(features(byId.get("e"))).containsExactly(3L, 780L, 500L, 3L, 3L, 1L);
        assertThat(features(byId.get("g"))).containsExactly(2L, 71L, 70L, 1L, 1L, 1L);
        // the window query still counts f, late within the allowed lateness
        assertThat(lastPerWindow(windowRows).get("u1@0").getField(3)).isEqualTo(3L);
    }

    private static List<Long> features(Row r) {
        List<Long> f = new ArrayList<>();
        for (int i = 5; i <= 10; i++) {
            f.add(((Number) r.getField(i)).longValue());
        }
        return f;
    }
}
