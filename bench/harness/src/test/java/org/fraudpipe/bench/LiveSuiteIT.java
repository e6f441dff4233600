package org.fraudpipe.bench;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The live suite end to end, small: {@code ./fraud bench --suites live} at 200 events/s for a few
 * seconds, the job and the Flink SQL peer each in a JVM of its own against the bench's own broker
 * and registry, windows of 5 s so that some close during the run. Checks that the report has every
 * figure for both systems and that every per-transaction difference between them has a cause. Not a
 * measurement: the figures of so short a run on a shared machine mean nothing.
 */
class LiveSuiteIT {

    @TempDir Path dir;

    @Test
    void aShortLiveRunReportsEveryFigureForBothSystems() throws Exception {
        Path out = dir.resolve("results.json");
        StringWriter err = new StringWriter();
        var cl = BenchCommand.commandLine();
        cl.setErr(new PrintWriter(err));
        int code =
                cl.execute(
                        "--suites", "live",
                        "--live-rates", "200",
                        "--live-systems", "ours,flink-sql",
                        "--live-window-size", "5s",
                        "--live-allowed-lateness", "5s",
                        "--live-warm-up", "5s",
                        "--live-duration", "15s",
                        "--live-user-gap", "2s",
                        "--live-late-share", "0.01",
                        "--live-retry-share", "0.02",
                        "--live-drain-timeout", "30s",
                        "--checkpoint-interval", "2s",
                        "--runner-heap", "768m",
                        "--broker-heap", "512m",
                        "--work-dir", dir.resolve("work").toString(),
                        "--out", out.toString());
        assertThat(code).as("exit code; stderr:%n%s", err).isZero();

        JsonNode live = new ObjectMapper().readTree(out.toFile()).path("live");
        // the report, for the test's output file (target/failsafe-reports/*-output.txt)
        System.out.println(live.toPrettyString());
        JsonNode rate = live.at("/rates/200");
        assertThat(rate.at("/input/events").asLong()).isEqualTo(200 * 20);
        for (String system : List.of("ours", "flink-sql")) {
            JsonNode run = rate.at("/runs/" + system);
            assertThat(run.isMissingNode()).as(system).isFalse();
            assertThat(run.at("/run/exitCode").asInt()).as(system).isZero();
            assertThat(run.at("/eventsPerCpuSecond").asDouble()).as(system).isPositive();
            assertThat(run.at("/cpu/cpuMicrosPerEvent").asDouble()).as(system).isPositive();
            assertThat(run.at("/publisher/achievedRate").asDouble())
                    .as("%s: the publisher kept 200/s", system)
                    .isBetween(180.0, 220.0);
            assertThat(run.at("/publisher/failed").asLong()).isZero();
            assertThat(run.at("/lag/readEveryRecord").asBoolean()).as(system).isTrue();
            assertThat(run.at("/keptUp").isBoolean()).as(system).isTrue();
            assertThat(run.at("/transactions/measuredTransactionsAnswered").asLong())
                    .as(system)
                    .isPositive();
            for (String latency : List.of("appendToSink", "appendToConsumer")) {
                JsonNode l = run.at("/transactions/" + latency);
                assertThat(l.path("count").asLong()).as("%s %s", system, latency).isPositive();
                for (String p : List.of("p50Millis", "p99Millis", "p999Millis", "maxMillis")) {
                    assertThat(l.path(p).asLong(-1))
                            .as("%s %s %s", system, latency, p)
                            .isNotNegative();
                }
            }
            assertThat(run.at("/windows/windowEndToConsumer/count").asLong())
                    .as("%s: windows closed and were timed", system)
                    .isPositive();
        }
        JsonNode ours = rate.at("/runs/ours");
        assertThat(ours.at("/jobMetricMeasured/count").asLong())
                .as("the job's own latency accumulator over the measured interval")
                .isPositive();
        assertThat(ours.at("/transactions/answeredShare").asDouble())
                .as("the job answers every measured transaction")
                .isEqualTo(1.0);
        // the peer answers when the watermark passes: seconds, not milliseconds
        assertThat(rate.at("/runs/flink-sql/transactions/appendToConsumer/p50Millis").asLong())
                .isGreaterThanOrEqualTo(5000);

        JsonNode eq = rate.at("/transactionEquality");
        assertThat(eq.path("compared").asLong()).isPositive();
        assertThat(eq.path("equal").asLong()).isPositive();
        assertThat(eq.at("/byCause/UNEXPLAINED").isMissingNode())
                .as("every difference explained: %s", eq)
                .isTrue();
        assertThat(live.path("summary")).hasSize(2);
    }
}
