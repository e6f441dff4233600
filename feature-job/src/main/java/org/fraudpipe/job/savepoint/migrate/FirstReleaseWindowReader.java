package org.fraudpipe.job.savepoint.migrate;

import java.time.Duration;
import java.time.Instant;
import java.util.Iterator;
import java.util.List;
import java.util.Set;
import org.apache.flink.api.common.accumulators.LongCounter;
import org.apache.flink.api.common.functions.OpenContext;
import org.apache.flink.api.common.state.KeyedStateStore;
import org.apache.flink.api.common.state.ValueStateDescriptor;
import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.state.api.functions.WindowReaderFunction;
import org.apache.flink.streaming.api.windowing.windows.TimeWindow;
import org.apache.flink.util.Collector;
import org.fraudpipe.job.features.FeatureAccumulator;
import org.fraudpipe.job.window.FeatureWindowSpec;
import org.fraudpipe.job.window.PaneProgress;
import org.fraudpipe.job.window.WindowPane;

/**
 * Reads one window of the first release's window operator ({@code Uids.FEATURE_WINDOW_V1}: Flink's
 * {@code WindowOperator} with the feature aggregate, a pane-progress value and the trigger's
 * late-firing flag per window) and emits it as a {@link MigratedWindow}.
 *
 * <p>The state name and type below are that release's, as its savepoints hold them: {@value
 * #PANE_PROGRESS_STATE} ({@link PaneProgress}, POJO); never change them. Its third per-window
 * entry, the trigger's late-firing flag, is not read: it was set in the same record's processing as
 * the window's first (late) pane, so a window with the flag always has its pane progress, which
 * says all the current state needs.
 *
 * <p>Checks the spec against the savepoint, so that timers are rebuilt right: every window is
 * {@code spec.windowSize()} long, and has its cleanup timer at {@code end - 1 + allowedLateness};
 * otherwise the savepoint was taken with another window size or allowed lateness, and the migration
 * stops, saying so.
 */
final class FirstReleaseWindowReader
        extends WindowReaderFunction<FeatureAccumulator, MigratedWindow, String, TimeWindow> {

    private static final long serialVersionUID = 1L;

    static final String PANE_PROGRESS_STATE = "pane-progress";

    /** Flink accumulator counting the windows read. */
    static final String WINDOWS_READ = "fraud-migrated-windows";

    private final long windowSize;
    private final long allowedLateness;
    private transient LongCounter windowsRead;

    FirstReleaseWindowReader(FeatureWindowSpec spec) {
        this.windowSize = spec.windowSize().toMillis();
        this.allowedLateness = spec.allowedLateness().toMillis();
    }

    @Override
    public void open(OpenContext openContext) {
        windowsRead = getRuntimeContext().getLongCounter(WINDOWS_READ);
    }

    @Override
    public void readWindow(
            String userId,
            Context<TimeWindow> context,
            Iterable<FeatureAccumulator> contents,
            Collector<MigratedWindow> out)
            throws Exception {
        TimeWindow window = context.window();
        String mismatch = mismatch(userId, window, context.registeredEventTimeTimers());
        if (mismatch != null) {
            // SavepointMigration checks every window first (FirstReleaseWindowCheck): not reached
            // unless the savepoint changed in between.
            throw new IllegalArgumentException(mismatch);
        }
        Iterator<FeatureAccumulator> it = contents.iterator();
        if (!it.hasNext()) {
            // A window with timers but no contents cannot exist in that operator; nothing to keep.
            return;
        }
        FeatureAccumulator accumulator = it.next();
        KeyedStateStore state = context.windowState();
        PaneProgress progress =
                state.getState(
                                new ValueStateDescriptor<>(
                                        PANE_PROGRESS_STATE,
                                        TypeInformation.of(PaneProgress.class)))
                        .value();
        out.collect(
                progress == null
                        ? new MigratedWindow(
                                userId,
                                window.getStart(),
                                window.getEnd(),
                                WindowPane.NOT_FIRED,
                                0,
                                accumulator)
                        : new MigratedWindow(
                                userId,
                                window.getStart(),
                                window.getEnd(),
                                progress.revision(),
                                progress.recordsSeenOnTime(),
                                accumulator));
        windowsRead.add(1);
    }

    /**
     * Why this window cannot be migrated under the spec, or null if it can. Every window of the
     * first release is {@code windowSize} long and has a cleanup timer at {@code end - 1 +
     * allowedLateness} (registered with its first record); {@code timers} are all of the user's
     * (the State Processor API gives them per key, not per window).
     */
    String mismatch(String userId, TimeWindow window, Set<Long> timers) {
        if (window.getEnd() - window.getStart() != windowSize) {
            return "the savepoint's windows are "
                    + Duration.ofMillis(window.getEnd() - window.getStart())
                    + " long (user "
                    + userId
                    + ", window starting "
                    + Instant.ofEpochMilli(window.getStart())
                    + "), not "
                    + Duration.ofMillis(windowSize)
                    + ": pass the --window-size the job ran with";
        }
        long cleanup = window.maxTimestamp() + allowedLateness;
        if (timers.contains(cleanup)) {
            return null;
        }
        List<Duration> after =
                timers.stream()
                        .filter(t -> t >= window.maxTimestamp())
                        .sorted()
                        .map(t -> Duration.ofMillis(t - window.maxTimestamp()))
                        .toList();
        return "user "
                + userId
                + "'s window starting "
                + Instant.ofEpochMilli(window.getStart())
                + " has no cleanup timer "
                + Duration.ofMillis(allowedLateness)
                + " after its end (the user's timers are "
                + after
                + " after it): the savepoint was taken with another allowed lateness;"
                + " pass the --allowed-lateness the job ran with";
    }
}
