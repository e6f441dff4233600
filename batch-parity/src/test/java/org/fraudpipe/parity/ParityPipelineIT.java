package org.fraudpipe.parity;

import static org.assertj.core.api.Assertions.assertThat;
import static org.fraudpipe.parity.ParityFixtures.W;
import static org.fraudpipe.parity.ParityFixtures.archived;
import static org.fraudpipe.parity.ParityFixtures.deadLetter;
import static org.fraudpipe.parity.ParityFixtures.late;
import static org.fraudpipe.parity.ParityFixtures.servedOf;
import static org.fraudpipe.parity.ParityFixtures.tx;

import java.time.Duration;
import java.time.LocalDate;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.apache.avro.specific.SpecificRecordBase;
import org.apache.flink.api.common.RuntimeExecutionMode;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.ExecutionOptions;
import org.apache.flink.formats.avro.typeutils.AvroTypeInfo;
import org.apache.flink.streaming.api.datastream.DataStream;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.util.CloseableIterator;
import org.fraudpipe.job.scoring.OnnxPaneScorer;
import org.fraudpipe.schemas.avro.ArchivedTransaction;
import org.fraudpipe.schemas.avro.DeadLetter;
import org.fraudpipe.schemas.avro.FeatureRecord;
import org.fraudpipe.schemas.avro.LateReason;
import org.fraudpipe.schemas.avro.LateRecord;
import org.fraudpipe.schemas.avro.Transaction;
import org.fraudpipe.scoring.DecisionThresholds;
import org.junit.jupiter.api.Test;

/**
 * The BATCH pipeline on a MiniCluster over in-memory inputs: the ideal comes from the job's window
 * stage, dead letters find their window through the archived record at their position, the period
 * decides which windows are judged, and ideal features are scored by the model.
 */
class ParityPipelineIT {

    private static <T extends SpecificRecordBase> DataStream<T> of(
            StreamExecutionEnvironment env, Class<T> type, List<T> records) {
        // Flink has no empty bounded source: an empty input is a null stream (see ParityStreams).
        return records.isEmpty() ? null : env.fromData(records, new AvroTypeInfo<>(type));
    }

    private static Map<String, WindowVerdict> run(
            List<ArchivedTransaction> archived,
            List<FeatureRecord> served,
            List<LateRecord> late,
            List<DeadLetter> deadLetters,
            ParityPeriod period)
            throws Exception {
        Configuration conf = new Configuration();
        conf.set(ExecutionOptions.RUNTIME_MODE, RuntimeExecutionMode.BATCH);
        StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment(conf);
        env.setParallelism(2);
        ParityStreams in =
                new ParityStreams(
                        of(env, ArchivedTransaction.class, archived),
                        of(env, FeatureRecord.class, served),
                        null,
                        of(env, LateRecord.class, late),
                        of(env, DeadLetter.class, deadLetters));
        Map<String, WindowVerdict> out = new TreeMap<>();
        try (CloseableIterator<WindowVerdict> it =
                ParityPipeline.build(
                                env,
                                in,
                                Duration.ofMinutes(10),
                                period,
                                OnnxPaneScorer.Factory.of(null, DecisionThresholds.DEFAULT))
                        .executeAndCollect()) {
            it.forEachRemaining(v -> out.put(v.userId + "@" + v.windowStart, v));
        }
        return out;
    }

    @Test
    void judgesEveryWindowWithItsEvidence() throws Exception {
        long w = W.toEpochMilli();
        Transaction a = tx("a", "u1", W.plusSeconds(10), 1_000, "d1");
        Transaction b = tx("b", "u1", W.plusSeconds(20), 2_000, "d2");
        Transaction c = tx("c", "u2", W.plusSeconds(30), 3_000, "d3");
        Transaction d = tx("d", "u2", W.plusSeconds(40), 4_000, "d4");
        Transaction e = tx("e", "u3", W.plusSeconds(50), 5_000, "d5");
        Transaction nextDay = tx("f", "u1", W.plusSeconds(86_400), 6_000, "d6");
        List<ArchivedTransaction> archived = new ArrayList<>();
        long offset = 0;
        for (Transaction t : List.of(a, b, c, d, e, nextDay)) {
            archived.add(archived(t, ++offset, t.getEventTime().plusMillis(100)));
        }
        List<FeatureRecord> served =
                List.of(
                        servedOf(List.of(a), 0),
                        servedOf(List.of(a, b), 1), // u1: re-fire carries b: MATCH
                        servedOf(List.of(c), 0), // u2: d was dead-lettered (offset 4)
                        // u3: e too late, never served
                        servedOf(List.of(nextDay), 0)); // outside the period
        Map<String, WindowVerdict> verdicts =
                run(
                        archived,
                        served,
                        List.of(late(e, LateReason.TOO_LATE, 700_000)),
                        List.of(deadLetter(4), deadLetter(99)),
                        ParityPeriod.days(
                                LocalDate.parse("2026-11-28"), LocalDate.parse("2026-11-28")));

        assertThat(verdicts).containsOnlyKeys("u1@" + w, "u2@" + w, "u3@" + w);
        assertThat(verdicts.get("u1@" + w).cause).isEqualTo(Cause.MATCH);
        assertThat(verdicts.get("u1@" + w).servedPanes).isEqualTo(2);
        assertThat(verdicts.get("u2@" + w).cause).isEqualTo(Cause.DEAD_LETTERED);
        assertThat(verdicts.get("u2@" + w).ideal.getTxCount()).isEqualTo(2);
        assertThat(verdicts.get("u3@" + w).cause).isEqualTo(Cause.LATE_DROPPED);
        assertThat(verdicts.get("u3@" + w).served).isNull();
        for (WindowVerdict v : verdicts.values()) {
            assertThat(v.idealScore).isBetween(0.0, 1.0);
            assertThat(v.idealDecision).isNotNull();
            assertThat(v.idealModelVersion).isNotBlank();
        }
    }

    @Test
    void unboundedRunsJudgeEveryWindowOfTheInput() throws Exception {
        Transaction a = tx("a", "u1", W.plusSeconds(10), 1_000, "d1");
        Transaction later = tx("z", "u1", W.plusSeconds(86_400 * 3), 1_000, "d1");
        Map<String, WindowVerdict> verdicts =
                run(
                        List.of(archived(a, 1, W), archived(later, 2, later.getEventTime())),
                        List.of(servedOf(List.of(a), 0)),
                        List.of(),
                        List.of(),
                        ParityPeriod.UNBOUNDED);
        assertThat(verdicts).hasSize(2);
        assertThat(verdicts.values())
                .extracting(v -> v.cause)
                .containsExactlyInAnyOrder(Cause.MATCH, Cause.MISSING_IN_STREAM);
    }
}
