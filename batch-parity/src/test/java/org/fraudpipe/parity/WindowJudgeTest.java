package org.fraudpipe.parity;

import static org.assertj.core.api.Assertions.assertThat;
import static org.fraudpipe.parity.ParityFixtures.POLICY;
import static org.fraudpipe.parity.ParityFixtures.W;
import static org.fraudpipe.parity.ParityFixtures.archived;
import static org.fraudpipe.parity.ParityFixtures.deadLetter;
import static org.fraudpipe.parity.ParityFixtures.idealOf;
import static org.fraudpipe.parity.ParityFixtures.late;
import static org.fraudpipe.parity.ParityFixtures.servedOf;
import static org.fraudpipe.parity.ParityFixtures.tx;

import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import org.fraudpipe.schemas.avro.ArchivedTransaction;
import org.fraudpipe.schemas.avro.Decision;
import org.fraudpipe.schemas.avro.FeatureRecord;
import org.fraudpipe.schemas.avro.LateReason;
import org.fraudpipe.schemas.avro.ScoreRecord;
import org.fraudpipe.schemas.avro.Transaction;
import org.junit.jupiter.api.Test;

class WindowJudgeTest {

    private final WindowJudge judge = new WindowJudge(POLICY, false);

    private final Transaction a = tx("a", "u1", W.plusSeconds(10), 1_000, "d1");
    private final Transaction b = tx("b", "u1", W.plusSeconds(20), 5_000, "d2");
    private final Transaction c = tx("c", "u1", W.plusSeconds(30), 300, "d1");
    private final List<ArchivedTransaction> abc =
            List.of(
                    archived(a, 1, W.plusSeconds(11)),
                    archived(b, 2, W.plusSeconds(21)),
                    archived(c, 3, W.plusSeconds(900)));

    /**
     * Evidence of the window: ideal over {@code archived}, the given served panes, extras. The
     * archived records' watermark bound does not limit the labels here (the tests of label checks
     * below give their own).
     */
    private WindowVerdict judge(
            List<ArchivedTransaction> archived, List<FeatureRecord> served, Evidence... extra) {
        return judge(judge, archived, served, extra);
    }

    private static WindowVerdict judge(
            WindowJudge judge,
            List<ArchivedTransaction> archived,
            List<FeatureRecord> served,
            Evidence... extra) {
        List<Evidence> evidence = new ArrayList<>();
        if (!archived.isEmpty()) {
            evidence.add(Evidence.ideal(idealOf(archived)));
        }
        long start = W.toEpochMilli();
        archived.forEach(x -> evidence.add(Evidence.archived(x, start, Long.MAX_VALUE, null)));
        served.forEach(s -> evidence.add(Evidence.served(s)));
        evidence.addAll(List.of(extra));
        return judge.judge("u1", start, evidence);
    }

    @Test
    void lastServedRevisionEqualToIdealIsAMatch() {
        WindowVerdict v =
                judge(abc, List.of(servedOf(List.of(a, b), 0), servedOf(List.of(a, b, c), 1)));
        assertThat(v.cause).isEqualTo(Cause.MATCH);
        assertThat(v.differingFeatures).isEmpty();
        assertThat(v.servedPanes).isEqualTo(2);
        assertThat(v.served.getRevision()).isEqualTo(1);
        assertThat(v.note).isEmpty();
    }

    @Test
    void aTooLateRecordExplainsExactlyWhatItsAbsenceChanged() {
        WindowVerdict v =
                judge(
                        abc,
                        List.of(servedOf(List.of(a, b), 0)),
                        Evidence.late(late(c, LateReason.TOO_LATE, 870_000)));
        assertThat(v.cause).isEqualTo(Cause.LATE_DROPPED);
        assertThat(v.causes).isEqualTo("LATE_DROPPED");
        assertThat(v.differingFeatures).isEqualTo("txCount,amountSum,distinctMerchants");
        assertThat(v.lateDropped).isEqualTo(1);
        assertThat(v.lateByMillis).containsExactly(870_000L);
    }

    @Test
    void aLateRecordThatDoesNotAccountForTheWholeDifferenceLeavesItUnexplained() {
        // c was too late, but b is also missing from what was served: c alone does not explain it.
        WindowVerdict v =
                judge(
                        abc,
                        List.of(servedOf(List.of(a), 0)),
                        Evidence.late(late(c, LateReason.TOO_LATE, 870_000)));
        assertThat(v.cause).isEqualTo(Cause.UNEXPLAINED);
        assertThat(v.note).contains("without the 1 explaining record(s)");
    }

    @Test
    void aQuarantinedRecordExplainsAsQuarantined() {
        // b arrived two hours before its event time: future-dated by the job's rule.
        ArchivedTransaction early = archived(b, 2, W.plusSeconds(20).minusSeconds(7_200));
        WindowVerdict v =
                judge(
                        List.of(abc.get(0), early, abc.get(2)),
                        List.of(servedOf(List.of(a, c), 0)),
                        Evidence.late(late(b, LateReason.FUTURE_DATED, -7_200_000)));
        assertThat(v.cause).isEqualTo(Cause.QUARANTINED);
        assertThat(v.quarantined).isEqualTo(1);
        assertThat(v.lateByMillis).isEmpty();
    }

    @Test
    void aDeadLetterAtAnArchivedPositionExplainsAsDeadLettered() {
        long start = W.toEpochMilli();
        WindowVerdict v =
                judge(
                        abc,
                        List.of(servedOf(List.of(a, c), 0)),
                        Evidence.deadLetter(deadLetter(2), "u1", start));
        assertThat(v.cause).isEqualTo(Cause.DEAD_LETTERED);
        assertThat(v.deadLettered).isEqualTo(1);
    }

    @Test
    void severalCausesAreAllListedMainCauseFirst() {
        long start = W.toEpochMilli();
        WindowVerdict v =
                judge(
                        abc,
                        List.of(servedOf(List.of(a), 0)),
                        Evidence.late(late(c, LateReason.TOO_LATE, 870_000)),
                        Evidence.deadLetter(deadLetter(2), "u1", start));
        assertThat(v.causes).isEqualTo("LATE_DROPPED,DEAD_LETTERED");
        assertThat(v.cause).isEqualTo(Cause.LATE_DROPPED);
    }

    @Test
    void aWindowWhoseRecordsWereAllTooLateIsLateDroppedNotMissing() {
        List<ArchivedTransaction> onlyC = List.of(abc.get(2));
        WindowVerdict v =
                judge(onlyC, List.of(), Evidence.late(late(c, LateReason.TOO_LATE, 870_000)));
        assertThat(v.cause).isEqualTo(Cause.LATE_DROPPED);
        assertThat(v.served).isNull();
        assertThat(v.servedPanes).isZero();
    }

    @Test
    void aWindowNeverServedWithoutExplanationIsMissingInStream() {
        WindowVerdict v = judge(abc, List.of());
        assertThat(v.cause).isEqualTo(Cause.MISSING_IN_STREAM);
        assertThat(Cause.MISSING_IN_STREAM.isExplained()).isFalse();
    }

    @Test
    void aServedWindowWithoutArchivedTransactionsIsExtraInStream() {
        WindowVerdict v = judge(List.of(), List.of(servedOf(List.of(a), 0)));
        assertThat(v.cause).isEqualTo(Cause.EXTRA_IN_STREAM);
        assertThat(v.ideal).isNull();
        assertThat(v.differingFeatures).contains("txCount");
    }

    @Test
    void aTamperedServedValueIsUnexplained() {
        FeatureRecord tampered = servedOf(List.of(a, b, c), 0);
        tampered.setAmountSum(tampered.getAmountSum() + 1);
        WindowVerdict v = judge(abc, List.of(tampered));
        assertThat(v.cause).isEqualTo(Cause.UNEXPLAINED);
        assertThat(v.differingFeatures).isEqualTo("amountSum");
    }

    @Test
    void conflictingDuplicatesExplainAsDuplicateWhenArrivalOrderDecides() {
        // Same id "a", two payloads: the later event time arrived first, so streaming kept it;
        // batch (event-time order) keeps the earlier one.
        Transaction aEarly = tx("a", "u1", W.plusSeconds(5), 1_000, "d1");
        Transaction aLate = tx("a", "u1", W.plusSeconds(50), 9_000, "d9");
        List<ArchivedTransaction> archived =
                List.of(
                        archived(aLate, 1, W.plusSeconds(51)),
                        archived(aEarly, 2, W.plusSeconds(52)));
        WindowVerdict v = judge(archived, List.of(servedOf(List.of(aLate, aEarly), 0)));
        assertThat(v.cause).isEqualTo(Cause.DUPLICATE);
        assertThat(v.conflictingDuplicates).isEqualTo(1);
        assertThat(v.differingFeatures).isEqualTo("amountSum,amountMax");
    }

    @Test
    void aRetryCopyThatWasTooLateChangesNothing() {
        ArchivedTransaction retry = archived(b, 9, W.plusSeconds(2_000));
        List<ArchivedTransaction> archived = new ArrayList<>(abc);
        archived.add(retry);
        WindowVerdict v =
                judge(
                        archived,
                        List.of(servedOf(List.of(a, b, c), 0)),
                        Evidence.late(late(b, LateReason.TOO_LATE, 1_000_000)));
        assertThat(v.cause).isEqualTo(Cause.MATCH);
        assertThat(v.lateByMillis).containsExactly(1_000_000L);
    }

    @Test
    void aLateRecordTheArchiveDoesNotHoldIsUnexplainedEvenWhenFeaturesMatch() {
        Transaction unknown = tx("zz", "u1", W.plusSeconds(40), 7, "d7");
        WindowVerdict v =
                judge(
                        abc,
                        List.of(servedOf(List.of(a, b, c), 0)),
                        Evidence.late(late(unknown, LateReason.TOO_LATE, 900_000)));
        assertThat(v.cause).isEqualTo(Cause.UNEXPLAINED);
        assertThat(v.differingFeatures).isEmpty();
        assertThat(v.note).contains("archive lost records");
    }

    @Test
    void theSameRevisionServedAgainWithOtherValuesIsARegression() {
        // Revision 0 final, then a revision 0 again (a window whose state was lost, re-created).
        FeatureRecord first = servedOf(List.of(a, b, c), 0);
        FeatureRecord again =
                withEmittedAt(servedOf(List.of(a, b), 0), first.getEmittedAt().plusSeconds(60));
        WindowVerdict v = judge(abc, List.of(again, first));
        assertThat(v.cause).isEqualTo(Cause.REVISION_REGRESSED);
        assertThat(v.served).isEqualTo(again);
        assertThat(v.note).contains("revision 0 with other values written after revision 0");
    }

    // ---- item: served values never regress (write order) ----

    private static FeatureRecord withEmittedAt(FeatureRecord r, Instant at) {
        return FeatureRecord.newBuilder(r).setEmittedAt(at).build();
    }

    @Test
    void aLowerRevisionWrittenAfterAHigherOneIsRegressedAndIsWhatTheReaderHolds() {
        Instant t = W.plusSeconds(700);
        FeatureRecord r0 = withEmittedAt(servedOf(List.of(a, b), 0), t);
        FeatureRecord r1 = withEmittedAt(servedOf(List.of(a, b, c), 1), t.plusSeconds(10));
        FeatureRecord r0Again = withEmittedAt(servedOf(List.of(a, b), 0), t.plusSeconds(20));

        WindowVerdict v = judge(abc, List.of(r1, r0Again, r0));

        assertThat(v.cause).isEqualTo(Cause.REVISION_REGRESSED);
        // The upsert reader holds the last written pane, not the highest revision.
        assertThat(v.served.getRevision()).isZero();
        assertThat(v.causes).contains("REVISION_REGRESSED");
        assertThat(v.note).contains("revision 0 written after revision 1");
    }

    @Test
    void panesInWriteOrderWithTiesOnEmissionTimeAreOrderedByRevision() {
        Instant t = W.plusSeconds(700);
        WindowVerdict v =
                judge(
                        abc,
                        List.of(
                                withEmittedAt(servedOf(List.of(a, b, c), 2), t),
                                withEmittedAt(servedOf(List.of(a, b), 1), t),
                                withEmittedAt(servedOf(List.of(a), 0), t.minusSeconds(5))));
        assertThat(v.cause).isEqualTo(Cause.MATCH);
        assertThat(v.served.getRevision()).isEqualTo(2);
    }

    @Test
    void anEqualCopyOfAPaneWrittenAgainIsNoRegression() {
        FeatureRecord r0 = servedOf(List.of(a, b, c), 0);
        WindowVerdict v =
                judge(abc, List.of(r0, withEmittedAt(r0, r0.getEmittedAt().plusSeconds(30))));
        assertThat(v.cause).isEqualTo(Cause.MATCH);
    }

    @Test
    void aScoreOfALowerRevisionWrittenLastIsRegressed() {
        FeatureRecord r0 = servedOf(List.of(a, b), 0);
        FeatureRecord r1 =
                withEmittedAt(servedOf(List.of(a, b, c), 1), r0.getEmittedAt().plusSeconds(9));
        ScoreRecord s1 = score(r1, r1.getEmittedAt());
        ScoreRecord s0Late = score(r0, r1.getEmittedAt().plusSeconds(5));
        WindowVerdict v =
                judge(
                        abc,
                        List.of(r0, r1),
                        Evidence.score(score(r0, r0.getEmittedAt())),
                        Evidence.score(s1),
                        Evidence.score(s0Late));
        assertThat(v.cause).isEqualTo(Cause.REVISION_REGRESSED);
        assertThat(v.servedScore).isEqualTo(s0Late);
        assertThat(v.note).contains("archived scores: revision 0 written after revision 1");
    }

    private static ScoreRecord score(FeatureRecord f, Instant at) {
        return ScoreRecord.newBuilder()
                .setUserId(f.getUserId())
                .setWindowStart(f.getWindowStart())
                .setWindowEnd(f.getWindowEnd())
                .setFeatures(f)
                .setScore(0.01 * f.getTxCount())
                .setDecision(Decision.ALLOW)
                .setModelName("m")
                .setModelVersion("v1")
                .setRevision(f.getRevision())
                .setTiming(f.getTiming())
                .setScoredAt(at)
                .build();
    }

    // ---- item: served values in Kafka against the archive's copy ----

    private final WindowJudge kafkaJudge = new WindowJudge(POLICY, true);

    @Test
    void inKafkaModeTheTopicsLastValueIsJudgedInOffsetOrder() {
        FeatureRecord r0 = servedOf(List.of(a, b), 0);
        FeatureRecord r1 =
                withEmittedAt(servedOf(List.of(a, b, c), 1), r0.getEmittedAt().plusSeconds(1));
        WindowVerdict v =
                judge(
                        kafkaJudge,
                        abc,
                        List.of(r0, r1),
                        Evidence.kafkaServed(r1, 1, 8),
                        Evidence.kafkaServed(r0, 1, 7));
        assertThat(v.cause).isEqualTo(Cause.MATCH);
        assertThat(v.served).isEqualTo(r1);
    }

    @Test
    void anArchivedFinalPaneMissingFromKafkaIsLostInKafka() {
        FeatureRecord r0 = servedOf(List.of(a, b), 0);
        FeatureRecord r1 =
                withEmittedAt(servedOf(List.of(a, b, c), 1), r0.getEmittedAt().plusSeconds(1));
        // The transaction that carried revision 1 to Kafka was aborted: the topic ends with r0.
        WindowVerdict v = judge(kafkaJudge, abc, List.of(r0, r1), Evidence.kafkaServed(r0, 0, 3));
        assertThat(v.cause).isEqualTo(Cause.LOST_IN_KAFKA);
        assertThat(v.served).isEqualTo(r0);
        assertThat(v.causes).contains("LOST_IN_KAFKA");

        WindowVerdict nothing = judge(kafkaJudge, abc, List.of(r0, r1));
        assertThat(nothing.causes).contains("LOST_IN_KAFKA").contains("MISSING_IN_STREAM");
    }

    @Test
    void aPaneInKafkaTheArchiveNeverHeldIsExtraInKafka() {
        FeatureRecord r0 = servedOf(List.of(a, b, c), 0);
        FeatureRecord other = servedOf(List.of(a, c), 0);
        WindowVerdict v = judge(kafkaJudge, abc, List.of(r0), Evidence.kafkaServed(other, 0, 3));
        assertThat(v.cause).isEqualTo(Cause.EXTRA_IN_KAFKA);
        assertThat(v.causes).contains("UNEXPLAINED"); // and its value differs from the ideal
    }

    @Test
    void aRegressionInTheTopicIsRegressedInKafkaMode() {
        FeatureRecord r0 = servedOf(List.of(a, b), 0);
        FeatureRecord r1 =
                withEmittedAt(servedOf(List.of(a, b, c), 1), r0.getEmittedAt().plusSeconds(1));
        WindowVerdict v =
                judge(
                        kafkaJudge,
                        abc,
                        List.of(r0, r1),
                        Evidence.kafkaServed(r1, 0, 1),
                        Evidence.kafkaServed(r0, 0, 2));
        assertThat(v.causes).contains("REVISION_REGRESSED").contains("LOST_IN_KAFKA");
        assertThat(v.note).contains("panes in Kafka: revision 0 written after revision 1");
    }

    // ---- item: the job's labels are checked, not trusted ----

    /** c's copy with an explicit watermark bound (or caveat). */
    private WindowVerdict judgeWithBound(long bound, String caveat, Evidence late) {
        long start = W.toEpochMilli();
        List<Evidence> evidence = new ArrayList<>();
        evidence.add(Evidence.ideal(idealOf(abc)));
        evidence.add(Evidence.archived(abc.get(0), start, Long.MAX_VALUE, null));
        evidence.add(Evidence.archived(abc.get(1), start, Long.MAX_VALUE, null));
        evidence.add(Evidence.archived(abc.get(2), start, bound, caveat));
        evidence.add(Evidence.served(servedOf(List.of(a, b), 0)));
        evidence.add(late);
        return judge.judge("u1", start, evidence);
    }

    @Test
    void aTooLateLabelWithinWhatItsPartitionAllowedExplains() {
        // c too late at 12:15: window end 12:10 + lateness 2m passed; its partition allowed 12:15.
        long w = W.plusSeconds(900).toEpochMilli();
        WindowVerdict v =
                judgeWithBound(w, null, Evidence.late(late(c, LateReason.TOO_LATE, 870_000)));
        assertThat(v.cause).isEqualTo(Cause.LATE_DROPPED);
        assertThat(v.contradictedLabels).isZero();
    }

    @Test
    void aTooLateLabelNamingAWatermarkItsPartitionNeverReachedIsUnexplained() {
        long bound = W.plusSeconds(899).toEpochMilli();
        WindowVerdict v =
                judgeWithBound(bound, null, Evidence.late(late(c, LateReason.TOO_LATE, 870_000)));
        assertThat(v.cause).isEqualTo(Cause.UNEXPLAINED);
        assertThat(v.contradictedLabels).isEqualTo(1);
        assertThat(v.lateDropped).isZero();
        assertThat(v.note)
                .contains("TOO_LATE label of c contradicted")
                .contains("beyond what its partition allowed");
    }

    @Test
    void aTooLateLabelWhoseWindowStillAcceptedRecordsIsUnexplained() {
        // Watermark 12:11: window end 12:10 + 2m allowed lateness not yet passed.
        WindowVerdict v =
                judgeWithBound(
                        Long.MAX_VALUE, null, Evidence.late(late(c, LateReason.TOO_LATE, 630_000)));
        assertThat(v.cause).isEqualTo(Cause.UNEXPLAINED);
        assertThat(v.note).contains("its window still accepted records");
    }

    @Test
    void aTooLateLabelOnAPartitionThatMayHaveBeenIdleIsAcceptedAndCountedUnchecked() {
        WindowVerdict v =
                judgeWithBound(
                        Evidence.NO_BOUND,
                        "partition 0 may have been idle",
                        Evidence.late(late(c, LateReason.TOO_LATE, 870_000)));
        assertThat(v.cause).isEqualTo(Cause.LATE_DROPPED);
        assertThat(v.uncheckedLabels).isEqualTo(1);
        assertThat(v.note).contains("not checkable");
    }

    @Test
    void aFutureDatedLabelIsCheckedAgainstTheRecordTimestamp() {
        // d: event time 12:09, Kafka record timestamp 12:01 (8 min behind: future-dated), received
        // at 12:08 (1 min behind: not, by the TaskManager's clock). The record timestamp decides.
        Transaction d = tx("d", "u1", W.plusSeconds(540), 70, "d3");
        ArchivedTransaction byTimestamp =
                ArchivedTransaction.newBuilder(archived(d, 4, W.plusSeconds(480)))
                        .setRecordTimestamp(W.plusSeconds(60))
                        .setQuarantined(true)
                        .build();
        List<ArchivedTransaction> withD = List.of(abc.get(0), abc.get(1), abc.get(2), byTimestamp);
        WindowVerdict v =
                judge(
                        withD,
                        List.of(servedOf(List.of(a, b, c), 0)),
                        Evidence.late(late(d, LateReason.FUTURE_DATED, -60_000)));
        assertThat(v.cause).isEqualTo(Cause.QUARANTINED);

        ArchivedTransaction notFuture =
                ArchivedTransaction.newBuilder(byTimestamp)
                        .setRecordTimestamp(W.plusSeconds(480))
                        .build();
        WindowVerdict contradicted =
                judge(
                        List.of(abc.get(0), abc.get(1), abc.get(2), notFuture),
                        List.of(servedOf(List.of(a, b, c), 0)),
                        Evidence.late(late(d, LateReason.FUTURE_DATED, -60_000)));
        assertThat(contradicted.cause).isEqualTo(Cause.UNEXPLAINED);
        assertThat(contradicted.note).contains("FUTURE_DATED label of d contradicted");
    }

    @Test
    void aLabelIsMatchedToTheRetryCopyItFits() {
        // c arrived twice: the first copy was counted, the retry was too late.
        long start = W.toEpochMilli();
        ArchivedTransaction retry = archived(c, 9, W.plusSeconds(905));
        List<Evidence> evidence = new ArrayList<>();
        List<ArchivedTransaction> all = List.of(abc.get(0), abc.get(1), abc.get(2), retry);
        evidence.add(Evidence.ideal(idealOf(all)));
        evidence.add(Evidence.archived(abc.get(0), start, Long.MAX_VALUE, null));
        evidence.add(Evidence.archived(abc.get(1), start, Long.MAX_VALUE, null));
        evidence.add(Evidence.archived(abc.get(2), start, W.plusSeconds(10).toEpochMilli(), null));
        evidence.add(Evidence.archived(retry, start, W.plusSeconds(900).toEpochMilli(), null));
        evidence.add(Evidence.served(servedOf(List.of(a, b, c), 0)));
        evidence.add(Evidence.late(late(c, LateReason.TOO_LATE, 870_000)));
        WindowVerdict v = judge.judge("u1", start, evidence);
        assertThat(v.cause).isEqualTo(Cause.MATCH);
        assertThat(v.contradictedLabels).isZero();
    }
}
