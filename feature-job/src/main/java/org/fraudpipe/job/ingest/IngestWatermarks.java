package org.fraudpipe.job.ingest;

import java.time.Duration;
import org.apache.flink.api.common.eventtime.BoundedOutOfOrdernessWatermarks;
import org.apache.flink.api.common.eventtime.WatermarkGenerator;
import org.apache.flink.api.common.eventtime.WatermarkOutput;
import org.apache.flink.api.common.eventtime.WatermarkStrategy;
import org.apache.flink.api.common.eventtime.WatermarksWithIdleness;

/**
 * Event time of the job: timestamps and watermarks of {@link IngestedRecord}s, applied in the
 * source (per Kafka partition) so that a lagging partition holds the watermark back and an idle one
 * does not.
 *
 * <p>Flink's own generators, bounded out-of-orderness ({@code max event time seen − bound − 1 ms})
 * and idleness, but fed only the records that may reach a window ({@link
 * IngestedRecord#isWindowable()}): a dead letter or a future-dated record neither moves the
 * watermark nor counts as activity. Were they activity, a partition receiving only poison pills or
 * records from a client whose clock runs ahead would never go idle and would hold event time back
 * for every partition. That filter is why these strategies exist instead of {@link
 * WatermarkStrategy#forBoundedOutOfOrderness} with {@link WatermarkStrategy#withIdleness}.
 */
public final class IngestWatermarks {

    private IngestWatermarks() {}

    /**
     * For Kafka: watermarks emitted periodically; a partition without a windowable record for
     * {@code idleness} (on the source's input-activity clock, as Flink's {@code withIdleness}) is
     * idle and no longer holds the watermark back.
     */
    public static WatermarkStrategy<IngestedRecord> streaming(Duration bound, Duration idleness) {
        return WatermarkStrategy.<IngestedRecord>forGenerator(
                        ctx ->
                                new WindowableOnly(
                                        new WatermarksWithIdleness<>(
                                                new BoundedOutOfOrdernessWatermarks<>(bound),
                                                idleness,
                                                ctx.getInputActivityClock())))
                .withTimestampAssigner((record, previous) -> record.timestamp());
    }

    /**
     * For deterministic replay: a watermark after every windowable record and no idleness (which
     * would depend on the wall clock), so the same file gives the same watermarks every time.
     */
    public static WatermarkStrategy<IngestedRecord> perRecord(Duration bound) {
        return WatermarkStrategy.<IngestedRecord>forGenerator(
                        ctx ->
                                new WindowableOnly(
                                        new EmitOnEveryEvent(
                                                new BoundedOutOfOrdernessWatermarks<>(bound))))
                .withTimestampAssigner((record, previous) -> record.timestamp());
    }

    /** Hands the wrapped generator only the records that may reach a window. */
    private static final class WindowableOnly implements WatermarkGenerator<IngestedRecord> {
        private final WatermarkGenerator<IngestedRecord> generator;

        WindowableOnly(WatermarkGenerator<IngestedRecord> generator) {
            this.generator = generator;
        }

        @Override
        public void onEvent(IngestedRecord event, long timestamp, WatermarkOutput output) {
            if (event.isWindowable()) {
                generator.onEvent(event, timestamp, output);
            }
        }

        @Override
        public void onPeriodicEmit(WatermarkOutput output) {
            generator.onPeriodicEmit(output);
        }
    }

    /** Emits the wrapped generator's watermark after every event it is given. */
    private static final class EmitOnEveryEvent implements WatermarkGenerator<IngestedRecord> {
        private final WatermarkGenerator<IngestedRecord> generator;

        EmitOnEveryEvent(WatermarkGenerator<IngestedRecord> generator) {
            this.generator = generator;
        }

        @Override
        public void onEvent(IngestedRecord event, long timestamp, WatermarkOutput output) {
            generator.onEvent(event, timestamp, output);
            generator.onPeriodicEmit(output);
        }

        @Override
        public void onPeriodicEmit(WatermarkOutput output) {
            generator.onPeriodicEmit(output);
        }
    }
}
