package org.fraudpipe.job.window;

import org.apache.flink.streaming.api.datastream.DataStream;
import org.apache.flink.streaming.api.datastream.SingleOutputStreamOperator;
import org.fraudpipe.schemas.avro.FeatureRecord;
import org.fraudpipe.schemas.avro.LateRecord;

/**
 * The two outputs of the windowing stage built by {@link FeatureWindows#apply}.
 *
 * <p>Invariant: both operators run at the same parallelism (so the too-late conversion stays
 * chained to the window); change it only through {@link #setParallelism(int)}.
 */
public final class WindowedFeatures {

    private final SingleOutputStreamOperator<FeatureRecord> features;
    private final SingleOutputStreamOperator<LateRecord> tooLate;

    WindowedFeatures(
            SingleOutputStreamOperator<FeatureRecord> features,
            SingleOutputStreamOperator<LateRecord> tooLate) {
        this.features = features;
        this.tooLate = tooLate;
    }

    /**
     * Every pane of every (user, window): upsert by (userId, windowStart), the highest revision
     * wins. Stream timestamp: {@code windowEnd - 1}.
     */
    public DataStream<FeatureRecord> features() {
        return features;
    }

    /** Every transaction that missed its window, as data. Stream timestamp: its event time. */
    public DataStream<LateRecord> tooLate() {
        return tooLate;
    }

    /** Sets the parallelism of the window and of its too-late conversion together. */
    public WindowedFeatures setParallelism(int parallelism) {
        features.setParallelism(parallelism);
        tooLate.setParallelism(parallelism);
        return this;
    }
}
