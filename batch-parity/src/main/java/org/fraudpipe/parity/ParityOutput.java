package org.fraudpipe.parity;

/**
 * What a parity run brings back to its client, in one collected stream: a window's verdict, or a
 * subtask's partial per-transaction report (serialized {@link
 * org.fraudpipe.parity.report.TransactionReportBuilder}). One stream, so that the client reads one
 * result as the job produces it (two collect sinks finishing at different times leave one polling a
 * finished sink).
 *
 * <p>A Flink POJO; exactly one field is set.
 */
public final class ParityOutput {

    public WindowVerdict window;
    public byte[] transactionReport;

    public ParityOutput() {}

    static ParityOutput of(WindowVerdict v) {
        ParityOutput o = new ParityOutput();
        o.window = v;
        return o;
    }

    static ParityOutput of(byte[] partial) {
        ParityOutput o = new ParityOutput();
        o.transactionReport = partial;
        return o;
    }
}
