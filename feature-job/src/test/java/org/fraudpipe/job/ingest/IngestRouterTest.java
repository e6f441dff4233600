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
import org.fraudpipe.schemas.avro.DeadLetter;
import org.fraudpipe.schemas.avro.DeadLetterReason;
import org.fraudpipe.schemas.avro.LateReason;
import org.fraudpipe.schemas.avro.LateRecord;
import org.fraudpipe.schemas.avro.Transaction;
import org.junit.jupiter.api.Test;

class IngestRouterTest {

    static final Instant T0 = Instant.parse("2026-11-28T12:03:00Z");
    static final long WINDOW = Duration.ofMinutes(10).toMillis();

    @Test
    void eachRecordGoesToItsFateAndIsCountedOnce() throws Exception {
        CapturedMetrics metrics = new CapturedMetrics();
        try (OneInputStreamOperatorTestHarness<IngestedRecord, Transaction> harness =
                new OneInputStreamOperatorTestHarness<>(
                        new ProcessOperator<>(new IngestRouter(WINDOW)), metrics.environment())) {
            harness.setup(
                    TypeInformation.of(Transaction.class)
                            .createSerializer(new SerializerConfigImpl()));
            harness.open();

            Transaction valid = RecordIngestorTest.tx(T0);
            harness.processElement(
                    new StreamRecord<>(IngestedRecord.valid(valid, T0.toEpochMilli(), false), 1));
            harness.processWatermark(T0.toEpochMilli() - 5_000);
            Instant future = T0.plus(Duration.ofHours(3));
            long arrival = T0.toEpochMilli();
            harness.processElement(
                    new StreamRecord<>(
                            IngestedRecord.valid(RecordIngestorTest.tx(future), arrival, true), 2));
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
            LateRecord quarantined =
                    harness.getSideOutput(IngestRouter.QUARANTINED).poll().getValue();
            assertThat(quarantined.getReason()).isEqualTo(LateReason.FUTURE_DATED);
            assertThat(quarantined.getWindowStart())
                    .isEqualTo(Instant.parse("2026-11-28T15:00:00Z"));
            assertThat(quarantined.getWindowEnd()).isEqualTo(Instant.parse("2026-11-28T15:10:00Z"));
            assertThat(quarantined.getWatermark()).isEqualTo(T0.minusSeconds(5));
            assertThat(quarantined.getLateByMillis()).isEqualTo(-Duration.ofHours(3).toMillis());
            assertThat(quarantined.getDetectedAt()).isEqualTo(T0);

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
                        new ProcessOperator<>(new IngestRouter(WINDOW)))) {
            harness.setup(
                    TypeInformation.of(Transaction.class)
                            .createSerializer(new SerializerConfigImpl()));
            harness.open();
            harness.processElement(
                    new StreamRecord<>(
                            IngestedRecord.valid(
                                    RecordIngestorTest.tx(T0.plus(Duration.ofDays(1))),
                                    T0.toEpochMilli(),
                                    true),
                            1));
            assertThat(
                            harness.getSideOutput(IngestRouter.QUARANTINED)
                                    .poll()
                                    .getValue()
                                    .getWatermark())
                    .isNull();
        }
    }
}
