package org.fraudpipe.tools.demo;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.time.Instant;
import java.util.Map;
import java.util.OptionalLong;
import org.fraudpipe.job.ingest.IngestRouter;
import org.fraudpipe.job.metrics.LatencyHistogram;
import org.fraudpipe.job.scoring.BatchScoringOperator;
import org.fraudpipe.job.topology.PaneMetrics;
import org.fraudpipe.job.transaction.TransactionScoring;
import org.fraudpipe.job.window.TooLateRecordFunction;
import org.junit.jupiter.api.Test;

class ProgressTest {

    static final long NOON = Instant.parse("2026-11-28T12:00:00Z").toEpochMilli();

    /** 1000 latencies: 1 ms x 500, 4 ms x 490, 20 ms x 9, 80 ms x 1. */
    static LatencyHistogram.Distribution latencies() {
        LatencyHistogram h = new LatencyHistogram();
        for (int i = 0; i < 1000; i++) {
            h.record(i < 500 ? 1 : i < 990 ? 4 : i < 999 ? 20 : 80);
        }
        return h.getLocalValue();
    }

    @Test
    void aLineShowsEveryCounterOfTheJobByItsAccumulator() {
        var tx = TransactionScoring.METRICS;
        Map<String, Object> accumulators =
                Map.ofEntries(
                        Map.entry(tx.scored(), 1000L),
                        Map.entry(tx.allow(), 990L),
                        Map.entry(tx.review(), 7L),
                        Map.entry(tx.block(), 3L),
                        Map.entry(tx.latency(), latencies()),
                        Map.entry(IngestRouter.RECORDS_IN, 90L),
                        Map.entry(IngestRouter.RECORDS_VALID, 84L),
                        Map.entry(IngestRouter.RECORDS_DEAD_LETTERED, 2L),
                        Map.entry(IngestRouter.RECORDS_QUARANTINED, 3L),
                        Map.entry(TooLateRecordFunction.TOO_LATE_RECORDS_METRIC, 4L),
                        Map.entry(PaneMetrics.WINDOWS_FIRED, 40L),
                        Map.entry(PaneMetrics.LATE_REFIRES, 6L),
                        Map.entry(BatchScoringOperator.SCORED, 46L),
                        Map.entry(BatchScoringOperator.DECISIONS_ALLOW, 43L),
                        Map.entry(BatchScoringOperator.DECISIONS_REVIEW, 2L),
                        Map.entry(BatchScoringOperator.DECISIONS_BLOCK, 1L));

        String line =
                Progress.line(
                        "0:42",
                        100,
                        Progress.Counters.of(accumulators),
                        12.4,
                        OptionalLong.of(NOON),
                        NOON + 6_000,
                        60);

        assertThat(line)
                .isEqualTo(
                        "0:42 | sent 100 | in 90 (12/s) | wm 12:00:00, lag 6s (0.1 s wall)"
                                + " | windows 40 | re-fires 6 | too late 4 | quarantined 3"
                                + " | dead letters 2 | scores 46: allow 43, review 2, block 1"
                                + " | tx scores 1000: allow 990, review 7, block 3"
                                + " | latency p50 1 ms, p99 4 ms, p99.9 20 ms");
        assertThat(Progress.transactionSummary(Progress.Counters.of(accumulators)))
                .isEqualTo(
                        "  scores at arrival: 1000 transactions scored (allow 990, review 7, block"
                                + " 3); from the Kafka timestamp to the sink p50 1 ms, p99 4 ms,"
                                + " p99.9 20 ms, max 80 ms over 1000 scores");
    }

    @Test
    void beforeTheFirstTransactionScoreThereIsNoLatency() {
        assertThat(Progress.latency(LatencyHistogram.Distribution.EMPTY)).isEqualTo("-");
        assertThat(Progress.transactionSummary(Progress.Counters.NONE))
                .endsWith("from the Kafka timestamp to the sink not measured (no score)");
    }

    @Test
    void countersAbsentFromTheJobAreZero() {
        assertThat(Progress.Counters.of(Map.of())).isEqualTo(Progress.Counters.NONE);
    }

    @Test
    void theWatermarkIsUnknownBeforeTheFirstAndTheEndOfTimeAfterDraining() {
        assertThat(Progress.watermark(OptionalLong.empty(), NOON, 60)).isEqualTo("-");
        assertThat(Progress.watermark(OptionalLong.of(Long.MIN_VALUE), NOON, 60)).isEqualTo("-");
        assertThat(Progress.watermark(OptionalLong.of(Long.MAX_VALUE), NOON, 60))
                .isEqualTo("end of time (drained)");
        assertThat(Progress.watermark(OptionalLong.of(NOON), NOON + 125_000, 1))
                .isEqualTo("12:00:00, lag 2m05s");
        assertThat(Progress.watermark(OptionalLong.of(NOON), Long.MIN_VALUE, 60))
                .isEqualTo("12:00:00");
    }

    @Test
    void theRateIsRecordsInPerSecondOverTheLastFiveSeconds() {
        Progress progress = new Progress();
        long s = 1_000_000_000L;
        assertThat(progress.rate(0, 0)).isZero();
        assertThat(progress.rate(s, 50)).isEqualTo(50.0);
        assertThat(progress.rate(2 * s, 150)).isEqualTo(75.0);
        // After more than five seconds the oldest polls no longer count.
        progress.rate(6 * s, 450);
        assertThat(progress.rate(8 * s, 650)).isEqualTo((650 - 150) / 6.0);
    }

    @Test
    void durationsAreShortAndReadable() {
        assertThat(Progress.human(850)).isEqualTo("850ms");
        assertThat(Progress.human(7_400)).isEqualTo("7s");
        assertThat(Progress.human(125_000)).isEqualTo("2m05s");
        assertThat(Progress.human(3_720_000)).isEqualTo("1h02m");
        assertThat(Progress.human(-3_000)).isEqualTo("-3s");
        assertThat(Progress.elapsed(Duration.ofSeconds(62))).isEqualTo("1:02");
        assertThat(Progress.elapsed(Duration.ofSeconds(3723))).isEqualTo("1:02:03");
    }
}
