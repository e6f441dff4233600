package org.fraudpipe.job.window;

import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.api.common.typeinfo.Types;
import org.apache.flink.streaming.api.datastream.DataStream;
import org.apache.flink.streaming.api.datastream.SingleOutputStreamOperator;
import org.apache.flink.util.OutputTag;
import org.fraudpipe.job.topology.OperatorNames;
import org.fraudpipe.job.topology.Uids;
import org.fraudpipe.schemas.avro.FeatureRecord;
import org.fraudpipe.schemas.avro.LateRecord;
import org.fraudpipe.schemas.avro.Transaction;

/**
 * The windowing stage of the feature job, as one reusable piece of topology: key by user, tumbling
 * event-time windows with allowed lateness aggregated incrementally by the feature core ({@link
 * FeatureWindowFunction}), too-late records to {@link TooLateRecordFunction}.
 *
 * <p>The same method serves the streaming job and the parity check in BATCH mode (where nothing is
 * ever late and every window fires once, ON_TIME, with watermark {@code Long.MAX_VALUE}).
 *
 * <p>Invariants the rest of the job relies on: the operators carry the uids of {@link
 * org.fraudpipe.job.topology.Uids} and the names of {@link
 * org.fraudpipe.job.topology.OperatorNames}; the too-late conversion runs at the window's
 * parallelism on a forward edge (chained), which makes its watermark exact (see {@link
 * TooLateRecordFunction}); state per key is bounded by {@link
 * FeatureWindowSpec#maxLiveWindowsPerKey()} windows and a window's entry is gone, its timer
 * included, once the watermark reaches {@code end - 1 + allowedLateness}.
 */
public final class FeatureWindows {

    /** Id of the window operator's late-data side output (raw too-late transactions). */
    public static final String TOO_LATE_TAG_ID = "too-late-transactions";

    private static final TypeInformation<FeatureRecord> FEATURE_RECORD =
            TypeInformation.of(FeatureRecord.class);
    private static final TypeInformation<LateRecord> LATE_RECORD =
            TypeInformation.of(LateRecord.class);

    /**
     * Most panes each window subtask holds in the heap between their last write and their on-time
     * firing ({@link UnfiredPanes}): about 20 MB of heap at most (a pane with its accumulator is a
     * few hundred bytes), enough for every pane of a replay or a catch-up at full speed.
     */
    public static final int HELD_UNFIRED_PANES = 32_768;

    private FeatureWindows() {}

    /**
     * Applies the windowing stage.
     *
     * @param withTimestamps valid, not future-dated transactions with event timestamps and
     *     watermarks assigned
     * @param spec window size, allowed lateness and the source of processing-time fields
     */
    public static WindowedFeatures apply(
            DataStream<Transaction> withTimestamps, FeatureWindowSpec spec) {
        return apply(withTimestamps, spec, HELD_UNFIRED_PANES);
    }

    /** {@link #apply(DataStream, FeatureWindowSpec)} holding at most {@code heldPanes} panes. */
    static WindowedFeatures apply(
            DataStream<Transaction> withTimestamps, FeatureWindowSpec spec, int heldPanes) {
        OutputTag<Transaction> tooLateTag = tooLateTag(withTimestamps.getType());
        SingleOutputStreamOperator<FeatureRecord> features =
                withTimestamps
                        .keyBy(new UserIdKey(), Types.STRING)
                        .process(
                                new FeatureWindowFunction(spec, tooLateTag, heldPanes),
                                FEATURE_RECORD)
                        .uid(Uids.FEATURE_WINDOW)
                        .name(OperatorNames.FEATURE_WINDOW);
        SingleOutputStreamOperator<LateRecord> tooLate =
                features.getSideOutput(tooLateTag)
                        .process(new TooLateRecordFunction(spec), LATE_RECORD)
                        .uid(Uids.TOO_LATE_RECORDS)
                        .name(OperatorNames.TOO_LATE_RECORDS);
        return new WindowedFeatures(features, tooLate);
    }

    /** The late-data side output tag for transactions of the given type information. */
    public static OutputTag<Transaction> tooLateTag(TypeInformation<Transaction> type) {
        return new OutputTag<>(TOO_LATE_TAG_ID, type);
    }
}
