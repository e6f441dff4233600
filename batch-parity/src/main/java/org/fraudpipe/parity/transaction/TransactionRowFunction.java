package org.fraudpipe.parity.transaction;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.apache.flink.api.common.functions.OpenContext;
import org.apache.flink.api.common.state.ListState;
import org.apache.flink.api.common.state.ListStateDescriptor;
import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.streaming.api.functions.KeyedProcessFunction;
import org.apache.flink.util.Collector;
import org.fraudpipe.job.archive.ArchivePolicy;
import org.fraudpipe.parity.Evidence;

/**
 * Judges one user's scored transactions like the parity check ({@link TransactionJudge}) and emits
 * one {@link TransactionRow} per judged transaction, with the features the export's semantics asks
 * for: as served (the first answer), or ideal. BATCH execution mode only (the timer at {@code
 * Long.MAX_VALUE} fires after the user's last record).
 */
final class TransactionRowFunction extends KeyedProcessFunction<String, Evidence, TransactionRow> {

    private static final long serialVersionUID = 1L;

    private final ArchivePolicy policy;
    private final Duration trailing;
    private final long fromMillis;
    private final long toMillis;
    private final boolean asServed;

    private transient ListState<Evidence> evidence;
    private transient TransactionJudge judge;

    TransactionRowFunction(
            ArchivePolicy policy,
            Duration trailing,
            long fromMillis,
            long toMillis,
            boolean asServed) {
        this.policy = policy;
        this.trailing = trailing;
        this.fromMillis = fromMillis;
        this.toMillis = toMillis;
        this.asServed = asServed;
    }

    @Override
    public void open(OpenContext context) {
        evidence =
                getRuntimeContext()
                        .getListState(
                                new ListStateDescriptor<>(
                                        "row-evidence", TypeInformation.of(Evidence.class)));
        judge = new TransactionJudge(policy, trailing, fromMillis, toMillis);
    }

    @Override
    public void processElement(Evidence value, Context ctx, Collector<TransactionRow> out)
            throws Exception {
        evidence.add(value);
        ctx.timerService().registerEventTimeTimer(Long.MAX_VALUE);
    }

    @Override
    public void onTimer(long timestamp, OnTimerContext ctx, Collector<TransactionRow> out)
            throws Exception {
        List<Evidence> all = new ArrayList<>();
        evidence.get().forEach(all::add);
        evidence.clear();
        for (TransactionVerdict v : judge.judge(ctx.getCurrentKey(), all).verdicts()) {
            TransactionRow row = new TransactionRow();
            row.sortKey = TransactionRow.sortKeyOf(v.userId, v.eventTime, v.transactionId);
            row.features = asServed ? (v.served == null ? null : v.served.getFeatures()) : v.ideal;
            row.labelled = v.fraud != null;
            row.fraud = v.fraud != null && v.fraud;
            row.cause = v.cause.name();
            row.differsFromIdeal = !v.differingFeatures.isEmpty();
            out.collect(row);
        }
    }
}
