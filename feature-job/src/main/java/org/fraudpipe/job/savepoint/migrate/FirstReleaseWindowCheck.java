package org.fraudpipe.job.savepoint.migrate;

import org.apache.flink.state.api.functions.WindowReaderFunction;
import org.apache.flink.streaming.api.windowing.windows.TimeWindow;
import org.apache.flink.util.Collector;
import org.fraudpipe.job.features.FeatureAccumulator;
import org.fraudpipe.job.window.FeatureWindowSpec;

/**
 * The migration's first pass: reads every window of the first release's window operator and emits
 * why it cannot be migrated under the spec ({@link FirstReleaseWindowReader#mismatch}), nothing for
 * a window that can. A batch job that fails is reported by whichever subtask failed first, often
 * not with the cause; emitting the mismatches lets {@link SavepointMigration} stop with the reason
 * before it writes anything.
 */
final class FirstReleaseWindowCheck
        extends WindowReaderFunction<FeatureAccumulator, String, String, TimeWindow> {

    private static final long serialVersionUID = 1L;

    private final FirstReleaseWindowReader reader;

    FirstReleaseWindowCheck(FeatureWindowSpec spec) {
        this.reader = new FirstReleaseWindowReader(spec);
    }

    @Override
    public void readWindow(
            String userId,
            Context<TimeWindow> context,
            Iterable<FeatureAccumulator> contents,
            Collector<String> out)
            throws Exception {
        String mismatch =
                reader.mismatch(userId, context.window(), context.registeredEventTimeTimers());
        if (mismatch != null) {
            out.collect(mismatch);
        }
    }
}
