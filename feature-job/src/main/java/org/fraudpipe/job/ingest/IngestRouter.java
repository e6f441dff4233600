package org.fraudpipe.job.ingest;

import java.time.Instant;
import java.util.List;
import org.apache.flink.api.common.functions.OpenContext;
import org.apache.flink.api.common.state.ListState;
import org.apache.flink.api.common.state.ListStateDescriptor;
import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.api.common.typeinfo.Types;
import org.apache.flink.metrics.MetricGroup;
import org.apache.flink.runtime.state.FunctionInitializationContext;
import org.apache.flink.runtime.state.FunctionSnapshotContext;
import org.apache.flink.streaming.api.checkpoint.CheckpointedFunction;
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
 * <p>Too late after a restore: Flink does not checkpoint watermarks, so after a restart every
 * operator's watermark starts again from nothing, and a record that was already too late before the
 * failure would reach the window operator as if on time and bring back a window whose state was
 * dropped (a bogus revision 0 that would overwrite the real final value downstream). This router
 * therefore keeps its watermark in operator state (union list state, so rescaling works); after a
 * restore it takes the smallest restored value (what the window operator had at least seen) and,
 * until its own watermark catches up, sends records too late against it to {@link #LATE} with
 * reason TOO_LATE, exactly as the window operator would have. Without a restore this never
 * triggers: the window operator decides.
 *
 * <p>Metrics (operator scope): {@value #RECORDS_IN}, {@value #RECORDS_VALID}, {@value
 * #RECORDS_DEAD_LETTERED}, {@value #RECORDS_QUARANTINED}, {@value #RECORDS_TOO_LATE_AFTER_RESTORE},
 * and the gauge {@value #WATERMARK_LAG_MS} (processing time minus the current watermark, as last
 * seen by this operator). Invariant: in = valid + dead-lettered + quarantined +
 * too-late-after-restore.
 */
public final class IngestRouter extends ProcessFunction<IngestedRecord, Transaction>
        implements CheckpointedFunction {

    private static final long serialVersionUID = 1L;

    public static final String RECORDS_IN = "fraudRecordsIn";
    public static final String RECORDS_VALID = "fraudRecordsValid";
    public static final String RECORDS_DEAD_LETTERED = "fraudRecordsDeadLettered";
    public static final String RECORDS_QUARANTINED = "fraudRecordsQuarantined";
    public static final String RECORDS_TOO_LATE_AFTER_RESTORE = "fraudRecordsTooLateAfterRestore";
    public static final String WATERMARK_LAG_MS = "fraudWatermarkLagMs";

    public static final OutputTag<DeadLetter> DEAD_LETTERS =
            new OutputTag<>("dead-letters", TypeInformation.of(DeadLetter.class));

    /** Late records decided here: FUTURE_DATED, and TOO_LATE after a restore. */
    public static final OutputTag<LateRecord> LATE =
            new OutputTag<>("late-before-window", TypeInformation.of(LateRecord.class));

    private static final ListStateDescriptor<Long> WATERMARK_STATE =
            new ListStateDescriptor<>("router-watermark", Types.LONG);

    private final FeatureWindowSpec spec;
    private transient ListState<Long> watermarkState;
    private transient long restoredWatermark;
    private transient Tally tooLateAfterRestore;
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
    public void initializeState(FunctionInitializationContext context) throws Exception {
        watermarkState = context.getOperatorStateStore().getUnionListState(WATERMARK_STATE);
        restoredWatermark = Long.MIN_VALUE;
        if (context.isRestored()) {
            long min = Long.MAX_VALUE;
            for (Long w : watermarkState.get()) {
                min = Math.min(min, w);
            }
            restoredWatermark = min == Long.MAX_VALUE ? Long.MIN_VALUE : min;
        }
    }

    @Override
    public void snapshotState(FunctionSnapshotContext context) throws Exception {
        watermarkState.update(List.of(Math.max(lastWatermark, restoredWatermark)));
    }

    @Override
    public void open(OpenContext openContext) {
        MetricGroup metrics = getRuntimeContext().getMetricGroup();
        in = tally(metrics, RECORDS_IN);
        valid = tally(metrics, RECORDS_VALID);
        deadLettered = tally(metrics, RECORDS_DEAD_LETTERED);
        quarantined = tally(metrics, RECORDS_QUARANTINED);
        tooLateAfterRestore = tally(metrics, RECORDS_TOO_LATE_AFTER_RESTORE);
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
            ctx.output(LATE, late(record, LateReason.FUTURE_DATED, watermark));
        } else if (spec.isTooLate(
                record.transaction.getEventTime().toEpochMilli(), restoredWatermark)) {
            tooLateAfterRestore.inc();
            ctx.output(LATE, late(record, LateReason.TOO_LATE, restoredWatermark));
        } else {
            valid.inc();
            out.collect(record.transaction);
        }
    }

    private Tally tally(MetricGroup metrics, String name) {
        return Tally.register(getRuntimeContext(), metrics, name);
    }

    /**
     * FUTURE_DATED: lateByMillis = arrival − event time (negative). TOO_LATE: watermark − event
     * time, as the window stage reports it.
     */
    private LateRecord late(IngestedRecord record, LateReason reason, long watermark) {
        long eventTime = record.transaction.getEventTime().toEpochMilli();
        WindowAssignment windows = spec.assignment();
        return LateRecord.newBuilder()
                .setTransaction(record.transaction)
                .setReason(reason)
                .setWindowStart(Instant.ofEpochMilli(windows.startOf(eventTime)))
                .setWindowEnd(Instant.ofEpochMilli(windows.endOf(eventTime)))
                .setWatermark(watermark == Long.MIN_VALUE ? null : Instant.ofEpochMilli(watermark))
                .setLateByMillis(
                        reason == LateReason.FUTURE_DATED
                                ? record.receivedAt - eventTime
                                : watermark - eventTime)
                .setDetectedAt(Instant.ofEpochMilli(record.receivedAt))
                .build();
    }
}
