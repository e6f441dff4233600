package org.fraudpipe.parity;

/**
 * What a parity run brings back to its client, in one collected stream: one subtask's partial
 * window report or one subtask's partial per-transaction report, each serialized ({@link
 * org.fraudpipe.parity.report.ReportBuilder}, {@link
 * org.fraudpipe.parity.report.TransactionReportBuilder}). One stream, so that the client reads one
 * result as the job produces it (two collect sinks finishing at different times leave one polling a
 * finished sink).
 *
 * <p>A Flink POJO; exactly one field is set.
 */
public final class ParityOutput {

    public byte[] windowReport;
    public byte[] transactionReport;

    public ParityOutput() {}

    static ParityOutput window(byte[] partial) {
        ParityOutput o = new ParityOutput();
        o.windowReport = partial;
        return o;
    }

    static ParityOutput transaction(byte[] partial) {
        ParityOutput o = new ParityOutput();
        o.transactionReport = partial;
        return o;
    }
}
