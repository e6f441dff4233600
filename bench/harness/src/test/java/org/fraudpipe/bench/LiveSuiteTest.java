package org.fraudpipe.bench;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.fraudpipe.job.metrics.LatencyHistogram;
import org.junit.jupiter.api.Test;

/** The figures of a live run and their place in the results JSON, from synthetic inputs. */
class LiveSuiteTest {

    static final long T0 = 1_790_000_000_000L;

    /**
     * A run at 1000/s: measured from T0 + 10 s to T0 + 20 s; the system read 9,900 records in those
     * 10 s with 5 s of CPU; it read the last record 0.5 s after it was sent.
     */
    static Map<String, Object> figures(boolean complete, long lastRead) {
        return figures(complete, lastRead, 1000);
    }

    /** The same run's figures, judged against another intended rate (the lag in seconds). */
    static Map<String, Object> figures(boolean complete, long lastRead, long rate) {
        LatencyHistogram behind = new LatencyHistogram();
        behind.record(1);
        behind.record(4);
        LivePublisher.Result published =
                new LivePublisher.Result(
                        20_000,
                        100,
                        2,
                        20_100,
                        0,
                        null,
                        10_000,
                        T0 + 10_000,
                        T0 + 22_000,
                        T0 + 20_000,
                        behind.getLocalValue(),
                        List.of(
                                new long[] {T0 + 10_000, 10_000},
                                new long[] {T0 + 15_000, 15_050},
                                new long[] {T0 + 20_000, 20_100},
                                new long[] {T0 + 22_100, 20_102}));
        List<long[]> samples =
                List.of(
                        new long[] {T0 + 9_500, 9_000, 4_000_000_000L},
                        new long[] {T0 + 10_500, 10_000, 5_000_000_000L},
                        new long[] {T0 + 15_500, 14_000, 7_000_000_000L},
                        new long[] {T0 + 19_500, 19_900, 10_000_000_000L},
                        new long[] {T0 + 22_500, 20_102, 11_000_000_000L});
        Map<String, Object> run = new LinkedHashMap<>();
        run.put("complete", complete);
        run.put("lastRecordWallMillis", lastRead);
        run.put("jobTransactionLatencyMeasured", behind.getLocalValue().summary());
        LiveTraffic traffic = new LiveTraffic(1, 1000, 1000, T0, 0, 6_000, 60_000, 0);
        LiveAnswers.Transactions answers = new LiveAnswers.Transactions(traffic, 10_000, 20_000, 1);
        LiveAnswers.Windows windows = new LiveAnswers.Windows(T0, T0 + 20_000, Set.of());
        return LiveSuite.figures(
                "ours",
                rate,
                published,
                samples,
                run,
                new double[] {100.0, 102.4},
                answers,
                windows,
                10_000,
                T0 + 22_000);
    }

    @Test
    @SuppressWarnings("unchecked")
    void theFiguresOfARunAreCpuPerEventLatenciesThePublisherAndTheLag() {
        Map<String, Object> f = figures(true, T0 + 22_500);

        Map<String, Object> cpu = (Map<String, Object>) f.get("cpu");
        // samples at 10.5 s and 19.5 s: 9,900 events, 5 s of CPU in 9 s
        assertThat(cpu).containsEntry("events", 9_900L);
        assertThat((double) cpu.get("cpuMicrosPerEvent"))
                .isCloseTo(505.05, org.assertj.core.data.Offset.offset(0.01));
        assertThat((double) cpu.get("cpuCoresBusy"))
                .isCloseTo(5 / 9.0, org.assertj.core.data.Offset.offset(1e-9));
        assertThat((double) f.get("eventsPerCpuSecond"))
                .isCloseTo(1980.0, org.assertj.core.data.Offset.offset(1e-6));
        assertThat((double) cpu.get("brokerCoresBusy"))
                .isCloseTo(0.2, org.assertj.core.data.Offset.offset(1e-6));

        Map<String, Object> pub = (Map<String, Object>) f.get("publisher");
        assertThat(pub)
                .containsEntry("measuredEvents", 10_000L)
                .containsEntry("achievedRate", 1000.0);
        assertThat((Map<String, Object>) pub.get("behindSchedule")).containsEntry("maxMillis", 4L);

        Map<String, Object> lag = (Map<String, Object>) f.get("lag");
        // at 15.5 s the publisher had sent 15,050, the system read 14,000
        assertThat(lag).containsEntry("maxRecordsBehindDuringMeasured", 1_050L);
        assertThat(lag).containsEntry("recordsUnreadAtFirstSampleAfterLastSend", 0L);
        assertThat(lag).containsEntry("lastRecordReadAfterItsSendSeconds", 0.5);
        assertThat(f).containsEntry("keptUp", true);
        assertThat(f).containsKeys("transactions", "windows", "jobMetricMeasured", "run");
        assertThat(LiveSuite.target(f)).containsEntry("met", false); // no answers: not met
    }

    @Test
    void aSystemThatReadTheLastRecordLateOrNeverDidNotKeepUp() {
        assertThat(figures(true, T0 + 25_000)).containsEntry("keptUp", false);
        assertThat(figures(false, T0 + 22_100)).containsEntry("keptUp", false);
    }

    @Test
    @SuppressWarnings("unchecked")
    void aSystemThatFellBehindDuringTheIntervalDidNotKeepUpThoughItCaughtUpAtTheEnd() {
        // the same 1,050 records behind at 15.5 s: 1.05 s at 1000/s, 2.6 s at 400/s
        Map<String, Object> f = figures(true, T0 + 22_500, 400);
        assertThat((Map<String, Object>) f.get("lag"))
                .containsEntry("maxSecondsBehindDuringMeasured", 2.625);
        assertThat(f).containsEntry("keptUp", false);
    }

    @Test
    void theResultsJsonHasTheLiveSuiteBesideTheOthers() throws Exception {
        Map<String, Object> results = new LinkedHashMap<>();
        results.put("issue", 8);
        Map<String, Object> live = new LinkedHashMap<>();
        live.put("issues", List.of(16, 20));
        live.put("method", LiveSuite.method());
        Map<String, Object> perRate = new LinkedHashMap<>();
        perRate.put("runs", Map.of("ours", figures(true, T0 + 22_500)));
        live.put("rates", Map.of("1000", perRate));
        results.put("live", live);

        JsonNode json = new ObjectMapper().readTree(new ObjectMapper().writeValueAsString(results));
        JsonNode run = json.at("/live/rates/1000/runs/ours");
        for (String pointer :
                List.of(
                        "/eventsPerCpuSecond",
                        "/cpu/cpuMicrosPerEvent",
                        "/publisher/achievedRate",
                        "/transactions/appendToSink/p99Millis",
                        "/transactions/appendToConsumer/p999Millis",
                        "/jobMetricMeasured/p50Millis",
                        "/windows/windowEndToConsumer/p99Millis",
                        "/lag/maxRecordsBehindDuringMeasured",
                        "/keptUp")) {
            assertThat(run.at(pointer).isMissingNode()).as(pointer).isFalse();
        }
    }

    @Test
    void theStallSecondsAreEveryCheckpointOfBothJobsAndEachWindowCloseBurst() {
        long from = 1_796_000_000_000L - 1_796_000_000_000L % 60_000 + 20_000; // :20 of a minute
        long to = from + 60_000;
        Map<String, Object> run =
                Map.of(
                        "checkpoints",
                        List.of(List.of(1L, from + 1_500L, 2_100L, "COMPLETED")),
                        "decisionJob",
                        Map.of(
                                "checkpoints",
                                List.of(List.of(1L, from + 3_200L, 10L, "COMPLETED"))));
        Map<Long, String> stalls =
                LiveSuite.stallSeconds(
                        run,
                        from,
                        to,
                        java.time.Duration.ofMinutes(1),
                        java.time.Duration.ofSeconds(5));
        long s0 = from / 1000;
        // the window job's checkpoint from :21.5 to :23.6, the decision job's at :23.2
        assertThat(stalls).containsEntry(s0 + 1, "checkpoint").containsEntry(s0 + 2, "checkpoint");
        assertThat(stalls).containsEntry(s0 + 3, "checkpoint");
        assertThat(stalls).doesNotContainKey(s0 + 4);
        // the window ending on the next minute (:60) fires at :65; its burst is :65 to :68
        long fires = (from - 20_000 + 60_000 + 5_000) / 1000;
        assertThat(stalls).containsEntry(fires, "burst").containsEntry(fires + 3, "burst");
        assertThat(stalls).doesNotContainKey(fires + 4).doesNotContainKey(fires - 1);
        // no checkpoint history: nothing is known (the SQL peer)
        assertThat(
                        LiveSuite.stallSeconds(
                                Map.of(),
                                from,
                                to,
                                java.time.Duration.ofMinutes(1),
                                java.time.Duration.ofSeconds(5)))
                .isEmpty();
    }
}
