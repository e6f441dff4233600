package org.fraudpipe.job.window;

import org.apache.flink.api.common.state.ValueStateDescriptor;
import org.apache.flink.api.common.typeutils.base.BooleanSerializer;
import org.apache.flink.streaming.api.windowing.triggers.Trigger;
import org.apache.flink.streaming.api.windowing.triggers.TriggerResult;
import org.apache.flink.streaming.api.windowing.windows.TimeWindow;

/**
 * The event-time trigger of the feature window: fires once when the watermark reaches the window's
 * last timestamp ({@code end - 1}, the ON_TIME pane), then once per record that reaches the window
 * later, within the allowed lateness (a LATE pane each). Same firings as Flink's {@code
 * EventTimeTrigger}.
 *
 * <p>What it adds: when it fires for a late record, it marks the window in the per-window state
 * {@link #LATE_FIRING_STATE}, which {@link PaneWindowFunction} reads to tell a window whose
 * <em>first</em> firing is late (its first record came after the watermark had passed the end, so
 * there never was an ON_TIME pane) from a regular ON_TIME firing. Flink gives a window function no
 * other way to know what caused a firing. The mark is written only on the late path and cleared
 * with the window.
 */
public final class PaneTrigger extends Trigger<Object, TimeWindow> {

    private static final long serialVersionUID = 1L;

    /** Name of the per-window flag shared with {@link PaneWindowFunction}. */
    static final String LATE_FIRING_STATE = "pane-late-firing";

    /**
     * The shared flag's descriptor. It carries its serializer, so trigger and window function get
     * the same state without a serializer config.
     */
    static ValueStateDescriptor<Boolean> lateFiringDescriptor() {
        return new ValueStateDescriptor<>(LATE_FIRING_STATE, BooleanSerializer.INSTANCE);
    }

    private final ValueStateDescriptor<Boolean> lateFiring = lateFiringDescriptor();

    @Override
    public TriggerResult onElement(
            Object element, long timestamp, TimeWindow window, TriggerContext ctx)
            throws Exception {
        if (window.maxTimestamp() <= ctx.getCurrentWatermark()) {
            ctx.getPartitionedState(lateFiring).update(Boolean.TRUE);
            return TriggerResult.FIRE;
        }
        ctx.registerEventTimeTimer(window.maxTimestamp());
        return TriggerResult.CONTINUE;
    }

    @Override
    public TriggerResult onEventTime(long time, TimeWindow window, TriggerContext ctx) {
        return time == window.maxTimestamp() ? TriggerResult.FIRE : TriggerResult.CONTINUE;
    }

    @Override
    public TriggerResult onProcessingTime(long time, TimeWindow window, TriggerContext ctx) {
        return TriggerResult.CONTINUE;
    }

    @Override
    public void clear(TimeWindow window, TriggerContext ctx) throws Exception {
        ctx.deleteEventTimeTimer(window.maxTimestamp());
        ctx.getPartitionedState(lateFiring).clear();
    }

    @Override
    public String toString() {
        return "PaneTrigger()";
    }
}
