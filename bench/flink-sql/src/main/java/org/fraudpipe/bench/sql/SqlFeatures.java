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
 *
 * <p>Two more forms, for the benchmark's other rows ({@link WindowQuery}, {@link #build(
 * StreamTableEnvironment, DataStream, WindowQuery, Duration, Duration, Duration, Duration)}):
 *
 * <ul>
 *   <li><b>Window TVF</b> ({@code TABLE(TUMBLE(...)) GROUP BY window_start, window_end}): the form
 *       Flink recommends today. It has no allowed lateness (and refuses the emit options): a window
 *       fires once, when the watermark passes its end, and rows behind the watermark are dropped. A
 *       reference row, not equal semantics: its final values miss every late record the job and the
 *       legacy query count.
 *   <li><b>Per transaction</b> ({@link #overQuery}): the six features of every transaction over its
 *       user's trailing window, {@code OVER (PARTITION BY userId ORDER BY rowtime RANGE BETWEEN
 *       INTERVAL ... PRECEDING AND CURRENT ROW)}, the peer of the job's scores at arrival. Flink
 *       supports {@code COUNT(DISTINCT ...)} in OVER windows (a map of value counts per key, with
 *       retraction as rows leave the range). What it computes differs from the job's definition in
 *       when and over what: a row is emitted only when the watermark passes its event time (the
 *       out-of-orderness bound plus the watermark interval after it arrived, at the earliest), over
 *       every row of the range that had arrived by then, in event-time order (rows that arrived
 *       after it included); a row whose event time is not after the latest one its user already
 *       fired is dropped (Flink's {@code RowTimeRangeBoundedPrecedingFunction}), where the job
 *       scores every transaction at once over what it received before it. RANGE's lower bound is
 *       inclusive ({@code [t - P, t]}), so P is the trailing window minus 1 ms to give the job's
 *       {@code (t - T, t]} on millisecond timestamps.
 * </ul>
 *
 * <p>With both a window query and the per-transaction query, the deduplication runs once: its
 * result goes through a DataStream (rowtime as the stream timestamp, the watermarks passed on) and
 * both queries read it, as a statement set would share the common sub-plan. (Two table-to-stream
 * conversions from one view would be planned apart, deduplicating twice.)
 */
public final class SqlFeatures {

    /** Columns of the input rows, in order. */
    public static final String[] INPUT_COLUMNS = {
        "userId",
        "transactionId",
        "amountMinor",
        "deviceId",
        "merchantId",
        "country",
        "eventTime",
        "kafkaTimestamp"
    };

    /** Index of the event time (epoch millis) in the input rows: the stream timestamp. */
    public static final int EVENT_TIME = 6;

    /** Columns of the per-transaction rows ({@link #overQuery}), in order. */
    public static final String[] TRANSACTION_COLUMNS = {
        "transactionId",
        "userId",
        "eventTime",
        "kafkaTimestamp",
        "amountMinor",
        "txCount",
        "amountSum",
        "amountMax",
        "distinctDevices",
        "distinctMerchants",
        "distinctCountries"
    };

    /** Which window query a run computes. */
    public enum WindowQuery {
        /** {@code GROUP BY TUMBLE(...)} with allowed lateness and a late firing per late row. */
        LEGACY,
        /** Window TVF {@code TABLE(TUMBLE(...))}: no lateness, one firing per window. */
        TVF,
        /** No window query (the per-transaction query alone). */
        NONE
    }

    /**
     * The tables of a run.
     *
     * @param windows the window features (as {@link #OUTPUT_COLUMNS}), null without a window query
     * @param transactions the per-transaction features (as {@link #TRANSACTION_COLUMNS}), null
     *     without the per-transaction query
     */
    public record Queries(Table windows, Table transactions) {}

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
                Types.LONG,
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

    /** The SQL of the window TVF feature query over view {@code transactions_dedup}. */
    static String tvfQuery(Duration window) {
        return "SELECT userId,"
                + " window_start AS windowStart,"
                + " window_end AS windowEnd,"
                + " COUNT(*) AS txCount,"
                + " SUM(amountMinor) AS amountSum,"
                + " MAX(amountMinor) AS amountMax,"
                + " COUNT(DISTINCT deviceId) AS distinctDevices,"
                + " COUNT(DISTINCT merchantId) AS distinctMerchants,"
                + " COUNT(DISTINCT country) AS distinctCountries"
                + " FROM TABLE(TUMBLE(TABLE transactions_dedup, DESCRIPTOR(rowtime), "
                + seconds(window)
                + "))"
                + " GROUP BY userId, window_start, window_end";
    }

    /**
     * The SQL of the per-transaction query over view {@code transactions_dedup}: every row with its
     * user's six features over {@code (t - trailing, t]} (RANGE's inclusive lower bound at {@code
     * trailing - 1 ms}).
     */
    static String overQuery(Duration trailing) {
        String w = "OVER w";
        return "SELECT transactionId, userId, eventTime, kafkaTimestamp, amountMinor,"
                + " COUNT(*) "
                + w
                + " AS txCount,"
                + " SUM(amountMinor) "
                + w
                + " AS amountSum,"
                + " MAX(amountMinor) "
                + w
                + " AS amountMax,"
                + " COUNT(DISTINCT deviceId) "
                + w
                + " AS distinctDevices,"
                + " COUNT(DISTINCT merchantId) "
                + w
                + " AS distinctMerchants,"
                + " COUNT(DISTINCT country) "
                + w
                + " AS distinctCountries"
                + " FROM transactions_dedup"
                + " WINDOW w AS (PARTITION BY userId ORDER BY rowtime RANGE BETWEEN "
                + precedingInterval(trailing)
                + " PRECEDING AND CURRENT ROW)";
    }

    /**
     * {@code INTERVAL 'd hh:mm:ss.mmm' DAY TO SECOND(3)} for {@code trailing - 1 ms}: the planner
     * takes an OVER range's interval with a leading precision of at most 3 ({@code SECOND(3)} would
     * stop at 999 s), and DAY's default precision (2) reaches 99 days.
     */
    static String precedingInterval(Duration trailing) {
        long millis = trailing.toMillis() - 1;
        if (millis < 0) {
            throw new IllegalArgumentException("trailing window must be positive: " + trailing);
        }
        long s = millis / 1000;
        return String.format(
                java.util.Locale.ROOT,
                "INTERVAL '%d %02d:%02d:%02d.%03d' DAY TO SECOND(3)",
                s / 86_400,
                (s / 3600) % 24,
                (s / 60) % 60,
                s % 60,
                millis % 1000);
    }

    private static String seconds(Duration d) {
        return "INTERVAL '" + d.toSeconds() + "' SECOND(9)";
    }

    /** The SQL of the deduplication over view {@code transactions}. */
    static String dedupQuery() {
        return "SELECT userId, transactionId, amountMinor, deviceId, merchantId, country,"
                + " eventTime, kafkaTimestamp, rowtime"
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
        return build(
                        tEnv,
                        transactions,
                        WindowQuery.LEGACY,
                        window,
                        allowedLateness,
                        dedupTtl,
                        null)
                .windows();
    }

    /**
     * Registers {@code transactions} as {@link #build(StreamTableEnvironment, DataStream, Duration,
     * Duration, Duration)} does and returns the tables asked for.
     *
     * @param windowQuery which window query, if any
     * @param trailing the per-transaction query's trailing window, or null for none
     */
    public static Queries build(
            StreamTableEnvironment tEnv,
            DataStream<Row> transactions,
            WindowQuery windowQuery,
            Duration window,
            Duration allowedLateness,
            Duration dedupTtl,
            Duration trailing) {
        if (window.toMillis() % 1000 != 0) {
            throw new IllegalArgumentException("window size must be whole seconds: " + window);
        }
        if (windowQuery == WindowQuery.NONE && trailing == null) {
            throw new IllegalArgumentException("neither a window nor a per-transaction query");
        }
        tEnv.getConfig().set("table.local-time-zone", "UTC");
        tEnv.getConfig().set("table.exec.state.ttl", dedupTtl.toMillis() + " ms");
        if (windowQuery == WindowQuery.LEGACY) {
            // Only the legacy group window has these; window TVFs refuse them.
            tEnv.getConfig()
                    .set("table.exec.emit.allow-lateness", allowedLateness.toMillis() + " ms");
            tEnv.getConfig().set("table.exec.emit.late-fire.enabled", "true");
            tEnv.getConfig().set("table.exec.emit.late-fire.delay", "0 ms");
        }
        Table input =
                tEnv.fromDataStream(
                        transactions,
                        Schema.newBuilder()
                                .columnByMetadata("rowtime", DataTypes.TIMESTAMP_LTZ(3))
                                .columnByExpression("proctime", "PROCTIME()")
                                .watermark("rowtime", "SOURCE_WATERMARK()")
                                .build());
        tEnv.createTemporaryView("transactions", input);
        Table dedup = tEnv.sqlQuery(dedupQuery());
        if (windowQuery != WindowQuery.NONE && trailing != null) {
            // Shared by both queries: once through a DataStream (see the class comment).
            DataStream<Row> deduplicated = tEnv.toDataStream(dedup);
            dedup =
                    tEnv.fromDataStream(
                            deduplicated,
                            Schema.newBuilder()
                                    .column("userId", DataTypes.STRING())
                                    .column("transactionId", DataTypes.STRING())
                                    .column("amountMinor", DataTypes.BIGINT())
                                    .column("deviceId", DataTypes.STRING())
                                    .column("merchantId", DataTypes.STRING())
                                    .column("country", DataTypes.STRING())
                                    .column("eventTime", DataTypes.BIGINT())
                                    .column("kafkaTimestamp", DataTypes.BIGINT())
                                    .column("rowtime", DataTypes.TIMESTAMP_LTZ(3))
                                    .watermark("rowtime", "SOURCE_WATERMARK()")
                                    .build());
        }
        tEnv.createTemporaryView("transactions_dedup", dedup);
        Table windows =
                switch (windowQuery) {
                    case LEGACY -> tEnv.sqlQuery(featureQuery(window));
                    case TVF -> tEnv.sqlQuery(tvfQuery(window));
                    case NONE -> null;
                };
        Table perTransaction = trailing == null ? null : tEnv.sqlQuery(overQuery(trailing));
        return new Queries(windows, perTransaction);
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
