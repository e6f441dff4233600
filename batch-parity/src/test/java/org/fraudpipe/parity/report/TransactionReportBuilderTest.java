package org.fraudpipe.parity.report;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Instant;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Random;
import org.fraudpipe.parity.transaction.NamedRecord;
import org.fraudpipe.parity.transaction.TransactionCause;
import org.fraudpipe.parity.transaction.TransactionJudge;
import org.fraudpipe.parity.transaction.TransactionVerdict;
import org.fraudpipe.schemas.avro.Decision;
import org.fraudpipe.schemas.avro.TransactionFeatures;
import org.fraudpipe.schemas.avro.TransactionScore;
import org.junit.jupiter.api.Test;

class TransactionReportBuilderTest {

    private static final long T0 = Instant.parse("2026-11-28T10:00:00Z").toEpochMilli();

    private static TransactionFeatures features(String user, String id, long txCount) {
        return TransactionFeatures.newBuilder()
                .setTransactionId(id)
                .setUserId(user)
                .setEventTime(Instant.ofEpochMilli(T0))
                .setTrailingWindowMillis(600_000)
                .setTxCount(txCount)
                .setAmountSum(100 * txCount)
                .setAmountMax(100)
                .setDistinctDevices(1)
                .setDistinctMerchants(1)
                .setDistinctCountries(1)
                .setAmountMinor(100)
                .setNewDevice(false)
                .setNewMerchant(false)
                .setNewCountry(false)
                .setHistoryComplete(true)
                .build();
    }

    private static String decision(double score) {
        return score >= 0.9 ? "BLOCK" : score >= 0.5 ? "REVIEW" : "ALLOW";
    }

    static TransactionVerdict verdict(
            String user,
            String id,
            TransactionCause cause,
            long idealTx,
            long servedTx,
            double servedScore,
            double idealScore,
            Boolean fraud) {
        TransactionVerdict v = new TransactionVerdict();
        v.userId = user;
        v.transactionId = id;
        v.eventTime = T0;
        v.cause = cause;
        v.causes = List.of(cause);
        v.ideal = features(user, id, idealTx);
        if (cause != TransactionCause.MISSING_SCORE) {
            v.served =
                    TransactionScore.newBuilder()
                            .setTransactionId(id)
                            .setUserId(user)
                            .setEventTime(Instant.ofEpochMilli(T0))
                            .setFeatures(features(user, id, servedTx))
                            .setScore(servedScore)
                            .setDecision(Decision.valueOf(decision(servedScore)))
                            .setModelName("m")
                            .setModelVersion("1")
                            .setRecordTimestamp(null)
                            .setScoredAt(Instant.ofEpochMilli(T0))
                            .build();
            v.differingFeatures = idealTx == servedTx ? List.of() : List.of("txCount", "amountSum");
        }
        v.arrivals = 1;
        v.answers = v.served == null ? 0 : 1;
        v.idealScore = idealScore;
        v.idealDecision = decision(idealScore);
        v.fraud = fraud;
        if (cause == TransactionCause.ARRIVED_LATER) {
            v.named =
                    List.of(
                            new NamedRecord(
                                    "late-" + id,
                                    "ARRIVED_LATER",
                                    Instant.ofEpochMilli(T0 - 5_000),
                                    Instant.ofEpochMilli(T0 + 60_000),
                                    65_000,
                                    60_000,
                                    "transactions-0@9"));
            v.namedCount = 1;
        }
        return v;
    }

    /** 40 matches, 3 late arrivals (one flips a fraud ALLOW->BLOCK), 1 lost score. */
    static List<TransactionVerdict> sample() {
        List<TransactionVerdict> out = new ArrayList<>();
        for (int i = 0; i < 40; i++) {
            out.add(verdict("u" + i, "t" + i, TransactionCause.MATCH, 2, 2, 0.1, 0.1, false));
        }
        out.add(verdict("late1", "l1", TransactionCause.ARRIVED_LATER, 3, 2, 0.2, 0.95, true));
        out.add(verdict("late2", "l2", TransactionCause.ARRIVED_LATER, 3, 2, 0.2, 0.3, false));
        out.add(verdict("late3", "l3", TransactionCause.ARRIVED_LATER, 3, 2, 0.6, 0.2, false));
        out.add(verdict("lost", "x", TransactionCause.MISSING_SCORE, 2, 2, 0, 0.7, null));
        return out;
    }

    private static TransactionSection section(List<TransactionVerdict> verdicts) {
        TransactionReportBuilder b = new TransactionReportBuilder(true);
        verdicts.forEach(b::add);
        return b.section(true, "", "m:1");
    }

    @Test
    void countsTransactionsByCauseAndPricesTheSkew() {
        TransactionSection s = section(sample());

        assertThat(s.transactions().judged()).isEqualTo(44);
        assertThat(s.transactions().matched()).isEqualTo(40);
        assertThat(s.transactions().explained()).isEqualTo(3);
        assertThat(s.transactions().alarms()).isEqualTo(1);
        assertThat(s.transactions().compared()).isEqualTo(43);
        assertThat(s.transactions().differing()).isEqualTo(3);
        assertThat(s.byCause()).containsEntry("ARRIVED_LATER", 3L).containsEntry("EVICTED", 0L);
        assertThat(s.scoreSkew().compared()).isEqualTo(43);
        assertThat(s.scoreSkew().neverScored()).isEqualTo(1);
        assertThat(s.scoreSkew().neverScoredDecisions()).containsEntry("REVIEW", 1L);
        assertThat(s.scoreSkew().flips())
                .containsEntry("ALLOW->BLOCK", 1L)
                .containsEntry("REVIEW->ALLOW", 1L)
                .hasSize(2);
        assertThat(s.scoreSkew().flippedRate()).isEqualTo(2 / 43.0);
        TransactionSection.Labels l = s.scoreSkew().labels();
        assertThat(l.fraudulent()).isEqualTo(1);
        assertThat(l.fraudsAllowed()).isEqualTo(1);
        assertThat(l.fraudsLetThrough()).isEqualTo(1);
        assertThat(l.fraudFlips()).containsEntry("ALLOW->BLOCK", 1L);
        assertThat(l.legitimateFlips()).containsEntry("REVIEW->ALLOW", 1L);
        assertThat(s.worst().get(0).transactionId()).isEqualTo("l1"); // largest |delta|
        assertThat(s.worst().get(0).named()).hasSize(1);
        assertThat(s.examples()).containsOnlyKeys("MISSING_SCORE", "ARRIVED_LATER");
    }

    @Test
    void partialReportsMergeToTheSameSectionWhateverTheSplitAndOrder() {
        List<TransactionVerdict> all = new ArrayList<>(sample());
        for (int i = 0; i < 30; i++) {
            all.add(
                    verdict(
                            "w" + i,
                            "e" + i,
                            TransactionCause.ARRIVED_LATER,
                            3,
                            2,
                            0.01 * i,
                            0.02 * i,
                            i % 2 == 0));
        }
        TransactionSection whole = section(all);
        Random random = new Random(5);
        for (int round = 0; round < 5; round++) {
            List<TransactionVerdict> shuffled = new ArrayList<>(all);
            Collections.shuffle(shuffled, random);
            int parts = 2 + round;
            List<TransactionReportBuilder> builders = new ArrayList<>();
            for (int p = 0; p < parts; p++) {
                builders.add(new TransactionReportBuilder(true));
            }
            for (int i = 0; i < shuffled.size(); i++) {
                builders.get(random.nextInt(parts)).add(shuffled.get(i));
            }
            TransactionReportBuilder merged = new TransactionReportBuilder(true);
            Collections.shuffle(builders, random);
            for (TransactionReportBuilder b : builders) {
                // What crosses the network: bytes.
                merged.merge(TransactionReportBuilder.fromBytes(b.toBytes()));
            }
            TransactionSection s = merged.section(true, "", "m:1");
            assertThat(s).as("round " + round).isEqualTo(whole);
            assertThat(ReportJson.write(report(s))).isEqualTo(ReportJson.write(report(whole)));
        }
        assertThat(whole.examples().get("ARRIVED_LATER"))
                .hasSize(TransactionReportBuilder.EXAMPLES_PER_CAUSE);
        assertThat(whole.worst()).hasSize(TransactionReportBuilder.WORST);
    }

    private static ParityReport report(TransactionSection s) {
        return new ReportBuilder().build(Map.of("period", "x"), ParityThresholds.ALARMS_ONLY, s);
    }

    @Test
    void transactionAlarmsCountTowardMaxUnexplainedAndTheRatesHaveTheirLimits() {
        TransactionSection s = section(sample());

        ParityReport defaults =
                new ReportBuilder().build(Map.of("period", "x"), ParityThresholds.DEFAULT, s);
        assertThat(defaults.exitCode()).isEqualTo(1);
        assertThat(defaults.violations())
                .anySatisfy(
                        v ->
                                assertThat(v)
                                        .contains(
                                                "0 unexplained window(s) and 1 transaction"
                                                        + " alarm(s)"))
                .anySatisfy(v -> assertThat(v).startsWith("transactions: served features differ"))
                .anySatisfy(v -> assertThat(v).startsWith("transactions: flipped decision rate"));

        ParityReport oneAlarmAllowed =
                new ReportBuilder()
                        .build(
                                Map.of("period", "x"),
                                new ParityThresholds(1, 1.0, -1, 1.0, 1.0),
                                s);
        assertThat(oneAlarmAllowed.exitCode()).isZero();
        ParityReport rates =
                new ReportBuilder()
                        .build(
                                Map.of("period", "x"),
                                new ParityThresholds(1, 3 / 43.0, -1, 1.0, 2 / 43.0),
                                s);
        assertThat(rates.exitCode()).isZero();
        ParityReport flips =
                new ReportBuilder()
                        .build(
                                Map.of("period", "x"),
                                new ParityThresholds(1, 1.0, -1, 1.0, 1 / 43.0),
                                s);
        assertThat(flips.violations()).singleElement().asString().contains("flipped decision rate");
        assertThat(ParityThresholds.DEFAULT.maxTransactionFlippedRate()).isEqualTo(0.001);
    }

    @Test
    void aSectionNotCheckedSaysWhyAndChangesNothingElse() {
        TransactionSection off = TransactionSection.notChecked("no --transaction-scores given");
        assertThat(off.checked()).isFalse();
        assertThat(off.notChecked()).isEqualTo("no --transaction-scores given");
        assertThat(off.transactions().judged()).isZero();
        ParityReport r =
                new ReportBuilder().build(Map.of("period", "x"), ParityThresholds.DEFAULT, off);
        assertThat(r.exitCode()).isZero();
        assertThat(SummaryLine.of(r, "x", "r.html")).contains("; transactions: not checked;");
        assertThat(ReportHtml.render(r)).contains("Not checked: no --transaction-scores given");
    }

    @Test
    void usersOnSeveralPartitionsAreCountedAndNamed() {
        TransactionReportBuilder b = new TransactionReportBuilder(false);
        b.addUser(
                new TransactionJudge.UserFacts(
                        "u9", 2, new long[] {1_000, 7_200_000}, List.of("t-0", "t-3")),
                true);
        TransactionSection s = b.section(true, "", "");
        assertThat(s.records().usersOnSeveralPartitions()).isEqualTo(1);
        assertThat(s.records().usersOnSeveralPartitionsExamples()).containsExactly("u9 (t-0, t-3)");
        assertThat(s.records().quarantinedInPeriod()).isEqualTo(2);
        assertThat(s.records().arrivedLaterRecords()).isEqualTo(2);
        assertThat(s.arrivedLaterDelay().stream().mapToLong(Histogram.Bucket::count).sum())
                .isEqualTo(2);
    }
}
