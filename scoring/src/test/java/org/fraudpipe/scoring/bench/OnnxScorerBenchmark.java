package org.fraudpipe.scoring.bench;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.fraudpipe.schemas.avro.FeatureRecord;
import org.fraudpipe.scoring.FeatureLayout;
import org.fraudpipe.scoring.OnnxScorer;
import org.fraudpipe.scoring.SyntheticWindows;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;

/**
 * The scorer with the shipped default model, one thread, at batch sizes 1, 64 and 1024: {@code
 * scoreRecords} is the serving path (feature records through the layout into ONNX Runtime), {@code
 * scoreVectors} the same without the layout (vectors already in column order). Not run by {@code
 * mvn verify}; command and results in docs/BENCHMARKS.md.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
public class OnnxScorerBenchmark {

    @Param({"1", "64", "1024"})
    int batchSize;

    private OnnxScorer<FeatureRecord> scorer;
    private List<FeatureRecord> records;
    private float[] vectors;

    @Setup(Level.Trial)
    public void setUp() throws Exception {
        scorer = OnnxScorer.loadDefault();
        List<FeatureRecord> all = SyntheticWindows.records(SyntheticWindows.generate(100, 11, 42));
        records = new ArrayList<>(all.subList(0, batchSize));
        FeatureLayout<FeatureRecord> layout = scorer.layout();
        vectors = new float[batchSize * layout.size()];
        int k = 0;
        for (FeatureRecord r : records) {
            for (double v : layout.values(r)) {
                vectors[k++] = (float) v;
            }
        }
    }

    @TearDown(Level.Trial)
    public void tearDown() {
        scorer.close();
    }

    @Benchmark
    public double[] scoreRecords() {
        return scorer.score(records);
    }

    @Benchmark
    public double[] scoreVectors() {
        return scorer.scoreVectors(vectors, batchSize);
    }
}
