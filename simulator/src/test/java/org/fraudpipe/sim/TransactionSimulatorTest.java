package org.fraudpipe.sim;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import org.fraudpipe.schemas.avro.Transaction;
import org.fraudpipe.schemas.json.ReplayFormatException;
import org.fraudpipe.schemas.json.ReplayRecord;
import org.fraudpipe.schemas.json.TransactionJson;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Properties of one day of traffic of 1,000 users with exaggerated anomaly rates (so that each is
 * measurable on about 20k records), generated once for all tests.
 */
class TransactionSimulatorTest {

    private static final SimulationConfig CONFIG =
            SimulationConfig.builder()
                    .users(1_000)
                    .duration(Duration.ofDays(1))
                    .seed(11)
                    .fraudShare(0.02)
                    .duplicateRate(0.02)
                    .futureRate(0.01)
                    .malformedRate(0.02)
                    .build();

    private static List<SimulatedRecord> records;
    private static List<Label> labels;

    @BeforeAll
    static void generate() {
        records = TransactionSimulator.generateAll(CONFIG);
        labels = records.stream().filter(r -> !r.retryCopy()).map(SimulatedRecord::label).toList();
    }

    @Test
    void sameConfigGivesSameRecordsAndOtherSeedDiffers() {
        SimulationConfig small =
                SimulationConfig.builder().users(100).duration(Duration.ofHours(12)).build();
        List<String> a = lines(small);
        assertThat(a).hasSizeGreaterThan(300).isEqualTo(lines(small));
        List<String> other =
                lines(
                        SimulationConfig.builder()
                                .users(100)
                                .duration(Duration.ofHours(12))
                                .seed(2)
                                .build());
        assertThat(other).isNotEqualTo(a);
    }

    private static List<String> lines(SimulationConfig config) {
        List<String> out = new ArrayList<>();
        new TransactionSimulator(config)
                .forEachRemaining(r -> out.add(r.jsonLine() + LabelJson.toJsonLine(r.label())));
        return out;
    }

    @Test
    void recordsAreInArrivalOrderAndNumberedFromOne() {
        assertThat(records).hasSizeGreaterThan(15_000);
        for (int i = 0; i < records.size(); i++) {
            assertThat(records.get(i).line()).isEqualTo(i + 1);
            if (i > 0) {
                assertThat(records.get(i).arrivalTime())
                        .isAfterOrEqualTo(records.get(i - 1).arrivalTime());
            }
        }
    }

    @Test
    void trueEventTimesLieInTheSpanAndArrivalIsNeverBeforeThem() {
        Instant start = CONFIG.start();
        Instant end = CONFIG.end();
        for (Label l : labels) {
            if (!l.futureDated()) {
                assertThat(l.eventTime()).isBetween(start, end.minusMillis(1));
                assertThat(l.arrivalTime()).isAfterOrEqualTo(l.eventTime());
            }
        }
    }

    @Test
    void labelsAreOnePerIdAndPointAtTheFirstCopy() {
        Set<String> ids = new HashSet<>();
        for (Label l : labels) {
            assertThat(ids.add(l.transactionId())).as(l.transactionId()).isTrue();
            SimulatedRecord first = records.get((int) l.line() - 1);
            assertThat(first.label()).isSameAs(l);
            assertThat(first.retryCopy()).isFalse();
        }
    }

    @Test
    void fraudShareIsNearTheRequestedShare() {
        long fraud = labels.stream().filter(Label::fraud).count();
        assertThat(fraud / (double) labels.size()).isBetween(0.014, 0.026);
    }

    @Test
    void accountTakeoverBurstsAreLabelledAndLookLikeTakeovers() {
        Map<String, Set<String>> ownDevices = new HashMap<>();
        Map<String, Set<String>> ownCountries = new HashMap<>();
        Map<String, List<Transaction>> bursts = new TreeMap<>();
        Map<String, FraudPattern> patterns = new HashMap<>();
        for (SimulatedRecord r : records) {
            if (r.isMalformed() || r.retryCopy()) {
                continue;
            }
            Transaction tx = r.transaction();
            Label l = r.label();
            if (l.fraud()) {
                bursts.computeIfAbsent(l.burstId(), k -> new ArrayList<>()).add(tx);
                patterns.put(l.burstId(), l.pattern());
                assertThat(l.futureDated()).isFalse();
            } else {
                ownDevices
                        .computeIfAbsent(tx.getUserId(), k -> new HashSet<>())
                        .add(tx.getDeviceId());
                ownCountries
                        .computeIfAbsent(tx.getUserId(), k -> new HashSet<>())
                        .add(tx.getCountry());
            }
        }
        assertThat(EnumSet.copyOf(patterns.values()))
                .containsExactlyInAnyOrder(
                        FraudPattern.ACCOUNT_TAKEOVER, FraudPattern.CARD_TESTING);
        int takeovers = 0;
        for (Map.Entry<String, List<Transaction>> e : bursts.entrySet()) {
            if (patterns.get(e.getKey()) != FraudPattern.ACCOUNT_TAKEOVER) {
                continue;
            }
            List<Transaction> burst = e.getValue();
            String user = burst.get(0).getUserId();
            long first =
                    burst.stream()
                            .mapToLong(t -> t.getEventTime().toEpochMilli())
                            .min()
                            .orElseThrow();
            long last =
                    burst.stream()
                            .mapToLong(t -> t.getEventTime().toEpochMilli())
                            .max()
                            .orElseThrow();
            assertThat(burst).allMatch(t -> t.getUserId().equals(user));
            assertThat(last - first).isLessThanOrEqualTo(Duration.ofMinutes(15).toMillis());
            assertThat(burst)
                    .allSatisfy(
                            t -> {
                                assertThat(ownDevices.getOrDefault(user, Set.of()))
                                        .doesNotContain(t.getDeviceId());
                                assertThat(ownCountries.getOrDefault(user, Set.of()))
                                        .doesNotContain(t.getCountry());
                                assertThat(t.getAmountMinor()).isGreaterThanOrEqualTo(5_000);
                            });
            if (last < CONFIG.end().minus(Duration.ofMinutes(15)).toEpochMilli()) {
                assertThat(burst).hasSizeBetween(6, 20); // not cut by the end of the span
            }
            takeovers++;
        }
        assertThat(takeovers).isGreaterThanOrEqualTo(10);
    }

    @Test
    void duplicatesShareIdAndPayloadAndArriveLater() {
        Map<String, SimulatedRecord> firstById = new HashMap<>();
        int copies = 0;
        for (SimulatedRecord r : records) {
            if (r.isMalformed()) {
                continue;
            }
            String id = r.transaction().getTransactionId();
            if (!r.retryCopy()) {
                firstById.put(id, r);
                continue;
            }
            copies++;
            SimulatedRecord first = firstById.get(id);
            assertThat(first).as("first copy of %s precedes the retry", id).isNotNull();
            assertThat(payload(r.transaction())).isEqualTo(payload(first.transaction()));
            assertThat(r.transaction()).isNotSameAs(first.transaction());
            assertThat(r.arrivalTime()).isAfter(first.arrivalTime());
            assertThat(Duration.between(first.arrivalTime(), r.arrivalTime()))
                    .isLessThanOrEqualTo(Duration.ofSeconds(10));
            assertThat(r.label()).isSameAs(first.label());
            assertThat(r.label().duplicate()).isTrue();
        }
        long flagged = labels.stream().filter(Label::duplicate).count();
        assertThat(copies).isEqualTo((int) flagged);
        assertThat(copies / (double) labels.size()).isBetween(0.015, 0.025);
    }

    private static String payload(Transaction tx) {
        return TransactionJson.toJsonLine(tx, Instant.EPOCH);
    }

    @Test
    void futureDatedRecordsExistAtTheRequestedRate() {
        List<SimulatedRecord> future =
                records.stream().filter(r -> r.label().futureDated()).toList();
        long legit = labels.stream().filter(l -> !l.fraud()).count();
        assertThat(future.size() / (double) legit).isBetween(0.007, 0.013);
        for (SimulatedRecord r : future) {
            Duration ahead = Duration.between(r.arrivalTime(), r.transaction().getEventTime());
            assertThat(ahead).isBetween(Duration.ofHours(1), Duration.ofHours(8));
            assertThat(r.label().hoursLate()).isFalse();
            assertThat(r.label().duplicate()).isFalse();
        }
    }

    @Test
    void hoursLateFlagMeansTenMinutesOrMore() {
        long late = 0;
        for (Label l : labels) {
            if (l.futureDated()) {
                continue;
            }
            Duration delay = Duration.between(l.eventTime(), l.arrivalTime());
            assertThat(l.hoursLate()).isEqualTo(delay.compareTo(Duration.ofMinutes(10)) >= 0);
            late += l.hoursLate() ? 1 : 0;
        }
        assertThat(late / (double) labels.size()).isBetween(0.0015, 0.0055);
    }

    @Test
    void malformedLinesAndOnlyThoseFailStrictReadingAndAreMarkedInLabels() throws Exception {
        Set<MalformedKind> kinds = EnumSet.noneOf(MalformedKind.class);
        int malformed = 0;
        for (SimulatedRecord r : records) {
            String line = r.jsonLine();
            assertThat(line).doesNotContain("\n");
            if (r.isMalformed()) {
                malformed++;
                kinds.add(r.label().malformedKind());
                assertThat(r.label().malformed()).isTrue();
                assertThat(r.label().fraud()).isFalse();
                assertThatThrownBy(() -> TransactionJson.parseValidLine(null, line, r.line()))
                        .isInstanceOf(ReplayFormatException.class)
                        .hasMessageStartingWith("line " + r.line() + ":");
            } else {
                assertThat(r.label().malformed()).isFalse();
                TransactionJson.parseValidLine(null, line, r.line()); // throws if not valid
            }
        }
        assertThat(kinds).containsExactlyInAnyOrder(MalformedKind.values());
        assertThat(malformed / (double) labels.size()).isBetween(0.015, 0.025);
    }

    @Test
    void dailyRhythmHasANightTroughAndAnAfternoonPeak() {
        int[] perHour = new int[24];
        for (Label l : labels) {
            if (!l.fraud() && !l.futureDated()) {
                perHour[(int) ((l.eventTime().toEpochMilli() / 3_600_000L) % 24)]++;
            }
        }
        // Most users are in UTC+1: local 03:00 is 02:00 UTC, local 15:00 is 14:00 UTC.
        assertThat(perHour[14]).isGreaterThan(4 * perHour[2]);
    }

    @Test
    void statsCountWhatTheLabelsSay() {
        SimulationStats stats = new SimulationStats();
        records.forEach(stats::accept);
        assertThat(stats.records()).isEqualTo(records.size());
        assertThat(stats.ids()).isEqualTo(labels.size());
        assertThat(stats.fraud()).isEqualTo(labels.stream().filter(Label::fraud).count());
        assertThat(stats.malformed()).isEqualTo(labels.stream().filter(Label::malformed).count());
        assertThat(stats.delayPercentileMillis(0.5)).isLessThan(1_000);
        assertThat(stats.summary(CONFIG.users()))
                .contains("p50", "p95", "p99", "p99.9", "max", "ACCOUNT_TAKEOVER");
    }

    @Test
    void simulatedLinesRoundTripExactlyThroughTheReplayFormat() throws Exception {
        SimulationConfig config =
                SimulationConfig.builder()
                        .users(100)
                        .start(Instant.parse("2026-11-28T10:00:00Z"))
                        .duration(Duration.ofHours(6))
                        .fraudShare(0.05)
                        .build();
        int checked = 0;
        for (SimulatedRecord r : TransactionSimulator.generateAll(config)) {
            String line = r.jsonLine();
            ReplayRecord read = TransactionJson.parseValidLine("sim", line, r.line());
            assertThat(TransactionJson.toJsonLine(read)).isEqualTo(line);
            assertThat(read.arrivalTime()).isEqualTo(r.arrivalTime());
            assertThat(read.transaction().getEventTime()).isEqualTo(r.transaction().getEventTime());
            checked++;
        }
        assertThat(checked).isGreaterThan(100);
    }
}
