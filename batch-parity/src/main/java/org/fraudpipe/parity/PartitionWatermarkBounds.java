package org.fraudpipe.parity;

import java.time.Duration;
import org.apache.flink.api.common.functions.OpenContext;
import org.apache.flink.api.common.state.ValueState;
import org.apache.flink.api.common.state.ValueStateDescriptor;
import org.apache.flink.api.common.typeinfo.Types;
import org.apache.flink.streaming.api.functions.KeyedProcessFunction;
import org.apache.flink.util.Collector;
import org.fraudpipe.job.archive.ArchivePolicy;
import org.fraudpipe.job.features.WindowAssignment;
import org.fraudpipe.schemas.avro.ArchivedTransaction;

/**
 * For every archived record, the highest watermark the job can have had when it processed it, as
 * the archive proves it, so that a TOO_LATE label naming a higher watermark is caught ({@link
 * WindowJudge}).
 *
 * <p>The bound: the job's watermark is bounded out-of-orderness over the records that may reach a
 * window (not quarantined), per Kafka partition, and the watermark downstream is the minimum over
 * the partitions that are not idle, never going back. While a record's partition has been active,
 * the watermark when the record is processed is therefore at most its own partition's: {@code (the
 * largest event time among the partition's earlier records, by offset) - out-of-orderness - 1 ms}.
 * Exact per partition, no clock involved: offsets order a partition's records.
 *
 * <p>Where the archive cannot prove the bound, the record carries a caveat instead and its label is
 * accepted unchecked (and counted): (a) the partition may have been idle before the record (a gap
 * in its arrival times of about the idleness or more): other partitions may then have moved the
 * watermark past its own, which is the documented fate of a waking partition; (b) the record
 * arrived so close to the end of what the run read that earlier records of its partition with a
 * later event time may be past it. The history of a partition before the first record read is
 * assumed active (the run reads every record with an event time from the period's start).
 *
 * <p>Runs keyed by (topic, partition) in BATCH mode with each record's timestamp set to its offset:
 * Flink's BATCH execution sorts a keyed input by key and then timestamp, so a partition's records
 * arrive here in offset order (checked: out of order is an error, never a silent wrong bound).
 * Memory: three values per partition. Emits the {@link Evidence#archived} of the records its {@link
 * Selection} picks (the window check: those whose window is in the period; the per-transaction
 * check: those of the period's trailing windows); the others were read only for their event time.
 */
final class PartitionWatermarkBounds
        extends KeyedProcessFunction<String, ArchivedTransaction, Evidence> {

    private static final long serialVersionUID = 1L;

    /** How much sooner than the idleness a gap counts as possibly idle (reading vs idle clock). */
    private static final long IDLE_MARGIN_MILLIS = 1_000;

    private final long outOfOrdernessMillis;
    private final long idleGapMillis;
    private final long futureToleranceMillis;
    private final long readEndMillis;
    private final Selection selection;
    private final WindowAssignment windows;

    private transient ValueState<Long> maxEventTime;
    private transient ValueState<Long> lastOffset;
    private transient ValueState<Long> lastReceivedAt;
    private transient ValueState<Boolean> mayHaveBeenIdle;

    /**
     * Which records get their bound emitted (the others are read only for their event time), by
     * event time. Serializable: it travels with the operator.
     */
    @FunctionalInterface
    interface Selection extends java.io.Serializable {
        boolean emits(long eventTimeMillis);

        /** The records whose window starts in {@code period}: the window check's. */
        static Selection windowsIn(ParityPeriod period, WindowAssignment windows) {
            return eventTime -> period.containsWindowStart(windows.startOf(eventTime));
        }

        /** The records with an event time in {@code [from, to)}. */
        static Selection eventTimes(long from, long to) {
            return eventTime -> eventTime >= from && eventTime < to;
        }
    }

    /**
     * The window check's: emits the records whose window starts in {@code period}.
     *
     * @param readEndMillis event times up to here were read ({@link Long#MAX_VALUE}: everything)
     */
    PartitionWatermarkBounds(
            ArchivePolicy policy,
            long readEndMillis,
            ParityPeriod period,
            WindowAssignment windows) {
        this(policy, readEndMillis, Selection.windowsIn(period, windows), windows);
    }

    /**
     * @param readEndMillis event times up to here were read ({@link Long#MAX_VALUE}: everything)
     * @param selection which records to emit
     * @param windows the window of an emitted record ({@link Evidence#windowStart})
     */
    PartitionWatermarkBounds(
            ArchivePolicy policy,
            long readEndMillis,
            Selection selection,
            WindowAssignment windows) {
        this.outOfOrdernessMillis = policy.outOfOrderness().toMillis();
        Duration idleness = policy.idleness();
        this.idleGapMillis =
                idleness == null
                        ? Long.MAX_VALUE
                        : Math.max(
                                0,
                                idleness.toMillis()
                                        - Math.min(IDLE_MARGIN_MILLIS, idleness.toMillis() / 2));
        this.futureToleranceMillis = policy.futureTolerance().toMillis();
        this.readEndMillis = readEndMillis;
        this.selection = selection;
        this.windows = windows;
    }

    /** The key: one Kafka partition (in a replay: the file). */
    static String partitionOf(ArchivedTransaction a) {
        return a.getSourceTopic() + "-" + a.getSourcePartition();
    }

    @Override
    public void open(OpenContext context) {
        maxEventTime = getRuntimeContext().getState(new ValueStateDescriptor<>("max", Types.LONG));
        lastOffset = getRuntimeContext().getState(new ValueStateDescriptor<>("offset", Types.LONG));
        lastReceivedAt =
                getRuntimeContext().getState(new ValueStateDescriptor<>("received", Types.LONG));
        mayHaveBeenIdle =
                getRuntimeContext().getState(new ValueStateDescriptor<>("idle", Types.BOOLEAN));
    }

    @Override
    public void processElement(ArchivedTransaction a, Context ctx, Collector<Evidence> out)
            throws Exception {
        long offset = a.getSourceOffset();
        long receivedAt = a.getReceivedAt().toEpochMilli();
        Long previousOffset = lastOffset.value();
        if (previousOffset != null && offset < previousOffset) {
            throw new IllegalStateException(
                    "archived records of "
                            + ctx.getCurrentKey()
                            + " reached the watermark bounds out of offset order ("
                            + offset
                            + " after "
                            + previousOffset
                            + "): the parity job must run in BATCH mode, which sorts by key and"
                            + " timestamp (= offset)");
        }
        Long previousReceived = lastReceivedAt.value();
        if (previousReceived != null && receivedAt - previousReceived >= idleGapMillis) {
            mayHaveBeenIdle.update(true);
        }
        long eventTime = a.getTransaction().getEventTime().toEpochMilli();
        long windowStart = windows.startOf(eventTime);
        if (selection.emits(eventTime)) {
            Long max = maxEventTime.value();
            String caveat = null;
            if (Boolean.TRUE.equals(mayHaveBeenIdle.value())) {
                caveat =
                        "partition "
                                + a.getSourcePartition()
                                + " may have been idle before it (a gap of about the idleness"
                                + " between arrivals), so other partitions may have moved the"
                                + " watermark past its own";
            } else if (readEndMillis != Long.MAX_VALUE
                    && receivedAt > readEndMillis - futureToleranceMillis) {
                caveat =
                        "it arrived after the event times this run reads (the arrival horizon):"
                                + " earlier records of its partition may not have been read";
            }
            out.collect(
                    Evidence.archived(
                            a,
                            windowStart,
                            max == null ? Evidence.NO_BOUND : max - outOfOrdernessMillis - 1,
                            caveat));
        }
        if (!a.getQuarantined()) {
            Long max = maxEventTime.value();
            maxEventTime.update(max == null ? eventTime : Math.max(max, eventTime));
        }
        lastOffset.update(offset);
        lastReceivedAt.update(receivedAt);
    }
}
