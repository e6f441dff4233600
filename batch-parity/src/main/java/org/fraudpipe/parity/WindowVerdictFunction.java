package org.fraudpipe.parity;

import java.util.ArrayList;
import java.util.List;
import org.apache.flink.api.common.state.ListState;
import org.apache.flink.api.common.state.ListStateDescriptor;
import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.streaming.api.functions.KeyedProcessFunction;
import org.apache.flink.util.Collector;
import org.fraudpipe.job.archive.ArchivePolicy;

/**
 * Gathers every {@link Evidence} of one (user, window) and emits its {@link WindowVerdict}. Keyed
 * by the window's {@link SortKeys#window fingerprint}: a key's evidence is regrouped by the exact
 * (user, window start), one verdict each.
 *
 * <p>Runs in BATCH execution mode only: there, a key's records arrive together and event-time
 * timers fire when the key is done (the watermark jumps to {@code Long.MAX_VALUE}), so the timer
 * registered with the first record fires once, after the last.
 */
final class WindowVerdictFunction extends KeyedProcessFunction<Long, Evidence, WindowVerdict> {

    private static final long serialVersionUID = 1L;

    private final ArchivePolicy policy;
    private final boolean servedFromKafka;
    private transient ListState<Evidence> evidence;
    private transient WindowJudge judge;

    WindowVerdictFunction(ArchivePolicy policy, boolean servedFromKafka) {
        this.policy = policy;
        this.servedFromKafka = servedFromKafka;
    }

    @Override
    public void open(org.apache.flink.api.common.functions.OpenContext context) {
        evidence =
                getRuntimeContext()
                        .getListState(
                                new ListStateDescriptor<>(
                                        "evidence", TypeInformation.of(Evidence.class)));
        judge = new WindowJudge(policy, servedFromKafka);
    }

    @Override
    public void processElement(Evidence value, Context ctx, Collector<WindowVerdict> out)
            throws Exception {
        evidence.add(value);
        ctx.timerService().registerEventTimeTimer(Long.MAX_VALUE);
    }

    @Override
    public void onTimer(long timestamp, OnTimerContext ctx, Collector<WindowVerdict> out)
            throws Exception {
        List<Evidence> all = new ArrayList<>();
        evidence.get().forEach(all::add);
        evidence.clear();
        for (List<Evidence> window : SortKeys.groups(all, WindowId::of)) {
            Evidence e = window.get(0);
            out.collect(judge.judge(e.userId, e.windowStart, window));
        }
    }

    /** The exact identity of a window's evidence, ordered by user and start. */
    private record WindowId(String userId, long windowStart) implements Comparable<WindowId> {
        static WindowId of(Evidence e) {
            return new WindowId(e.userId, e.windowStart);
        }

        @Override
        public int compareTo(WindowId o) {
            int c = userId.compareTo(o.userId);
            return c != 0 ? c : Long.compare(windowStart, o.windowStart);
        }
    }
}
