package org.fraudpipe.job.savepoint.migrate;

import org.apache.flink.api.common.functions.OpenContext;
import org.apache.flink.api.common.state.MapState;
import org.apache.flink.state.api.functions.KeyedStateBootstrapFunction;
import org.fraudpipe.job.window.FeatureWindowFunction;
import org.fraudpipe.job.window.FeatureWindowSpec;
import org.fraudpipe.job.window.WindowPane;

/**
 * Writes migrated windows as {@link FeatureWindowFunction}'s state: the window's {@link WindowPane}
 * under its start in the map state, and the one timer the function would have registered by now:
 * the on-time firing ({@code end - 1}) for a window that has not fired, the cleanup ({@code end - 1
 * + allowedLateness}) for one that has.
 */
final class WindowPaneBootstrap extends KeyedStateBootstrapFunction<String, MigratedWindow> {

    private static final long serialVersionUID = 1L;

    private final FeatureWindowSpec spec;
    private transient MapState<Long, WindowPane> windows;

    WindowPaneBootstrap(FeatureWindowSpec spec) {
        this.spec = spec;
    }

    @Override
    public void open(OpenContext openContext) {
        windows = getRuntimeContext().getMapState(FeatureWindowFunction.windowsDescriptor());
    }

    @Override
    public void processElement(MigratedWindow window, Context ctx) throws Exception {
        WindowPane pane =
                WindowPane.restore(
                        window.accumulator(), window.revision(), window.recordsSeenOnTime());
        windows.put(window.windowStart(), pane);
        long timer =
                pane.hasFired() ? spec.cleanupTime(window.windowEnd()) : window.windowEnd() - 1;
        ctx.timerService().registerEventTimeTimer(timer);
    }
}
