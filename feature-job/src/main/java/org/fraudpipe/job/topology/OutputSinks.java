package org.fraudpipe.job.topology;

import org.apache.flink.streaming.api.datastream.DataStream;
import org.fraudpipe.schemas.avro.DeadLetter;
import org.fraudpipe.schemas.avro.FeatureRecord;
import org.fraudpipe.schemas.avro.LateRecord;
import org.fraudpipe.schemas.avro.ScoreRecord;
import org.fraudpipe.schemas.avro.TransactionScore;

/**
 * Where the job's outputs go: Kafka topics in production, JSON Lines files in a replay, collections
 * in a test. Each method attaches one sink (with a stable uid from {@link Uids}) to one output
 * stream.
 */
public interface OutputSinks {

    /**
     * Every pane of every (user, window); upsert by (userId, windowStart), highest revision wins.
     */
    void features(DataStream<FeatureRecord> features);

    /**
     * The model's score of every pane; upsert by (userId, windowStart), highest revision wins. Only
     * called when the topology scores (a model is configured).
     */
    void scores(DataStream<ScoreRecord> scores);

    /** Too-late and future-dated transactions, kept as data. */
    void late(DataStream<LateRecord> late);

    /** Records that could not become valid transactions, with their bytes and the reason. */
    void deadLetters(DataStream<DeadLetter> deadLetters);

    /**
     * Every valid transaction's score at arrival, keyed by transactionId (a retry answered again is
     * a second record with the same values). Only called when the topology scores transactions.
     */
    void transactionScores(DataStream<TransactionScore> transactionScores);
}
