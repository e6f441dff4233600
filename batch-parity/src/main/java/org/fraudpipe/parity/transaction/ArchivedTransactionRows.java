package org.fraudpipe.parity.transaction;

import java.io.IOException;
import java.time.Duration;
import java.util.Map;
import java.util.Objects;
import java.util.TreeMap;
import org.apache.flink.api.common.operators.Order;
import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.api.common.typeinfo.Types;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.streaming.api.datastream.DataStream;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.util.CloseableIterator;
import org.fraudpipe.job.features.WindowAssignment;
import org.fraudpipe.parity.Evidence;
import org.fraudpipe.parity.ParityPeriod;
import org.fraudpipe.parity.ParityPipeline;
import org.fraudpipe.parity.ParityStreams;
import org.fraudpipe.parity.input.InputResolver;
import org.fraudpipe.parity.input.ParityInputException;
import org.fraudpipe.parity.input.ParitySources;
import org.fraudpipe.parity.input.PolicyResolver;
import org.fraudpipe.parity.input.StreamInput;
import org.fraudpipe.schemas.archive.ArchiveStream;

/**
 * Per-transaction training rows from the job's archive ({@code ./fraud features --per-transaction
 * --archive}): for every transaction of a period that the job scored (or should have), its features
 * <em>as served</em> (the archived answer: what the model saw in production) or <em>ideal</em> (the
 * parity check's recomputation over every archived record of its trailing window), with its label.
 * The same BATCH job, inputs and judge as {@code ./fraud parity} ({@link TransactionJudge}), so the
 * ideal a bank trains on is the ideal parity compares with. Rows come back to the client sorted by
 * user, event time and id (Flink's external sort, one partition) and are handed on one by one, so
 * the client holds one row at a time.
 */
public final class ArchivedTransactionRows {

    /** Which features a row carries. */
    public enum Semantics {
        /** The first archived answer's features; transactions never scored have no row. */
        AS_SERVED,
        /** The recomputation over every archived record of the trailing window. */
        IDEAL
    }

    /**
     * What an export reads, resolved and checked on the client (a missing partition or policy
     * conflict is a {@link ParityInputException} before anything runs).
     */
    public record Plan(
            ParityPeriod period,
            PolicyResolver.Resolved policy,
            Map<ArchiveStream, StreamInput> inputs,
            StreamInput history,
            Duration trailing,
            long readEndMillis,
            String labels) {}

    /**
     * What an export wrote.
     *
     * @param judged transactions of the period judged
     * @param rows rows handed on
     * @param users distinct users of the rows
     * @param fraudulent rows labelled fraudulent
     * @param neverScored transactions without an answer (no as-served row)
     * @param differing rows whose served features differ from ideal
     * @param alarms transactions whose parity cause is an alarm (see {@code ./fraud parity})
     * @param byCause judged transactions per parity cause (non-zero ones)
     */
    public record Counts(
            long judged,
            long rows,
            long users,
            long fraudulent,
            long neverScored,
            long differing,
            long alarms,
            Map<String, Long> byCause) {}

    /** Receives the rows in file order. */
    @FunctionalInterface
    public interface RowConsumer {
        void accept(TransactionRow row) throws IOException;
    }

    private ArchivedTransactionRows() {}

    /**
     * Resolves the inputs of {@code archiveRoot} for {@code period} as the parity check does.
     *
     * @param trailing T, or null for the recorded window size (the job's default)
     * @param labels a labels file ({@link org.fraudpipe.parity.input.TransactionLabels}), or null
     * @throws ParityInputException a missing archive, day partition or transaction-scores stream;
     *     two policies in the period
     */
    public static Plan plan(
            String archiveRoot,
            ParityPeriod period,
            Duration trailing,
            Duration arrivalHorizon,
            String labels)
            throws ParityInputException {
        if (!period.isBounded()) {
            throw new IllegalArgumentException("an archive is read for a period");
        }
        PolicyResolver.Resolved policy =
                PolicyResolver.resolve(
                        PolicyResolver.recordedInArchive(archiveRoot),
                        period,
                        period.to().plus(arrivalHorizon),
                        Map.of());
        WindowAssignment windows = WindowAssignment.tumbling(policy.policy().windowSize());
        InputResolver resolver = new InputResolver(period, windows, arrivalHorizon);
        Map<ArchiveStream, StreamInput> inputs = resolver.archive(archiveRoot);
        org.apache.flink.core.fs.Path scores =
                new org.apache.flink.core.fs.Path(
                        archiveRoot, ArchiveStream.TRANSACTION_SCORES.directory());
        try {
            if (!scores.getFileSystem().exists(scores)) {
                throw new ParityInputException(
                        "the archive "
                                + archiveRoot
                                + " has no "
                                + ArchiveStream.TRANSACTION_SCORES.directory()
                                + "/: it was written before scores at arrival, so it holds no"
                                + " per-transaction features");
            }
        } catch (IOException e) {
            throw new ParityInputException("cannot reach " + scores + ": " + e.getMessage(), e);
        }
        Duration t = trailing != null ? trailing : policy.policy().windowSize();
        StreamInput history =
                resolver.transactionHistory(
                        new org.apache.flink.core.fs.Path(
                                        archiveRoot, ArchiveStream.TRANSACTIONS.directory())
                                .toString(),
                        t);
        return new Plan(
                period,
                policy,
                inputs,
                history,
                t,
                InputResolver.readEnd(period, windows, arrivalHorizon),
                labels);
    }

    /** Runs the export of {@code plan} in a BATCH job, handing every row to {@code consumer}. */
    public static Counts run(Plan plan, Semantics semantics, int parallelism, RowConsumer consumer)
            throws Exception {
        Configuration conf = ParityPipeline.batchConfiguration();
        StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment(conf);
        if (parallelism > 0) {
            env.setParallelism(parallelism);
        }
        ParityStreams streams =
                ParitySources.create(
                        env, plan.inputs(), plan.policy().policy().futureTolerance(), false);
        streams =
                ParitySources.withTransactions(
                        env,
                        streams,
                        plan.history(),
                        plan.inputs().get(ArchiveStream.TRANSACTION_SCORES),
                        plan.labels());
        long from = plan.period().from().toEpochMilli();
        long to = plan.period().to().toEpochMilli();
        DataStream<Evidence> evidence =
                ParityPipeline.transactionEvidence(
                        streams,
                        plan.policy().policy(),
                        plan.period(),
                        plan.readEndMillis(),
                        plan.trailing());
        DataStream<TransactionRow> sorted =
                evidence.keyBy(e -> e.userId, Types.STRING)
                        .process(
                                new TransactionRowFunction(
                                        plan.policy().policy(),
                                        plan.trailing(),
                                        from,
                                        to,
                                        semantics == Semantics.AS_SERVED),
                                TypeInformation.of(TransactionRow.class))
                        .name("judge transactions, rows")
                        .global()
                        .fullWindowPartition()
                        .sortPartition(r -> r.sortKey, Order.ASCENDING)
                        .setParallelism(1)
                        .name("rows by user, event time, id");

        long judged = 0;
        long rows = 0;
        long users = 0;
        long fraudulent = 0;
        long neverScored = 0;
        long differing = 0;
        long alarms = 0;
        Map<String, Long> byCause = new TreeMap<>();
        String lastUser = null;
        try (CloseableIterator<TransactionRow> it =
                sorted.executeAndCollect("fraud features per transaction " + plan.period())) {
            while (it.hasNext()) {
                TransactionRow row = it.next();
                judged++;
                byCause.merge(row.cause, 1L, Long::sum);
                if (!TransactionCause.valueOf(row.cause).isExplained()) {
                    alarms++;
                }
                if (row.cause.equals(TransactionCause.MISSING_SCORE.name())
                        && semantics == Semantics.AS_SERVED
                        && row.features == null) {
                    neverScored++;
                }
                if (row.features == null) {
                    continue;
                }
                rows++;
                String user = row.features.getUserId();
                if (!Objects.equals(user, lastUser)) {
                    users++;
                    lastUser = user;
                }
                if (row.fraud) {
                    fraudulent++;
                }
                if (row.differsFromIdeal) {
                    differing++;
                }
                consumer.accept(row);
            }
        }
        return new Counts(judged, rows, users, fraudulent, neverScored, differing, alarms, byCause);
    }
}
