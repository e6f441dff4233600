package org.fraudpipe.job.topology;

import org.apache.flink.api.common.functions.OpenContext;
import org.apache.flink.api.common.functions.RichMapFunction;
import org.apache.flink.metrics.Histogram;
import org.apache.flink.metrics.MetricGroup;
import org.apache.flink.runtime.metrics.DescriptiveStatisticsHistogram;
import org.fraudpipe.job.metrics.Tally;
import org.fraudpipe.schemas.avro.FeatureRecord;

/**
 * Measures the window results as they leave the window operator (chained to it, so no extra network
 * hop): {@value #WINDOWS_FIRED} first firings, {@value #LATE_REFIRES} corrected re-fires, and the
 * histogram {@value #EMIT_DELAY_MS}, emit time minus window end (how long after a window closed in
 * event time its result was out: out-of-orderness bound plus source lag plus processing). Passes
 * every record through unchanged. The two counters are also accumulators ({@link Tally}).
 */
public final class PaneMetrics extends RichMapFunction<FeatureRecord, FeatureRecord> {

    private static final long serialVersionUID = 1L;

    public static final String WINDOWS_FIRED = "fraudWindowsFired";
    public static final String LATE_REFIRES = "fraudLateRefires";
    public static final String EMIT_DELAY_MS = "fraudEmitDelayMs";

    /** Samples kept by the emit-delay histogram (its percentiles are over the latest ones). */
    static final int HISTOGRAM_WINDOW = 2048;

    private transient Tally windowsFired;
    private transient Tally lateRefires;
    private transient Histogram emitDelay;

    @Override
    public void open(OpenContext openContext) {
        MetricGroup metrics = getRuntimeContext().getMetricGroup();
        windowsFired = Tally.register(getRuntimeContext(), metrics, WINDOWS_FIRED);
        lateRefires = Tally.register(getRuntimeContext(), metrics, LATE_REFIRES);
        emitDelay =
                metrics.histogram(
                        EMIT_DELAY_MS, new DescriptiveStatisticsHistogram(HISTOGRAM_WINDOW));
    }

    @Override
    public FeatureRecord map(FeatureRecord pane) {
        if (pane.getRevision() == 0) {
            windowsFired.inc();
        } else {
            lateRefires.inc();
        }
        emitDelay.update(pane.getEmittedAt().toEpochMilli() - pane.getWindowEnd().toEpochMilli());
        return pane;
    }
}
