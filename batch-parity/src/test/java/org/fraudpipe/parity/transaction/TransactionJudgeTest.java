package org.fraudpipe.parity.transaction;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;
import org.fraudpipe.job.archive.ArchivePolicy;
import org.fraudpipe.job.features.TrailingFeatures;
import org.fraudpipe.job.position.ReadPositions;
import org.fraudpipe.parity.Evidence;
import org.fraudpipe.schemas.avro.ArchivedTransaction;
import org.fraudpipe.schemas.avro.DeadLetter;
import org.fraudpipe.schemas.avro.DeadLetterReason;
import org.fraudpipe.schemas.avro.Decision;
import org.fraudpipe.schemas.avro.ReadPosition;
import org.fraudpipe.schemas.avro.Transaction;
import org.fraudpipe.schemas.avro.TransactionFeatures;
import org.fraudpipe.schemas.avro.TransactionScore;
import org.junit.jupiter.api.Test;

/**
 * The per-transaction verdicts on small hand-made histories: one user, 10-minute trailing windows,
 * 2 minutes of allowed lateness, a 5 s watermark bound. Served values are what the job's definition
 * gives over what the test says the job held ({@link TrailingFeatures}), so a verdict can only
 * match if the judge recomputes the same thing.
 */
class TransactionJudgeTest {

    static final Instant T0 = Instant.parse("2026-11-28T12:00:00Z");
    static final Duration T = Duration.ofMinutes(10);
    static final ArchivePolicy POLICY =
            new ArchivePolicy(
                    Duration.ofMinutes(10),
                    Duration.ofMinutes(2),
                    Duration.ofSeconds(5),
                    Duration.ofMinutes(1),
                    Duration.ofMinutes(5));

    private final TransactionJudge judge =
            new TransactionJudge(POLICY, T, Long.MIN_VALUE, Long.MAX_VALUE);

    private final List<Evidence> evidence = new ArrayList<>();
    private long offset;

    static Transaction tx(String id, int second, long amount, String device) {
        return Transaction.newBuilder()
                .setTransactionId(id)
                .setUserId("u1")
                .setAmountMinor(amount)
                .setCurrency("EUR")
                .setMerchantId("m-" + id)
                .setDeviceId(device)
                .setCountry("DE")
                .setEventTime(T0.plusSeconds(second))
                .build();
    }

    /** The next record of partition 0, arriving at {@code arrivalSecond}, bound as given. */
    private ArchivedTransaction arrive(
            Transaction tx, int arrivalSecond, long watermarkBound, String caveat) {
        return arrive(tx, arrivalSecond, watermarkBound, caveat, false, 0);
    }

    private ArchivedTransaction arrive(
            Transaction tx,
            int arrivalSecond,
            long watermarkBound,
            String caveat,
            boolean quarantined,
            int partition) {
        Instant at = T0.plusSeconds(arrivalSecond);
        ArchivedTransaction a =
                ArchivedTransaction.newBuilder()
                        .setTransaction(tx)
                        .setSourceTopic("transactions")
                        .setSourcePartition(partition)
                        .setSourceOffset(++offset)
                        .setRecordTimestamp(at)
                        .setReceivedAt(at)
                        .setQuarantined(quarantined)
                        .build();
        evidence.add(Evidence.archived(a, 0L, watermarkBound, caveat));
        return a;
    }

    private ArchivedTransaction arrive(Transaction tx, int arrivalSecond) {
        return arrive(tx, arrivalSecond, Evidence.NO_BOUND, null);
    }

    /** What the job answers for x over {@code held} (arrival order). */
    static TransactionScore answer(
            Transaction x, List<Transaction> held, boolean complete, int scoredSecond) {
        TrailingFeatures.Result r = TrailingFeatures.compute(held, x, T);
        TransactionFeatures f =
                r.writeTo(TransactionFeatures.newBuilder())
                        .setTransactionId(x.getTransactionId())
                        .setUserId(x.getUserId())
                        .setEventTime(x.getEventTime())
                        .setTrailingWindowMillis(T.toMillis())
                        .setAmountMinor(x.getAmountMinor())
                        .setHistoryComplete(complete)
                        .build();
        return TransactionScore.newBuilder()
                .setTransactionId(x.getTransactionId())
                .setUserId(x.getUserId())
                .setEventTime(x.getEventTime())
                .setFeatures(f)
                .setScore(0.01 * r.values().txCount())
                .setDecision(Decision.ALLOW)
                .setModelName("m")
                .setModelVersion("1")
                .setRecordTimestamp(null)
                .setScoredAt(T0.plusSeconds(scoredSecond))
                .build();
    }

    private void served(TransactionScore s) {
        evidence.add(Evidence.transactionScore(s));
    }

    private Map<String, TransactionVerdict> judge() {
        return judge.judge("u1", evidence).verdicts().stream()
                .collect(Collectors.toMap(v -> v.transactionId, v -> v));
    }

    private final Transaction a = tx("a", 0, 100, "d1");
    private final Transaction b = tx("b", 60, 200, "d1");
    private final Transaction c = tx("c", 120, 300, "d2");

    @Test
    void onTimeArrivalsMatch() {
        arrive(a, 1);
        arrive(b, 61);
        arrive(c, 121);
        served(answer(a, List.of(), true, 1));
        served(answer(b, List.of(a), true, 61));
        served(answer(c, List.of(a, b), true, 121));

        Map<String, TransactionVerdict> v = judge();

        assertThat(v.values()).extracting(x -> x.cause).containsOnly(TransactionCause.MATCH);
        assertThat(v.get("c").served.getFeatures().getTxCount()).isEqualTo(3);
        assertThat(v.get("c").ideal.getTxCount()).isEqualTo(3);
    }

    @Test
    void aRecordArrivingAfterTheTransactionsItBelongsToIsNamedWithHowLateItWas() {
        Transaction late = tx("late", 30, 5_000, "d9");
        arrive(a, 1);
        arrive(b, 61);
        arrive(c, 121);
        arrive(late, 400); // event time 30 s: in the windows of b and c, not of a
        served(answer(a, List.of(), true, 1));
        served(answer(b, List.of(a), true, 61));
        served(answer(c, List.of(a, b), true, 121));
        served(answer(late, List.of(a, b, c), true, 400));

        TransactionJudge.Judgement j = judge.judge("u1", evidence);
        Map<String, TransactionVerdict> v =
                j.verdicts().stream().collect(Collectors.toMap(x -> x.transactionId, x -> x));

        assertThat(v.get("a").cause).isEqualTo(TransactionCause.MATCH);
        assertThat(v.get("late").cause).isEqualTo(TransactionCause.MATCH);
        for (String id : List.of("b", "c")) {
            TransactionVerdict x = v.get(id);
            assertThat(x.causes).containsExactly(TransactionCause.ARRIVED_LATER);
            assertThat(x.differingFeatures).contains("txCount", "amountSum", "amountMax");
            assertThat(x.named)
                    .singleElement()
                    .satisfies(
                            n -> {
                                assertThat(n.transactionId()).isEqualTo("late");
                                assertThat(n.cause()).isEqualTo("ARRIVED_LATER");
                                assertThat(n.delayMillis())
                                        .isEqualTo(370_000); // arrived 400 s, event 30 s
                            });
        }
        assertThat(v.get("b").named.get(0).afterScoredMillis()).isEqualTo(339_000);
        assertThat(v.get("c").named.get(0).afterScoredMillis()).isEqualTo(279_000);
        // The record is counted once for the lateness chart, whatever it affected.
        assertThat(j.facts().arrivedLaterDelays()).containsExactly(370_000L);
    }

    @Test
    void aServedValueThatIsNotTheAsOfArrivalRecomputationIsUnexplained() {
        arrive(a, 1);
        arrive(b, 61);
        served(answer(a, List.of(), true, 1));
        TransactionScore tampered = answer(b, List.of(a), true, 61);
        tampered.getFeatures().setAmountSum(tampered.getFeatures().getAmountSum() + 1);
        served(tampered);

        TransactionVerdict v = judge().get("b");

        assertThat(v.cause).isEqualTo(TransactionCause.UNEXPLAINED);
        assertThat(v.differingFeatures).containsExactly("amountSum");
        assertThat(v.note).contains("as of arrival");
    }

    @Test
    void anAnswerThatCountsARecordReceivedLaterIsUnexplainedEvenThoughItIsIdeal() {
        // The job cannot have counted x2 when it answered y: that the answer equals the ideal
        // value is no excuse, it is not what the job can have computed.
        arrive(a, 1);
        arrive(b, 61);
        Transaction y = tx("y", 90, 10, "d1");
        Transaction x2 = tx("x2", 80, 20, "d1");
        arrive(y, 91);
        arrive(x2, 300);
        served(answer(a, List.of(), true, 1));
        served(answer(b, List.of(a), true, 61));
        served(answer(y, List.of(a, b, x2), true, 91));
        served(answer(x2, List.of(a, b, y), true, 300));

        TransactionVerdict v = judge().get("y");

        assertThat(v.cause).isEqualTo(TransactionCause.UNEXPLAINED);
        assertThat(v.differingFeatures).isEmpty(); // served = ideal
        assertThat(v.asOfArrival.txCount()).isEqualTo(3);
        assertThat(v.served.getFeatures().getTxCount()).isEqualTo(4);
    }

    @Test
    void aMissingScoreAndAScoreWithoutATransactionAreAlarms() {
        arrive(a, 1);
        arrive(b, 61);
        served(answer(a, List.of(), true, 1));
        served(answer(tx("ghost", 100, 1, "d1"), List.of(a, b), true, 100));

        Map<String, TransactionVerdict> v = judge();

        assertThat(v.get("b").cause).isEqualTo(TransactionCause.MISSING_SCORE);
        assertThat(v.get("b").served).isNull();
        assertThat(v.get("b").ideal.getTxCount()).isEqualTo(2);
        assertThat(v.get("ghost").cause).isEqualTo(TransactionCause.EXTRA_SCORE);
        assertThat(v.get("ghost").note).contains("no transaction ghost");
        assertThat(TransactionCause.MISSING_SCORE.isExplained()).isFalse();
        assertThat(TransactionCause.EXTRA_SCORE.isExplained()).isFalse();
    }

    /** Where the job's readers stood, on partition 0 of "transactions". */
    private static ReadPositions positions(long windowsNext, long decisionsNext) {
        return ReadPositions.of(
                List.of(
                        position(ReadPositions.Reader.WINDOWS, windowsNext),
                        position(ReadPositions.Reader.DECISIONS, decisionsNext)));
    }

    private static ReadPosition position(ReadPositions.Reader reader, long next) {
        return ReadPosition.newBuilder()
                .setReader(reader.id())
                .setSourceTopic("transactions")
                .setSourcePartition(0)
                .setNextOffset(next)
                .setRecordedAt(T0)
                .build();
    }

    /** {@code s} answering the arrival at {@code offset} of partition 0. */
    private static TransactionScore at(TransactionScore s, long offset) {
        s.setSourcePartition(0);
        s.setSourceOffset(offset);
        return s;
    }

    private Map<String, TransactionVerdict> judge(ReadPositions positions) {
        return new TransactionJudge(POLICY, T, Long.MIN_VALUE, Long.MAX_VALUE, positions)
                .judge("u1", evidence).verdicts().stream()
                        .collect(Collectors.toMap(v -> v.transactionId, v -> v));
    }

    @Test
    void anAnswerToAnArrivalTheArchivesReaderHadNotReachedIsNotYetArchivedOneItPassedIsExtra() {
        arrive(a, 1); // offset 1
        arrive(b, 61); // offset 2
        served(at(answer(a, List.of(), true, 1), 1));
        served(at(answer(b, List.of(a), true, 61), 2));
        // Read by the decision path only: at offsets 3 and 5, the archive's reader stood at 3.
        served(at(answer(c, List.of(a, b), true, 121), 3));
        served(at(answer(tx("later", 130, 1, "d1"), List.of(a, b, c), true, 130), 5));
        // An answer to offset 2, which the archive's reader had passed: the archive lost it.
        served(at(answer(tx("ghost", 100, 1, "d1"), List.of(a), true, 100), 2));

        Map<String, TransactionVerdict> v = judge(positions(3, 6));

        assertThat(v.get("a").cause).isEqualTo(TransactionCause.MATCH);
        assertThat(v.get("b").cause).isEqualTo(TransactionCause.MATCH);
        assertThat(v.get("c").cause).isEqualTo(TransactionCause.NOT_YET_ARCHIVED);
        assertThat(v.get("c").note).contains("offset 3").contains("reader at 3");
        assertThat(v.get("later").cause).isEqualTo(TransactionCause.NOT_YET_ARCHIVED);
        assertThat(v.get("ghost").cause).isEqualTo(TransactionCause.EXTRA_SCORE);
        assertThat(TransactionCause.NOT_YET_ARCHIVED.isExplained()).isTrue();
        // Without positions the same answers are alarms.
        assertThat(judge(ReadPositions.NONE).get("c").cause)
                .isEqualTo(TransactionCause.EXTRA_SCORE);
    }

    @Test
    void anArrivalTheDecisionPathsReaderHadNotReachedIsNotYetScoredOneItPassedIsMissing() {
        arrive(a, 1); // offset 1
        arrive(b, 61); // offset 2: read by the decision path, never answered
        arrive(c, 121); // offset 3: the decision path's reader stood at 3
        arrive(a, 125); // offset 4: a retry of a, not reached either
        served(at(answer(a, List.of(), true, 1), 1));

        Map<String, TransactionVerdict> v = judge(positions(5, 3));

        assertThat(v.get("b").cause).isEqualTo(TransactionCause.MISSING_SCORE);
        assertThat(v.get("c").cause).isEqualTo(TransactionCause.NOT_YET_SCORED);
        assertThat(v.get("c").served).isNull();
        assertThat(v.get("c").note).contains("transactions-0@3").contains("offset 3");
        // a was answered once; its retry had not been read: no answer is missing.
        assertThat(v.get("a").causes).containsExactly(TransactionCause.NOT_YET_SCORED);
        assertThat(TransactionCause.NOT_YET_SCORED.isExplained()).isTrue();
        assertThat(judge(ReadPositions.NONE).get("c").cause)
                .isEqualTo(TransactionCause.MISSING_SCORE);
    }

    @Test
    void aScoredFutureDatedTransactionIsAnExtraScore() {
        Transaction future = tx("f", 3 * 3600, 1, "d1");
        arrive(future, 10, Evidence.NO_BOUND, null, true, 0);
        served(answer(future, List.of(), true, 10));

        TransactionVerdict v = judge().get("f");

        assertThat(v.cause).isEqualTo(TransactionCause.EXTRA_SCORE);
        assertThat(v.note).contains("quarantined");
    }

    @Test
    void aRetryAnsweredWithTheSameValuesIsFineWithOtherValuesAnAlarm() {
        arrive(a, 1);
        arrive(b, 61);
        arrive(b, 62); // the producer's retry
        served(answer(a, List.of(), true, 1));
        served(answer(b, List.of(a), true, 61));
        served(answer(b, List.of(a), true, 62));

        TransactionVerdict same = judge().get("b");
        assertThat(same.cause).isEqualTo(TransactionCause.MATCH);
        assertThat(same.arrivals).isEqualTo(2);
        assertThat(same.answers).isEqualTo(2);

        evidence.removeIf(e -> e.kind == Evidence.Kind.TRANSACTION_SCORE);
        served(answer(a, List.of(), true, 1));
        served(answer(b, List.of(a), true, 61));
        served(answer(b, List.of(), true, 62)); // other values for the same id
        TransactionVerdict other = judge().get("b");
        assertThat(other.causes).containsExactly(TransactionCause.RETRY_CONFLICT);
        assertThat(other.note)
                .contains("answered 2 times with different values")
                .contains("while its original was still in the state");
    }

    @Test
    void aRetryArrivingAfterItsOriginalLeftTheStateIsNamedAsTheJobsLimit() {
        arrive(a, 1);
        // The retry arrives when the partition's watermark can be past a's event time + T + L.
        arrive(tx("z", 2000, 1, "d1"), 2000, 0L, null);
        long bound = T0.plusSeconds(2000).toEpochMilli() - 5_001;
        arrive(a, 2001, bound, null);
        served(answer(a, List.of(), true, 1));
        served(answer(tx("z", 2000, 1, "d1"), List.of(), true, 2000));
        served(answer(a, List.of(), false, 2001));

        TransactionVerdict v = judge().get("a");

        assertThat(v.causes).containsExactly(TransactionCause.RETRY_CONFLICT);
        assertThat(v.note).contains("the job's documented limit");
    }

    @Test
    void theStateBoundIsModelledAnEvictedRecordIsNamed() {
        // a (0 s) and b (60 s) arrive on time; the partition then reaches 790 s; x (event time
        // 300 s) arrives: its window (-300 s, 300 s] holds a and b. At a watermark of up to
        // 790 - 5 - 0.001 s, a's entry (evicted at 0 + 600 + 120 = 720 s) may be gone, b's (780 s)
        // too: the job evicted a prefix by event time.
        arrive(a, 1);
        arrive(b, 61);
        Transaction far = tx("far", 790, 1, "d3");
        arrive(far, 791);
        Transaction x = tx("x", 300, 50, "d1");
        long bound = T0.plusSeconds(790).toEpochMilli() - 5_000 - 1;
        arrive(x, 800, bound, null);
        served(answer(a, List.of(), true, 1));
        served(answer(b, List.of(a), true, 61));
        served(answer(far, List.of(a, b), true, 791));
        served(answer(x, List.of(b), false, 800)); // a evicted, b still held

        TransactionVerdict v = judge().get("x");

        assertThat(v.causes).containsExactly(TransactionCause.EVICTED);
        assertThat(v.evicted).isEqualTo(1);
        assertThat(v.named).extracting(NamedRecord::transactionId).containsExactly("a");
        assertThat(v.asOfArrival.txCount()).isEqualTo(2);
        assertThat(v.ideal.getTxCount()).isEqualTo(3);
    }

    @Test
    void anEvictionTheWatermarkBoundDoesNotAllowIsUnexplained() {
        arrive(a, 1);
        arrive(b, 61);
        Transaction x = tx("x", 300, 50, "d1");
        // The partition's largest earlier event time is 60 s: the watermark was at most 55 s,
        // so nothing of x's window can have been evicted, and historyComplete=false is a lie.
        long bound = T0.plusSeconds(60).toEpochMilli() - 5_001;
        arrive(x, 800, bound, null);
        served(answer(a, List.of(), true, 1));
        served(answer(b, List.of(a), true, 61));
        served(answer(x, List.of(b), false, 800));

        TransactionVerdict v = judge().get("x");

        assertThat(v.cause).isEqualTo(TransactionCause.UNEXPLAINED);
        assertThat(v.note).contains("historyComplete=false").contains("bounds that watermark");
    }

    @Test
    void anAnswerThatNoPrefixOfEvictionsGivesIsUnexplained() {
        arrive(a, 1);
        arrive(b, 61);
        Transaction far = tx("far", 790, 1, "d3");
        arrive(far, 791);
        Transaction x = tx("x", 300, 50, "d1");
        long bound = T0.plusSeconds(790).toEpochMilli() - 5_001;
        arrive(x, 800, bound, null);
        served(answer(a, List.of(), true, 1));
        served(answer(b, List.of(a), true, 61));
        served(answer(far, List.of(a, b), true, 791));
        // b evicted but a (earlier event time) kept: the job never evicts out of event-time order.
        served(answer(x, List.of(a), false, 800));

        TransactionVerdict v = judge().get("x");

        assertThat(v.cause).isEqualTo(TransactionCause.UNEXPLAINED);
        assertThat(v.note).contains("no eviction the watermark allows");
    }

    @Test
    void withoutAProvableBoundAnyPrefixMayHaveBeenEvictedAndTheVerdictSaysSo() {
        arrive(a, 1);
        arrive(b, 61);
        Transaction x = tx("x", 300, 50, "d1");
        arrive(x, 800, Evidence.NO_BOUND, "partition 0 may have been idle");
        served(answer(a, List.of(), true, 1));
        served(answer(b, List.of(a), true, 61));
        served(answer(x, List.of(), false, 800));

        TransactionVerdict v = judge().get("x");

        assertThat(v.causes).containsExactly(TransactionCause.EVICTED);
        assertThat(v.evicted).isEqualTo(2);
        assertThat(v.boundProven).isFalse();
    }

    @Test
    void quarantinedAndDeadLetteredRecordsOfTheWindowAreNamed() {
        Transaction future = tx("f", 30, 900, "d5"); // future-dated: arrives 10 min earlier
        arrive(future, -600, Evidence.NO_BOUND, null, true, 0);
        arrive(a, 1);
        ArchivedTransaction dead = arrive(b, 61);
        evidence.add(
                Evidence.deadLetter(
                        DeadLetter.newBuilder()
                                .setSourceTopic(dead.getSourceTopic())
                                .setSourcePartition(dead.getSourcePartition())
                                .setSourceOffset(dead.getSourceOffset())
                                .setRecordTimestamp(dead.getRecordTimestamp())
                                .setReason(DeadLetterReason.INVALID)
                                .setErrorMessage("rejected")
                                .setDetectedAt(dead.getReceivedAt())
                                .build(),
                        "u1",
                        0L));
        arrive(c, 121);
        served(answer(a, List.of(), true, 1));
        served(answer(c, List.of(a), true, 121));

        Map<String, TransactionVerdict> v = judge();

        assertThat(v).doesNotContainKeys("f", "b"); // neither is answered by the job
        assertThat(v.get("c").causes)
                .containsExactly(TransactionCause.QUARANTINED, TransactionCause.DEAD_LETTERED);
        assertThat(v.get("c").named)
                .extracting(NamedRecord::transactionId)
                .containsExactly("f", "b");
        assertThat(judge.judge("u1", evidence).facts().quarantinedInPeriod()).isEqualTo(1);
    }

    @Test
    void aQuarantineFlagTheRuleDoesNotSupportIsUnexplained() {
        Transaction notFuture = tx("f", 30, 900, "d5");
        arrive(notFuture, 31, Evidence.NO_BOUND, null, true, 0); // flagged, but on time
        arrive(c, 121);
        served(answer(c, List.of(), true, 121));

        TransactionVerdict v = judge().get("c");

        assertThat(v.causes).contains(TransactionCause.UNEXPLAINED, TransactionCause.QUARANTINED);
        assertThat(v.note).contains("archived as quarantined");
    }

    @Test
    void aConflictingDuplicateWhoseFirstCopyNeverReachedTheStateIsADuplicate() {
        // Copy 1 of "d" is future-dated (quarantined) with one payload; copy 2, valid, another.
        Transaction d1 = tx("d", 30, 1_000, "d1");
        Transaction d2 = tx("d", 30, 9_000, "d7");
        arrive(d1, -600, Evidence.NO_BOUND, null, true, 0);
        arrive(d2, 31);
        arrive(c, 121);
        served(answer(d2, List.of(), true, 31));
        served(answer(c, List.of(d2), true, 121));

        TransactionVerdict v = judge().get("c");

        assertThat(v.causes).containsExactly(TransactionCause.DUPLICATE);
        assertThat(v.named)
                .singleElement()
                .satisfies(n -> assertThat(n.position()).isEqualTo("transactions-0@1"));
    }

    @Test
    void aUserOnTwoPartitionsIsReportedNotGuessed() {
        arrive(a, 1, Evidence.NO_BOUND, null, false, 0);
        arrive(b, 61, Evidence.NO_BOUND, null, false, 1);
        served(answer(a, List.of(), true, 1));
        served(answer(b, List.of(a), true, 61));

        TransactionJudge.Judgement j = judge.judge("u1", evidence);

        assertThat(j.verdicts())
                .extracting(x -> x.cause)
                .containsOnly(TransactionCause.ARRIVAL_ORDER_UNKNOWN);
        assertThat(j.facts().partitions()).containsExactly("transactions-0", "transactions-1");
        assertThat(j.verdicts().get(0).note).contains("keyed by user");
    }

    @Test
    void onlyTheTransactionsOfThePeriodAreJudgedButEarlierOnesAreTheirHistory() {
        TransactionJudge day =
                new TransactionJudge(
                        POLICY,
                        T,
                        T0.plusSeconds(60).toEpochMilli(),
                        T0.plusSeconds(120).toEpochMilli());
        arrive(a, 1);
        arrive(b, 61);
        arrive(c, 121);
        served(answer(b, List.of(a), true, 61));

        List<TransactionVerdict> v = day.judge("u1", evidence).verdicts();

        assertThat(v)
                .singleElement()
                .satisfies(
                        x -> {
                            assertThat(x.transactionId).isEqualTo("b");
                            assertThat(x.cause).isEqualTo(TransactionCause.MATCH);
                            assertThat(x.ideal.getTxCount()).isEqualTo(2);
                        });
    }

    @Test
    void labelsAreAttached() {
        arrive(a, 1);
        served(answer(a, List.of(), true, 1));
        evidence.add(Evidence.label("u1", "a", true));

        assertThat(judge().get("a").fraud).isTrue();
    }
}
