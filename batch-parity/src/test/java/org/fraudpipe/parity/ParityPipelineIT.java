package org.fraudpipe.parity;

import static org.assertj.core.api.Assertions.assertThat;
import static org.fraudpipe.parity.ParityFixtures.POLICY;
import static org.fraudpipe.parity.ParityFixtures.W;
import static org.fraudpipe.parity.ParityFixtures.archived;
import static org.fraudpipe.parity.ParityFixtures.deadLetter;
import static org.fraudpipe.parity.ParityFixtures.late;
import static org.fraudpipe.parity.ParityFixtures.servedOf;
import static org.fraudpipe.parity.ParityFixtures.tx;

import java.time.Duration;
import java.time.LocalDate;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.apache.avro.specific.SpecificRecordBase;
import org.apache.flink.formats.avro.typeutils.AvroTypeInfo;
import org.apache.flink.streaming.api.datastream.DataStream;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.util.CloseableIterator;
import org.fraudpipe.job.archive.ArchivePolicy;
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
        return run(archived, served, late, deadLetters, period, ParityFixtures.POLICY);
    }

    private static Map<String, WindowVerdict> run(
            List<ArchivedTransaction> archived,
            List<FeatureRecord> served,
            List<LateRecord> late,
            List<DeadLetter> deadLetters,
            ParityPeriod period,
            ArchivePolicy policy)
            throws Exception {
        StreamExecutionEnvironment env =
                StreamExecutionEnvironment.getExecutionEnvironment(
                        ParityPipeline.batchConfiguration());
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
                                policy,
                                period,
                                Long.MAX_VALUE,
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
        for (Transaction t : List.of(a, b, c, d, nextDay, e)) {
            archived.add(archived(t, ++offset, t.getEventTime().plusMillis(100)));
        }
        // e arrived after the next day's record, which made it too late.
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
                        // 4: d's position; 0 and 99: no archived record there; 5: the next
                        // day's record, outside the period; on partition 1 and on another
                        // topic's partition 0 (the same key): nothing there.
                        List.of(
                                deadLetter(0),
                                deadLetter(4),
                                deadLetter(5),
                                deadLetter(99),
                                onPartition(deadLetter(4), 1),
                                DeadLetter.newBuilder(deadLetter(4))
                                        .setSourceTopic("other-topic")
                                        .build()),
                        ParityPeriod.days(
                                LocalDate.parse("2026-11-28"), LocalDate.parse("2026-11-28")));

        assertThat(verdicts).containsOnlyKeys("u1@" + w, "u2@" + w, "u3@" + w);
        assertThat(verdicts.get("u1@" + w).cause).isEqualTo(Cause.MATCH);
        assertThat(verdicts.get("u1@" + w).servedPanes).isEqualTo(2);
        assertThat(verdicts.get("u2@" + w).cause).isEqualTo(Cause.DEAD_LETTERED);
        assertThat(verdicts.get("u2@" + w).ideal.getTxCount()).isEqualTo(2);
        assertThat(verdicts.get("u2@" + w).deadLettered).isEqualTo(1);
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

    @Test
    void tooLateLabelsAreCheckedAgainstTheirPartitionsWatermarkInOffsetOrder() throws Exception {
        // Partition 0: a, then a record at 12:13 that moves its watermark to 12:12:54.999, then e.
        // Partition 1: f, then g, labelled too late at 12:12:30 though its partition never got
        // past 12:00:14.999.
        Transaction a = tx("a", "u1", W.plusSeconds(10), 1_000, "d1");
        Transaction clock = tx("k", "clock", W.plusSeconds(780), 1, "d0");
        Transaction e = tx("e", "u1", W.plusSeconds(50), 5_000, "d5");
        Transaction f = tx("f", "u5", W.plusSeconds(20), 700, "d7");
        Transaction g = tx("g", "u5", W.plusSeconds(30), 800, "d8");
        List<ArchivedTransaction> archived =
                new ArrayList<>(
                        List.of(
                                archived(a, 1, W.plusSeconds(11)),
                                archived(clock, 2, W.plusSeconds(781)),
                                archived(e, 3, W.plusSeconds(782)),
                                onPartition(archived(f, 1, W.plusSeconds(21)), 1),
                                onPartition(archived(g, 2, W.plusSeconds(782)), 1)));
        // The source delivers them in any order: the bounds sort by offset themselves.
        Collections.reverse(archived);
        ArchivePolicy noIdleness =
                new ArchivePolicy(
                        POLICY.windowSize(),
                        POLICY.allowedLateness(),
                        POLICY.outOfOrderness(),
                        null,
                        POLICY.futureTolerance());
        long lateBy = Duration.ofSeconds(720).toMillis(); // watermark 12:12:30 for e
        Map<String, WindowVerdict> verdicts =
                run(
                        archived,
                        List.of(
                                servedOf(List.of(a), 0),
                                servedOf(List.of(clock), 0),
                                servedOf(List.of(f), 0)),
                        List.of(
                                late(e, LateReason.TOO_LATE, lateBy),
                                late(g, LateReason.TOO_LATE, lateBy - 20_000)),
                        List.of(),
                        ParityPeriod.UNBOUNDED,
                        noIdleness);

        long w = W.toEpochMilli();
        assertThat(verdicts.get("u1@" + w).cause).isEqualTo(Cause.LATE_DROPPED);
        assertThat(verdicts.get("u1@" + w).contradictedLabels).isZero();
        WindowVerdict u5 = verdicts.get("u5@" + w);
        assertThat(u5.cause).isEqualTo(Cause.UNEXPLAINED);
        assertThat(u5.contradictedLabels).isEqualTo(1);
        assertThat(u5.note)
                .contains("TOO_LATE label of g contradicted")
                .contains("2026-11-28T12:00:14.999Z");
    }

    private static ArchivedTransaction onPartition(ArchivedTransaction a, int partition) {
        return ArchivedTransaction.newBuilder(a).setSourcePartition(partition).build();
    }

    private static DeadLetter onPartition(DeadLetter d, int partition) {
        return DeadLetter.newBuilder(d).setSourcePartition(partition).build();
    }
}
