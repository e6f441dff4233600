package org.fraudpipe.parity;

import java.util.Objects;
import org.apache.flink.streaming.api.datastream.DataStream;
import org.fraudpipe.schemas.avro.ArchivedTransaction;
import org.fraudpipe.schemas.avro.DeadLetter;
import org.fraudpipe.schemas.avro.FeatureRecord;
import org.fraudpipe.schemas.avro.LateRecord;
import org.fraudpipe.schemas.avro.ScoreRecord;

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
 */
public record ParityStreams(
        DataStream<ArchivedTransaction> transactions,
        DataStream<FeatureRecord> served,
        DataStream<ScoreRecord> scores,
        DataStream<LateRecord> late,
        DataStream<DeadLetter> deadLetters) {

    public ParityStreams {
        Objects.requireNonNull(transactions, "transactions");
        Objects.requireNonNull(served, "served");
    }
}
