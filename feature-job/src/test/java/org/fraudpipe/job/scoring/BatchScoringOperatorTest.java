package org.fraudpipe.job.scoring;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentLinkedQueue;
import org.apache.flink.api.common.accumulators.Accumulator;
import org.apache.flink.api.common.serialization.SerializerConfigImpl;
import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.streaming.api.watermark.Watermark;
import org.apache.flink.streaming.runtime.streamrecord.StreamRecord;
import org.apache.flink.streaming.util.OneInputStreamOperatorTestHarness;
import org.fraudpipe.job.testing.CapturedMetrics;
import org.fraudpipe.job.window.ProcessingTimeSource;
import org.fraudpipe.schemas.avro.Decision;
import org.fraudpipe.schemas.avro.FeatureRecord;
import org.fraudpipe.schemas.avro.ScoreRecord;
import org.fraudpipe.schemas.avro.Timing;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

class BatchScoringOperatorTest {

    static final Instant START = Instant.parse("2026-11-28T12:00:00Z");
    static final Instant END = Instant.parse("2026-11-28T12:10:00Z");

    /**
     * Records the batches it is given; scores a pane as txCount / 100, BLOCK from 0.5, REVIEW from
     * 0.1.
     */
    static final class RecordingScorer implements PaneScorer {
        static final List<Integer> BATCHES = new ArrayList<>();

        @Override
        public List<ScoreRecord> score(List<FeatureRecord> panes, long scoredAt) {
            BATCHES.add(panes.size());
            List<ScoreRecord> out = new ArrayList<>();
            for (FeatureRecord f : panes) {
                out.add(
                        new ScoreRecord(
                                f.getUserId(),
                                f.getWindowStart(),
                                f.getWindowEnd(),
                                f,
                                f.getTxCount() / 100.0,
                                f.getTxCount() >= 50
                                        ? Decision.BLOCK
                                        : f.getTxCount() >= 10 ? Decision.REVIEW : Decision.ALLOW,
                                "test",
                                "1",
                                f.getRevision(),
                                f.getTiming(),
                                scoredAt == BatchScoringOperator.SCORED_AT_EMITTED_AT
                                        ? f.getEmittedAt()
                                        : Instant.ofEpochMilli(scoredAt),
                                null));
            }
            return out;
        }

        @Override
        public void close() {}
    }

    static final class RecordingFactory implements PaneScorer.Factory {
        @Override
        public PaneScorer create(org.fraudpipe.job.scoring.ScorerContext context) {
            return new RecordingScorer();
        }

        @Override
        public void validate() {}
    }

    static FeatureRecord pane(String user, long txCount, int revision) {
        return new FeatureRecord(
                user,
                START,
                END,
                txCount,
                100L * txCount,
                100L,
                1,
                1,
                1,
                revision,
                revision == 0 ? Timing.ON_TIME : Timing.LATE,
                revision,
                END.plusSeconds(5 + revision),
                END.minusMillis(1));
    }

    private OneInputStreamOperatorTestHarness<FeatureRecord, ScoreRecord> harness;

    private OneInputStreamOperatorTestHarness<FeatureRecord, ScoreRecord> open(
            int batch, long delay, ProcessingTimeSource clock) throws Exception {
        return open(batch, delay, clock, new CapturedMetrics());
    }

    private OneInputStreamOperatorTestHarness<FeatureRecord, ScoreRecord> open(
            int batch, long delay, ProcessingTimeSource clock, CapturedMetrics metrics)
            throws Exception {
        RecordingScorer.BATCHES.clear();
        harness =
                new OneInputStreamOperatorTestHarness<>(
                        BatchScoringOperator.panes(new RecordingFactory(), batch, delay, clock),
                        metrics.environment());
        harness.setup(
                TypeInformation.of(ScoreRecord.class).createSerializer(new SerializerConfigImpl()));
        harness.open();
        return harness;
    }

    /** Runs the mails the operator queued, as the task's mailbox loop does between two inputs. */
    private void runMails() throws Exception {
        java.util.Optional<org.apache.flink.streaming.runtime.tasks.mailbox.Mail> mail;
        while ((mail =
                        harness.getTaskMailbox()
                                .tryTake(
                                        org.apache.flink.streaming.runtime.tasks.mailbox.TaskMailbox
                                                .MIN_PRIORITY))
                .isPresent()) {
            mail.get().run();
        }
    }

    @AfterEach
    void close() throws Exception {
        if (harness != null) {
            harness.close();
        }
    }

    @Test
    void aBurstOfPanesIsScoredAsOneBatchBeforeTheWatermarkPasses() throws Exception {
        open(1000, 60_000, ProcessingTimeSource.WALL_CLOCK);
        harness.processElement(new StreamRecord<>(pane("a", 1, 0), 10));
        harness.processElement(new StreamRecord<>(pane("b", 2, 0), 10));
        harness.processElement(new StreamRecord<>(pane("c", 3, 0), 10));
        assertThat(harness.getOutput()).isEmpty();

        harness.processWatermark(new Watermark(END.toEpochMilli()));

        ConcurrentLinkedQueue<Object> out = harness.getOutput();
        assertThat(out).hasSize(4);
        assertThat(out.toArray()[3]).isEqualTo(new Watermark(END.toEpochMilli()));
        assertThat(harness.extractOutputValues())
                .extracting(ScoreRecord::getUserId, ScoreRecord::getScore)
                .containsExactly(
                        org.assertj.core.groups.Tuple.tuple("a", 0.01),
                        org.assertj.core.groups.Tuple.tuple("b", 0.02),
                        org.assertj.core.groups.Tuple.tuple("c", 0.03));
        assertThat(harness.extractOutputStreamRecords()).allMatch(r -> r.getTimestamp() == 10);
        assertThat(RecordingScorer.BATCHES).containsExactly(3);
    }

    @Test
    void panesAreCountedPerDecisionAsMetricsAndAccumulators() throws Exception {
        CapturedMetrics metrics = new CapturedMetrics();
        open(1000, 60_000, ProcessingTimeSource.WALL_CLOCK, metrics);
        harness.processElement(new StreamRecord<>(pane("a", 1, 0), 10));
        harness.processElement(new StreamRecord<>(pane("b", 2, 0), 10));
        harness.processElement(new StreamRecord<>(pane("c", 20, 0), 10));
        harness.processElement(new StreamRecord<>(pane("d", 70, 0), 10));
        harness.processWatermark(new Watermark(END.toEpochMilli()));

        Map<String, Long> expected =
                Map.of(
                        BatchScoringOperator.SCORED, 4L,
                        BatchScoringOperator.DECISIONS_ALLOW, 2L,
                        BatchScoringOperator.DECISIONS_REVIEW, 1L,
                        BatchScoringOperator.DECISIONS_BLOCK, 1L);
        Map<String, Accumulator<?, ?>> accumulators =
                harness.getEnvironment().getAccumulatorRegistry().getUserMap();
        expected.forEach(
                (name, count) -> {
                    assertThat(metrics.counter(name)).as("metric %s", name).isEqualTo(count);
                    assertThat(accumulators.get(name).getLocalValue())
                            .as("accumulator %s", name)
                            .isEqualTo(count);
                });
    }

    @Test
    void aFullBufferIsScoredAtOnce() throws Exception {
        open(2, 60_000, ProcessingTimeSource.WALL_CLOCK);
        for (int i = 0; i < 5; i++) {
            harness.processElement(new StreamRecord<>(pane("u" + i, i, 0), i));
        }
        assertThat(RecordingScorer.BATCHES).containsExactly(2, 2);
        assertThat(harness.extractOutputValues()).hasSize(4);
    }

    @Test
    void aLateRefireBetweenWatermarksIsScoredAfterTheDelayInRevisionOrder() throws Exception {
        open(1000, 50, ProcessingTimeSource.WALL_CLOCK);
        harness.setProcessingTime(1_000);
        harness.processElement(new StreamRecord<>(pane("a", 1, 1), 10));
        harness.processElement(new StreamRecord<>(pane("a", 2, 2), 10));
        harness.setProcessingTime(1_049);
        assertThat(harness.extractOutputValues()).isEmpty();

        harness.setProcessingTime(1_050);

        assertThat(harness.extractOutputValues())
                .extracting(ScoreRecord::getRevision, ScoreRecord::getScoredAt)
                .containsExactly(
                        org.assertj.core.groups.Tuple.tuple(1, Instant.ofEpochMilli(1_050)),
                        org.assertj.core.groups.Tuple.tuple(2, Instant.ofEpochMilli(1_050)));
    }

    @Test
    void whenIdleTheBufferIsScoredOnceTheTaskIsBackInItsMailboxNotAfterTheDelay() throws Exception {
        RecordingScorer.BATCHES.clear();
        harness =
                new OneInputStreamOperatorTestHarness<>(
                        new BatchScoringOperator<>(
                                new RecordingFactory(),
                                1000,
                                60_000,
                                ProcessingTimeSource.WALL_CLOCK,
                                BatchScoringOperator.MetricNames.PANES,
                                BatchScoringOperator.Flush.WHEN_IDLE),
                        new CapturedMetrics().environment());
        harness.setup(
                TypeInformation.of(ScoreRecord.class).createSerializer(new SerializerConfigImpl()));
        harness.open();
        harness.setProcessingTime(1_000);

        // Two records handed over in one go (before the task is back in its mailbox): one batch.
        harness.processElement(new StreamRecord<>(pane("a", 1, 0), 10));
        harness.processElement(new StreamRecord<>(pane("b", 2, 0), 10));
        assertThat(harness.extractOutputValues()).isEmpty();
        runMails();
        assertThat(harness.extractOutputValues())
                .extracting(ScoreRecord::getUserId, ScoreRecord::getScoredAt)
                .containsExactly(
                        org.assertj.core.groups.Tuple.tuple("a", Instant.ofEpochMilli(1_000)),
                        org.assertj.core.groups.Tuple.tuple("b", Instant.ofEpochMilli(1_000)));

        // The next record alone, at once: the processing time has not moved, no delay was waited.
        harness.processElement(new StreamRecord<>(pane("c", 3, 0), 10));
        runMails();
        assertThat(harness.extractOutputValues()).hasSize(3);
        assertThat(RecordingScorer.BATCHES).containsExactly(2, 1);

        // The delay's timer, when it comes, finds nothing left to score.
        harness.setProcessingTime(61_000);
        assertThat(RecordingScorer.BATCHES).containsExactly(2, 1);
    }

    @Test
    void theBufferIsEmptiedBeforeACheckpointSoTheOperatorHasNoState() throws Exception {
        open(1000, 60_000, ProcessingTimeSource.WALL_CLOCK);
        harness.processElement(new StreamRecord<>(pane("a", 1, 0), 10));

        harness.prepareSnapshotPreBarrier(1);

        assertThat(harness.extractOutputValues()).hasSize(1);
        assertThat(harness.snapshot(1, 1).getManagedOperatorState()).isEmpty();
    }

    @Test
    void inAReplayScoresAreStampedWithThePanesEmitTime() throws Exception {
        open(1000, 60_000, ProcessingTimeSource.WATERMARK);
        harness.processElement(new StreamRecord<>(pane("a", 1, 0), 10));
        harness.processWatermark(new Watermark(END.toEpochMilli()));
        assertThat(harness.extractOutputValues().get(0).getScoredAt())
                .isEqualTo(END.plusSeconds(5));
    }
}
