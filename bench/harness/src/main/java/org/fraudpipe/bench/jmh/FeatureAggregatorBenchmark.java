package org.fraudpipe.bench.jmh;

import java.io.IOException;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.SplittableRandom;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import org.apache.flink.core.memory.DataInputDeserializer;
import org.apache.flink.core.memory.DataOutputSerializer;
import org.fraudpipe.job.features.FeatureAccumulator;
import org.fraudpipe.job.features.FeatureAccumulatorSerializer;
import org.fraudpipe.job.features.FeatureAggregator;
import org.fraudpipe.job.features.FeatureValues;
import org.fraudpipe.schemas.avro.Transaction;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;

/**
 * The feature core: {@link FeatureAggregator} over one user's window, and what the window operator
 * does per record with RocksDB (read the accumulator from bytes, add, write it back, with {@link
 * FeatureAccumulatorSerializer}). {@code txPerWindow} transactions in the window (UUID ids, as the
 * simulator's); one of them a duplicate id when there are at least 4.
 */
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@State(Scope.Thread)
public class FeatureAggregatorBenchmark {

    @Param({"1", "4", "16"})
    public int txPerWindow;

    private final FeatureAggregator aggregator = new FeatureAggregator();
    private final FeatureAccumulatorSerializer serializer = FeatureAccumulatorSerializer.INSTANCE;
    private List<Transaction> window;
    private Transaction next;
    private byte[] storedBefore;
    private final DataOutputSerializer out = new DataOutputSerializer(1024);
    private final DataInputDeserializer in = new DataInputDeserializer();

    @Setup
    public void setUp() throws IOException {
        SplittableRandom rng = new SplittableRandom(7);
        window = new ArrayList<>();
        for (int i = 0; i < txPerWindow; i++) {
            window.add(tx(rng, i == 3 ? window.get(0).getTransactionId() : null));
        }
        next = tx(rng, null);
        FeatureAccumulator acc = aggregator.createAccumulator();
        window.forEach(t -> aggregator.add(t, acc));
        out.clear();
        serializer.serialize(acc, out);
        storedBefore = out.getCopyOfBuffer();
    }

    private static Transaction tx(SplittableRandom rng, String id) {
        return new Transaction(
                id != null ? id : new UUID(rng.nextLong(), rng.nextLong()).toString(),
                "u-000042",
                100 + rng.nextLong(50_000),
                "EUR",
                String.format(Locale.ROOT, "m-%05d", rng.nextInt(5000)),
                String.format(Locale.ROOT, "d-%012x", rng.nextLong() & 0xFFFF_FFFF_FFFFL),
                rng.nextInt(10) == 0 ? "FR" : "DE",
                Instant.ofEpochMilli(1_764_000_000_000L + rng.nextInt(600_000)));
    }

    /** The whole window: create, add every transaction, compute the features (a firing). */
    @Benchmark
    public FeatureValues aggregateWindow() {
        FeatureAccumulator acc = aggregator.createAccumulator();
        for (Transaction t : window) {
            aggregator.add(t, acc);
        }
        return aggregator.getResult(acc);
    }

    /** Features of a window already aggregated: what a firing costs beyond the state read. */
    @Benchmark
    public FeatureValues resultOnly() throws IOException {
        in.setBuffer(storedBefore);
        return aggregator.getResult(serializer.deserialize(in));
    }

    /**
     * One more record for a window already holding {@code txPerWindow}: what the RocksDB backend
     * does per record in the window operator (deserialize, add, serialize).
     */
    @Benchmark
    public int rocksDbReadAddWrite() throws IOException {
        in.setBuffer(storedBefore);
        FeatureAccumulator acc = serializer.deserialize(in);
        aggregator.add(next, acc);
        out.clear();
        serializer.serialize(acc, out);
        return out.length();
    }
}
