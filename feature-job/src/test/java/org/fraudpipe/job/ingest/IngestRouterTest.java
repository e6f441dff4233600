package org.fraudpipe.job.ingest;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.ByteBuffer;
import java.time.Duration;
import java.time.Instant;
import org.apache.flink.api.common.serialization.SerializerConfigImpl;
import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.streaming.api.operators.ProcessOperator;
import org.apache.flink.streaming.runtime.streamrecord.StreamRecord;
import org.apache.flink.streaming.util.OneInputStreamOperatorTestHarness;
import org.fraudpipe.job.testing.CapturedMetrics;
import org.fraudpipe.job.window.FeatureWindowSpec;
import org.fraudpipe.schemas.avro.DeadLetter;
import org.fraudpipe.schemas.avro.DeadLetterReason;
import org.fraudpipe.schemas.avro.LateReason;
import org.fraudpipe.schemas.avro.LateRecord;
import org.fraudpipe.schemas.avro.Transaction;
import org.junit.jupiter.api.Test;

class IngestRouterTest {

    static final Instant T0 = Instant.parse("2026-11-28T12:03:00Z");
    static final FeatureWindowSpec SPEC =
            new FeatureWindowSpec(Duration.ofMinutes(10), Duration.ofMinutes(2));

    @Test
    void eachRecordGoesToItsFateAndIsCountedOnce() throws Exception {
        CapturedMetrics metrics = new CapturedMetrics();
        try (OneInputStreamOperatorTestHarness<IngestedRecord, Transaction> harness =
                new OneInputStreamOperatorTestHarness<>(
                        new ProcessOperator<>(new IngestRouter(SPEC)), metrics.environment())) {
            harness.setup(
                    TypeInformation.of(Transaction.class)
                            .createSerializer(new SerializerConfigImpl()));
            harness.open();

            Transaction valid = RecordIngestorTest.tx(T0);
            harness.processElement(
                    new StreamRecord<>(
                            IngestedRecord.valid(
                                    valid, RecordIngestorTest.POS, T0.toEpochMilli(), false),
                            1));
            harness.processWatermark(T0.toEpochMilli() - 5_000);
            Instant future = T0.plus(Duration.ofHours(3));
            long arrival = T0.toEpochMilli();
            // Appended to Kafka at T0, read ten seconds later: how far in the future it was dated
            // is judged against the append time.
            SourcePosition appendedAtT0 = new SourcePosition("transactions", 1, 8, T0);
            harness.processElement(
                    new StreamRecord<>(
                            IngestedRecord.valid(
                                    RecordIngestorTest.tx(future),
                                    appendedAtT0,
                                    arrival + 10_000,
                                    true),
                            2));
            DeadLetter letter =
                    DeadLetter.newBuilder()
                            .setSourceTopic("transactions")
                            .setSourcePartition(0)
                            .setSourceOffset(7)
                            .setValue(ByteBuffer.wrap(new byte[] {1}))
                            .setReason(DeadLetterReason.UNDECODABLE)
                            .setErrorMessage("bad")
                            .setDetectedAt(T0)
                            .build();
            harness.processElement(new StreamRecord<>(IngestedRecord.dead(letter, arrival), 3));

            assertThat(harness.extractOutputValues()).containsExactly(valid);
            assertThat(harness.getSideOutput(IngestRouter.DEAD_LETTERS))
                    .extracting(StreamRecord::getValue)
                    .containsExactly(letter);
            LateRecord quarantined = harness.getSideOutput(IngestRouter.LATE).poll().getValue();
            assertThat(quarantined.getReason()).isEqualTo(LateReason.FUTURE_DATED);
            assertThat(quarantined.getWindowStart())
                    .isEqualTo(Instant.parse("2026-11-28T15:00:00Z"));
            assertThat(quarantined.getWindowEnd()).isEqualTo(Instant.parse("2026-11-28T15:10:00Z"));
            assertThat(quarantined.getWatermark()).isEqualTo(T0.minusSeconds(5));
            assertThat(quarantined.getLateByMillis()).isEqualTo(-Duration.ofHours(3).toMillis());
            assertThat(quarantined.getDetectedAt()).isEqualTo(T0.plusSeconds(10));

            assertThat(metrics.counter(IngestRouter.RECORDS_IN)).isEqualTo(3);
            assertThat(metrics.counter(IngestRouter.RECORDS_VALID)).isEqualTo(1);
            assertThat(metrics.counter(IngestRouter.RECORDS_DEAD_LETTERED)).isEqualTo(1);
            assertThat(metrics.counter(IngestRouter.RECORDS_QUARANTINED)).isEqualTo(1);
            assertThat((Long) metrics.gauge(IngestRouter.WATERMARK_LAG_MS))
                    .isGreaterThan(Duration.ofDays(1).toMillis());
        }
    }

    @Test
    void aQuarantinedRecordBeforeAnyWatermarkHasNone() throws Exception {
        try (OneInputStreamOperatorTestHarness<IngestedRecord, Transaction> harness =
                new OneInputStreamOperatorTestHarness<>(
                        new ProcessOperator<>(new IngestRouter(SPEC)))) {
            harness.setup(
                    TypeInformation.of(Transaction.class)
                            .createSerializer(new SerializerConfigImpl()));
            harness.open();
            harness.processElement(
                    new StreamRecord<>(
                            IngestedRecord.valid(
                                    RecordIngestorTest.tx(T0.plus(Duration.ofDays(1))),
                                    RecordIngestorTest.POS,
                                    T0.toEpochMilli(),
                                    true),
                            1));
            assertThat(harness.getSideOutput(IngestRouter.LATE).poll().getValue().getWatermark())
                    .isNull();
        }
    }
}
