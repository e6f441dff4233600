package org.fraudpipe.job.topology;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Instant;
import org.apache.flink.api.common.serialization.SerializerConfigImpl;
import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.streaming.api.operators.StreamMap;
import org.apache.flink.streaming.runtime.streamrecord.StreamRecord;
import org.apache.flink.streaming.util.OneInputStreamOperatorTestHarness;
import org.fraudpipe.job.testing.CapturedMetrics;
import org.fraudpipe.schemas.avro.FeatureRecord;
import org.fraudpipe.schemas.avro.Timing;
import org.junit.jupiter.api.Test;

class PaneMetricsTest {

    static final Instant START = Instant.parse("2026-11-28T12:00:00Z");
    static final Instant END = Instant.parse("2026-11-28T12:10:00Z");

    static FeatureRecord pane(int revision, Instant emittedAt) {
        return new FeatureRecord(
                "u1",
                START,
                END,
                1L,
                100L,
                100L,
                1,
                1,
                1,
                revision,
                revision == 0 ? Timing.ON_TIME : Timing.LATE,
                revision,
                emittedAt,
                END);
    }

    @Test
    void countsFirstFiringsAndRefiresAndMeasuresEmitDelay() throws Exception {
        CapturedMetrics metrics = new CapturedMetrics();
        try (OneInputStreamOperatorTestHarness<FeatureRecord, FeatureRecord> harness =
                new OneInputStreamOperatorTestHarness<>(
                        new StreamMap<>(new PaneMetrics()), metrics.environment())) {
            harness.setup(
                    TypeInformation.of(FeatureRecord.class)
                            .createSerializer(new SerializerConfigImpl()));
            harness.open();
            FeatureRecord first = pane(0, END.plusSeconds(6));
            FeatureRecord refire = pane(1, END.plusSeconds(60));
            harness.processElement(new StreamRecord<>(first, 1));
            harness.processElement(new StreamRecord<>(refire, 2));

            assertThat(harness.extractOutputValues()).containsExactly(first, refire);
            assertThat(metrics.counter(PaneMetrics.WINDOWS_FIRED)).isEqualTo(1);
            assertThat(metrics.counter(PaneMetrics.LATE_REFIRES)).isEqualTo(1);
            assertThat(
                            harness.getEnvironment()
                                    .getAccumulatorRegistry()
                                    .getUserMap()
                                    .get(PaneMetrics.LATE_REFIRES)
                                    .getLocalValue())
                    .as("the counters are accumulators too")
                    .isEqualTo(1L);
            assertThat(metrics.histogram(PaneMetrics.EMIT_DELAY_MS).getStatistics().getMin())
                    .isEqualTo(6_000);
            assertThat(metrics.histogram(PaneMetrics.EMIT_DELAY_MS).getStatistics().getMax())
                    .isEqualTo(60_000);
        }
    }
}
