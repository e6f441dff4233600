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
        OutputTag<Transaction> tooLateTag = tooLateTag(withTimestamps.getType());
        SingleOutputStreamOperator<FeatureRecord> features =
                withTimestamps
                        .keyBy(new UserIdKey(), Types.STRING)
                        .process(new FeatureWindowFunction(spec, tooLateTag), FEATURE_RECORD)
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
