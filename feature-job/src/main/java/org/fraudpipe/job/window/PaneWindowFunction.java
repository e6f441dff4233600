package org.fraudpipe.job.window;

import java.time.Instant;
import java.util.Objects;
import org.apache.flink.api.common.state.KeyedStateStore;
import org.apache.flink.api.common.state.ValueState;
import org.apache.flink.api.common.state.ValueStateDescriptor;
import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.streaming.api.functions.windowing.ProcessWindowFunction;
import org.apache.flink.streaming.api.windowing.windows.TimeWindow;
import org.apache.flink.util.Collector;
import org.fraudpipe.job.features.FeatureValues;
import org.fraudpipe.schemas.avro.FeatureRecord;
import org.fraudpipe.schemas.avro.Timing;

/**
 * Turns the aggregated {@link FeatureValues} of a window firing into a {@link FeatureRecord}: adds
 * the user, the window bounds and the pane.
 *
 * <p>Pane semantics, with {@link PaneTrigger}:
 *
 * <ul>
 *   <li>{@code revision}: 0 for a window's first firing, +1 for each further firing. Downstream
 *       upserts by (userId, windowStart); the highest revision is the current value.
 *   <li>{@code timing}: ON_TIME for the firing when the watermark reached the window's end; LATE
 *       for every re-fire, and also for a first firing caused by a late record (the window had no
 *       records when the watermark passed its end).
 *   <li>{@code lateRecordsIncluded}: raw records (duplicates included: each re-fires) counted after
 *       the ON_TIME pane = {@code recordsSeen} now minus at the ON_TIME pane.
 *   <li>{@code emittedAt}: by the {@link ProcessingTimeSource} given at construction: the
 *       operator's processing time ({@code context.currentProcessingTime()}, so tests control it
 *       through the harness clock; the default), or in a replay the watermark at the firing.
 *   <li>{@code watermark}: the window operator's watermark at the firing.
 * </ul>
 *
 * <p>State: one {@link PaneProgress} per fired window, in {@code context.windowState()}, cleared by
 * {@link #clear} when the window is dropped at {@code end - 1 + allowedLateness}.
 */
public final class PaneWindowFunction
        extends ProcessWindowFunction<FeatureValues, FeatureRecord, String, TimeWindow> {

    private static final long serialVersionUID = 1L;

    static final String PANE_PROGRESS_STATE = "pane-progress";

    private final ValueStateDescriptor<PaneProgress> progressDescriptor =
            new ValueStateDescriptor<>(PANE_PROGRESS_STATE, TypeInformation.of(PaneProgress.class));
    private final ValueStateDescriptor<Boolean> lateFiringDescriptor =
            PaneTrigger.lateFiringDescriptor();
    private final ProcessingTimeSource processingTime;

    /** Panes whose {@code emittedAt} is the wall clock. */
    public PaneWindowFunction() {
        this(ProcessingTimeSource.WALL_CLOCK);
    }

    /** Panes whose {@code emittedAt} comes from {@code processingTime}. */
    public PaneWindowFunction(ProcessingTimeSource processingTime) {
        this.processingTime = Objects.requireNonNull(processingTime, "processingTime");
    }

    @Override
    public void process(
            String userId,
            Context context,
            Iterable<FeatureValues> aggregated,
            Collector<FeatureRecord> out)
            throws Exception {
        FeatureValues values = aggregated.iterator().next();
        KeyedStateStore windowState = context.windowState();
        ValueState<PaneProgress> progressState = windowState.getState(progressDescriptor);
        PaneProgress previous = progressState.value();

        Timing timing;
        PaneProgress pane;
        if (previous == null) {
            boolean causedByLateRecord = windowState.getState(lateFiringDescriptor).value() != null;
            timing = causedByLateRecord ? Timing.LATE : Timing.ON_TIME;
            pane = PaneProgress.first(timing, values.recordsSeen());
        } else {
            timing = Timing.LATE;
            pane = previous.next();
        }
        progressState.update(pane);

        TimeWindow window = context.window();
        out.collect(
                FeatureRecord.newBuilder()
                        .setUserId(userId)
                        .setWindowStart(Instant.ofEpochMilli(window.getStart()))
                        .setWindowEnd(Instant.ofEpochMilli(window.getEnd()))
                        .setTxCount(values.txCount())
                        .setAmountSum(values.amountSum())
                        .setAmountMax(values.amountMax())
                        .setDistinctDevices(values.distinctDevices())
                        .setDistinctMerchants(values.distinctMerchants())
                        .setDistinctCountries(values.distinctCountries())
                        .setRevision(pane.revision())
                        .setTiming(timing)
                        .setLateRecordsIncluded(
                                saturatedInt(values.recordsSeen() - pane.recordsSeenOnTime()))
                        .setEmittedAt(
                                Instant.ofEpochMilli(
                                        processingTime.now(
                                                context.currentProcessingTime(),
                                                context.currentWatermark())))
                        .setWatermark(Instant.ofEpochMilli(context.currentWatermark()))
                        .build());
    }

    @Override
    public void clear(Context context) throws Exception {
        context.windowState().getState(progressDescriptor).clear();
    }

    private static int saturatedInt(long value) {
        return (int) Math.min(Integer.MAX_VALUE, value);
    }
}
