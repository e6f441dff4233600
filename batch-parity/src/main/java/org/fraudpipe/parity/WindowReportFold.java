package org.fraudpipe.parity;

import org.apache.flink.metrics.Counter;
import org.apache.flink.streaming.api.operators.AbstractStreamOperator;
import org.apache.flink.streaming.api.operators.OneInputStreamOperator;
import org.apache.flink.streaming.runtime.streamrecord.StreamRecord;
import org.fraudpipe.parity.report.ReportBuilder;

/**
 * Folds the window verdicts of its subtask into a {@link ReportBuilder} and, when its input ends,
 * emits that partial report once, serialized: the client receives one small record per subtask
 * instead of every window's verdict, so its memory and work stay flat in the number of windows.
 * Counts the verdicts in the metric {@value #WINDOWS_JUDGED}.
 */
final class WindowReportFold extends AbstractStreamOperator<byte[]>
        implements OneInputStreamOperator<WindowVerdict, byte[]> {

    private static final long serialVersionUID = 1L;

    /** Windows judged by this subtask so far. */
    static final String WINDOWS_JUDGED = "parityWindowsJudged";

    private transient ReportBuilder partial;
    private transient Counter judged;

    @Override
    public void open() throws Exception {
        super.open();
        partial = new ReportBuilder();
        judged = getMetricGroup().counter(WINDOWS_JUDGED);
    }

    @Override
    public void processElement(StreamRecord<WindowVerdict> element) {
        partial.add(element.getValue());
        judged.inc();
    }

    @Override
    public void finish() throws Exception {
        super.finish();
        output.collect(new StreamRecord<>(partial.toBytes()));
    }
}
