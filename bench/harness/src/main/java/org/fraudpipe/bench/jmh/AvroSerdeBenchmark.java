package org.fraudpipe.bench.jmh;

import java.time.Instant;
import java.util.concurrent.TimeUnit;
import org.fraudpipe.schemas.Topic;
import org.fraudpipe.schemas.avro.Decision;
import org.fraudpipe.schemas.avro.FeatureRecord;
import org.fraudpipe.schemas.avro.ScoreRecord;
import org.fraudpipe.schemas.avro.Timing;
import org.fraudpipe.schemas.avro.Transaction;
import org.fraudpipe.schemas.avro.WindowKey;
import org.fraudpipe.schemas.wire.ConfluentAvroCodec;
import org.fraudpipe.schemas.wire.TopicSerdes;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;

/**
 * The Confluent Avro serde of the job's I/O ({@link ConfluentAvroCodec}, schema ids cached after
 * the first call; an in-process registry): decode a {@link Transaction} (every input record),
 * encode a {@link FeatureRecord} and its {@link WindowKey} (every pane), encode a {@link
 * ScoreRecord} (every score); and, as baselines, the two records' bodies written by Avro's own
 * {@code SpecificDatumWriter} (the codec's writer before it had hand-written ones).
 */
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@State(Scope.Thread)
public class AvroSerdeBenchmark {

    private ConfluentAvroCodec<Transaction> txCodec;
    private ConfluentAvroCodec<FeatureRecord> featureCodec;
    private ConfluentAvroCodec<WindowKey> keyCodec;
    private ConfluentAvroCodec<ScoreRecord> scoreCodec;
    private byte[] txBytes;
    private FeatureRecord feature;
    private WindowKey key;
    private ScoreRecord score;

    @Setup
    public void setUp() {
        TopicSerdes serdes = TopicSerdes.forRegistry("mock://avro-serde-benchmark");
        txCodec = serdes.valueCodec(Topic.TRANSACTIONS, "transactions", Transaction.class);
        featureCodec = serdes.valueCodec(Topic.FEATURES, "features", FeatureRecord.class);
        keyCodec = serdes.windowKeyCodec(Topic.FEATURES, "features");
        scoreCodec = serdes.valueCodec(Topic.SCORES, "scores", ScoreRecord.class);
        Instant t = Instant.ofEpochMilli(1_764_000_123_456L);
        Transaction tx =
                new Transaction(
                        "9b2f5d1e-7c1a-4f0e-8a8b-2d3c4e5f6a7b",
                        "u-000042",
                        12_345L,
                        "EUR",
                        "m-01234",
                        "d-00ab12cd34ef",
                        "DE",
                        t);
        txBytes = txCodec.encode(tx);
        Instant start = Instant.ofEpochMilli(1_764_000_000_000L);
        feature =
                new FeatureRecord(
                        "u-000042",
                        start,
                        start.plusSeconds(600),
                        3L,
                        42_000L,
                        30_000L,
                        1,
                        3,
                        1,
                        0,
                        Timing.ON_TIME,
                        0,
                        t,
                        t);
        key = new WindowKey("u-000042", start);
        score =
                new ScoreRecord(
                        "u-000042",
                        start,
                        start.plusSeconds(600),
                        feature,
                        0.0123,
                        Decision.ALLOW,
                        "fraud-window",
                        "2026-11-30-910dbd1d",
                        0,
                        Timing.ON_TIME,
                        t,
                        null);
    }

    private final org.apache.avro.specific.SpecificDatumWriter<FeatureRecord> avroFeatureWriter =
            new org.apache.avro.specific.SpecificDatumWriter<>(FeatureRecord.class);
    private final org.apache.avro.specific.SpecificDatumWriter<ScoreRecord> avroScoreWriter =
            new org.apache.avro.specific.SpecificDatumWriter<>(ScoreRecord.class);
    private final java.io.ByteArrayOutputStream buffer = new java.io.ByteArrayOutputStream(512);
    private org.apache.avro.io.BinaryEncoder encoder =
            org.apache.avro.io.EncoderFactory.get().binaryEncoder(buffer, null);

    @Benchmark
    public Transaction decodeTransaction() {
        return txCodec.decode(txBytes);
    }

    @Benchmark
    public byte[] encodeFeatureRecord() {
        return featureCodec.encode(feature);
    }

    @Benchmark
    public byte[] encodeWindowKey() {
        return keyCodec.encode(key);
    }

    @Benchmark
    public byte[] encodeScoreRecord() {
        return scoreCodec.encode(score);
    }

    /**
     * Baseline: the body of a FeatureRecord with Avro's {@code SpecificDatumWriter}, what the codec
     * did before its hand-written writers (plus the 5-byte header and the array copy).
     */
    @Benchmark
    public byte[] encodeFeatureRecordAvroWriter() throws java.io.IOException {
        buffer.reset();
        avroFeatureWriter.write(feature, encoder);
        encoder.flush();
        return buffer.toByteArray();
    }

    /** Baseline: a ScoreRecord with Avro's {@code SpecificDatumWriter}. */
    @Benchmark
    public byte[] encodeScoreRecordAvroWriter() throws java.io.IOException {
        buffer.reset();
        avroScoreWriter.write(score, encoder);
        encoder.flush();
        return buffer.toByteArray();
    }
}
