package org.fraudpipe.tools.export;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Collectors;
import org.fraudpipe.schemas.avro.Transaction;
import org.fraudpipe.schemas.avro.TransactionFeatures;
import org.fraudpipe.schemas.json.ReplayRecord;
import org.fraudpipe.scoring.data.LabelledTransaction;
import org.fraudpipe.scoring.data.LabelledTransactionsJson;
import org.fraudpipe.sim.FraudPattern;
import org.fraudpipe.sim.Label;
import org.fraudpipe.sim.LabelJson;
import org.fraudpipe.sim.SimulatedRecord;
import org.fraudpipe.sim.SimulationConfig;
import org.fraudpipe.sim.TransactionSimulator;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class TransactionFeatureExportTest {

    private static final Duration T = Duration.ofMinutes(10);
    private static final Duration TOLERANCE = Duration.ofMinutes(5);
    private static final Instant AT = Instant.parse("2026-11-28T12:00:00Z");

    @TempDir Path tmp;

    private static Transaction tx(String id, String user, long amount, String device, Instant t) {
        return new Transaction(id, user, amount, "EUR", "m-1", device, "DE", t);
    }

    private static ReplayRecord arriving(Transaction tx, Instant arrival) {
        return new ReplayRecord(tx, arrival);
    }

    private static Label label(Transaction tx, boolean fraud) {
        return new Label(
                tx.getTransactionId(),
                tx.getUserId(),
                tx.getEventTime(),
                tx.getEventTime(),
                1,
                fraud,
                fraud ? FraudPattern.CARD_TESTING : FraudPattern.NORMAL,
                fraud ? "b-000001" : null,
                false,
                false,
                false,
                false,
                null);
    }

    private static Map<String, TransactionFeatures> byId(List<LabelledTransaction> rows) {
        return rows.stream()
                .collect(
                        Collectors.toMap(
                                r -> r.features().getTransactionId(),
                                LabelledTransaction::features));
    }

    @Test
    void asOfArrivalCountsWhatArrivedBeforeIdealCountsEverythingAndRetriesAreNoRows() {
        Transaction a = tx("a", "alice", 100, "d1", AT);
        Transaction lateB = tx("b", "alice", 200, "d2", AT.minusSeconds(60)); // arrives after c
        Transaction c = tx("c", "alice", 300, "d1", AT.plusSeconds(60));
        Transaction future = tx("f", "alice", 1, "d9", AT.plusSeconds(30)); // quarantined
        Transaction bob = tx("x", "bob", 5, "d1", AT);
        List<ReplayRecord> arrivals =
                List.of(
                        arriving(a, AT),
                        // arrives long before its event time: the job quarantines it
                        arriving(future, AT.minus(Duration.ofHours(1))),
                        arriving(c, AT.plusSeconds(60)),
                        arriving(lateB, AT.plusSeconds(600)),
                        arriving(a, AT.plusSeconds(601)), // a producer retry
                        arriving(bob, AT));
        List<Label> labels =
                List.of(
                        label(a, false),
                        label(lateB, true),
                        label(c, false),
                        label(future, false),
                        label(bob, false));

        TransactionFeatureExport.Result asOf =
                new TransactionFeatureExport(T, TOLERANCE, FeatureSemantics.AS_OF_ARRIVAL)
                        .compute(arrivals, labels);
        TransactionFeatureExport.Result ideal =
                new TransactionFeatureExport(T, TOLERANCE, FeatureSemantics.IDEAL)
                        .compute(arrivals, labels);

        Map<String, TransactionFeatures> s = byId(asOf.rows());
        Map<String, TransactionFeatures> i = byId(ideal.rows());
        assertThat(s.keySet()).containsExactlyInAnyOrder("a", "b", "c", "x");
        assertThat(i.keySet()).isEqualTo(s.keySet());
        // c arrived before b: as of its arrival it saw a only; ideally b and f too
        assertThat(s.get("c").getTxCount()).isEqualTo(2);
        assertThat(s.get("c").getNewDevice()).isFalse();
        assertThat(i.get("c").getTxCount()).isEqualTo(4);
        assertThat(i.get("c").getAmountSum()).isEqualTo(100 + 200 + 300 + 1);
        // b, late: a and c are after its event time, either way
        assertThat(s.get("b").getTxCount()).isEqualTo(1);
        assertThat(s.get("b").getNewDevice()).isTrue();
        assertThat(i.get("b")).isEqualTo(s.get("b"));
        // a, first: alone as of arrival; ideally with b (f is after a's event time)
        assertThat(s.get("a").getTxCount()).isEqualTo(1);
        assertThat(i.get("a").getTxCount()).isEqualTo(2);
        assertThat(s.get("x").getTxCount()).isEqualTo(1);
        assertThat(asOf.rows())
                .allSatisfy(
                        r -> {
                            assertThat(r.features().getTrailingWindowMillis())
                                    .isEqualTo(T.toMillis());
                            assertThat(r.features().getHistoryComplete()).isTrue();
                        });
        assertThat(asOf.rows().stream().filter(LabelledTransaction::fraud))
                .extracting(r -> r.features().getTransactionId())
                .containsExactly("b");
        TransactionFeatureExport.Summary summary = asOf.summary();
        assertThat(summary.retries()).isEqualTo(1);
        assertThat(summary.futureDated()).isEqualTo(1);
        assertThat(summary.transactions()).isEqualTo(4);
        assertThat(summary.users()).isEqualTo(2);
        assertThat(summary.differingFromIdeal()).isEqualTo(2); // a and c
        assertThat(ideal.summary().differingFromIdeal()).isEqualTo(2);
    }

    @Test
    void labelsOfAnotherSimulationFailInsteadOfMislabelling() {
        Transaction a = tx("a", "alice", 100, "d1", AT);
        Transaction other = tx("zz", "alice", 1, "d1", AT);
        TransactionFeatureExport export =
                new TransactionFeatureExport(T, TOLERANCE, FeatureSemantics.AS_OF_ARRIVAL);

        assertThatThrownBy(() -> export.compute(List.of(arriving(a, AT)), List.of()))
                .hasMessageContaining("transaction a has no label");
        assertThatThrownBy(
                        () ->
                                export.compute(
                                        List.of(arriving(a, AT)),
                                        List.of(label(a, false), label(other, true))))
                .hasMessageContaining("make transaction zz fraudulent");
        assertThatThrownBy(
                        () ->
                                new TransactionFeatureExport(
                                        T, TOLERANCE, FeatureSemantics.AS_SERVED))
                .hasMessageContaining("not as-served");
    }

    @Test
    void aSimulationWithEveryAnomalyGivesOneRowPerScoredIdWrittenInTheTrainingFormat()
            throws Exception {
        SimulationConfig config =
                SimulationConfig.builder()
                        .users(30)
                        .duration(Duration.ofHours(3))
                        .seed(5)
                        .txPerUserDay(400)
                        .fraudShare(0.1)
                        .duplicateRate(0.05)
                        .futureRate(0.01)
                        .hoursLateShare(0.05)
                        .malformedRate(0.02)
                        .build();
        List<String> lines = new ArrayList<>();
        List<String> labelLines = new ArrayList<>();
        Set<String> scorable = new HashSet<>();
        for (SimulatedRecord r : TransactionSimulator.generateAll(config)) {
            lines.add(r.jsonLine());
            if (!r.retryCopy()) {
                labelLines.add(LabelJson.toJsonLine(r.label()));
                if (!r.label().malformed() && !r.label().futureDated()) {
                    scorable.add(r.label().transactionId());
                }
            }
        }
        Path file = tmp.resolve("tx.jsonl");
        Files.write(file, lines, StandardCharsets.UTF_8);
        Path labels = tmp.resolve("tx.jsonl.labels.jsonl");
        Files.write(labels, labelLines, StandardCharsets.UTF_8);

        TransactionFeatureExport.Result r =
                new TransactionFeatureExport(T, TOLERANCE, FeatureSemantics.AS_OF_ARRIVAL)
                        .compute(file, labels);
        Path out = tmp.resolve("rows.jsonl");
        TransactionFeatureExport.write(r.rows(), out);

        assertThat(r.rows())
                .extracting(t -> t.features().getTransactionId())
                .containsExactlyInAnyOrderElementsOf(scorable);
        assertThat(r.summary().invalidLines()).isPositive();
        assertThat(r.summary().retries()).isPositive();
        assertThat(r.summary().differingFromIdeal()).isPositive();
        assertThat(LabelledTransactionsJson.readAll(out)).isEqualTo(r.rows());
    }
}
