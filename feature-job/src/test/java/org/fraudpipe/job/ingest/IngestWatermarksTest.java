package org.fraudpipe.job.ingest;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import org.apache.flink.api.common.eventtime.Watermark;
import org.apache.flink.api.common.eventtime.WatermarkGenerator;
import org.apache.flink.api.common.eventtime.WatermarkGeneratorSupplier;
import org.apache.flink.api.common.eventtime.WatermarkOutput;
import org.apache.flink.api.common.eventtime.WatermarkStrategy;
import org.apache.flink.metrics.MetricGroup;
import org.apache.flink.metrics.groups.UnregisteredMetricsGroup;
import org.apache.flink.util.clock.ManualClock;
import org.apache.flink.util.clock.RelativeClock;
import org.fraudpipe.schemas.avro.DeadLetter;
import org.junit.jupiter.api.Test;

/** The job's watermark strategies, exercised as the sources create them. */
class IngestWatermarksTest {

    /** What a generator emitted, in order: watermarks as numbers, idleness as "idle"/"active". */
    static final class Recorder implements WatermarkOutput {
        final List<Object> events = new ArrayList<>();

        List<Long> watermarks() {
            return events.stream().filter(e -> e instanceof Long).map(e -> (Long) e).toList();
        }

        @Override
        public void emitWatermark(Watermark watermark) {
            events.add(watermark.getTimestamp());
        }

        @Override
        public void markIdle() {
            events.add("idle");
        }

        @Override
        public void markActive() {
            events.add("active");
        }
    }

    private final ManualClock clock = new ManualClock();

    private WatermarkGenerator<IngestedRecord> generator(WatermarkStrategy<IngestedRecord> s) {
        return s.createWatermarkGenerator(
                new WatermarkGeneratorSupplier.Context() {
                    @Override
                    public MetricGroup getMetricGroup() {
                        return new UnregisteredMetricsGroup();
                    }

                    @Override
                    public RelativeClock getInputActivityClock() {
                        return clock;
                    }
                });
    }

    static IngestedRecord at(long millis, boolean future) {
        return IngestedRecord.valid(
                RecordIngestorTest.tx(Instant.ofEpochMilli(millis)),
                RecordIngestorTest.POS,
                millis,
                future);
    }

    private static IngestedRecord deadLetter(long receivedAt) {
        return IngestedRecord.dead(new DeadLetter(), receivedAt);
    }

    private static void feed(
            WatermarkGenerator<IngestedRecord> gen, Recorder out, IngestedRecord r) {
        gen.onEvent(r, r.timestamp(), out);
    }

    @Test
    void perRecordWatermarkTrailsTheMaxEventTimeByTheBound() {
        var gen = generator(IngestWatermarks.perRecord(Duration.ofSeconds(5)));
        Recorder out = new Recorder();
        for (long t : new long[] {100_000, 90_000, 120_000}) {
            feed(gen, out, at(t, false));
        }
        assertThat(out.watermarks()).containsExactly(94_999L, 94_999L, 114_999L);
    }

    @Test
    void futureDatedRecordsAndDeadLettersNeverMoveTheWatermark() {
        var gen = generator(IngestWatermarks.perRecord(Duration.ofSeconds(5)));
        Recorder out = new Recorder();
        feed(gen, out, at(100_000, false));
        feed(gen, out, at(9_000_000, true));
        feed(gen, out, deadLetter(50_000_000));
        gen.onPeriodicEmit(out);
        assertThat(out.watermarks()).containsExactly(94_999L, 94_999L);
    }

    @Test
    void streamingModeEmitsOnlyOnPeriodicEmit() {
        var gen = generator(IngestWatermarks.streaming(Duration.ZERO, Duration.ofMinutes(1)));
        Recorder out = new Recorder();
        feed(gen, out, at(10, false));
        assertThat(out.events).isEmpty();
        gen.onPeriodicEmit(out);
        assertThat(out.watermarks()).containsExactly(9L);
    }

    @Test
    void aPartitionReceivingOnlyDeadLettersAndFutureDatedRecordsGoesIdle() {
        var gen =
                generator(
                        IngestWatermarks.streaming(Duration.ofSeconds(2), Duration.ofSeconds(10)));
        Recorder out = new Recorder();
        feed(gen, out, at(100_000, false));
        gen.onPeriodicEmit(out);
        assertThat(out.events).containsExactly(97_999L);

        // Then only records that cannot reach a window, for longer than the idleness timeout,
        // with the periodic emits of the source in between.
        for (int second = 1; second <= 15; second++) {
            clock.advanceTime(Duration.ofSeconds(1));
            feed(gen, out, second % 2 == 0 ? deadLetter(second) : at(9_000_000, true));
            gen.onPeriodicEmit(out);
        }

        assertThat(out.events).contains("idle");
        assertThat(out.watermarks()).allMatch(w -> w == 97_999L);

        // A windowable record makes it active again, with its event time.
        out.events.clear();
        clock.advanceTime(Duration.ofSeconds(1));
        feed(gen, out, at(200_000, false));
        gen.onPeriodicEmit(out);
        assertThat(out.watermarks()).containsExactly(197_999L);
    }

    @Test
    void aPartitionWithWindowableRecordsNeverGoesIdle() {
        var gen =
                generator(
                        IngestWatermarks.streaming(Duration.ofSeconds(2), Duration.ofSeconds(10)));
        Recorder out = new Recorder();
        for (int second = 0; second < 30; second++) {
            clock.advanceTime(Duration.ofSeconds(1));
            feed(gen, out, at(100_000 + second * 1_000L, false));
            gen.onPeriodicEmit(out);
        }
        assertThat(out.events).doesNotContain("idle");
    }
}
