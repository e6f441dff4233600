package org.fraudpipe.job.window;

import static org.assertj.core.api.Assertions.assertThat;
import static org.fraudpipe.job.features.TestTransactions.tx;

import java.time.Duration;
import java.util.List;
import java.util.stream.StreamSupport;
import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.api.java.typeutils.PojoTypeInfo;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.PipelineOptions;
import org.apache.flink.runtime.OperatorIDPair;
import org.apache.flink.runtime.jobgraph.JobGraph;
import org.apache.flink.runtime.jobgraph.JobVertex;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.streaming.api.functions.sink.v2.DiscardingSink;
import org.fraudpipe.job.topology.OperatorNames;
import org.fraudpipe.job.topology.Uids;
import org.fraudpipe.schemas.avro.Transaction;
import org.junit.jupiter.api.Test;

/** The stage as a piece of topology: uids, names, types, chaining. No job is run. */
class FeatureWindowsTopologyTest {

    private static final FeatureWindowSpec SPEC =
            new FeatureWindowSpec(Duration.ofMinutes(10), Duration.ofMinutes(5));

    private static StreamExecutionEnvironment envWithoutGenericTypes(int parallelism) {
        Configuration conf = new Configuration();
        conf.set(PipelineOptions.GENERIC_TYPES, false); // any Kryo fallback fails the build
        StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment(conf);
        env.setParallelism(parallelism);
        return env;
    }

    private static WindowedFeatures build(StreamExecutionEnvironment env) {
        return FeatureWindows.apply(
                env.fromData(TypeInformation.of(Transaction.class), tx("t", "u", 1, 0)), SPEC);
    }

    private static JobVertex vertexOf(JobGraph graph, String uid) {
        return StreamSupport.stream(graph.getVertices().spliterator(), false)
                .filter(
                        v ->
                                v.getOperatorIDs().stream()
                                        .map(OperatorIDPair::getUserDefinedOperatorUid)
                                        .anyMatch(uid::equals))
                .findFirst()
                .orElseThrow(() -> new AssertionError("no vertex has operator uid " + uid));
    }

    private static JobGraph jobGraph(StreamExecutionEnvironment env, WindowedFeatures built) {
        built.features().sinkTo(new DiscardingSink<>());
        built.tooLate().sinkTo(new DiscardingSink<>());
        return env.getStreamGraph().getJobGraph();
    }

    @Test
    void operatorsCarryStableUidsAndNames() {
        WindowedFeatures built = build(envWithoutGenericTypes(2));

        assertThat(built.features().getTransformation().getUid()).isEqualTo(Uids.FEATURE_WINDOW);
        assertThat(built.features().getTransformation().getName())
                .isEqualTo(OperatorNames.FEATURE_WINDOW);
        assertThat(built.tooLate().getTransformation().getUid()).isEqualTo(Uids.TOO_LATE_RECORDS);
        assertThat(built.tooLate().getTransformation().getName())
                .isEqualTo(OperatorNames.TOO_LATE_RECORDS);
    }

    @Test
    void tooLateConversionIsChainedToTheWindowSoItSeesTheSameWatermark() {
        StreamExecutionEnvironment env = envWithoutGenericTypes(2);
        JobGraph graph = jobGraph(env, build(env));

        assertThat(vertexOf(graph, Uids.TOO_LATE_RECORDS))
                .isSameAs(vertexOf(graph, Uids.FEATURE_WINDOW));
    }

    @Test
    void settingTheParallelismKeepsTheChain() {
        StreamExecutionEnvironment env = envWithoutGenericTypes(2);
        WindowedFeatures built = build(env).setParallelism(3);
        JobGraph graph = jobGraph(env, built);

        JobVertex window = vertexOf(graph, Uids.FEATURE_WINDOW);
        assertThat(window.getParallelism()).isEqualTo(3);
        assertThat(vertexOf(graph, Uids.TOO_LATE_RECORDS)).isSameAs(window);
    }

    @Test
    void streamAndStateTypesNeedNoKryo() {
        WindowedFeatures built = build(envWithoutGenericTypes(1));

        for (TypeInformation<?> type :
                List.of(built.features().getType(), built.tooLate().getType())) {
            assertThat(type.isBasicType() || type instanceof PojoTypeInfo<?>)
                    .as("%s", type)
                    .isTrue();
        }
    }
}
