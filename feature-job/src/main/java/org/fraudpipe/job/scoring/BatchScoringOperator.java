package org.fraudpipe.job.scoring;

import java.io.Serializable;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import org.apache.flink.api.common.operators.MailboxExecutor;
import org.apache.flink.metrics.Histogram;
import org.apache.flink.runtime.metrics.DescriptiveStatisticsHistogram;
import org.apache.flink.streaming.api.operators.AbstractStreamOperator;
import org.apache.flink.streaming.api.operators.OneInputStreamOperator;
import org.apache.flink.streaming.api.watermark.Watermark;
import org.apache.flink.streaming.runtime.streamrecord.StreamRecord;
import org.fraudpipe.job.metrics.LatencyHistogram;
import org.fraudpipe.job.metrics.Tally;
import org.fraudpipe.job.window.ProcessingTimeSource;
import org.fraudpipe.schemas.avro.Decision;
import org.fraudpipe.schemas.avro.FeatureRecord;
import org.fraudpipe.schemas.avro.ScoreRecord;

/**
 * Scores records in batches, inline, chained to the operator that produces them: window panes after
 * the window operator ({@link #panes}), transactions after the trailing features of the
 * per-transaction path ({@code TransactionScoring}).
 *
 * <p>Why batches: all users' windows close on the same watermark, so window close is a burst of
 * panes, and the model scores a batch of rows far cheaper per row than one row at a time. The
 * window operator emits the whole burst before it forwards that watermark; this operator buffers
 * its input and flushes when the buffer is full ({@code maxBatchSize}), when a watermark arrives
 * (end of a burst), after {@code maxDelayMillis} of processing time since the first buffered record
 * (late re-fires arrive between watermarks), before every checkpoint barrier, and at the end of
 * input.
 *
 * <p>{@link Flush#WHEN_IDLE} (the per-transaction path, live): the buffer is also flushed as soon
 * as the task comes back to its mailbox, that is once the record in hand (and whatever the
 * operators before this one emitted with it) has been processed and before the task takes the next
 * input. {@code maxDelayMillis} is then an upper bound, not a wait: a transaction is scored the
 * moment nothing else is in the task's hands, which on the live path means alone (a model call of
 * one row costs a few microseconds more than a share of a batch; a wait of milliseconds is what
 * authorization cannot spare). Replays keep {@link Flush#WHEN_DUE} and so their batches.
 *
 * <p>Invariants: the buffer is empty whenever a checkpoint is taken (flushed in {@link
 * #prepareSnapshotPreBarrier}), so the operator has no state and exactly-once holds; scores leave
 * in the order their inputs arrived (FIFO), so the revisions of one window stay in order
 * downstream; each score keeps its input's stream timestamp; a watermark is forwarded only after
 * every record before it was scored.
 *
 * <p>Metrics ({@link MetricNames}; {@link MetricNames#PANES} for panes): the records scored and,
 * per decision, counters that are also accumulators ({@link Tally}); histograms of the batch sizes
 * and of the model call's time; and, where the scorer knows the Kafka record timestamp of an input
 * ({@link BatchScorer#recordTimestampOf}), a histogram of the latency from that timestamp to the
 * moment the score is handed to the next operator (the sink), wall-clock milliseconds: as a metric
 * (Flink's sampling histogram over this subtask's last 10,000 scores: percentiles live, per
 * subtask) and, under the same name, as a job accumulator ({@link LatencyHistogram}: every score of
 * the run, merged exactly over subtasks; what {@code ./fraud demo} and {@code ./fraud bench}
 * report).
 */
public final class BatchScoringOperator<I, O> extends AbstractStreamOperator<O>
        implements OneInputStreamOperator<I, O> {

    private static final long serialVersionUID = 1L;

    public static final String SCORED = "fraudPanesScored";
    public static final String DECISIONS_ALLOW = "fraudDecisionsAllow";
    public static final String DECISIONS_REVIEW = "fraudDecisionsReview";
    public static final String DECISIONS_BLOCK = "fraudDecisionsBlock";
    public static final String BATCH_SIZE = "fraudScoringBatchSize";
    public static final String BATCH_MICROS = "fraudScoringBatchMicros";

    /** When a partly filled batch is scored (besides full, watermark, checkpoint, end of input). */
    public enum Flush {
        /** After {@code maxDelayMillis} since its first record: batches form between watermarks. */
        WHEN_DUE,
        /**
         * As soon as the task returns to its mailbox (no further input in hand), and after {@code
         * maxDelayMillis} at the latest.
         */
        WHEN_IDLE
    }

    /**
     * The metric names of one scoring stage.
     *
     * @param latency the latency histogram, or null for none
     */
    public record MetricNames(
            String scored,
            String allow,
            String review,
            String block,
            String batchSize,
            String batchMicros,
            String latency)
            implements Serializable {

        /** The window path's names. */
        public static final MetricNames PANES =
                new MetricNames(
                        SCORED,
                        DECISIONS_ALLOW,
                        DECISIONS_REVIEW,
                        DECISIONS_BLOCK,
                        BATCH_SIZE,
                        BATCH_MICROS,
                        null);

        /** The counter of records scored with {@code decision}. */
        public String decision(Decision decision) {
            return switch (decision) {
                case ALLOW -> allow;
                case REVIEW -> review;
                case BLOCK -> block;
            };
        }
    }

    private final BatchScorer.Factory<I, O> scorerFactory;
    private final int maxBatchSize;
    private final long maxDelayMillis;
    private final ProcessingTimeSource clock;
    private final MetricNames names;
    private final Flush flushPolicy;

    /** Tells the scorer to stamp each score with its input's own deterministic time. */
    public static final long SCORED_AT_EMITTED_AT = Long.MIN_VALUE;

    private transient BatchScorer<I, O> scorer;
    private transient List<I> buffer;
    private transient List<Long> timestamps;
    private transient boolean flushScheduled;
    private transient boolean idleFlushQueued;
    private transient MailboxExecutor mailbox;
    private transient Tally scored;
    private transient Map<Decision, Tally> decisions;
    private transient Histogram batchSize;
    private transient Histogram batchMicros;
    private transient Histogram latency;
    private transient LatencyHistogram latencyTotal;

    /**
     * @param clock where {@code scoredAt} comes from: the wall clock, or in a replay each input's
     *     own deterministic time (a pane's {@code emittedAt}, the watermark at its firing), which
     *     keeps replays deterministic
     * @param names the stage's metric names
     * @param flushPolicy when a partly filled batch is scored
     */
    public BatchScoringOperator(
            BatchScorer.Factory<I, O> scorerFactory,
            int maxBatchSize,
            long maxDelayMillis,
            ProcessingTimeSource clock,
            MetricNames names,
            Flush flushPolicy) {
        if (maxBatchSize < 1) {
            throw new IllegalArgumentException("scoring batch size must be at least 1");
        }
        if (maxDelayMillis < 0) {
            throw new IllegalArgumentException("scoring batch delay must not be negative");
        }
        this.scorerFactory = scorerFactory;
        this.maxBatchSize = maxBatchSize;
        this.maxDelayMillis = maxDelayMillis;
        this.clock = clock;
        this.names = names;
        this.flushPolicy = flushPolicy;
    }

    /** The window path's scoring of panes, with its metric names ({@link MetricNames#PANES}). */
    public static BatchScoringOperator<FeatureRecord, ScoreRecord> panes(
            PaneScorer.Factory scorerFactory,
            int maxBatchSize,
            long maxDelayMillis,
            ProcessingTimeSource clock) {
        return new BatchScoringOperator<>(
                scorerFactory,
                maxBatchSize,
                maxDelayMillis,
                clock,
                MetricNames.PANES,
                Flush.WHEN_DUE);
    }

    @Override
    public void open() throws Exception {
        super.open();
        scorer = scorerFactory.create(ScorerContext.of(getRuntimeContext(), getMetricGroup()));
        buffer = new ArrayList<>(maxBatchSize);
        timestamps = new ArrayList<>(maxBatchSize);
        if (flushPolicy == Flush.WHEN_IDLE) {
            // Mails of this executor run between two inputs of the task (Flink's mailbox model).
            mailbox =
                    getContainingTask()
                            .getMailboxExecutorFactory()
                            .createExecutor(getOperatorConfig().getChainIndex());
        }
        scored = Tally.register(getRuntimeContext(), getMetricGroup(), names.scored());
        decisions = new EnumMap<>(Decision.class);
        for (Decision d : Decision.values()) {
            decisions.put(
                    d, Tally.register(getRuntimeContext(), getMetricGroup(), names.decision(d)));
        }
        batchSize =
                getMetricGroup()
                        .histogram(names.batchSize(), new DescriptiveStatisticsHistogram(1024));
        batchMicros =
                getMetricGroup()
                        .histogram(names.batchMicros(), new DescriptiveStatisticsHistogram(1024));
        latency =
                names.latency() == null
                        ? null
                        : getMetricGroup()
                                .histogram(
                                        names.latency(),
                                        new DescriptiveStatisticsHistogram(10_000));
        latencyTotal = names.latency() == null ? null : latencyAccumulator(names.latency());
    }

    /** The task's latency accumulator named {@code name}, registered on first use. */
    private LatencyHistogram latencyAccumulator(String name) {
        Object existing = getRuntimeContext().getAccumulator(name);
        if (existing instanceof LatencyHistogram h) {
            return h;
        }
        LatencyHistogram created = new LatencyHistogram();
        getRuntimeContext().addAccumulator(name, created);
        return created;
    }

    @Override
    public void processElement(StreamRecord<I> element) {
        buffer.add(element.getValue());
        timestamps.add(element.hasTimestamp() ? element.getTimestamp() : Long.MIN_VALUE);
        if (buffer.size() >= maxBatchSize) {
            flush();
            return;
        }
        if (!flushScheduled) {
            flushScheduled = true;
            long now = getProcessingTimeService().getCurrentProcessingTime();
            getProcessingTimeService().registerTimer(now + maxDelayMillis, time -> flush());
        }
        if (mailbox != null && !idleFlushQueued) {
            idleFlushQueued = true;
            mailbox.execute(this::flushWhenIdle, "score the buffered records");
        }
    }

    /** The mail of {@link Flush#WHEN_IDLE}: whatever is buffered by now is scored. */
    private void flushWhenIdle() {
        idleFlushQueued = false;
        flush();
    }

    @Override
    public void processWatermark(Watermark mark) throws Exception {
        flush();
        super.processWatermark(mark);
    }

    @Override
    public void prepareSnapshotPreBarrier(long checkpointId) throws Exception {
        flush();
        super.prepareSnapshotPreBarrier(checkpointId);
    }

    @Override
    public void finish() throws Exception {
        flush();
        super.finish();
    }

    @Override
    public void close() throws Exception {
        try {
            if (scorer != null) {
                scorer.close();
            }
        } finally {
            super.close();
        }
    }

    /** The name of the counter of panes scored with {@code decision}. */
    public static String decisionMetric(Decision decision) {
        return MetricNames.PANES.decision(decision);
    }

    private void flush() {
        flushScheduled = false;
        if (buffer.isEmpty()) {
            return;
        }
        long start = System.nanoTime();
        List<O> scores =
                scorer.score(
                        buffer,
                        clock == ProcessingTimeSource.WALL_CLOCK
                                ? getProcessingTimeService().getCurrentProcessingTime()
                                : SCORED_AT_EMITTED_AT);
        batchMicros.update((System.nanoTime() - start) / 1000);
        batchSize.update(buffer.size());
        if (scores.size() != buffer.size()) {
            throw new IllegalStateException(
                    "scorer returned "
                            + scores.size()
                            + " scores for "
                            + buffer.size()
                            + " records");
        }
        // The scores are handed to the sink now: one wall-clock reading for the batch.
        long handedOver = latency == null ? 0 : System.currentTimeMillis();
        StreamRecord<O> reuse = new StreamRecord<>(null);
        for (int i = 0; i < scores.size(); i++) {
            long ts = timestamps.get(i);
            O score = scores.get(i);
            decisions.get(scorer.decisionOf(score)).inc();
            if (latency != null) {
                long recorded = scorer.recordTimestampOf(buffer.get(i));
                if (recorded != BatchScorer.NO_TIMESTAMP) {
                    long millis = Math.max(0, handedOver - recorded);
                    latency.update(millis);
                    latencyTotal.record(millis);
                }
            }
            if (ts == Long.MIN_VALUE) {
                reuse.eraseTimestamp();
                output.collect(reuse.replace(score));
            } else {
                output.collect(reuse.replace(score, ts));
            }
        }
        scored.inc(scores.size());
        buffer.clear();
        timestamps.clear();
    }
}
