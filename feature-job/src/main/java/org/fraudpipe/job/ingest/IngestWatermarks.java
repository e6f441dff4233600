package org.fraudpipe.job.ingest;

import java.time.Duration;
import org.apache.flink.api.common.eventtime.Watermark;
import org.apache.flink.api.common.eventtime.WatermarkGenerator;
import org.apache.flink.api.common.eventtime.WatermarkOutput;
import org.apache.flink.api.common.eventtime.WatermarkStrategy;

/**
 * Event time of the job: timestamps and watermarks of {@link IngestedRecord}s, applied in the
 * source (per Kafka partition) so that a lagging partition holds the watermark back and an idle one
 * does not.
 *
 * <p>The watermark is bounded out-of-orderness, as Flink's own: {@code max event time seen − bound
 * − 1 ms}, but only records that may reach a window count ({@link IngestedRecord#isWindowable()}):
 * a dead letter or a future-dated record never moves it. That is why this generator exists instead
 * of {@link WatermarkStrategy#forBoundedOutOfOrderness}.
 */
public final class IngestWatermarks {

    private IngestWatermarks() {}

    /**
     * For Kafka: watermarks emitted periodically, idle partitions excluded after {@code idleness}.
     */
    public static WatermarkStrategy<IngestedRecord> streaming(Duration bound, Duration idleness) {
        return WatermarkStrategy.<IngestedRecord>forGenerator(
                        ctx -> new WindowableBoundedOutOfOrderness(bound.toMillis(), false))
                .withTimestampAssigner((record, previous) -> record.timestamp())
                .withIdleness(idleness);
    }

    /**
     * For deterministic replay: a watermark after every record and no idleness (which would depend
     * on the wall clock), so the same file gives the same watermarks every time.
     */
    public static WatermarkStrategy<IngestedRecord> perRecord(Duration bound) {
        return WatermarkStrategy.<IngestedRecord>forGenerator(
                        ctx -> new WindowableBoundedOutOfOrderness(bound.toMillis(), true))
                .withTimestampAssigner((record, previous) -> record.timestamp());
    }

    /** Bounded out-of-orderness over windowable records only. */
    static final class WindowableBoundedOutOfOrderness
            implements WatermarkGenerator<IngestedRecord> {
        private final long boundMillis;
        private final boolean emitPerRecord;
        private long maxTimestamp;

        WindowableBoundedOutOfOrderness(long boundMillis, boolean emitPerRecord) {
            this.boundMillis = boundMillis;
            this.emitPerRecord = emitPerRecord;
            // So that the first watermark computed does not underflow.
            this.maxTimestamp = Long.MIN_VALUE + boundMillis + 1;
        }

        @Override
        public void onEvent(IngestedRecord event, long timestamp, WatermarkOutput output) {
            if (!event.isWindowable()) {
                return;
            }
            maxTimestamp = Math.max(maxTimestamp, timestamp);
            if (emitPerRecord) {
                output.emitWatermark(current());
            }
        }

        @Override
        public void onPeriodicEmit(WatermarkOutput output) {
            output.emitWatermark(current());
        }

        private Watermark current() {
            return new Watermark(maxTimestamp - boundMillis - 1);
        }
    }
}
