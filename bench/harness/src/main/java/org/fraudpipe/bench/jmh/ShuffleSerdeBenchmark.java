package org.fraudpipe.bench.jmh;

import java.io.IOException;
import java.time.Instant;
import java.util.concurrent.TimeUnit;
import org.apache.flink.api.common.serialization.SerializerConfigImpl;
import org.apache.flink.api.common.typeutils.TypeSerializer;
import org.apache.flink.core.memory.DataInputDeserializer;
import org.apache.flink.core.memory.DataOutputSerializer;
import org.apache.flink.formats.avro.typeutils.AvroTypeInfo;
import org.fraudpipe.job.ingest.TransactionSerializer;
import org.fraudpipe.schemas.avro.Transaction;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;

/**
 * A {@link Transaction} across the shuffle between the ingest router and the feature window (every
 * valid record, once): serialized by the sending task and deserialized by the window's, with the
 * job's {@link TransactionSerializer} and, as the baseline, Flink's Avro serializer (what the job
 * used before).
 */
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@State(Scope.Thread)
public class ShuffleSerdeBenchmark {

    private final DataOutputSerializer out = new DataOutputSerializer(256);
    private final DataInputDeserializer in = new DataInputDeserializer();
    private TypeSerializer<Transaction> avro;
    private Transaction tx;

    @Setup
    public void setUp() {
        avro = new AvroTypeInfo<>(Transaction.class).createSerializer(new SerializerConfigImpl());
        tx =
                new Transaction(
                        "9b2f5d1e-7c1a-4f0e-8a8b-2d3c4e5f6a7b",
                        "u-000042",
                        12_345L,
                        "EUR",
                        "m-01234",
                        "d-00ab12cd34ef",
                        "DE",
                        Instant.ofEpochMilli(1_764_000_123_456L));
    }

    private Transaction roundTrip(TypeSerializer<Transaction> serializer) throws IOException {
        out.clear();
        serializer.serialize(tx, out);
        in.setBuffer(out.getSharedBuffer(), 0, out.length());
        return serializer.deserialize(in);
    }

    @Benchmark
    public Transaction shuffleTransaction() throws IOException {
        return roundTrip(TransactionSerializer.INSTANCE);
    }

    /** Baseline: Flink's {@code AvroSerializer}. */
    @Benchmark
    public Transaction shuffleTransactionAvroSerializer() throws IOException {
        return roundTrip(avro);
    }
}
