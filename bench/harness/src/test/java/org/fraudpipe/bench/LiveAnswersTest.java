package org.fraudpipe.bench;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Instant;
import java.util.Map;
import java.util.Set;
import org.fraudpipe.schemas.avro.Decision;
import org.fraudpipe.schemas.avro.TransactionFeatures;
import org.fraudpipe.schemas.avro.TransactionScore;
import org.junit.jupiter.api.Test;

class LiveAnswersTest {

    static final long START = 1_790_000_000_000L;
    static final LiveTraffic TRAFFIC = new LiveTraffic(3, 1000, 10, START, 0, 6_000, 60_000, 0.1);

    /** The answer to event i, appended at START + i, scored {@code sink} ms later. */
    static TransactionScore answer(long i, long sink, long txCount, boolean complete) {
        var tx = TRAFFIC.event(i).transaction();
        TransactionFeatures f =
                TransactionFeatures.newBuilder()
                        .setTransactionId(tx.getTransactionId())
                        .setUserId(tx.getUserId())
                        .setEventTime(tx.getEventTime())
                        .setTrailingWindowMillis(60_000)
                        .setTxCount(txCount)
                        .setAmountSum(10)
                        .setAmountMax(10)
                        .setDistinctDevices(1)
                        .setDistinctMerchants(1)
                        .setDistinctCountries(1)
                        .setAmountMinor(10)
                        .setNewDevice(false)
                        .setNewMerchant(false)
                        .setNewCountry(false)
                        .setHistoryComplete(complete)
                        .build();
        return TransactionScore.newBuilder()
                .setTransactionId(tx.getTransactionId())
                .setUserId(tx.getUserId())
                .setEventTime(tx.getEventTime())
                .setFeatures(f)
                .setScore(0.1)
                .setDecision(Decision.ALLOW)
                .setModelName("m")
                .setModelVersion("1")
                .setRecordTimestamp(Instant.ofEpochMilli(START + i))
                .setScoredAt(Instant.ofEpochMilli(START + i + sink))
                .build();
    }

    @Test
    void measuredNotRetriedAnswersAreTimedToTheSinkAndToTheConsumer() {
        LiveAnswers.Transactions a = new LiveAnswers.Transactions(TRAFFIC, 100, 1100, 1);
        long retried = 0;
        for (long i = 0; i < 1200; i++) {
            a.accept(answer(i, 3, 1, true), START + i + 10);
            if (TRAFFIC.retried(i)) {
                a.accept(answer(i, 3, 1, true), START + i + 5000); // the retry's answer
                if (i >= 100 && i < 1100) {
                    retried++;
                }
            }
        }
        TransactionScore ping = answer(0, 1, 1, true);
        ping.setTransactionId("ping-0-1");
        ping.setUserId(LiveTraffic.PING_USER_PREFIX + "0");
        a.accept(ping, START);

        assertThat(retried).isPositive();
        assertThat(a.pings).isEqualTo(1);
        assertThat(a.measuredAnswers).isEqualTo(1000 - retried);
        assertThat(a.retriedAnswers).isEqualTo(2 * retried);
        assertThat(a.toSink.getLocalValue().count()).isEqualTo(1000 - retried);
        assertThat(a.toSink.getLocalValue().percentile(1.0)).isEqualTo(3);
        assertThat(a.toConsumer.getLocalValue().percentile(0.5)).isEqualTo(10);
        assertThat(a.sampled).hasSize(1200);
        // appended at START + 100 .. START + 1099: two epoch seconds, every answer 10 ms
        assertThat(a.perSecond).containsOnlyKeys(START / 1000, START / 1000 + 1);
        assertThat(a.perSecond.values().stream().mapToLong(v -> v[0]).sum())
                .isEqualTo(1000 - retried);
        assertThat(a.perSecond.values()).allSatisfy(v -> assertThat(v[1]).isEqualTo(10));
        assertThat(a.perSecond.values()).allSatisfy(v -> assertThat(v[2]).isZero());
        Map<String, Object> report = a.report(1000 - retried);
        assertThat(report)
                .containsEntry("answeredShare", 1.0)
                .containsKeys("appendToSink", "appendToConsumer", "historyIncomplete");
        assertThat((Map<String, Object>) report.get("appendToConsumer"))
                .containsKeys("p50Millis", "p99Millis", "p999Millis", "maxMillis", "count");
    }

    @Test
    @SuppressWarnings("unchecked")
    void theSecondsThatHeldAStallAreMarkedAndSetAgainstTheOthers() {
        LiveAnswers.Transactions a = new LiveAnswers.Transactions(TRAFFIC, 0, 3000, 1);
        long second = START / 1000;
        for (long i = 0; i < 3000; i++) {
            if (TRAFFIC.retried(i)) {
                continue;
            }
            // appended at START + i: the first second is slow (200 ms), the others 10 ms
            long latency = (START + i) / 1000 == second ? 200 : 10;
            a.accept(answer(i, latency, 1, true), START + i + latency);
        }
        Map<String, Object> report = a.report(3000, Map.of(second, "checkpoint"));
        Map<String, Object> cls = (Map<String, Object>) report.get("stallsAgainstOtherSeconds");
        assertThat(cls).containsEntry("stallSeconds", 1L);
        assertThat((Map<String, Object>) cls.get("stallAppendToConsumer"))
                .containsEntry("p99Millis", 200L);
        assertThat((Map<String, Object>) cls.get("otherAppendToConsumer"))
                .containsEntry("p99Millis", 10L);
        assertThat(cls.get("p99RatioToConsumer")).isEqualTo(20.0);
        java.util.List<java.util.List<Object>> rows =
                (java.util.List<java.util.List<Object>>)
                        ((Map<String, Object>) report.get("perAppendSecond")).get("rows");
        assertThat(rows.get(0)).endsWith(200L, 200L, "checkpoint");
        assertThat(rows.get(1)).endsWith(10L, 10L, "");
        // Without stalls named, no such section.
        assertThat(a.report(3000)).doesNotContainKey("stallsAgainstOtherSeconds");
    }

    @Test
    void onlyUsersOfTheSampleKeepTheirFeaturesAndTheFirstAnswerWins() {
        LiveAnswers.Transactions a = new LiveAnswers.Transactions(TRAFFIC, 0, 10, 5);
        for (long i = 0; i < 200; i++) {
            a.accept(answer(i, 1, 7, i % 2 == 0), START + i);
            a.accept(answer(i, 1, 99, true), START + i); // a second answer does not replace
        }
        assertThat(a.sampled)
                .isNotEmpty()
                .allSatisfy((i, f) -> assertThat(TRAFFIC.user(i) % 5).isZero())
                .allSatisfy((i, f) -> assertThat(f[0]).isEqualTo(7))
                .allSatisfy((i, f) -> assertThat(f[6]).isEqualTo(i % 2 == 0 ? 1 : 0));
        assertThat(a.historyIncomplete).isEqualTo(100);
    }

    @Test
    void aWindowIsTimedFromItsEndToItsFirstResultOnce() {
        LiveAnswers.Windows w =
                new LiveAnswers.Windows(
                        60_000, 180_000, Set.of(LiveAnswers.Windows.key("lu-1", 60_000)));
        w.accept("lu-0", 60_000, 120_000, 0, 127_000);
        w.accept("lu-0", 60_000, 120_000, 1, 200_000); // a correction: not timed
        w.accept("lu-1", 60_000, 120_000, 0, 190_000); // a window with a late event: left out
        w.accept("lu-2", 0, 59_999, 0, 61_000); // ended before the measured interval
        w.accept("~ping-0", 60_000, 120_000, 0, 121_000);
        w.accept("lu-3", 120_000, 180_000, 0, 195_000);

        assertThat(w.firstResults).isEqualTo(4);
        assertThat(w.laterRevisions).isEqualTo(1);
        assertThat(w.excludedResults).isEqualTo(1);
        assertThat(w.measured).isEqualTo(2);
        assertThat(w.endToConsumer.getLocalValue().percentile(0.5))
                .isBetween(7_000L, 7_000L + 7_000 / 64);
        assertThat(w.endToConsumer.getLocalValue().percentile(1.0)).isEqualTo(15_000);
        assertThat(w.report()).containsKeys("windowEndToConsumer", "timedResults");
    }
}
