package org.fraudpipe.parity;

import java.util.Objects;
import org.apache.flink.streaming.api.datastream.DataStream;
import org.fraudpipe.schemas.avro.ArchivedTransaction;
import org.fraudpipe.schemas.avro.DeadLetter;
import org.fraudpipe.schemas.avro.FeatureRecord;
import org.fraudpipe.schemas.avro.LateRecord;
import org.fraudpipe.schemas.avro.ScoreRecord;
import org.fraudpipe.schemas.avro.TransactionScore;

/**
 * The bounded inputs of a parity run, wherever they were read from (archive, replay files, a test's
 * collections): what was received ({@link #transactions}) and what the job made of it.
 *
 * <p>Only {@link #transactions} and {@link #served} are required: Flink has no empty bounded
 * source, so a stream with nothing to read is null, and a null stream explains nothing.
 *
 * @param scores may be null: the run then measures no score-level skew
 * @param late may be null: no window is then explained by late records
 * @param deadLetters may be null: no window is then explained by dead letters
 * @param kafka null unless served values are read from the compacted topics: their panes and scores
 *     as {@link Evidence.Kind#KAFKA_SERVED} and {@link Evidence.Kind#KAFKA_SCORE}
 * @param transactionHistory the transactions received before the period whose event time lies in
 *     the trailing window of the period's first transactions (the per-transaction check only); may
 *     be null
 * @param transactionScores the per-transaction scores as served; may be null (none in the period)
 * @param labels fraud labels of transactions ({@link Evidence.Kind#LABEL}); may be null
 */
public record ParityStreams(
        DataStream<ArchivedTransaction> transactions,
        DataStream<FeatureRecord> served,
        DataStream<ScoreRecord> scores,
        DataStream<LateRecord> late,
        DataStream<DeadLetter> deadLetters,
        DataStream<Evidence> kafka,
        DataStream<ArchivedTransaction> transactionHistory,
        DataStream<TransactionScore> transactionScores,
        DataStream<Evidence> labels) {

    public ParityStreams {
        Objects.requireNonNull(transactions, "transactions");
        Objects.requireNonNull(served, "served");
    }

    /** The archive's inputs only (served values from the archive). */
    public ParityStreams(
            DataStream<ArchivedTransaction> transactions,
            DataStream<FeatureRecord> served,
            DataStream<ScoreRecord> scores,
            DataStream<LateRecord> late,
            DataStream<DeadLetter> deadLetters) {
        this(transactions, served, scores, late, deadLetters, null, null, null, null);
    }

    /** The same inputs with served values also read from Kafka. */
    public ParityStreams withKafka(DataStream<Evidence> kafkaEvidence) {
        return new ParityStreams(
                transactions,
                served,
                scores,
                late,
                deadLetters,
                kafkaEvidence,
                transactionHistory,
                transactionScores,
                labels);
    }

    /** The same inputs with those of the per-transaction check (each may be null). */
    public ParityStreams withTransactionInputs(
            DataStream<ArchivedTransaction> history,
            DataStream<TransactionScore> transactionScores,
            DataStream<Evidence> labels) {
        return new ParityStreams(
                transactions,
                served,
                scores,
                late,
                deadLetters,
                kafka,
                history,
                transactionScores,
                labels);
    }
}
