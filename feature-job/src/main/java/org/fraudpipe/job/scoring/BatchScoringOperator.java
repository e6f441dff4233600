package org.fraudpipe.job.scoring;

import java.util.ArrayList;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import org.apache.flink.metrics.Histogram;
import org.apache.flink.runtime.metrics.DescriptiveStatisticsHistogram;
import org.apache.flink.streaming.api.operators.AbstractStreamOperator;
import org.apache.flink.streaming.api.operators.OneInputStreamOperator;
import org.apache.flink.streaming.api.watermark.Watermark;
import org.apache.flink.streaming.runtime.streamrecord.StreamRecord;
import org.fraudpipe.job.metrics.Tally;
import org.fraudpipe.job.window.ProcessingTimeSource;
import org.fraudpipe.schemas.avro.Decision;
import org.fraudpipe.schemas.avro.FeatureRecord;
import org.fraudpipe.schemas.avro.ScoreRecord;

/**
 * Scores window panes in batches, inline, chained to the window operator.
 *
 * <p>Why batches: all users' windows close on the same watermark, so window close is a burst of
 * panes, and the model scores a batch of rows far cheaper per row than one row at a time. The
 * window operator emits the whole burst before it forwards that watermark; this operator buffers
 * panes and flushes when the buffer is full ({@code maxBatchSize}), when a watermark arrives (end
 * of a burst), after {@code maxDelayMillis} of processing time (late re-fires arrive between
 * watermarks), before every checkpoint barrier, and at the end of input.
 *
 * <p>Invariants: the buffer is empty whenever a checkpoint is taken (flushed in {@link
 * #prepareSnapshotPreBarrier}), so the operator has no state and exactly-once holds; scores leave
 * in the order panes arrived (FIFO), so the revisions of one window stay in order downstream; each
 * score keeps its pane's stream timestamp; a watermark is forwarded only after every pane before it
 * was scored.
 *
 * <p>Metrics: {@value #SCORED} and, per decision, {@value #DECISIONS_ALLOW}, {@value
 * #DECISIONS_REVIEW}, {@value #DECISIONS_BLOCK} (counters, also accumulators: {@link Tally});
 * {@value #BATCH_SIZE} and {@value #BATCH_MICROS} (histograms of the batches scored).
 */
public final class BatchScoringOperator extends AbstractStreamOperator<ScoreRecord>
        implements OneInputStreamOperator<FeatureRecord, ScoreRecord> {

    private static final long serialVersionUID = 1L;

    public static final String SCORED = "fraudPanesScored";
    public static final String DECISIONS_ALLOW = "fraudDecisionsAllow";
    public static final String DECISIONS_REVIEW = "fraudDecisionsReview";
    public static final String DECISIONS_BLOCK = "fraudDecisionsBlock";
    public static final String BATCH_SIZE = "fraudScoringBatchSize";
    public static final String BATCH_MICROS = "fraudScoringBatchMicros";

    private final PaneScorer.Factory scorerFactory;
    private final int maxBatchSize;
    private final long maxDelayMillis;
    private final ProcessingTimeSource clock;

    /** Tells the scorer to stamp each score with its pane's {@code emittedAt}. */
    public static final long SCORED_AT_EMITTED_AT = Long.MIN_VALUE;

    private transient PaneScorer scorer;
    private transient List<FeatureRecord> panes;
    private transient List<Long> timestamps;
    private transient boolean flushScheduled;
    private transient Tally scored;
    private transient Map<Decision, Tally> decisions;
    private transient Histogram batchSize;
    private transient Histogram batchMicros;

    /**
     * @param clock where {@code scoredAt} comes from: the wall clock, or in a replay the pane's own
     *     {@code emittedAt} (the watermark at its firing), which keeps replays deterministic
     */
    public BatchScoringOperator(
            PaneScorer.Factory scorerFactory,
            int maxBatchSize,
            long maxDelayMillis,
            ProcessingTimeSource clock) {
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
    }

    @Override
    public void open() throws Exception {
        super.open();
        scorer = scorerFactory.create();
        panes = new ArrayList<>(maxBatchSize);
        timestamps = new ArrayList<>(maxBatchSize);
        scored = Tally.register(getRuntimeContext(), getMetricGroup(), SCORED);
        decisions = new EnumMap<>(Decision.class);
        for (Decision d : Decision.values()) {
            decisions.put(
                    d, Tally.register(getRuntimeContext(), getMetricGroup(), decisionMetric(d)));
        }
        batchSize =
                getMetricGroup().histogram(BATCH_SIZE, new DescriptiveStatisticsHistogram(1024));
        batchMicros =
                getMetricGroup().histogram(BATCH_MICROS, new DescriptiveStatisticsHistogram(1024));
    }

    @Override
    public void processElement(StreamRecord<FeatureRecord> element) {
        panes.add(element.getValue());
        timestamps.add(element.hasTimestamp() ? element.getTimestamp() : Long.MIN_VALUE);
        if (panes.size() >= maxBatchSize) {
            flush();
        } else if (!flushScheduled) {
            flushScheduled = true;
            long now = getProcessingTimeService().getCurrentProcessingTime();
            getProcessingTimeService().registerTimer(now + maxDelayMillis, time -> flush());
        }
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
        return switch (decision) {
            case ALLOW -> DECISIONS_ALLOW;
            case REVIEW -> DECISIONS_REVIEW;
            case BLOCK -> DECISIONS_BLOCK;
        };
    }

    private void flush() {
        flushScheduled = false;
        if (panes.isEmpty()) {
            return;
        }
        long start = System.nanoTime();
        List<ScoreRecord> scores =
                scorer.score(
                        panes,
                        clock == ProcessingTimeSource.WALL_CLOCK
                                ? getProcessingTimeService().getCurrentProcessingTime()
                                : SCORED_AT_EMITTED_AT);
        batchMicros.update((System.nanoTime() - start) / 1000);
        batchSize.update(panes.size());
        if (scores.size() != panes.size()) {
            throw new IllegalStateException(
                    "scorer returned " + scores.size() + " scores for " + panes.size() + " panes");
        }
        StreamRecord<ScoreRecord> reuse = new StreamRecord<>(null);
        for (int i = 0; i < scores.size(); i++) {
            long ts = timestamps.get(i);
            decisions.get(scores.get(i).getDecision()).inc();
            if (ts == Long.MIN_VALUE) {
                reuse.eraseTimestamp();
                output.collect(reuse.replace(scores.get(i)));
            } else {
                output.collect(reuse.replace(scores.get(i), ts));
            }
        }
        scored.inc(scores.size());
        panes.clear();
        timestamps.clear();
    }
}
