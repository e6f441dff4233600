package org.fraudpipe.job.replay;

import java.util.Comparator;
import java.util.List;
import org.apache.avro.specific.SpecificRecordBase;
import org.fraudpipe.schemas.avro.DeadLetter;
import org.fraudpipe.schemas.avro.FeatureRecord;
import org.fraudpipe.schemas.avro.LateRecord;
import org.fraudpipe.schemas.avro.ScoreRecord;
import org.fraudpipe.schemas.avro.TransactionScore;

/**
 * One output file of a replay: its name, its record type and its canonical order.
 *
 * <p>The order is what makes the file independent of how Flink interleaved parallel subtasks: the
 * lines are sorted by {@link #order()}, then by the whole JSON line, which is a total order on the
 * file's content. So two runs that produce the same multiset of records write the same bytes.
 *
 * <p>Adding an output (e.g. {@code scores.jsonl} with the scoring stage) is one more constant here
 * plus one more sink in {@link ReplaySinks}.
 *
 * @param name the file's base name: {@code <name>.jsonl} in the output directory
 * @param type the Avro record class the stream carries
 * @param order the canonical order of the lines (before the whole-line tie-break)
 */
public record ReplayOutput<T extends SpecificRecordBase>(
        String name, Class<T> type, Comparator<T> order) {

    /** Every pane: by user, window start, revision (a unique key). */
    public static final ReplayOutput<FeatureRecord> FEATURES =
            new ReplayOutput<>(
                    "features",
                    FeatureRecord.class,
                    Comparator.comparing(FeatureRecord::getUserId)
                            .thenComparing(FeatureRecord::getWindowStart)
                            .thenComparingInt(FeatureRecord::getRevision));

    /** Every pane's score: by user, window start, revision (a unique key). */
    public static final ReplayOutput<ScoreRecord> SCORES =
            new ReplayOutput<>(
                    "scores",
                    ScoreRecord.class,
                    Comparator.comparing(ScoreRecord::getUserId)
                            .thenComparing(ScoreRecord::getWindowStart)
                            .thenComparingInt(ScoreRecord::getRevision));

    /**
     * Too-late and future-dated transactions: by transaction id, reason (symbol name), detection
     * time.
     */
    public static final ReplayOutput<LateRecord> LATE =
            new ReplayOutput<>(
                    "late",
                    LateRecord.class,
                    Comparator.comparing((LateRecord l) -> l.getTransaction().getTransactionId())
                            .thenComparing(l -> l.getReason().name())
                            .thenComparing(LateRecord::getDetectedAt));

    /** Dead letters: by position (file name, partition 0, line number). */
    public static final ReplayOutput<DeadLetter> DEAD_LETTERS =
            new ReplayOutput<>(
                    "dead-letters",
                    DeadLetter.class,
                    Comparator.comparing(DeadLetter::getSourceTopic)
                            .thenComparingInt(DeadLetter::getSourcePartition)
                            .thenComparingLong(DeadLetter::getSourceOffset));

    /**
     * Every transaction's score at arrival: by transaction id, then the time it was answered
     * ({@code scoredAt}: the arrival, in a replay; a retry's answer after the original's).
     */
    public static final ReplayOutput<TransactionScore> TRANSACTION_SCORES =
            new ReplayOutput<>(
                    "transaction-scores",
                    TransactionScore.class,
                    Comparator.comparing(TransactionScore::getTransactionId)
                            .thenComparing(TransactionScore::getScoredAt));

    /** Every output of a replay, in the order they are written. */
    public static final List<ReplayOutput<?>> ALL =
            List.of(FEATURES, SCORES, LATE, DEAD_LETTERS, TRANSACTION_SCORES);

    /** The final file's name, e.g. {@code features.jsonl}. */
    public String fileName() {
        return name + ".jsonl";
    }
}
