package org.fraudpipe.job.transaction;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.fraudpipe.job.transaction.TrailingHarness.arrival;
import static org.fraudpipe.job.transaction.TrailingHarness.tx;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import org.apache.flink.api.common.serialization.SerializerConfigImpl;
import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.streaming.api.operators.OneInputStreamOperator;
import org.apache.flink.streaming.api.operators.SimpleOperatorFactory;
import org.apache.flink.streaming.api.watermark.Watermark;
import org.apache.flink.streaming.runtime.streamrecord.StreamRecord;
import org.apache.flink.streaming.util.OneInputStreamOperatorTestHarness;
import org.fraudpipe.job.metrics.LatencyHistogram;
import org.fraudpipe.job.testing.CapturedMetrics;
import org.fraudpipe.job.window.ProcessingTimeSource;
import org.fraudpipe.schemas.avro.Decision;
import org.fraudpipe.schemas.avro.TransactionScore;
import org.fraudpipe.scoring.DecisionThresholds;
import org.fraudpipe.scoring.OnnxScorer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The per-transaction scoring stage as the topology builds it, with the shipped per-transaction
 * model: a transaction waits at most the maximum delay for its batch, every answer is counted per
 * decision, the latency from the Kafka record timestamp is measured, and a retry answered with its
 * original's features gets its original's score.
 */
class TransactionScoringTest {

    private static final long AT = 1_735_725_600_000L;

    private OneInputStreamOperatorTestHarness<ArrivalFeatures, TransactionScore> harness;

    @AfterEach
    void close() throws Exception {
        if (harness != null) {
            harness.close();
        }
    }

    private TrailingHarness trailing() throws Exception {
        return TrailingHarness.open(TrailingHarness.spec(Duration.ofMinutes(10), Duration.ZERO));
    }

    private OneInputStreamOperatorTestHarness<ArrivalFeatures, TransactionScore> open(
            ProcessingTimeSource clock, CapturedMetrics metrics) throws Exception {
        TransactionScoring.Spec spec =
                new TransactionScoring.Spec(
                        OnnxTransactionScorer.Factory.of(null, DecisionThresholds.DEFAULT),
                        Duration.ofMinutes(10),
                        Duration.ZERO,
                        3,
                        Duration.ofMillis(5),
                        clock);
        @SuppressWarnings("unchecked")
        var operator =
                (OneInputStreamOperator<ArrivalFeatures, TransactionScore>)
                        ((SimpleOperatorFactory<TransactionScore>)
                                        TrailingHarness.build(spec).scoring().getOperatorFactory())
                                .getOperator();
        harness = new OneInputStreamOperatorTestHarness<>(operator, metrics.environment());
        harness.setup(
                TypeInformation.of(TransactionScore.class)
                        .createSerializer(new SerializerConfigImpl()));
        harness.open();
        return harness;
    }

    /** The answers of the trailing features to a small burst of one user, and a retry. */
    private static List<ArrivalFeatures> answers() throws Exception {
        TrailingHarness t =
                TrailingHarness.open(TrailingHarness.spec(Duration.ofMinutes(10), Duration.ZERO));
        try {
            t.process(arrival(tx("a", "alice", 2_500, AT), AT + 100, AT + 50));
            for (int i = 0; i < 8; i++) {
                t.process(
                        arrival(
                                tx("b" + i, "alice", 60_000 + i, "d" + i, "m" + i, "FR", AT + i),
                                AT + 200 + i,
                                AT + 150 + i));
            }
            t.process(arrival(tx("a", "alice", 2_500, AT), AT + 300, AT + 290)); // retry
            return List.copyOf(t.answers());
        } finally {
            t.close();
        }
    }

    @Test
    void aTransactionWaitsAtMostTheMaximumDelayAndIsCountedAndTimed() throws Exception {
        CapturedMetrics metrics = new CapturedMetrics();
        open(ProcessingTimeSource.WALL_CLOCK, metrics);
        List<ArrivalFeatures> answers = answers();
        harness.setProcessingTime(1_000);
        harness.processElement(new StreamRecord<>(answers.get(0), AT));
        harness.setProcessingTime(1_004);
        assertThat(harness.extractOutputValues()).isEmpty();

        harness.setProcessingTime(1_005);

        assertThat(harness.extractOutputValues())
                .singleElement()
                .satisfies(
                        s -> {
                            assertThat(s.getTransactionId()).isEqualTo("a");
                            assertThat(s.getModelName()).isEqualTo("fraud-transaction");
                            assertThat(s.getDecision()).isEqualTo(Decision.ALLOW);
                            assertThat(s.getScoredAt()).isEqualTo(Instant.ofEpochMilli(1_005));
                            assertThat(s.getRecordTimestamp())
                                    .isEqualTo(Instant.ofEpochMilli(AT + 50));
                            assertThat(s.getFeatures()).isEqualTo(answers.get(0).features);
                        });
        assertThat(harness.extractOutputStreamRecords().get(0).getTimestamp()).isEqualTo(AT);

        // a full batch (3) goes at once; the rest before the checkpoint barrier
        for (ArrivalFeatures a : answers.subList(1, answers.size())) {
            harness.processElement(new StreamRecord<>(a, AT));
        }
        assertThat(harness.extractOutputValues()).hasSize(1 + 9);
        harness.prepareSnapshotPreBarrier(1);
        assertThat(harness.extractOutputValues()).hasSize(answers.size());

        var m = TransactionScoring.METRICS;
        assertThat(metrics.counter(m.scored())).isEqualTo(answers.size());
        assertThat(
                        metrics.counter(m.allow())
                                + metrics.counter(m.review())
                                + metrics.counter(m.block()))
                .isEqualTo(answers.size());
        assertThat(metrics.counter(m.block())).as("the burst on new devices").isPositive();
        assertThat(metrics.histogram(m.latency()).getCount()).isEqualTo(answers.size());
        assertThat(metrics.histogram(m.latency()).getStatistics().getMin())
                .as("wall clock now minus a record timestamp of 2025")
                .isGreaterThan(0);
        assertThat(metrics.histogram(m.batchSize()).getStatistics().getMax()).isEqualTo(3);
        // the same latencies as a job accumulator: every answer, mergeable over subtasks
        Object total =
                harness.getEnvironment()
                        .getAccumulatorRegistry()
                        .getUserMap()
                        .get(m.latency())
                        .getLocalValue();
        assertThat(total).isInstanceOf(LatencyHistogram.Distribution.class);
        LatencyHistogram.Distribution d = (LatencyHistogram.Distribution) total;
        assertThat(d.count()).isEqualTo(answers.size());
        assertThat(d.max())
                .isEqualTo((long) metrics.histogram(m.latency()).getStatistics().getMax());
    }

    @Test
    void aRetryGetsItsOriginalsScoreAndInAReplayScoredAtIsTheArrival() throws Exception {
        open(ProcessingTimeSource.WATERMARK, new CapturedMetrics());
        List<ArrivalFeatures> answers = answers();
        for (ArrivalFeatures a : answers) {
            harness.processElement(new StreamRecord<>(a, AT));
            harness.processWatermark(new Watermark(AT)); // a replay: a watermark per record
        }

        List<TransactionScore> scores = harness.extractOutputValues();
        TransactionScore original = scores.get(0);
        TransactionScore retry = scores.get(scores.size() - 1);
        assertThat(retry.getTransactionId()).isEqualTo("a");
        assertThat(retry.getFeatures()).isEqualTo(original.getFeatures());
        assertThat(retry.getScore()).isEqualTo(original.getScore());
        assertThat(retry.getDecision()).isEqualTo(original.getDecision());
        assertThat(retry.getRecordTimestamp()).isEqualTo(original.getRecordTimestamp());
        assertThat(original.getScoredAt()).isEqualTo(Instant.ofEpochMilli(AT + 100));
        assertThat(retry.getScoredAt()).isEqualTo(Instant.ofEpochMilli(AT + 300));
        assertThat(scores.get(8).getDecision()).isEqualTo(Decision.BLOCK);
    }

    @Test
    void aWindowModelIsRefusedAsThePerTransactionModelNamingTheOption(@TempDir Path dir)
            throws Exception {
        Path windowModel = dir.resolve("window.onnx");
        Files.write(windowModel, OnnxScorer.resourceBytes(OnnxScorer.DEFAULT_MODEL_RESOURCE));

        assertThatThrownBy(
                        () ->
                                OnnxTransactionScorer.Factory.of(
                                                windowModel, DecisionThresholds.DEFAULT)
                                        .check())
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining(windowModel.toString())
                .hasMessageContaining("has 7 feature columns but the layout has 11")
                .hasMessageContaining("--transaction-model takes a per-transaction model");
        assertThatThrownBy(
                        () ->
                                OnnxTransactionScorer.Factory.of(
                                        dir.resolve("missing.onnx"), DecisionThresholds.DEFAULT))
                .hasMessageContaining("check --transaction-model");
    }
}
