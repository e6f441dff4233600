package org.fraudpipe.job.transaction;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import org.apache.flink.api.common.functions.OpenContext;
import org.apache.flink.api.common.state.ListState;
import org.apache.flink.api.common.state.ListStateDescriptor;
import org.apache.flink.api.common.state.MapState;
import org.apache.flink.api.common.state.MapStateDescriptor;
import org.apache.flink.api.common.state.ValueState;
import org.apache.flink.api.common.state.ValueStateDescriptor;
import org.apache.flink.api.common.typeinfo.Types;
import org.apache.flink.api.common.typeutils.base.StringSerializer;
import org.apache.flink.runtime.state.FunctionInitializationContext;
import org.apache.flink.runtime.state.FunctionSnapshotContext;
import org.apache.flink.streaming.api.TimerService;
import org.apache.flink.streaming.api.checkpoint.CheckpointedFunction;
import org.apache.flink.streaming.api.functions.KeyedProcessFunction;
import org.apache.flink.util.Collector;
import org.fraudpipe.job.features.TrailingFeatures;
import org.fraudpipe.job.ingest.IngestedRecord;
import org.fraudpipe.job.metrics.Tally;
import org.fraudpipe.schemas.avro.Transaction;

/**
 * The per-transaction path's features: per user, every valid transaction gets its {@link
 * TrailingFeatures} as of its arrival, at once, over what the user's state holds: on time, out of
 * order, late, too late for the windows alike. A producer retry of an id still in state is answered
 * with the original's features (and so, scored by the same model, with the original's score).
 *
 * <p>State, per user: one value ({@link #USER_STATE}, {@link UserReceivedTransactions}) holding
 * every received transaction still needed, by transactionId, each kept until the watermark reaches
 * its event time + the trailing window T + the allowed lateness L ({@link #evictionTime}), the
 * answered-only ones (below), and one event-time timer at the earliest time something of it leaves
 * (coalesced: a new entry leaving earlier moves it; the timer evicts everything that is due and
 * sets the next). An arrival costs one point read and one write of the user's value (a handful of
 * entries: the user's transactions of the last T + L and the out-of-order bound); an eviction one
 * read and one write or delete. One value rather than a map entry per transaction: with RocksDB, a
 * map's prefix scan steps over the tombstones of every entry that left until compaction removes
 * them, which made a day's replay slow down hour by hour (BENCHMARKS, "The per-transaction state as
 * one value per user").
 *
 * <p>State of the first layout (a {@link MapState} {@value #RECEIVED_STATE} of transactionId to
 * entry, and {@link #EVICTED_THROUGH}), restored from a savepoint of an earlier build, is moved
 * into the user's value the first time the user is touched (an arrival or its timer) and cleared: a
 * user without a value costs one more point read ({@link #EVICTED_THROUGH}, which the first layout
 * kept exactly while the user had entries). A build of the first layout refuses this one's
 * savepoints (it does not know {@link UserReceivedTransactionsSerializer.Snapshot}) rather than
 * restore them into an empty history.
 *
 * <p>Exactness (the state bound): every transaction of x's trailing window {@code (t - T, t]}
 * received before x is still in state as long as the watermark at x's arrival is at most {@code t +
 * L}, i.e. x is at most the allowed lateness behind the watermark; then x's features are exactly
 * {@link TrailingFeatures} over everything received before it, and {@code historyComplete} is true.
 * A later transaction (too late for the windows too when T is at least the window size) is scored
 * with what its user's state still holds: its counts and sums are a lower bound, and {@code
 * historyComplete} says whether anything of its window had left. That is judged by the state itself
 * ({@link UserReceivedTransactions#evictedThrough}: the largest event time that left), not by the
 * watermark of the moment: after a failover the replay interleaves records and watermarks
 * differently, and two attempts that hold the same entries must give the same answer (the fault
 * campaign found the flag differing between two answers to one arrival). A user's record starts, at
 * its first entry or its first after every entry left, from what may have left before ({@link
 * #mayHaveLeft} of the highest watermark); a user with no state is judged by that too. The highest
 * watermark this subtask has seen is kept in operator state across restores (Flink restores no
 * watermark; without it a transaction arriving right after a restore would claim a complete history
 * the previous attempt had already evicted).
 *
 * <p>Retries get the first answer until the watermark reaches {@code max(t, the highest watermark
 * at the first arrival) + T + L} ({@link #keptUntil}): as long as a transaction arriving on time
 * then would be held. A transaction already past its eviction time when it arrives (against the
 * highest watermark seen) is scored but not held: it counts as left for the user's later
 * transactions, and is kept answered-only (never counted) for its retries; a held one whose
 * eviction time comes first is kept answered-only after it. Otherwise a producer retry seconds
 * after a late transaction could find it gone, or counted as left, and get another answer (the flag
 * turned to false: nightly parity found it as {@code RETRY_CONFLICT}). A retry of an id no longer
 * in state is indistinguishable from a new transaction: it is scored again over what state holds
 * then, possibly with other values, and a second record with that id is written; it arrives after
 * the watermark passed the first arrival's by T + L, too late for the windows too when T is at
 * least the window size.
 *
 * <p>Metrics: {@value #RETRIES} (arrivals answered with an earlier arrival's features) and {@value
 * #HISTORY_INCOMPLETE} (transactions scored with {@code historyComplete} false), counters and
 * accumulators ({@link Tally}).
 */
public final class TrailingFeatureFunction
        extends KeyedProcessFunction<String, IngestedRecord, ArrivalFeatures>
        implements CheckpointedFunction {

    private static final long serialVersionUID = 1L;

    /** Name of the per-user value state, {@link UserReceivedTransactions}. */
    public static final String USER_STATE = "trailing-received";

    /** Name of the first layout's per-user map state: transactionId to entry (only read). */
    public static final String RECEIVED_STATE = "received-transactions";

    public static final String RETRIES = "fraudTransactionRetries";
    public static final String HISTORY_INCOMPLETE = "fraudTransactionsHistoryIncomplete";

    private static final ListStateDescriptor<Long> WATERMARK_STATE =
            new ListStateDescriptor<>("trailing-features-watermark", Types.LONG);

    /**
     * The first layout's record, per user while it had entries, of the largest event time that left
     * (now {@link UserReceivedTransactions#evictedThrough}); only read, to move a restored user.
     */
    static final ValueStateDescriptor<Long> EVICTED_THROUGH =
            new ValueStateDescriptor<>("trailing-evicted-through", Types.LONG);

    private final Duration trailing;
    private final long trailingMillis;
    private final long allowedLatenessMillis;
    private transient ValueState<UserReceivedTransactions> userState;
    private transient MapState<String, ReceivedTransaction> firstLayoutEntries;
    private transient ValueState<Long> firstLayoutEvictedThrough;
    private transient ListState<Long> watermarkState;
    private transient long highestWatermark;
    private transient Tally retries;
    private transient Tally historyIncomplete;

    /**
     * @param trailing T, the trailing window's length (option {@code --trailing-window})
     * @param allowedLateness L, the job's allowed lateness: how long entries outlive their trailing
     *     window, and the bound up to which a transaction behind the watermark is still exact
     */
    public TrailingFeatureFunction(Duration trailing, Duration allowedLateness) {
        this.trailing = Objects.requireNonNull(trailing, "trailing");
        if (trailing.isNegative() || trailing.isZero() || trailing.getNano() % 1_000_000 != 0) {
            throw new IllegalArgumentException(
                    "trailing window must be a positive whole number of milliseconds: " + trailing);
        }
        if (allowedLateness.isNegative()) {
            throw new IllegalArgumentException("allowed lateness must not be negative");
        }
        this.trailingMillis = trailing.toMillis();
        this.allowedLatenessMillis = allowedLateness.toMillis();
    }

    /** The state's descriptor (also for tools that read savepoints of this operator). */
    public static ValueStateDescriptor<UserReceivedTransactions> userStateDescriptor() {
        return new ValueStateDescriptor<>(USER_STATE, UserReceivedTransactionsSerializer.INSTANCE);
    }

    /** The first layout's map state, {@value #RECEIVED_STATE}. */
    static MapStateDescriptor<String, ReceivedTransaction> firstLayoutDescriptor() {
        return new MapStateDescriptor<>(
                RECEIVED_STATE, StringSerializer.INSTANCE, ReceivedTransactionSerializer.INSTANCE);
    }

    /**
     * The watermark at which a transaction with this event time leaves state: {@code eventTime + T
     * + L}, {@link Long#MAX_VALUE} on overflow.
     */
    public long evictionTime(long eventTimeMillis) {
        long keep = trailingMillis + allowedLatenessMillis;
        return eventTimeMillis <= Long.MAX_VALUE - keep ? eventTimeMillis + keep : Long.MAX_VALUE;
    }

    /**
     * The watermark up to which a retry of a transaction with this event time, arriving now, gets
     * its first answer: {@code max(eventTime, highest watermark seen) + T + L}, as long as a
     * transaction arriving on time now would be held. For one on time it is its eviction time; for
     * a late one later (it is kept answered-only after its eviction), so that a retry seconds after
     * a late transaction never finds it gone.
     */
    private long keptUntil(long eventTimeMillis) {
        return evictionTime(Math.max(eventTimeMillis, highestWatermark));
    }

    /**
     * Whether a transaction with this event time finds its whole trailing window {@code (t - T, t]}
     * still in state, given the largest event time of an entry of its user that left the state:
     * none of them was inside the window.
     */
    public boolean completeGiven(long eventTimeMillis, long evictedThrough) {
        return evictedThrough == Long.MIN_VALUE
                || evictedThrough <= eventTimeMillis - trailingMillis;
    }

    /**
     * The largest event time that may have left a user's state by the time the highest watermark
     * seen is {@code watermark}: an entry leaves once the watermark reaches its event time + T + L.
     * What a user's state starts from ({@link UserReceivedTransactions#evictedThrough}), at its
     * first entry or at its first after every entry left: nothing says what of it left before, so
     * whatever may have. For a user without state, {@code completeGiven(t, mayHaveLeft(w))} is the
     * rule {@code t >= w - L}.
     */
    public long mayHaveLeft(long watermark) {
        long keep = trailingMillis + allowedLatenessMillis;
        return watermark >= Long.MIN_VALUE + keep ? watermark - keep : Long.MIN_VALUE;
    }

    @Override
    public void initializeState(FunctionInitializationContext context) throws Exception {
        watermarkState = context.getOperatorStateStore().getUnionListState(WATERMARK_STATE);
        highestWatermark = Long.MIN_VALUE;
        if (context.isRestored()) {
            for (Long w : watermarkState.get()) {
                highestWatermark = Math.max(highestWatermark, w);
            }
        }
    }

    @Override
    public void snapshotState(FunctionSnapshotContext context) throws Exception {
        watermarkState.update(List.of(highestWatermark));
    }

    @Override
    public void open(OpenContext openContext) {
        userState = getRuntimeContext().getState(userStateDescriptor());
        firstLayoutEntries = getRuntimeContext().getMapState(firstLayoutDescriptor());
        firstLayoutEvictedThrough = getRuntimeContext().getState(EVICTED_THROUGH);
        retries =
                Tally.register(getRuntimeContext(), getRuntimeContext().getMetricGroup(), RETRIES);
        historyIncomplete =
                Tally.register(
                        getRuntimeContext(),
                        getRuntimeContext().getMetricGroup(),
                        HISTORY_INCOMPLETE);
    }

    @Override
    public void processElement(IngestedRecord record, Context ctx, Collector<ArrivalFeatures> out)
            throws Exception {
        Transaction tx = record.transaction;
        String id = tx.getTransactionId();
        long arrivalTimestamp =
                record.recordTimestamp == null
                        ? ReceivedTransaction.NO_TIMESTAMP
                        : record.recordTimestamp;
        TimerService timers = ctx.timerService();
        long watermark = timers.currentWatermark();
        highestWatermark = Math.max(highestWatermark, watermark);

        UserReceivedTransactions state = load();
        ReceivedTransaction original = state == null ? null : state.find(id);
        if (original != null) {
            retries.inc();
            out.collect(
                    new ArrivalFeatures(
                            original.features(id, ctx.getCurrentKey(), trailingMillis),
                            original.recordTimestamp(),
                            arrivalTimestamp,
                            record.receivedAt,
                            original.firstArrival(),
                            true,
                            record.sourcePartition,
                            record.sourceOffset));
            return;
        }

        TrailingFeatures features = TrailingFeatures.of(tx, trailing);
        ReceivedEntries held = state == null ? ReceivedEntries.NONE : state.held();
        for (int i = 0; i < held.size(); i++) {
            ReceivedTransaction r = held.entry(i);
            features.add(
                    held.id(i),
                    r.eventTime(),
                    r.amountMinor(),
                    r.deviceId(),
                    r.merchantId(),
                    r.country());
        }
        long eventTime = tx.getEventTime().toEpochMilli();
        long through = state != null ? state.evictedThrough() : mayHaveLeft(highestWatermark);
        boolean complete = completeGiven(eventTime, through);
        if (!complete) {
            historyIncomplete.inc();
        }
        ReceivedTransaction entry =
                ReceivedTransaction.of(
                        tx, arrivalTimestamp, record.receivedAt, features.result(), complete);
        UserReceivedTransactions updated;
        // Retries get this answer for as long as a transaction arriving on time now would be held.
        long keptUntil = keptUntil(eventTime);
        // Against the highest watermark, not the current one: right after a restore the current
        // one starts over, and holding what the previous attempt would not have held would change
        // later answers.
        if (evictionTime(eventTime) > highestWatermark) {
            // A user's state starts from what may have left before: it holds nothing of that (the
            // campaign found a transaction hours late judged complete by a fresh MIN here).
            updated =
                    state == null
                            ? UserReceivedTransactions.first(through, id, entry, keptUntil)
                            : state.with(id, entry, keptUntil);
        } else {
            // Not held: as good as evicted for the user's later transactions (for a user without
            // state, mayHaveLeft already covers it); kept answered-only for its retries.
            long left = Math.max(through, eventTime);
            updated =
                    state == null
                            ? UserReceivedTransactions.firstAnsweredOnly(left, id, entry, keptUntil)
                            : state.evictedThrough(left).withAnsweredOnly(id, entry, keptUntil);
        }
        userState.update(updated);
        // One timer per user, at the earliest time something of its state leaves.
        long timer = state == null ? Long.MAX_VALUE : nextLeaving(state);
        long next = nextLeaving(updated);
        if (next < timer) {
            if (timer != Long.MAX_VALUE) {
                timers.deleteEventTimeTimer(timer);
            }
            timers.registerEventTimeTimer(next);
        }
        out.collect(
                new ArrivalFeatures(
                        entry.features(id, ctx.getCurrentKey(), trailingMillis),
                        arrivalTimestamp,
                        arrivalTimestamp,
                        record.receivedAt,
                        entry.firstArrival(),
                        false,
                        record.sourcePartition,
                        record.sourceOffset));
    }

    @Override
    public void onTimer(long time, OnTimerContext ctx, Collector<ArrivalFeatures> out)
            throws Exception {
        long watermark = ctx.timerService().currentWatermark();
        highestWatermark = Math.max(highestWatermark, watermark);
        UserReceivedTransactions state = load();
        if (state == null) {
            return;
        }
        UserReceivedTransactions left = state.without(t -> evictionTime(t) <= watermark, watermark);
        if (left == null) {
            // Nothing left: drop the user's state. A later transaction of the user is then judged
            // by the watermark again.
            userState.clear();
            return;
        }
        ctx.timerService().registerEventTimeTimer(nextLeaving(left));
        if (left != state) {
            userState.update(left);
        }
    }

    /**
     * The watermark at which something of this state leaves next: the earliest eviction time of a
     * held entry or {@code keptUntil} of an answered-only one.
     */
    private long nextLeaving(UserReceivedTransactions state) {
        long next = Long.MAX_VALUE;
        ReceivedEntries held = state.held();
        for (int i = 0; i < held.size(); i++) {
            next = Math.min(next, evictionTime(held.entry(i).eventTime()));
        }
        ReceivedEntries answeredOnly = state.answeredOnly();
        for (int i = 0; i < answeredOnly.size(); i++) {
            next = Math.min(next, answeredOnly.keptUntil(i));
        }
        return next;
    }

    /**
     * The current user's state, null if it has none; a user restored in the first layout is moved
     * into the per-user value first (and its first-layout state cleared), so that everything after
     * this sees one layout.
     */
    private UserReceivedTransactions load() throws Exception {
        UserReceivedTransactions state = userState.value();
        if (state != null) {
            return state;
        }
        Long through = firstLayoutEvictedThrough.value();
        if (through == null) {
            return null; // the first layout kept it exactly while the user had entries
        }
        UserReceivedTransactions moved = null;
        for (Map.Entry<String, ReceivedTransaction> e : firstLayoutEntries.entries()) {
            moved =
                    moved == null
                            ? UserReceivedTransactions.first(
                                    through, e.getKey(), e.getValue(), Long.MIN_VALUE)
                            : moved.with(e.getKey(), e.getValue(), Long.MIN_VALUE);
        }
        firstLayoutEntries.clear();
        firstLayoutEvictedThrough.clear();
        if (moved != null) {
            userState.update(moved);
        }
        return moved;
    }
}
