package org.fraudpipe.job.ingest;

import java.time.Instant;
import org.apache.flink.api.common.functions.OpenContext;
import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.metrics.Counter;
import org.apache.flink.metrics.MetricGroup;
import org.apache.flink.streaming.api.functions.ProcessFunction;
import org.apache.flink.streaming.api.windowing.windows.TimeWindow;
import org.apache.flink.util.Collector;
import org.apache.flink.util.OutputTag;
import org.fraudpipe.schemas.avro.DeadLetter;
import org.fraudpipe.schemas.avro.LateReason;
import org.fraudpipe.schemas.avro.LateRecord;
import org.fraudpipe.schemas.avro.Transaction;

/**
 * Sends every ingested record to its fate: valid transactions on (main output, event-time timestamp
 * kept), dead letters to {@link #DEAD_LETTERS}, future-dated transactions to {@link #QUARANTINED}
 * as {@link LateRecord}s with reason FUTURE_DATED.
 *
 * <p>Metrics (operator scope): {@value #RECORDS_IN}, {@value #RECORDS_VALID}, {@value
 * #RECORDS_DEAD_LETTERED}, {@value #RECORDS_QUARANTINED}, and the gauge {@value #WATERMARK_LAG_MS}
 * (processing time minus the current watermark, as last seen by this operator). Invariant: in =
 * valid + dead-lettered + quarantined.
 */
public final class IngestRouter extends ProcessFunction<IngestedRecord, Transaction> {

    private static final long serialVersionUID = 1L;

    public static final String RECORDS_IN = "fraudRecordsIn";
    public static final String RECORDS_VALID = "fraudRecordsValid";
    public static final String RECORDS_DEAD_LETTERED = "fraudRecordsDeadLettered";
    public static final String RECORDS_QUARANTINED = "fraudRecordsQuarantined";
    public static final String WATERMARK_LAG_MS = "fraudWatermarkLagMs";

    public static final OutputTag<DeadLetter> DEAD_LETTERS =
            new OutputTag<>("dead-letters", TypeInformation.of(DeadLetter.class));
    public static final OutputTag<LateRecord> QUARANTINED =
            new OutputTag<>("quarantined", TypeInformation.of(LateRecord.class));

    private final long windowSizeMillis;

    private transient Counter in;
    private transient Counter valid;
    private transient Counter deadLettered;
    private transient Counter quarantined;
    private transient volatile long lastWatermark;

    /**
     * @param windowSizeMillis the feature window size, to name the window a quarantined record
     *     missed
     */
    public IngestRouter(long windowSizeMillis) {
        this.windowSizeMillis = windowSizeMillis;
    }

    @Override
    public void open(OpenContext openContext) {
        MetricGroup metrics = getRuntimeContext().getMetricGroup();
        in = metrics.counter(RECORDS_IN);
        valid = metrics.counter(RECORDS_VALID);
        deadLettered = metrics.counter(RECORDS_DEAD_LETTERED);
        quarantined = metrics.counter(RECORDS_QUARANTINED);
        lastWatermark = Long.MIN_VALUE;
        metrics.gauge(
                WATERMARK_LAG_MS,
                () ->
                        lastWatermark == Long.MIN_VALUE
                                ? -1L
                                : System.currentTimeMillis() - lastWatermark);
    }

    @Override
    public void processElement(IngestedRecord record, Context ctx, Collector<Transaction> out) {
        in.inc();
        long watermark = ctx.timerService().currentWatermark();
        lastWatermark = watermark;
        if (record.deadLetter != null) {
            deadLettered.inc();
            ctx.output(DEAD_LETTERS, record.deadLetter);
        } else if (record.futureDated) {
            quarantined.inc();
            ctx.output(QUARANTINED, futureDated(record, watermark));
        } else {
            valid.inc();
            out.collect(record.transaction);
        }
    }

    private LateRecord futureDated(IngestedRecord record, long watermark) {
        long eventTime = record.transaction.getEventTime().toEpochMilli();
        long windowStart = TimeWindow.getWindowStartWithOffset(eventTime, 0, windowSizeMillis);
        return LateRecord.newBuilder()
                .setTransaction(record.transaction)
                .setReason(LateReason.FUTURE_DATED)
                .setWindowStart(Instant.ofEpochMilli(windowStart))
                .setWindowEnd(Instant.ofEpochMilli(windowStart + windowSizeMillis))
                .setWatermark(watermark == Long.MIN_VALUE ? null : Instant.ofEpochMilli(watermark))
                .setLateByMillis(record.receivedAt - eventTime)
                .setDetectedAt(Instant.ofEpochMilli(record.receivedAt))
                .build();
    }
}
