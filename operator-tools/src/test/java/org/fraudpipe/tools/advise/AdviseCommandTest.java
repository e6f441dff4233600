package org.fraudpipe.tools.advise;

import static org.assertj.core.api.Assertions.assertThat;
import static org.fraudpipe.tools.testing.Fraud.fraud;

import com.fasterxml.jackson.databind.JsonNode;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;
import org.fraudpipe.job.testing.Cli;
import org.fraudpipe.job.testing.LatenessFixture;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code ./fraud advise} on the hand-made input of the design's lateness examples ({@link
 * LatenessFixture}: the three fates, a quarantined and a dead-lettered record), where every number
 * can be worked out by hand from the job's rules (window [12:00, 12:10) fires at watermark
 * 12:09:59.999, i.e. after t6, and with lateness L closes at 12:09:59.999 + L).
 */
class AdviseCommandTest {

    @TempDir Path tmp;

    private static Map<String, JsonNode> byPair(JsonNode advice) {
        Map<String, JsonNode> out = new HashMap<>();
        for (JsonNode p : advice.get("grid")) {
            out.put(p.get("outOfOrderness").asText() + "/" + p.get("allowedLateness").asText(), p);
        }
        return out;
    }

    private Cli.Run advise(Path out, String... more) throws Exception {
        Path tx = LatenessFixture.write(tmp);
        String[] base = {"advise", "--transactions", tx.toString(), "--out", out.toString()};
        String[] args = new String[base.length + more.length];
        System.arraycopy(base, 0, args, 0, base.length);
        System.arraycopy(more, 0, args, base.length, more.length);
        return fraud(args);
    }

    @Test
    void theThreeFatesOfTheDesignAreCountedAsTheJobDecidesThem() throws Exception {
        Path out = tmp.resolve("advice");
        Cli.Run r = advise(out, "--bounds", "5s", "--lateness", "0s,2m,3m");
        assertThat(r.exitCode()).as(r.err()).isZero();
        JsonNode advice = AdviceFiles.read(out.resolve(AdviceFiles.JSON));
        JsonNode input = advice.get("input");
        assertThat(input.get("records").asLong()).isEqualTo(9); // t5 is not a transaction
        assertThat(input.get("deadLetters").asLong()).isEqualTo(1);
        assertThat(input.get("quarantined").asLong()).as("t4, dated 56 min ahead").isEqualTo(1);
        assertThat(input.get("windowable").asLong()).isEqualTo(8);
        Map<String, JsonNode> grid = byPair(advice);
        assertThat(grid).containsOnlyKeys("5s/0s", "5s/2m", "5s/3m");

        // The job's defaults, the fixture's own story: t7 re-fires bob, t9 and t10 are too late.
        JsonNode defaults = grid.get("5s/2m");
        assertThat(defaults.get("records").asLong()).isEqualTo(8);
        assertThat(defaults.get("onTime").asLong()).as("t1 t2 t3 t6 t8").isEqualTo(5);
        assertThat(defaults.get("lateWithinGrace").asLong()).as("t7").isEqualTo(1);
        assertThat(defaults.get("tooLate").asLong()).as("t9 t10").isEqualTo(2);
        assertThat(defaults.get("tooLateShare").asDouble()).isEqualTo(0.25);
        assertThat(defaults.get("refires").asLong()).isEqualTo(1);
        assertThat(defaults.get("windowsRefired").asLong()).isEqualTo(1);
        assertThat(defaults.get("windowsFirstFiredLate").asLong()).isZero();
        assertThat(defaults.get("windows").asLong()).as("alice bob carol dave erin").isEqualTo(5);
        assertThat(defaults.get("panes").asLong()).isEqualTo(6);
        assertThat(defaults.get("windowsFiredOnTime").asLong()).as("[12:00, 12:10)").isEqualTo(3);
        assertThat(defaults.get("windowsOpenAtEnd").asLong()).as("dave, erin @12:10").isEqualTo(2);
        // t6 (arrived 12:10:10) moved the watermark to 12:10:04.999: 10 s after the window's end.
        JsonNode first = defaults.get("firstResultDelay");
        assertThat(first.get("records").asLong()).isEqualTo(3);
        assertThat(first.get("p50Millis").asLong()).isEqualTo(10_000);
        assertThat(first.get("p99Millis").asLong()).isEqualTo(10_000);
        // State: after t8, five windows (bob's with two transactions), until t8's watermark
        // (12:12:24.999) drops [12:00, 12:10) at its cleanup 12:11:59.999.
        assertThat(defaults.get("peakLiveWindows").asLong()).isEqualTo(5);
        assertThat(defaults.get("maxLiveWindowsOfOneUser").asLong()).isEqualTo(1);
        assertThat(defaults.get("liveWindowsRule").asLong()).isEqualTo(2);
        assertThat(defaults.get("peakStateBytesEstimate").asLong()).isEqualTo(5 * 40 + 6 * 90);
        assertThat(defaults.get("perTransactionScoring").isNull()).isTrue();

        // No lateness: t7 is too late as well, and nothing re-fires.
        JsonNode none = grid.get("5s/0s");
        assertThat(none.get("tooLate").asLong()).isEqualTo(3);
        assertThat(none.get("refires").asLong()).isZero();
        assertThat(none.get("lateWithinGrace").asLong()).isZero();

        // 3m: [12:00, 12:10) closes at 12:12:59.999, after t10 (watermark 12:12:24.999): t9
        // re-fires alice, and t10 opens frank's window, whose first pane is LATE (revision 0).
        JsonNode longer = grid.get("5s/3m");
        assertThat(longer.get("tooLate").asLong()).isZero();
        assertThat(longer.get("refires").asLong()).isEqualTo(2);
        assertThat(longer.get("windowsRefired").asLong()).isEqualTo(2);
        assertThat(longer.get("windowsFirstFiredLate").asLong()).isEqualTo(1);
        assertThat(longer.get("windows").asLong()).isEqualTo(6);
        assertThat(longer.get("meetsTargets").asBoolean()).isTrue();

        assertThat(advice.get("status").asText()).isEqualTo(Advice.TARGETS_MET);
        JsonNode rec = advice.get("recommendation");
        assertThat(rec.get("outOfOrderness").asText()).isEqualTo("5s");
        assertThat(rec.get("allowedLateness").asText()).isEqualTo("3m");
        assertThat(rec.get("command").asText())
                .isEqualTo("./fraud job --out-of-orderness 5s --allowed-lateness 3m");
        assertThat(r.out())
                .startsWith("advise TARGETS_MET: recommended --out-of-orderness 5s")
                .contains("  run         ./fraud job --out-of-orderness 5s --allowed-lateness 3m");
        assertThat(out.resolve(AdviceFiles.HTML)).isRegularFile();
    }

    @Test
    void theDelayDistributionIsArrivalMinusEventTimeWithFutureDatedNegative() throws Exception {
        Path out = tmp.resolve("advice");
        assertThat(advise(out, "--bounds", "5s", "--lateness", "2m").exitCode()).isIn(0, 1);
        JsonNode d = AdviceFiles.read(out.resolve(AdviceFiles.JSON)).get("delays").get("overall");
        // 9 transactions: t1 t2 t3 t6 arrived at their event time, t8 1 s, t7 2m30s, t9 3m40s,
        // t10 7m50s late; t4 56 min early.
        assertThat(d.get("records").asLong()).isEqualTo(9);
        assertThat(d.get("p50Millis").asLong()).isZero();
        assertThat(d.get("maxMillis").asLong()).isEqualTo(470_000);
        assertThat(d.get("negative").asLong()).isEqualTo(1);
        assertThat(d.get("p90Millis").asLong()).isEqualTo(470_000);
        JsonNode partitions = AdviceFiles.read(out.resolve(AdviceFiles.JSON)).get("delays");
        assertThat(partitions.get("partitions")).hasSize(1);
        assertThat(partitions.get("partitions").get(0).get("partition").asText())
                .isEqualTo("tx.jsonl");
    }

    @Test
    void rerunsWriteTheSameBytes() throws Exception {
        Path a = tmp.resolve("a");
        Path b = tmp.resolve("b");
        assertThat(advise(a).exitCode()).isIn(0, 1);
        assertThat(advise(b).exitCode()).isIn(0, 1);
        for (String f : new String[] {AdviceFiles.JSON, AdviceFiles.HTML}) {
            assertThat(Files.readString(b.resolve(f))).isEqualTo(Files.readString(a.resolve(f)));
        }
        String html = Files.readString(a.resolve(AdviceFiles.HTML));
        assertThat(html).contains("<svg").doesNotContain("<script").doesNotContain("http");
    }

    @Test
    void noPairMeetingTheTargetsIsExitOneWithWhatToRelax() throws Exception {
        Path out = tmp.resolve("advice");
        Cli.Run r = advise(out, "--bounds", "5s", "--lateness", "0s,2m", "--max-too-late", "10%");
        assertThat(r.exitCode()).as(r.err()).isEqualTo(1);
        JsonNode advice = AdviceFiles.read(out.resolve(AdviceFiles.JSON));
        assertThat(advice.get("status").asText()).isEqualTo(Advice.NO_PAIR_MEETS_TARGETS);
        JsonNode rec = advice.get("recommendation");
        assertThat(rec.get("command").isNull()).isTrue();
        // Nearest: 5s/2m with 25 % too late (2 of 8), 15 points over 10 %.
        assertThat(rec.get("relax").get(0).asText())
                .startsWith(
                        "relax --max-too-late to 25.0 %: the nearest pair,"
                                + " --out-of-orderness 5s --allowed-lateness 2m")
                .contains("15.0 percentage points over the target");
        assertThat(r.out()).startsWith("advise NO_PAIR_MEETS_TARGETS: no pair meets the targets");
    }

    @Test
    void aScoreAtArrivalMissesRecordsOfItsTrailingWindowThatArriveAfterIt() throws Exception {
        // u1: x at 12:05 arrives first; y (12:04, inside (11:55, 12:05]) arrives after it;
        // z (11:55 exactly: outside) after both. u2 arrives in event-time order.
        String lines =
                line("x", "u1", "12:05:00", "12:05:00")
                        + line("y", "u1", "12:04:00", "12:06:00")
                        + line("z", "u1", "11:55:00", "12:07:00")
                        + line("y", "u1", "12:04:00", "12:08:00") // a retry: no new transaction
                        + line("a", "u2", "12:01:00", "12:01:00")
                        + line("b", "u2", "12:02:00", "12:02:00");
        Path tx = Files.writeString(tmp.resolve("t.jsonl"), lines);
        Path out = tmp.resolve("advice");
        Cli.Run r =
                fraud(
                        "advise",
                        "--transactions",
                        tx.toString(),
                        "--bounds",
                        "1s",
                        "--lateness",
                        "1h",
                        "--out",
                        out.toString());
        assertThat(r.exitCode()).as(r.err()).isIn(0, 1);
        JsonNode t = AdviceFiles.read(out.resolve(AdviceFiles.JSON)).get("perTransaction");
        assertThat(t.get("trailingWindow").asText()).isEqualTo("10m");
        assertThat(t.get("transactions").asLong()).isEqualTo(5);
        // x missed y (12:04 is in (11:55, 12:05]) but not z (11:55 is not); y missed z (11:55
        // is in (11:54, 12:04]); z, a and b missed nothing.
        assertThat(t.get("scoredBeforeATrailingRecordArrived").asLong()).isEqualTo(2);
    }

    private static String line(String id, String user, String event, String arrival) {
        return "{\"transactionId\":\""
                + id
                + "\",\"userId\":\""
                + user
                + "\",\"amountMinor\":100,\"currency\":\"EUR\",\"merchantId\":\"m\","
                + "\"deviceId\":\"d\",\"country\":\"DE\",\"eventTime\":\"2026-11-28T"
                + event
                + "Z\",\"arrivalTime\":\"2026-11-28T"
                + arrival
                + "Z\"}\n";
    }

    @Test
    void usageErrorsAreOneLineAndExitTwo() {
        Cli.Run r = fraud("advise");
        assertThat(r.exitCode()).isEqualTo(2);
        assertThat(r.err())
                .startsWith("advise: missing --out DIR and --transactions FILE or --archive ROOT");
        Cli.Run both =
                fraud(
                        "advise",
                        "--transactions",
                        "x",
                        "--archive",
                        "a",
                        "--date",
                        "2026-11-28",
                        "--out",
                        "o");
        assertThat(both.exitCode()).isEqualTo(2);
        assertThat(both.err()).contains("give either --transactions or --archive, not both");
        Cli.Run share = fraud("advise", "--transactions", "x", "--out", "o", "--max-too-late", "5");
        assertThat(share.exitCode()).isEqualTo(2);
        assertThat(share.err()).contains("'5' is not a share between 0 and 1");
        Cli.Run missing =
                fraud("advise", "--transactions", tmp.resolve("no").toString(), "--out", "o");
        assertThat(missing.exitCode()).isEqualTo(2);
        assertThat(missing.err()).contains("does not exist or is not a file");
        Cli.Run idle = fraud("advise", "--transactions", "x", "--out", "o", "--idleness", "1m");
        assertThat(idle.err()).contains("--idleness applies to --archive only");
    }
}
