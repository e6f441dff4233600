package org.fraudpipe.tools.export;

import java.io.BufferedReader;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import org.fraudpipe.job.features.TrailingFeatures;
import org.fraudpipe.job.ingest.RecordIngestor;
import org.fraudpipe.job.io.AtomicFiles;
import org.fraudpipe.schemas.avro.Transaction;
import org.fraudpipe.schemas.avro.TransactionFeatures;
import org.fraudpipe.schemas.json.ReplayFormatException;
import org.fraudpipe.schemas.json.ReplayRecord;
import org.fraudpipe.schemas.json.TransactionJson;
import org.fraudpipe.scoring.data.LabelledTransaction;
import org.fraudpipe.scoring.data.LabelledTransactionsJson;
import org.fraudpipe.sim.Label;
import org.fraudpipe.sim.LabelJson;

/**
 * Labelled per-transaction training rows from a simulation ({@code ./fraud features
 * --per-transaction}): one row per transaction the job scores, with the features of the one
 * definition ({@link TrailingFeatures}) and the simulator's label of its id. Plain Java, no Flink.
 *
 * <p>Which transactions are rows: the first line of each transaction id that reads and validates
 * strictly ({@link TransactionJson#parseValidLine}) and is not future-dated by the job's rule
 * ({@link RecordIngestor#isFutureDated}, against the line's arrival time): the transactions the job
 * scores. A later line with the same id (a producer retry) is no row of its own: the job answers it
 * with the original's values. Future-dated lines are no rows (the job quarantines them, no score).
 *
 * <p>Two semantics ({@link FeatureSemantics}), in file (arrival) order:
 *
 * <ul>
 *   <li>{@code as-of-arrival}: the history of x is the user's earlier lines that the job scores
 *       (valid, not future-dated): what the job computes when x arrives. (The job is exact for
 *       every transaction at most the allowed lateness behind its watermark; a later one finds part
 *       of its trailing window evicted, which these rows do not model.)
 *   <li>{@code ideal}: the history of x is every valid line of the user, earlier or later,
 *       future-dated ones included: every stored transaction of the trailing window, however late
 *       it arrived (DESIGN.md). A duplicate counts once with its first-arrived payload, as in the
 *       job.
 * </ul>
 *
 * <p>Both are computed in one pass, so the summary says how many rows differ between them (the skew
 * of the decision path: records that arrived after the transaction they belong to). Consistency
 * checks, so that labels of another simulation fail instead of mislabelling: every valid
 * transaction has a label and every fraudulent label that is not malformed has a row. Limit: holds
 * the valid transactions in memory, and a user's history is scanned once per row (quadratic in a
 * user's transactions; a few dozen per user and day in the simulations).
 */
public final class TransactionFeatureExport {

    /**
     * What an export read and wrote.
     *
     * @param lines lines of the transactions file
     * @param invalidLines lines that do not read or validate (left out)
     * @param futureDated valid lines the job quarantines (no rows; in the ideal history only)
     * @param retries valid lines repeating an earlier id (no rows of their own)
     * @param transactions rows written
     * @param fraudulent of those, labelled fraudulent
     * @param users distinct users of the rows
     * @param differingFromIdeal rows whose as-of-arrival features differ from the ideal ones
     */
    public record Summary(
            long lines,
            long invalidLines,
            long futureDated,
            long retries,
            long transactions,
            long fraudulent,
            long users,
            long differingFromIdeal) {}

    /** The labelled rows and the counts of what was skipped. */
    public record Result(List<LabelledTransaction> rows, Summary summary) {}

    private final Duration trailing;
    private final RecordIngestor ingestor;
    private final boolean ideal;

    /**
     * @param trailing T, the trailing window (the job's {@code --trailing-window})
     * @param futureTolerance the job's {@code --future-tolerance}: which lines the job quarantines
     * @param semantics {@code AS_OF_ARRIVAL} or {@code IDEAL}
     */
    public TransactionFeatureExport(
            Duration trailing, Duration futureTolerance, FeatureSemantics semantics) {
        this.trailing = Objects.requireNonNull(trailing, "trailing");
        this.ingestor = new RecordIngestor(Objects.requireNonNull(futureTolerance));
        this.ideal =
                switch (semantics) {
                    case IDEAL -> true;
                    case AS_OF_ARRIVAL -> false;
                    case AS_SERVED ->
                            throw new IllegalArgumentException(
                                    "per-transaction features are as-of-arrival (what the job"
                                            + " serves) or ideal, not as-served");
                };
    }

    /** Reads a transactions file (replay format, arrival order) and its labels, and computes. */
    public Result compute(Path transactions, Path labels) throws IOException {
        List<ReplayRecord> records = new ArrayList<>();
        long lines = 0;
        long invalid = 0;
        try (BufferedReader in = Files.newBufferedReader(transactions, StandardCharsets.UTF_8)) {
            String line;
            while ((line = in.readLine()) != null) {
                lines++;
                try {
                    records.add(
                            TransactionJson.parseValidLine(transactions.toString(), line, lines));
                } catch (ReplayFormatException e) {
                    invalid++;
                }
            }
        }
        Result r = compute(records, LabelJson.readAll(labels));
        Summary s = r.summary();
        return new Result(
                r.rows(),
                new Summary(
                        lines,
                        invalid,
                        s.futureDated(),
                        s.retries(),
                        s.transactions(),
                        s.fraudulent(),
                        s.users(),
                        s.differingFromIdeal()));
    }

    /** One valid line in arrival order: whether the job scores it. */
    private record Line(Transaction tx, boolean scored) {}

    /**
     * The labelled rows of valid transactions in arrival order, sorted by user, event time, id.
     *
     * @throws IllegalArgumentException if a transaction has no label or a fraudulent transaction of
     *     the labels has no row (labels of another simulation)
     */
    public Result compute(List<ReplayRecord> arrivalOrder, Collection<Label> labels) {
        Map<String, Boolean> fraudById = new HashMap<>();
        labels.forEach(l -> fraudById.put(l.transactionId(), l.fraud()));
        Map<String, List<Line>> byUser = new LinkedHashMap<>();
        long futureDated = 0;
        for (ReplayRecord record : arrivalOrder) {
            Transaction tx = record.transaction();
            if (!fraudById.containsKey(tx.getTransactionId())) {
                throw new IllegalArgumentException(
                        "transaction "
                                + tx.getTransactionId()
                                + " has no label: are the labels those of this transactions"
                                + " file?");
            }
            boolean quarantined =
                    ingestor.isFutureDated(tx, record.arrivalOrEventTime().toEpochMilli());
            if (quarantined) {
                futureDated++;
            }
            byUser.computeIfAbsent(tx.getUserId(), u -> new ArrayList<>())
                    .add(new Line(tx, !quarantined));
        }

        List<LabelledTransaction> rows = new ArrayList<>();
        Set<String> scoredIds = new HashSet<>();
        long retries = 0;
        long differing = 0;
        for (List<Line> lines : byUser.values()) {
            Set<String> seen = new HashSet<>();
            for (int i = 0; i < lines.size(); i++) {
                Line x = lines.get(i);
                if (!x.scored()) {
                    continue;
                }
                if (!seen.add(x.tx().getTransactionId())) {
                    retries++;
                    continue;
                }
                TrailingFeatures.Result asOfArrival = asOfArrival(lines, i);
                TrailingFeatures.Result idealResult = ideal(lines, x.tx());
                if (!asOfArrival.equals(idealResult)) {
                    differing++;
                }
                String id = x.tx().getTransactionId();
                scoredIds.add(id);
                rows.add(
                        new LabelledTransaction(
                                features(x.tx(), ideal ? idealResult : asOfArrival),
                                fraudById.get(id)));
            }
        }
        for (Label l : labels) {
            if (l.fraud() && !l.malformed() && !scoredIds.contains(l.transactionId())) {
                throw new IllegalArgumentException(
                        "the labels make transaction "
                                + l.transactionId()
                                + " fraudulent but the transactions file has no valid line of it:"
                                + " are the labels those of this transactions file?");
            }
        }
        rows.sort(
                Comparator.comparing((LabelledTransaction r) -> r.features().getUserId())
                        .thenComparing(r -> r.features().getEventTime())
                        .thenComparing(r -> r.features().getTransactionId()));
        long fraudulent = rows.stream().filter(LabelledTransaction::fraud).count();
        return new Result(
                List.copyOf(rows),
                new Summary(
                        arrivalOrder.size(),
                        0,
                        futureDated,
                        retries,
                        rows.size(),
                        fraudulent,
                        rows.stream().map(r -> r.features().getUserId()).distinct().count(),
                        differing));
    }

    /** Over the user's earlier lines the job scores, in arrival order. */
    private TrailingFeatures.Result asOfArrival(List<Line> lines, int index) {
        TrailingFeatures f = TrailingFeatures.of(lines.get(index).tx(), trailing);
        for (int j = 0; j < index; j++) {
            if (lines.get(j).scored()) {
                f.add(lines.get(j).tx());
            }
        }
        return f.result();
    }

    /** Over every valid line of the user, future-dated and later ones included. */
    private TrailingFeatures.Result ideal(List<Line> lines, Transaction x) {
        TrailingFeatures f = TrailingFeatures.of(x, trailing);
        for (Line l : lines) {
            f.add(l.tx());
        }
        return f.result();
    }

    private TransactionFeatures features(Transaction x, TrailingFeatures.Result result) {
        return result.writeTo(TransactionFeatures.newBuilder())
                .setTransactionId(x.getTransactionId())
                .setUserId(x.getUserId())
                .setEventTime(x.getEventTime())
                .setTrailingWindowMillis(trailing.toMillis())
                .setAmountMinor(x.getAmountMinor())
                .setHistoryComplete(true)
                .build();
    }

    /**
     * Writes labelled rows in the per-transaction training format, to a temporary file renamed over
     * {@code out} once complete.
     */
    public static void write(List<LabelledTransaction> rows, Path out) throws IOException {
        AtomicFiles.write(
                out,
                w -> {
                    for (LabelledTransaction row : rows) {
                        w.write(LabelledTransactionsJson.toJsonLine(row));
                        w.write('\n');
                    }
                });
    }
}
