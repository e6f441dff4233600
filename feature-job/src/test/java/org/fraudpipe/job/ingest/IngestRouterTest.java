package org.fraudpipe.job.ingest;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.ByteBuffer;
import java.time.Duration;
import java.time.Instant;
import org.apache.flink.api.common.serialization.SerializerConfigImpl;
import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.runtime.checkpoint.OperatorSubtaskState;
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
            harness.processElement(
                    new StreamRecord<>(
                            IngestedRecord.valid(
                                    RecordIngestorTest.tx(future),
                                    RecordIngestorTest.POS,
                                    arrival,
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

    private static OneInputStreamOperatorTestHarness<IngestedRecord, Transaction> harness()
            throws Exception {
        OneInputStreamOperatorTestHarness<IngestedRecord, Transaction> h =
                new OneInputStreamOperatorTestHarness<>(
                        new ProcessOperator<>(new IngestRouter(SPEC)));
        h.setup(TypeInformation.of(Transaction.class).createSerializer(new SerializerConfigImpl()));
        return h;
    }

    private static StreamRecord<IngestedRecord> at(String id, Instant eventTime) {
        Transaction tx = RecordIngestorTest.tx(eventTime);
        tx.setTransactionId(id);
        return new StreamRecord<>(
                IngestedRecord.valid(tx, RecordIngestorTest.POS, eventTime.toEpochMilli(), false),
                eventTime.toEpochMilli());
    }

    @Test
    void afterARestoreARecordTooLateForTheWatermarkBeforeTheFailureGoesToTheLateStream()
            throws Exception {
        // Before the failure: the watermark reached 12:20, so window [12:00, 12:10) with 2 min
        // lateness was closed for good at 12:11:59.999.
        Instant watermarkBefore = Instant.parse("2026-11-28T12:20:00Z");
        OperatorSubtaskState snapshot;
        try (OneInputStreamOperatorTestHarness<IngestedRecord, Transaction> before = harness()) {
            before.open();
            before.processWatermark(watermarkBefore.toEpochMilli());
            before.processElement(at("t0", Instant.parse("2026-11-28T12:20:30Z")));
            snapshot = before.snapshot(1, 1);
        }
        try (OneInputStreamOperatorTestHarness<IngestedRecord, Transaction> after = harness()) {
            after.initializeState(snapshot);
            after.open();
            // The restored job has seen no watermark yet.
            after.processElement(at("closed", Instant.parse("2026-11-28T12:05:00Z")));
            after.processElement(at("open", Instant.parse("2026-11-28T12:19:00Z")));

            assertThat(after.extractOutputValues())
                    .extracting(Transaction::getTransactionId)
                    .containsExactly("open");
            LateRecord late = after.getSideOutput(IngestRouter.LATE).poll().getValue();
            assertThat(late.getTransaction().getTransactionId()).isEqualTo("closed");
            assertThat(late.getReason()).isEqualTo(LateReason.TOO_LATE);
            assertThat(late.getWindowStart()).isEqualTo(Instant.parse("2026-11-28T12:00:00Z"));
            assertThat(late.getWatermark()).isEqualTo(watermarkBefore);
            assertThat(late.getLateByMillis()).isEqualTo(Duration.ofMinutes(15).toMillis());
        }
    }

    @Test
    void withoutARestoreTheWindowOperatorDecidesLateness() throws Exception {
        try (OneInputStreamOperatorTestHarness<IngestedRecord, Transaction> h = harness()) {
            h.open();
            h.processWatermark(Instant.parse("2026-11-28T12:20:00Z").toEpochMilli());
            h.processElement(at("old", Instant.parse("2026-11-28T12:05:00Z")));
            assertThat(h.extractOutputValues())
                    .extracting(Transaction::getTransactionId)
                    .containsExactly("old");
            assertThat(h.getSideOutput(IngestRouter.LATE)).isNull();
        }
    }
}
