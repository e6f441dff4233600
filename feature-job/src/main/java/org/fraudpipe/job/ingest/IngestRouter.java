package org.fraudpipe.job.ingest;

import java.time.Instant;
import org.apache.flink.api.common.functions.OpenContext;
import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.metrics.MetricGroup;
import org.apache.flink.streaming.api.functions.ProcessFunction;
import org.apache.flink.util.Collector;
import org.apache.flink.util.OutputTag;
import org.fraudpipe.job.features.WindowAssignment;
import org.fraudpipe.job.metrics.Tally;
import org.fraudpipe.job.window.FeatureWindowSpec;
import org.fraudpipe.schemas.avro.DeadLetter;
import org.fraudpipe.schemas.avro.LateReason;
import org.fraudpipe.schemas.avro.LateRecord;
import org.fraudpipe.schemas.avro.Transaction;

/**
 * Sends every ingested record to its fate: valid transactions on (main output, event-time timestamp
 * kept), dead letters to {@link #DEAD_LETTERS}, future-dated transactions to {@link #LATE} as
 * {@link LateRecord}s with reason FUTURE_DATED.
 *
 * <p>Whether a valid record is too late for its window is the window operator's decision alone,
 * also after a restore (it keeps what it needs for that: {@code FeatureWindowFunction}).
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

    /** Late records decided here: FUTURE_DATED. */
    public static final OutputTag<LateRecord> LATE =
            new OutputTag<>("late-before-window", TypeInformation.of(LateRecord.class));

    private final FeatureWindowSpec spec;
    private transient Tally in;
    private transient Tally valid;
    private transient Tally deadLettered;
    private transient Tally quarantined;
    private transient volatile long lastWatermark;

    /**
     * @param spec the feature windows: names the window a late record missed, decides too-late
     */
    public IngestRouter(FeatureWindowSpec spec) {
        this.spec = spec;
    }

    @Override
    public void open(OpenContext openContext) {
        MetricGroup metrics = getRuntimeContext().getMetricGroup();
        in = tally(metrics, RECORDS_IN);
        valid = tally(metrics, RECORDS_VALID);
        deadLettered = tally(metrics, RECORDS_DEAD_LETTERED);
        quarantined = tally(metrics, RECORDS_QUARANTINED);
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
            ctx.output(LATE, futureDated(record, watermark));
        } else {
            valid.inc();
            out.collect(record.transaction);
        }
    }

    private Tally tally(MetricGroup metrics, String name) {
        return Tally.register(getRuntimeContext(), metrics, name);
    }

    /** A FUTURE_DATED late record: lateByMillis = arrival time − event time (negative). */
    private LateRecord futureDated(IngestedRecord record, long watermark) {
        long eventTime = record.transaction.getEventTime().toEpochMilli();
        WindowAssignment windows = spec.assignment();
        return LateRecord.newBuilder()
                .setTransaction(record.transaction)
                .setReason(LateReason.FUTURE_DATED)
                .setWindowStart(Instant.ofEpochMilli(windows.startOf(eventTime)))
                .setWindowEnd(Instant.ofEpochMilli(windows.endOf(eventTime)))
                .setWatermark(watermark == Long.MIN_VALUE ? null : Instant.ofEpochMilli(watermark))
                .setLateByMillis(record.arrivalTime() - eventTime)
                .setDetectedAt(Instant.ofEpochMilli(record.receivedAt))
                .build();
    }
}
