package org.fraudpipe.job.window;

import java.time.Instant;
import java.util.List;
import java.util.Objects;
import org.apache.flink.api.common.functions.OpenContext;
import org.apache.flink.api.common.state.ListState;
import org.apache.flink.api.common.state.ListStateDescriptor;
import org.apache.flink.api.common.state.MapState;
import org.apache.flink.api.common.state.MapStateDescriptor;
import org.apache.flink.api.common.typeinfo.Types;
import org.apache.flink.api.common.typeutils.base.LongSerializer;
import org.apache.flink.runtime.state.FunctionInitializationContext;
import org.apache.flink.runtime.state.FunctionSnapshotContext;
import org.apache.flink.streaming.api.TimerService;
import org.apache.flink.streaming.api.checkpoint.CheckpointedFunction;
import org.apache.flink.streaming.api.functions.KeyedProcessFunction;
import org.apache.flink.util.Collector;
import org.apache.flink.util.OutputTag;
import org.fraudpipe.job.features.FeatureAggregator;
import org.fraudpipe.job.features.FeatureValues;
import org.fraudpipe.job.features.WindowAssignment;
import org.fraudpipe.schemas.avro.FeatureRecord;
import org.fraudpipe.schemas.avro.Timing;
import org.fraudpipe.schemas.avro.Transaction;

/**
 * The feature window: per user, tumbling event-time windows with allowed lateness, aggregated
 * incrementally by the feature core ({@link FeatureAggregator}), one pane per firing, too-late
 * records to a side output. Same windows, firings and panes as Flink's {@code WindowOperator} with
 * an event-time trigger and allowed lateness (the semantics, to the millisecond, are in the package
 * documentation), with a third of its state work per window.
 *
 * <p>State, per user: one {@link MapState} entry per live window, keyed by the window's start
 * ({@link #WINDOWS_STATE}), holding a {@link WindowPane}: the accumulator and the pane bookkeeping
 * together. Timers: one event-time timer per window at a time, at {@code end - 1} (registered with
 * the window's first record) and then at the cleanup time {@code end - 1 + allowedLateness}
 * (registered at the first firing). A record costs one state read and one write; a window's on-time
 * firing one read, a late re-firing one read and one write, its cleanup one delete.
 *
 * <p><b>Panes that have not fired are held in the heap too</b> ({@link UnfiredPanes}, bounded,
 * write-through): every change is still written to state, but the reads of a pane between its first
 * record and its on-time firing, the firing's own read included, find the object last written
 * without a state read (with RocksDB: a lookup and the pane's deserialization). A window with its
 * records close together in processing time, as in a replay or a catch-up, then costs a read, a
 * write and a delete. The copy is never checkpointed (the state is the truth), so restores and
 * rescales are unchanged. Measured with RocksDB in docs/BENCHMARKS.md ("Round 3, second lever").
 *
 * <p><b>The on-time firing is not written back (window state format 3).</b> Whether a window fired
 * on time follows from the watermark: its timer at {@code end - 1} fired exactly when the watermark
 * reached it, and every other change of a pane is written. So a stored pane that says {@code
 * NOT_FIRED} while the watermark is at or past {@code end - 1} is the ON_TIME pane with all its
 * records, and is settled so when next read ({@link WindowPane#settleOnTimeFiring}). After a
 * restore the watermark starts over (below): the restored watermark decides instead, since a
 * window's firing before the checkpoint means the checkpoint's watermark had passed its {@code end
 * - 1}; and a window that gets its first record after the restore although its firing time passed
 * before the checkpoint fires at once as LATE, as the run without the failure would have, so that
 * no unfired pane is ever stored past that time. Saved one of the five state operations per window:
 * +7-8 % events per CPU-second with RocksDB at 1M and 5M events (docs/BENCHMARKS.md, "Round 3").
 * Builds that read only state format 2 refuse format 3 at restore (the accumulator serializer's
 * snapshot names both), so they never read a skipped firing as no firing.
 *
 * <p>Why not {@code WindowOperator} (the first release's operator, {@code Uids.FEATURE_WINDOW_V1}):
 * per window it kept three entries (window contents, pane progress, late-firing flag: ~4 reads, 2
 * writes and 3 deletes besides the per-record read-add-write) and two timers touched on every
 * record, and the window task is the job's bottleneck. A window function cannot write into the
 * aggregate's entry, so the pane bookkeeping could not share it there. Measured: +23 % events per
 * CPU-second end to end with RocksDB (docs/BENCHMARKS.md, "What each change bought").
 *
 * <p>Timer timestamps say which window they are for: {@code t} fires the window whose last
 * timestamp is {@code t} and drops the window whose cleanup time is {@code t} (both, when the
 * lateness is a multiple of the size). The function relies on its input's timestamps ({@code
 * ctx.timestamp()}), assigned by the source's watermark strategy.
 *
 * <p><b>A dropped window never comes back, across restores.</b> Flink does not checkpoint
 * watermarks: after a restore the operator's watermark starts over from nothing, and a record for a
 * window whose state was already dropped would look on time and open a new revision-0 pane, which
 * would overwrite the window's final value downstream (an upsert reader keeps the last record per
 * key). So the operator keeps in operator state ({@value #WATERMARK_STATE}, union list state) the
 * highest watermark each subtask saw, and after a restore takes the highest of them as {@code
 * restoredWatermark}: a record whose window has no state and whose cleanup time is not after it is
 * too late, exactly as it was before the failure. Why the highest, across subtasks: a window is
 * dropped only in {@link #onTimer} at its cleanup time, which the subtask that dropped it had seen,
 * so every dropped window's cleanup time is at most the restored value, whatever the parallelism
 * and key groups after the restore. It never judges a record more harshly than the run without a
 * failure would have: with aligned checkpoints every subtask has the same watermark at a barrier
 * (the watermarks before it on every input channel), the values kept are at most that one, and
 * every record replayed after the restore came after the barrier. A window that still has state is
 * live whatever the restored value says (its cleanup timer is restored with it) and counts its
 * records. Subtasks that saw no watermark (idle, or more subtasks than partitions) keep {@code
 * Long.MIN_VALUE}, which the maximum ignores.
 */
public final class FeatureWindowFunction
        extends KeyedProcessFunction<String, Transaction, FeatureRecord>
        implements CheckpointedFunction {

    private static final long serialVersionUID = 1L;

    /** Name of the per-user map state: window start (epoch millis) to {@link WindowPane}. */
    public static final String WINDOWS_STATE = "feature-windows";

    /** Name of the operator (union list) state: the highest watermark each subtask saw. */
    public static final String WATERMARK_STATE = "feature-windows-watermark";

    private final FeatureWindowSpec spec;
    private final OutputTag<Transaction> tooLate;
    private final FeatureAggregator aggregator = new FeatureAggregator();
    private final WindowAssignment assignment;
    private final long lateness;
    private final int heldPanes;
    private transient MapState<Long, WindowPane> windows;
    private transient ListState<Long> watermarkState;

    /** The panes written and not fired yet, held in the heap to fire without a state read. */
    private transient UnfiredPanes unfired;

    /** The highest watermark any subtask had seen at the restored checkpoint; MIN without one. */
    private transient long restoredWatermark;

    /** The highest watermark this subtask has seen (in an element or a timer). */
    private transient long seenWatermark;

    /**
     * @param spec window size, allowed lateness, the source of {@code emittedAt}
     * @param tooLate where records too late for their window go, unchanged
     * @param heldPanes most panes held in the heap between their last write and their on-time
     *     firing ({@link UnfiredPanes}; 0: none)
     */
    public FeatureWindowFunction(
            FeatureWindowSpec spec, OutputTag<Transaction> tooLate, int heldPanes) {
        this.spec = Objects.requireNonNull(spec, "spec");
        if (heldPanes < 0) {
            throw new IllegalArgumentException("heldPanes must be >= 0, got " + heldPanes);
        }
        this.heldPanes = heldPanes;
        this.tooLate = Objects.requireNonNull(tooLate, "tooLate");
        this.assignment = spec.assignment();
        this.lateness = spec.allowedLateness().toMillis();
    }

    /** The state's descriptor (also for tools that read or write savepoints of this operator). */
    public static MapStateDescriptor<Long, WindowPane> windowsDescriptor() {
        return new MapStateDescriptor<>(
                WINDOWS_STATE, LongSerializer.INSTANCE, WindowPaneSerializer.INSTANCE);
    }

    @Override
    public void initializeState(FunctionInitializationContext context) throws Exception {
        watermarkState =
                context.getOperatorStateStore()
                        .getUnionListState(new ListStateDescriptor<>(WATERMARK_STATE, Types.LONG));
        restoredWatermark = Long.MIN_VALUE;
        if (context.isRestored()) {
            for (Long w : watermarkState.get()) {
                restoredWatermark = Math.max(restoredWatermark, w);
            }
        }
        seenWatermark = Long.MIN_VALUE;
    }

    @Override
    public void snapshotState(FunctionSnapshotContext context) throws Exception {
        watermarkState.update(List.of(Math.max(seenWatermark, restoredWatermark)));
    }

    @Override
    public void open(OpenContext openContext) {
        windows = getRuntimeContext().getMapState(windowsDescriptor());
        unfired = new UnfiredPanes(heldPanes);
    }

    @Override
    public void processElement(Transaction tx, Context ctx, Collector<FeatureRecord> out)
            throws Exception {
        Long timestamp = ctx.timestamp();
        if (timestamp == null) {
            throw new IllegalStateException(
                    "transaction "
                            + tx.getTransactionId()
                            + " reached the window without an"
                            + " event timestamp: the source must assign them");
        }
        TimerService timers = ctx.timerService();
        long watermark = timers.currentWatermark();
        seenWatermark = Math.max(seenWatermark, watermark);
        long start = assignment.startOf(timestamp);
        long end = start + assignment.sizeMillis();
        long cleanup = spec.cleanupTime(end);
        if (cleanup <= watermark) {
            ctx.output(tooLate, tx);
            return;
        }
        String user = ctx.getCurrentKey();
        WindowPane pane = unfired.get(user, start);
        if (pane == null) {
            pane = windows.get(start);
        }
        boolean isNew = pane == null;
        if (isNew && cleanup <= restoredWatermark) {
            // Dropped before the restore (see the class comment): too late, never a new pane.
            ctx.output(tooLate, tx);
            return;
        }
        // Whether the window's on-time firing time has passed: by this subtask's watermark, or,
        // after a restore, by the restored one (the firing happened before the checkpoint).
        long passed = Math.max(watermark, restoredWatermark);
        if (isNew) {
            pane = new WindowPane(aggregator.createAccumulator());
        } else {
            // The on-time firing was not written back (onTimer): settle it from the watermark.
            pane.settleOnTimeFiring(end, passed);
        }
        aggregator.add(tx, pane.accumulator());
        if (end - 1 > watermark && !(isNew && end - 1 <= passed)) {
            windows.put(start, pane);
            if (!pane.hasFired()) {
                unfired.written(user, start, pane);
            }
            // A new window's on-time firing; or a window that fired already while the watermark
            // is behind its end (only after a restore: the watermark starts over), which then
            // re-fires at the next watermark, as WindowOperator does.
            if (isNew || pane.hasFired()) {
                timers.registerEventTimeTimer(end - 1);
            }
            return;
        }
        // Late within grace: the window re-fires now (or fires for the first time, as LATE; also
        // a new window after a restore whose firing time passed before the checkpoint, as the run
        // without the failure would have, so that no stored unfired pane is past that time).
        boolean firstFiring = !pane.hasFired();
        unfired.remove(user, start);
        emit(user, start, end, pane, pane.fire(false), timers, out);
        windows.put(start, pane);
        if (firstFiring) {
            timers.registerEventTimeTimer(cleanup);
        }
    }

    @Override
    public void onTimer(long time, OnTimerContext ctx, Collector<FeatureRecord> out)
            throws Exception {
        seenWatermark = Math.max(seenWatermark, ctx.timerService().currentWatermark());
        if (lateness > 0) {
            long closedStart = assignment.startOf(time - lateness);
            if (closedStart + assignment.sizeMillis() - 1 == time - lateness) {
                windows.remove(closedStart);
                unfired.remove(ctx.getCurrentKey(), closedStart);
            }
        }
        long start = assignment.startOf(time);
        long end = start + assignment.sizeMillis();
        if (end - 1 != time) {
            return;
        }
        WindowPane pane = unfired.remove(ctx.getCurrentKey(), start);
        if (pane == null) {
            pane = windows.get(start);
        }
        if (pane == null) {
            return;
        }
        TimerService timers = ctx.timerService();
        // Read as stored, not settled: NOT_FIRED at its on-time firing; a pane that fired already
        // (a re-fire after a restore) was written with its revision before this timer was set.
        boolean onTimeFiring = !pane.hasFired();
        emit(ctx.getCurrentKey(), start, end, pane, pane.fire(true), timers, out);
        long cleanup = spec.cleanupTime(end);
        if (cleanup <= timers.currentWatermark()) {
            windows.remove(start);
        } else {
            // State format 3: the on-time firing is not written back. The stored pane still says
            // NOT_FIRED, and its end - 1 is now at or before the watermark, which is what says it
            // fired (WindowPane#settleOnTimeFiring): one state write fewer per window.
            if (!onTimeFiring) {
                windows.put(start, pane);
            }
            timers.registerEventTimeTimer(cleanup);
        }
    }

    private void emit(
            String userId,
            long start,
            long end,
            WindowPane pane,
            Timing timing,
            TimerService timers,
            Collector<FeatureRecord> out) {
        FeatureValues values = aggregator.getResult(pane.accumulator());
        long watermark = timers.currentWatermark();
        // The all-arguments constructor, not the builder: the builder validates and flags every
        // field, measurable on a path taken once per pane.
        out.collect(
                new FeatureRecord(
                        userId,
                        Instant.ofEpochMilli(start),
                        Instant.ofEpochMilli(end),
                        values.txCount(),
                        values.amountSum(),
                        values.amountMax(),
                        values.distinctDevices(),
                        values.distinctMerchants(),
                        values.distinctCountries(),
                        pane.revision(),
                        timing,
                        saturatedInt(pane.lateRecordsIncluded()),
                        Instant.ofEpochMilli(
                                spec.processingTime()
                                        .now(timers.currentProcessingTime(), watermark)),
                        Instant.ofEpochMilli(watermark)));
    }

    private static int saturatedInt(long value) {
        return (int) Math.min(Integer.MAX_VALUE, value);
    }
}
