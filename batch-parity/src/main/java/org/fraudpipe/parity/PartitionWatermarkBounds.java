package org.fraudpipe.parity;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.apache.flink.api.common.functions.OpenContext;
import org.apache.flink.api.common.functions.RuntimeContext;
import org.apache.flink.api.common.state.ListState;
import org.apache.flink.api.common.state.ListStateDescriptor;
import org.apache.flink.api.common.state.MapState;
import org.apache.flink.api.common.state.MapStateDescriptor;
import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.api.common.typeinfo.Types;
import org.apache.flink.formats.avro.typeutils.AvroTypeInfo;
import org.apache.flink.streaming.api.functions.KeyedProcessFunction;
import org.apache.flink.streaming.api.functions.co.KeyedCoProcessFunction;
import org.apache.flink.util.Collector;
import org.fraudpipe.job.archive.ArchivePolicy;
import org.fraudpipe.job.features.WindowAssignment;
import org.fraudpipe.schemas.avro.ArchivedTransaction;
import org.fraudpipe.schemas.avro.DeadLetter;

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
 * <p>Runs keyed by partition number in BATCH mode with each record's timestamp set to its offset:
 * Flink's BATCH execution sorts a keyed input by key and then timestamp, so each (topic,
 * partition)'s records arrive here in offset order (checked: out of order is an error, never a
 * silent wrong bound). Memory: a {@link Cursor} per (topic, partition). Emits the {@link
 * Evidence#archived} of the records its {@link Selection} picks (the window check: those whose
 * window is in the period; the per-transaction check: those of the period's trailing windows); the
 * others were read only for their event time.
 *
 * <p><b>Dead letters</b> (second input, keyed by their source partition, timestamp their source
 * offset) are attributed here too: a dead letter at the position of a picked archived record
 * becomes {@link Evidence#deadLetter} of that record's window (the job dead-lettered a record the
 * archive holds as valid); other dead letters never became transactions and explain nothing. This
 * needs no sort of its own: for a two-input keyed operator, Flink's BATCH execution merges the two
 * sorted inputs by key and then timestamp, so a dead letter arrives after every archived record of
 * a lower offset and before every one of a higher offset (at an equal offset either may come first:
 * it waits in {@code pending} for at most that one record). Checked like the archived records: a
 * dead letter behind the last archived offset is an error.
 */
final class PartitionWatermarkBounds
        extends KeyedCoProcessFunction<Integer, ArchivedTransaction, DeadLetter, Evidence> {

    private static final long serialVersionUID = 1L;

    /** How much sooner than the idleness a gap counts as possibly idle (reading vs idle clock). */
    private static final long IDLE_MARGIN_MILLIS = 1_000;

    private final long outOfOrdernessMillis;
    private final long idleGapMillis;
    private final long futureToleranceMillis;
    private final long readEndMillis;
    private final Selection selection;
    private final WindowAssignment windows;

    /** Where each topic of this key's partition number stands: {@link Cursor}, by topic. */
    private transient MapState<String, Cursor> cursors;

    /**
     * Dead letters ahead of their topic's last archived record: at most those of its next offset.
     */
    private transient ListState<DeadLetter> pending;

    /**
     * One (topic, partition) so far, in offset order. A POJO for Flink's state descriptor; BATCH
     * execution keeps keyed state on the heap, one key at a time.
     */
    public static final class Cursor {
        /** The largest event time of the records that may reach a window, if {@link #anyMax}. */
        public long maxEventTime;

        public boolean anyMax;
        public long lastOffset;
        public long lastReceivedAt;
        public boolean mayHaveBeenIdle;

        /**
         * The last record's evidence if it was picked, else null: the window of its dead letters.
         */
        public Evidence lastPicked;

        public Cursor() {}
    }

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

    /**
     * The key: the partition number (a replay's file: 0). The topic (a replay's file name) tells a
     * key's partitions apart ({@link Cursor}, by topic): sorted by partition number and offset,
     * each topic's records are still in offset order. Keyed by the number, not by a
     * "topic-partition" string, because the BATCH sort compares keys at every step: a fixed-length
     * key is compared as a few bytes of its normalized form; a string key, byte by byte, and in a
     * replay every record has the same one, so every comparison read all of it.
     */
    static int partitionOf(ArchivedTransaction a) {
        return a.getSourcePartition();
    }

    /** The key of a dead letter: the partition it was read from, as {@link #partitionOf}. */
    static int partitionOf(DeadLetter d) {
        return d.getSourcePartition();
    }

    @Override
    public void open(OpenContext context) {
        cursors =
                getRuntimeContext()
                        .getMapState(
                                new MapStateDescriptor<>(
                                        "cursors", Types.STRING, TypeInformation.of(Cursor.class)));
        pending =
                getRuntimeContext()
                        .getListState(
                                new ListStateDescriptor<>(
                                        "pending-dead-letters",
                                        new AvroTypeInfo<>(DeadLetter.class)));
    }

    @Override
    public void processElement1(ArchivedTransaction a, Context ctx, Collector<Evidence> out)
            throws Exception {
        archived(a, out);
    }

    @Override
    public void processElement2(DeadLetter d, Context ctx, Collector<Evidence> out)
            throws Exception {
        long offset = d.getSourceOffset();
        Cursor at = cursors.get(d.getSourceTopic());
        if (at != null && offset < at.lastOffset) {
            throw new IllegalStateException(
                    "a dead letter of "
                            + d.getSourceTopic()
                            + "-"
                            + d.getSourcePartition()
                            + " reached the watermark bounds behind the archived records (offset "
                            + offset
                            + " after "
                            + at.lastOffset
                            + "): the parity job must run in BATCH mode, which merges a key's"
                            + " inputs by timestamp (= offset)");
        }
        if (at != null && offset == at.lastOffset) {
            attribute(d, at.lastPicked, out);
        } else {
            pending.add(d);
        }
    }

    /** Emits {@code d} as evidence of the window of {@code at}, the record at its position. */
    private static void attribute(DeadLetter d, Evidence at, Collector<Evidence> out) {
        if (at != null) {
            out.collect(Evidence.deadLetter(d, at.userId, at.windowStart));
        }
    }

    /**
     * One archived record, in offset order: emits its evidence if picked and the dead letters that
     * waited for its position.
     */
    void archived(ArchivedTransaction a, Collector<Evidence> out) throws Exception {
        String topic = a.getSourceTopic();
        long offset = a.getSourceOffset();
        long receivedAt = a.getReceivedAt().toEpochMilli();
        Cursor cursor = cursors.get(topic);
        if (cursor == null) {
            cursor = new Cursor();
        } else {
            if (offset < cursor.lastOffset) {
                throw new IllegalStateException(
                        "archived records of "
                                + topic
                                + "-"
                                + a.getSourcePartition()
                                + " reached the watermark bounds out of offset order ("
                                + offset
                                + " after "
                                + cursor.lastOffset
                                + "): the parity job must run in BATCH mode, which sorts by key"
                                + " and timestamp (= offset)");
            }
            if (receivedAt - cursor.lastReceivedAt >= idleGapMillis) {
                cursor.mayHaveBeenIdle = true;
            }
        }
        long eventTime = a.getTransaction().getEventTime().toEpochMilli();
        Evidence picked = null;
        if (selection.emits(eventTime)) {
            String caveat = null;
            if (cursor.mayHaveBeenIdle) {
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
            picked =
                    Evidence.archived(
                            a,
                            windows.startOf(eventTime),
                            cursor.anyMax
                                    ? cursor.maxEventTime - outOfOrdernessMillis - 1
                                    : Evidence.NO_BOUND,
                            caveat);
            out.collect(picked);
        }
        if (!a.getQuarantined()) {
            cursor.maxEventTime =
                    cursor.anyMax ? Math.max(cursor.maxEventTime, eventTime) : eventTime;
            cursor.anyMax = true;
        }
        cursor.lastOffset = offset;
        cursor.lastReceivedAt = receivedAt;
        cursor.lastPicked = picked;
        cursors.put(topic, cursor);
        Iterable<DeadLetter> waiting = pending.get();
        if (waiting != null && waiting.iterator().hasNext()) {
            List<DeadLetter> still = new ArrayList<>();
            for (DeadLetter d : waiting) {
                if (!d.getSourceTopic().equals(topic) || d.getSourceOffset() > offset) {
                    still.add(d);
                } else if (d.getSourceOffset() == offset) {
                    attribute(d, picked, out);
                } // below: no archived record at its position (never a transaction)
            }
            pending.update(still);
        }
    }

    /**
     * The same bounds without dead letters (a run that has none: Flink has no empty bounded stream
     * to connect): the one-input function over the two-input one, sharing its runtime context and
     * so its keyed state.
     */
    static final class ArchivedOnly
            extends KeyedProcessFunction<Integer, ArchivedTransaction, Evidence> {

        private static final long serialVersionUID = 1L;

        private final PartitionWatermarkBounds bounds;

        ArchivedOnly(PartitionWatermarkBounds bounds) {
            this.bounds = bounds;
        }

        @Override
        public void setRuntimeContext(RuntimeContext context) {
            super.setRuntimeContext(context);
            bounds.setRuntimeContext(context);
        }

        @Override
        public void open(OpenContext context) {
            bounds.open(context);
        }

        @Override
        public void processElement(ArchivedTransaction a, Context ctx, Collector<Evidence> out)
                throws Exception {
            bounds.archived(a, out);
        }
    }
}
