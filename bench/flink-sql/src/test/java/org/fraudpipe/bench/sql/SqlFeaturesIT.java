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
        return Row.of(user, id, amount, device, "m-" + device, "DE", t);
    }

    @Test
    void computesDistinctIdFeaturesWithLateCorrections() throws Exception {
        StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment();
        env.setParallelism(1);
        List<Row> input =
                List.of(
                        tx("u1", "a", 100, "d1", 1 * MIN),
                        tx("u1", "b", 250, "d2", 3 * MIN),
                        tx("u1", "a", 100, "d1", 1 * MIN), // producer retry: same id, same payload
                        tx("u2", "c", 70, "d9", 4 * MIN),
                        tx("u1", "e", 30, "d1", 11 * MIN), // watermark passes 10 min: [0,10) fires
                        tx("u1", "f", 500, "d3", 9 * MIN), // late within 2 min: corrects [0,10)
                        tx("u2", "g", 1, "d9", 13 * MIN), // watermark passes 12 min + 5 s
                        tx("u1", "h", 999, "d4", 2 * MIN)); // too late: dropped
        DataStream<Row> rows =
                env.fromData(input)
                        .map(r -> r, SqlFeatures.inputType())
                        .assignTimestampsAndWatermarks(
                                WatermarkStrategy.<Row>forGenerator(c -> new PerRecord())
                                        .withTimestampAssigner(
                                                (r, p) ->
                                                        (Long) r.getField(SqlFeatures.EVENT_TIME)));
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
}
