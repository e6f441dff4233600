package org.fraudpipe.job.ingest;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import org.apache.flink.api.common.eventtime.Watermark;
import org.apache.flink.api.common.eventtime.WatermarkOutput;
import org.fraudpipe.schemas.avro.DeadLetter;
import org.junit.jupiter.api.Test;

class IngestWatermarksTest {

    static final class Recorder implements WatermarkOutput {
        final List<Long> watermarks = new ArrayList<>();

        @Override
        public void emitWatermark(Watermark watermark) {
            watermarks.add(watermark.getTimestamp());
        }

        @Override
        public void markIdle() {}

        @Override
        public void markActive() {}
    }

    static IngestedRecord at(long millis, boolean future) {
        return IngestedRecord.valid(
                RecordIngestorTest.tx(Instant.ofEpochMilli(millis)),
                RecordIngestorTest.POS,
                millis,
                future);
    }

    @Test
    void perRecordWatermarkTrailsTheMaxEventTimeByTheBound() {
        var gen = new IngestWatermarks.WindowableBoundedOutOfOrderness(5_000, true);
        Recorder out = new Recorder();
        for (long t : new long[] {100_000, 90_000, 120_000}) {
            IngestedRecord r = at(t, false);
            gen.onEvent(r, r.timestamp(), out);
        }
        assertThat(out.watermarks).containsExactly(94_999L, 94_999L, 114_999L);
    }

    @Test
    void futureDatedRecordsAndDeadLettersNeverMoveTheWatermark() {
        var gen = new IngestWatermarks.WindowableBoundedOutOfOrderness(5_000, true);
        Recorder out = new Recorder();
        IngestedRecord normal = at(100_000, false);
        gen.onEvent(normal, normal.timestamp(), out);
        IngestedRecord future = at(9_000_000, true);
        gen.onEvent(future, future.timestamp(), out);
        IngestedRecord dead = IngestedRecord.dead(new DeadLetter(), 50_000_000);
        gen.onEvent(dead, dead.timestamp(), out);
        gen.onPeriodicEmit(out);
        assertThat(out.watermarks).containsExactly(94_999L, 94_999L);
    }

    @Test
    void periodicModeEmitsOnlyOnPeriodicEmit() {
        var gen = new IngestWatermarks.WindowableBoundedOutOfOrderness(0, false);
        Recorder out = new Recorder();
        IngestedRecord r = at(10, false);
        gen.onEvent(r, r.timestamp(), out);
        assertThat(out.watermarks).isEmpty();
        gen.onPeriodicEmit(out);
        assertThat(out.watermarks).containsExactly(9L);
    }
}
