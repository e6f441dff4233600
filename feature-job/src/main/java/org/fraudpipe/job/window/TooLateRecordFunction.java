package org.fraudpipe.job.window;

import java.time.Instant;
import org.apache.flink.api.common.functions.OpenContext;
import org.apache.flink.streaming.api.functions.ProcessFunction;
import org.apache.flink.util.Collector;
import org.fraudpipe.job.features.WindowAssignment;
import org.fraudpipe.job.metrics.Tally;
import org.fraudpipe.schemas.avro.LateReason;
import org.fraudpipe.schemas.avro.LateRecord;
import org.fraudpipe.schemas.avro.Transaction;

/**
 * Turns a transaction the feature window set aside as too late (its late-data side output) into a
 * {@link LateRecord} kept as data, and counts it in the metric (and accumulator, {@link Tally})
 * {@value #TOO_LATE_RECORDS_METRIC}.
 *
 * <p>Fields: reason {@code TOO_LATE}; the window the record missed (by {@link WindowAssignment},
 * the same assignment as the window operator); {@code detectedAt} = this operator's processing
 * time, or the {@code watermark} below when the spec's {@link FeatureWindowSpec#processingTime()}
 * is {@link ProcessingTimeSource#WATERMARK} (replay); {@code lateByMillis = watermark - eventTime};
 * and {@code watermark} =
 *
 * <pre>max(this operator's current watermark, windowEnd - 1 + allowedLateness)</pre>
 *
 * <p>Why that is the window operator's watermark when it set the record aside: Flink's side output
 * carries the record only. {@link FeatureWindows} connects this function to the window operator by
 * a forward edge at the same parallelism, so the two are chained: the window operator hands every
 * watermark to this function before it processes the next record, and a record is set aside only
 * between watermarks. The watermark seen here is then exactly the window operator's. If someone
 * breaks the chain (different parallelism, {@code disableChaining}, another slot sharing group),
 * the watermark seen here is the minimum over the upstream channels and can lag; both terms of the
 * max are then lower bounds of the true value (a too-late record proves the window operator's
 * watermark was at least {@code windowEnd - 1 + allowedLateness}), and the field is the tightest
 * lower bound known here. It is never null for TOO_LATE records.
 */
public final class TooLateRecordFunction extends ProcessFunction<Transaction, LateRecord> {

    private static final long serialVersionUID = 1L;

    /** Counter of too-late transactions, in this operator's metric group. */
    public static final String TOO_LATE_RECORDS_METRIC = "fraudRecordsTooLate";

    private final FeatureWindowSpec spec;
    private final WindowAssignment assignment;
    private transient Tally tooLateRecords;

    public TooLateRecordFunction(FeatureWindowSpec spec) {
        this.spec = spec;
        this.assignment = spec.assignment();
    }

    @Override
    public void open(OpenContext openContext) {
        tooLateRecords =
                Tally.register(
                        getRuntimeContext(),
                        getRuntimeContext().getMetricGroup(),
                        TOO_LATE_RECORDS_METRIC);
    }

    @Override
    public void processElement(Transaction tx, Context ctx, Collector<LateRecord> out) {
        long eventTime = tx.getEventTime().toEpochMilli();
        long windowStart = assignment.startOf(eventTime);
        long windowEnd = windowStart + assignment.sizeMillis();
        long watermark =
                Math.max(ctx.timerService().currentWatermark(), spec.cleanupTime(windowEnd));
        out.collect(
                LateRecord.newBuilder()
                        .setTransaction(tx)
                        .setReason(LateReason.TOO_LATE)
                        .setWindowStart(Instant.ofEpochMilli(windowStart))
                        .setWindowEnd(Instant.ofEpochMilli(windowEnd))
                        .setWatermark(Instant.ofEpochMilli(watermark))
                        .setLateByMillis(watermark - eventTime)
                        .setDetectedAt(
                                Instant.ofEpochMilli(
                                        spec.processingTime()
                                                .now(
                                                        ctx.timerService().currentProcessingTime(),
                                                        watermark)))
                        .build());
        tooLateRecords.inc();
    }
}
