package org.fraudpipe.bench.sql;

import java.time.Duration;
import java.time.Instant;
import java.time.LocalDateTime;
import java.time.ZoneOffset;
import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.api.common.typeinfo.Types;
import org.apache.flink.streaming.api.datastream.DataStream;
import org.apache.flink.table.api.DataTypes;
import org.apache.flink.table.api.Schema;
import org.apache.flink.table.api.Table;
import org.apache.flink.table.api.bridge.java.StreamTableEnvironment;
import org.apache.flink.types.Row;
import org.apache.flink.types.RowKind;

/**
 * The Flink SQL peer's features: what a Flink SQL user writes for the job's six window features,
 * with the same event-time semantics (window size, allowed lateness with a corrected result per
 * late record, watermarks from the source).
 *
 * <pre>
 *   transactions (DataStream of rows, rowtime and watermarks from the Kafka source)
 *     -> deduplicate: first row per (userId, transactionId) in arrival order (producer retries)
 *     -> GROUP BY userId, TUMBLE(rowtime, window) with allow-lateness and late firing per record
 *        COUNT(*), SUM/MAX(amountMinor), COUNT(DISTINCT deviceId|merchantId|country)
 * </pre>
 *
 * <p>Why this shape: {@code txCount} counts distinct transaction ids and the amounts count each id
 * once, which plain aggregates over raw rows cannot do ({@code SUM} would add a retry's amount
 * twice), so the rows are deduplicated first, Flink SQL's documented deduplication (keep the first
 * row in processing-time order: append-only, like the job's "first arrival wins"). Window TVFs have
 * no allowed lateness; the legacy {@code GROUP BY TUMBLE} window does, through the emit options
 * {@code table.exec.emit.allow-lateness} and {@code table.exec.emit.late-fire.*} (a late firing
 * after every late row with a delay of 0), which makes its output an updating stream: {@code -U} /
 * {@code +U} per correction, written as upserts.
 *
 * <p>Known differences from the job, none of which changes a final value on identical input: the
 * dedup state is kept for {@code table.exec.state.ttl} of processing time (the job keeps ids in the
 * window); too-late rows are dropped silently (the job writes them to its late topic); no
 * future-dated quarantine (the benchmark's input has none).
 */
public final class SqlFeatures {

    /** Columns of the input rows, in order. */
    public static final String[] INPUT_COLUMNS = {
        "userId", "transactionId", "amountMinor", "deviceId", "merchantId", "country", "eventTime"
    };

    /** Index of the event time (epoch millis) in the input rows: the stream timestamp. */
    public static final int EVENT_TIME = 6;

    /** Columns of the result rows, in order. */
    public static final String[] OUTPUT_COLUMNS = {
        "userId",
        "windowStart",
        "windowEnd",
        "txCount",
        "amountSum",
        "amountMax",
        "distinctDevices",
        "distinctMerchants",
        "distinctCountries"
    };

    private SqlFeatures() {}

    /** Type of the input rows (the source's produced type). */
    public static TypeInformation<Row> inputType() {
        return Types.ROW_NAMED(
                INPUT_COLUMNS,
                Types.STRING,
                Types.STRING,
                Types.LONG,
                Types.STRING,
                Types.STRING,
                Types.STRING,
                Types.LONG);
    }

    /** The SQL of the feature query over view {@code transactions_dedup}. */
    static String featureQuery(Duration window) {
        String size = "INTERVAL '" + window.toSeconds() + "' SECOND(9)";
        return "SELECT userId,"
                + " TUMBLE_START(rowtime, "
                + size
                + ") AS windowStart,"
                + " TUMBLE_END(rowtime, "
                + size
                + ") AS windowEnd,"
                + " COUNT(*) AS txCount,"
                + " SUM(amountMinor) AS amountSum,"
                + " MAX(amountMinor) AS amountMax,"
                + " COUNT(DISTINCT deviceId) AS distinctDevices,"
                + " COUNT(DISTINCT merchantId) AS distinctMerchants,"
                + " COUNT(DISTINCT country) AS distinctCountries"
                + " FROM transactions_dedup"
                + " GROUP BY userId, TUMBLE(rowtime, "
                + size
                + ")";
    }

    /** The SQL of the deduplication over view {@code transactions}. */
    static String dedupQuery() {
        return "SELECT userId, transactionId, amountMinor, deviceId, merchantId, country, rowtime"
                + " FROM (SELECT *, ROW_NUMBER() OVER (PARTITION BY userId, transactionId"
                + " ORDER BY proctime ASC) AS rn FROM transactions)"
                + " WHERE rn = 1";
    }

    /**
     * Registers {@code transactions} (rows of {@link #inputType()} whose stream timestamps are
     * their {@code eventTime} and whose watermarks come from the source) and returns the feature
     * table.
     *
     * @param dedupTtl how long (processing time) a transaction id is remembered for deduplication
     */
    public static Table build(
            StreamTableEnvironment tEnv,
            DataStream<Row> transactions,
            Duration window,
            Duration allowedLateness,
            Duration dedupTtl) {
        if (window.toMillis() % 1000 != 0) {
            throw new IllegalArgumentException("window size must be whole seconds: " + window);
        }
        tEnv.getConfig().set("table.local-time-zone", "UTC");
        tEnv.getConfig().set("table.exec.state.ttl", dedupTtl.toMillis() + " ms");
        tEnv.getConfig().set("table.exec.emit.allow-lateness", allowedLateness.toMillis() + " ms");
        tEnv.getConfig().set("table.exec.emit.late-fire.enabled", "true");
        tEnv.getConfig().set("table.exec.emit.late-fire.delay", "0 ms");
        Table input =
                tEnv.fromDataStream(
                        transactions,
                        Schema.newBuilder()
                                .columnByMetadata("rowtime", DataTypes.TIMESTAMP_LTZ(3))
                                .columnByExpression("proctime", "PROCTIME()")
                                .watermark("rowtime", "SOURCE_WATERMARK()")
                                .build());
        tEnv.createTemporaryView("transactions", input);
        tEnv.createTemporaryView("transactions_dedup", tEnv.sqlQuery(dedupQuery()));
        return tEnv.sqlQuery(featureQuery(window));
    }

    /**
     * The feature table as upserts: {@code +I} and {@code +U} rows (the current value of a window),
     * {@code -U} dropped (an upsert reader replaces by key).
     */
    public static DataStream<Row> upserts(StreamTableEnvironment tEnv, Table features) {
        return tEnv.toChangelogStream(features)
                .filter(r -> r.getKind() == RowKind.INSERT || r.getKind() == RowKind.UPDATE_AFTER)
                .name("upserts");
    }

    /** Epoch millis of a window bound as the planner returns it (TIMESTAMP_LTZ or TIMESTAMP). */
    public static long millis(Object value) {
        if (value instanceof Instant i) {
            return i.toEpochMilli();
        }
        if (value instanceof LocalDateTime t) {
            return t.toInstant(ZoneOffset.UTC).toEpochMilli();
        }
        if (value instanceof java.sql.Timestamp t) {
            return t.getTime();
        }
        throw new IllegalArgumentException("not a timestamp: " + value);
    }
}
