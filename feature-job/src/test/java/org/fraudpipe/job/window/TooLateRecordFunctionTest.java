package org.fraudpipe.job.window;

import static org.assertj.core.api.Assertions.assertThat;
import static org.fraudpipe.job.features.TestTransactions.tx;

import java.time.Duration;
import java.time.Instant;
import org.apache.flink.api.common.serialization.SerializerConfigImpl;
import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.runtime.operators.testutils.MockEnvironment;
import org.apache.flink.streaming.api.operators.ProcessOperator;
import org.apache.flink.streaming.util.OneInputStreamOperatorTestHarness;
import org.fraudpipe.job.testing.CapturedMetrics;
import org.fraudpipe.schemas.avro.LateReason;
import org.fraudpipe.schemas.avro.LateRecord;
import org.fraudpipe.schemas.avro.Transaction;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

class TooLateRecordFunctionTest {

    private static final long MINUTE = 60_000;
    private static final long START = 1_735_725_600_000L;
    private static final long END = START + 10 * MINUTE;
    private static final FeatureWindowSpec SPEC =
            new FeatureWindowSpec(Duration.ofMinutes(10), Duration.ofMinutes(5));

    private final CapturedMetrics metrics = new CapturedMetrics();
    private MockEnvironment environment;
    private OneInputStreamOperatorTestHarness<Transaction, LateRecord> harness;

    @BeforeEach
    void open() throws Exception {
        environment = metrics.environment();
        harness =
                new OneInputStreamOperatorTestHarness<>(
                        new ProcessOperator<>(new TooLateRecordFunction(SPEC)), environment);
        harness.setup(
                TypeInformation.of(LateRecord.class).createSerializer(new SerializerConfigImpl()));
        harness.open();
    }

    @AfterEach
    void close() throws Exception {
        harness.close();
        environment.close();
    }

    private void process(Transaction tx) throws Exception {
        harness.processElement(tx, tx.getEventTime().toEpochMilli());
    }

    @Test
    void usesTheWatermarkSeenWhenChainedToTheWindow() throws Exception {
        harness.setProcessingTime(5_000);
        harness.processWatermark(END + 20 * MINUTE);

        process(tx("t", "alice", 1, START + MINUTE));

        LateRecord late = harness.extractOutputValues().get(0);
        assertThat(late.getReason()).isEqualTo(LateReason.TOO_LATE);
        assertThat(late.getWindowStart()).isEqualTo(Instant.ofEpochMilli(START));
        assertThat(late.getWindowEnd()).isEqualTo(Instant.ofEpochMilli(END));
        assertThat(late.getWatermark()).isEqualTo(Instant.ofEpochMilli(END + 20 * MINUTE));
        assertThat(late.getLateByMillis()).isEqualTo(29 * MINUTE);
        assertThat(late.getDetectedAt()).isEqualTo(Instant.ofEpochMilli(5_000));
        assertThat(late.getTransaction().getTransactionId()).isEqualTo("t");
    }

    @Test
    void aLaggingWatermarkIsRaisedToTheWindowsCleanupTime() throws Exception {
        // not chained: this operator has not seen the watermark that made the record too late
        harness.processWatermark(START);

        process(tx("t", "alice", 1, START + MINUTE));

        LateRecord late = harness.extractOutputValues().get(0);
        long cleanup = END - 1 + 5 * MINUTE;
        assertThat(late.getWatermark()).isEqualTo(Instant.ofEpochMilli(cleanup));
        assertThat(late.getLateByMillis()).isEqualTo(cleanup - (START + MINUTE));
    }

    @Test
    void noWatermarkYetStillGivesTheLowerBound() throws Exception {
        process(tx("t", "alice", 1, START + MINUTE));

        assertThat(harness.extractOutputValues().get(0).getWatermark())
                .isEqualTo(Instant.ofEpochMilli(END - 1 + 5 * MINUTE));
    }

    @Test
    void countsEveryTooLateRecord() throws Exception {
        harness.processWatermark(END + 20 * MINUTE);

        process(tx("t1", "alice", 1, START + MINUTE));
        process(tx("t2", "bob", 1, START + 2 * MINUTE));
        process(tx("t1", "alice", 1, START + MINUTE));

        long counter = metrics.counter(TooLateRecordFunction.TOO_LATE_RECORDS_METRIC);
        assertThat(counter).isEqualTo(3);
        assertThat(harness.extractOutputValues()).hasSize(3);
    }
}
