package org.fraudpipe.parity.transaction;

import org.apache.flink.streaming.api.operators.KeyedProcessOperator;
import org.apache.flink.streaming.runtime.streamrecord.StreamRecord;
import org.fraudpipe.parity.Evidence;

/**
 * Runs {@link TransactionVerdictFunction} keyed by user ({@link
 * org.fraudpipe.parity.SortKeys#user}) and, when its input ends (after the last user's timer has
 * fired), emits the subtask's partial report once: the aggregation happens on the cluster, and the
 * client receives one small record per subtask.
 */
public final class TransactionJudgeOperator extends KeyedProcessOperator<Long, Evidence, byte[]> {

    private static final long serialVersionUID = 1L;

    public TransactionJudgeOperator(TransactionVerdictFunction function) {
        super(function);
    }

    @Override
    public void finish() throws Exception {
        super.finish();
        output.collect(new StreamRecord<>(((TransactionVerdictFunction) userFunction).partial()));
    }
}
