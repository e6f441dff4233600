package org.fraudpipe.parity;

import java.util.BitSet;
import org.apache.flink.api.common.functions.RichMapFunction;
import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.streaming.api.datastream.DataStream;

/**
 * What a parity run brings back to its client, in one collected stream: one subtask's partial
 * window report or one subtask's partial per-transaction report, each serialized ({@link
 * org.fraudpipe.parity.report.ReportBuilder}, {@link
 * org.fraudpipe.parity.report.TransactionReportBuilder}), tagged with the subtask that folded it.
 * One stream, so that the client reads one result as the job produces it (two collect sinks
 * finishing at different times leave one polling a finished sink).
 *
 * <p>A Flink POJO; exactly one of the reports is set.
 */
public final class ParityOutput {

    public byte[] windowReport;
    public byte[] transactionReport;

    /** The folding subtask's index and its operator's parallelism. */
    public int subtask;

    public int subtasks;

    public ParityOutput() {}

    /** {@code partials} tagged as window ({@code window}) or transaction reports. */
    static DataStream<ParityOutput> tag(DataStream<byte[]> partials, boolean window) {
        return partials.map(new Tag(window), TypeInformation.of(ParityOutput.class))
                .name(window ? "partial window reports" : "partial transaction reports");
    }

    /**
     * Runs chained to the folding operator (same parallelism, forward), so its subtask index is the
     * folding subtask's.
     */
    private static final class Tag extends RichMapFunction<byte[], ParityOutput> {
        private static final long serialVersionUID = 1L;
        private final boolean window;

        Tag(boolean window) {
            this.window = window;
        }

        @Override
        public ParityOutput map(byte[] partial) {
            ParityOutput o = new ParityOutput();
            if (window) {
                o.windowReport = partial;
            } else {
                o.transactionReport = partial;
            }
            o.subtask = getRuntimeContext().getTaskInfo().getIndexOfThisSubtask();
            o.subtasks = getRuntimeContext().getTaskInfo().getNumberOfParallelSubtasks();
            return o;
        }
    }

    /**
     * Checks that the client received every subtask's partial report of one kind exactly once: a
     * result lost between the cluster and the client would otherwise make a report that silently
     * counts less than was judged.
     */
    static final class Completeness {
        private final String kind;
        private final BitSet seen = new BitSet();
        private int expected = -1;

        Completeness(String kind) {
            this.kind = kind;
        }

        void received(ParityOutput o) {
            if (expected >= 0 && expected != o.subtasks) {
                throw new IllegalStateException(
                        kind + " reports from " + expected + " and " + o.subtasks + " subtasks");
            }
            expected = o.subtasks;
            if (seen.get(o.subtask)) {
                throw new IllegalStateException(
                        "the " + kind + " report of subtask " + o.subtask + " arrived twice");
            }
            seen.set(o.subtask);
        }

        /** Throws unless all partial reports arrived (none when nothing was expected). */
        void verify() {
            if (expected >= 0 && seen.cardinality() != expected) {
                throw new IllegalStateException(
                        "the parity job's results reached the client incomplete: "
                                + seen.cardinality()
                                + " of "
                                + expected
                                + " partial "
                                + kind
                                + " reports; nothing was reported, run the check again");
            }
            if (expected < 0) {
                throw new IllegalStateException(
                        "the parity job returned no partial " + kind + " report; run it again");
            }
        }
    }
}
