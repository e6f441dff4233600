package org.fraudpipe.parity;

import static org.assertj.core.api.Assertions.assertThat;
import static org.fraudpipe.parity.ParityFixtures.tx;

import com.fasterxml.jackson.databind.JsonNode;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.fraudpipe.job.archive.ArchivePolicy;
import org.fraudpipe.job.config.JobConfig;
import org.fraudpipe.job.replay.AvroJson;
import org.fraudpipe.job.replay.Replay;
import org.fraudpipe.job.replay.ReplayConfig;
import org.fraudpipe.parity.cli.ParityCommand;
import org.fraudpipe.parity.report.ReportFiles;
import org.fraudpipe.parity.report.ReportJson;
import org.fraudpipe.parity.transaction.TransactionCause;
import org.fraudpipe.schemas.avro.FeatureRecord;
import org.fraudpipe.schemas.avro.LateReason;
import org.fraudpipe.schemas.avro.LateRecord;
import org.fraudpipe.schemas.avro.Transaction;
import org.fraudpipe.schemas.avro.TransactionScore;
import org.fraudpipe.schemas.json.TransactionJson;
import org.fraudpipe.sim.LabelJson;
import org.fraudpipe.sim.SimulatedRecord;
import org.fraudpipe.sim.SimulationConfig;
import org.fraudpipe.sim.TransactionSimulator;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

/**
 * The parity check end to end against the real streaming topology: a simulation is replayed ({@code
 * ./fraud replay}, the job's own topology, deterministic), then checked ({@code ./fraud parity},
 * Flink BATCH on a MiniCluster) against its own transactions, with causes injected into copies of
 * the files. Each scenario asserts the cause the check must find.
 */
class ParityReplayIT {

    @TempDir static Path shared;

    /** A busy simulation with every kind of trouble: too late, future-dated, duplicates, junk. */
    private static Path messy;

    private static Path messyOut;

    @BeforeAll
    static void replayAMessySimulation() throws Exception {
        messy =
                simulate(
                        "messy.jsonl",
                        SimulationConfig.builder()
                                .users(30)
                                .start(Instant.parse("2026-11-28T12:00:00Z"))
                                .duration(Duration.ofHours(2))
                                .seed(11)
                                .txPerUserDay(600)
                                .duplicateRate(0.02)
                                .futureRate(0.01)
                                .hoursLateShare(0.02)
                                .malformedRate(0.01)
                                .build());
        messyOut = replay(messy, "messy-out", "1m", "1m");
    }

    /** Simulates into {@code name}, with the labels next to it ({@code <name>.labels.jsonl}). */
    static Path simulate(String name, SimulationConfig config) throws Exception {
        StringBuilder text = new StringBuilder();
        StringBuilder labels = new StringBuilder();
        for (SimulatedRecord r : TransactionSimulator.generateAll(config)) {
            text.append(r.jsonLine()).append('\n');
            if (!r.retryCopy()) {
                labels.append(LabelJson.toJsonLine(r.label())).append('\n');
            }
        }
        Path file = shared.resolve(name);
        Files.writeString(file, text, StandardCharsets.UTF_8);
        Files.writeString(labelsOf(file), labels, StandardCharsets.UTF_8);
        return file;
    }

    static Path labelsOf(Path transactions) {
        return transactions.resolveSibling(transactions.getFileName() + ".labels.jsonl");
    }

    static Path replay(Path input, String outName, String windowSize, String lateness)
            throws Exception {
        return replay(input, outName, windowSize, lateness, null);
    }

    /**
     * Replays {@code input}; with {@code archive} not null, also writes the job's archive there.
     */
    static Path replay(Path input, String outName, String windowSize, String lateness, Path archive)
            throws Exception {
        Map<String, String> options = new LinkedHashMap<>();
        options.put("window-size", windowSize);
        options.put("allowed-lateness", lateness);
        options.put("out-of-orderness", "0s");
        options.put("parallelism", "2");
        options.put("state-backend", "hashmap");
        Path out = shared.resolve(outName);
        ReplayConfig config = ReplayConfig.of(input, out, JobConfig.of(options));
        if (archive != null) {
            config =
                    config.withArchive(
                            org.apache.flink.core.fs.Path.fromLocalFile(archive.toFile()));
        }
        Replay.run(config);
        return out;
    }

    /** What one run of {@code ./fraud parity} did. */
    record Outcome(int exitCode, String stdout, String stderr, JsonNode report, Path dir) {
        long byCause(Cause cause) {
            return report.get("byCause").get(cause.name()).asLong();
        }

        /** The per-transaction section. */
        JsonNode tx() {
            return report.get("transactions");
        }

        long txByCause(TransactionCause cause) {
            return tx().get("byCause").get(cause.name()).asLong();
        }

        List<JsonNode> txExamples(TransactionCause cause) {
            List<JsonNode> out = new ArrayList<>();
            JsonNode list = tx().get("examples").get(cause.name());
            if (list != null) {
                list.forEach(out::add);
            }
            return out;
        }

        List<String> exampleUsers(Cause cause) {
            List<String> users = new ArrayList<>();
            JsonNode list = report.get("examples").get(cause.name());
            if (list != null) {
                list.forEach(
                        f ->
                                users.add(
                                        f.get("userId").asText()
                                                + "@"
                                                + f.get("windowStart").asText()));
            }
            return users;
        }
    }

    static Outcome parity(Path reportDir, String... args) throws Exception {
        List<String> all = new ArrayList<>(List.of(args));
        all.addAll(List.of("--report", reportDir.toString(), "--parallelism", "2"));
        StringWriter out = new StringWriter();
        StringWriter err = new StringWriter();
        CommandLine cl = ParityCommand.commandLine();
        cl.setOut(new PrintWriter(out));
        cl.setErr(new PrintWriter(err));
        int code = cl.execute(all.toArray(String[]::new));
        Path json = reportDir.resolve(ReportFiles.JSON);
        JsonNode report = Files.exists(json) ? ReportJson.read(Files.readString(json)) : null;
        return new Outcome(code, out.toString(), err.toString(), report, reportDir);
    }

    /**
     * The replay's files as parity inputs. The simulations here are far messier than production
     * traffic (6 % of the messy replay's windows differ from batch, all explained): the explained
     * share and the flipped transaction decisions (a few among a few hundred transactions) are not
     * limited, so that the scenarios test the explanations; the default limits have their own tests
     * ({@code ReportBuilderTest}).
     */
    static String[] replayInputs(Path transactions, Path out, String windowSize) {
        return new String[] {
            "--transactions", transactions.toString(),
            "--served", out.resolve("features.jsonl").toString(),
            "--scores", out.resolve("scores.jsonl").toString(),
            "--late", out.resolve("late.jsonl").toString(),
            "--dead-letters", out.resolve("dead-letters.jsonl").toString(),
            "--transaction-scores", out.resolve("transaction-scores.jsonl").toString(),
            "--window-size", windowSize,
            "--max-mismatch-rate", "1",
            "--max-transaction-flipped-rate", "1"
        };
    }

    @Test
    void aCleanReplayHasOnlyExplainedDifferences() throws Exception {
        Outcome o = parity(shared.resolve("r-clean"), replayInputs(messy, messyOut, "1m"));

        assertThat(o.exitCode()).as(o.stderr() + o.stdout()).isZero();
        assertThat(o.stdout()).startsWith("parity PASS all windows: ").contains("report.html");
        assertThat(o.report().get("windows").get("alarms").asLong()).isZero();
        assertThat(o.byCause(Cause.MATCH)).isPositive();
        assertThat(o.byCause(Cause.LATE_DROPPED)).isPositive();
        assertThat(o.byCause(Cause.QUARANTINED)).isPositive();
        // Same model, same features: a matching window's served score is its ideal score.
        JsonNode skew = o.report().get("scoreSkew");
        assertThat(skew.get("compared").asLong()).isPositive();
        assertThat(skew.get("otherModelVersion").asLong()).isZero();
        assertThat(Files.readString(o.dir().resolve(ReportFiles.HTML))).contains("PASS");
        // Scores at arrival on the same messy traffic: every difference explained, the state
        // bound included (1m lateness, records hours late).
        assertThat(o.tx().get("checked").asBoolean()).isTrue();
        assertThat(o.tx().get("transactions").get("alarms").asLong()).isZero();
        assertThat(o.txByCause(TransactionCause.MATCH)).isPositive();
        assertThat(o.txByCause(TransactionCause.ARRIVED_LATER)).isPositive();
        assertThat(o.txByCause(TransactionCause.EVICTED)).isPositive();
        assertThat(o.txByCause(TransactionCause.QUARANTINED)).isPositive();
        JsonNode records = o.tx().get("records");
        assertThat(records.get("answers").asLong()).isEqualTo(records.get("arrivals").asLong());
        assertThat(records.get("retries").asLong()).isPositive();
        assertThat(records.get("historyIncomplete").asLong()).isPositive();
        JsonNode txSkew = o.tx().get("scoreSkew");
        assertThat(txSkew.get("compared").asLong())
                .isEqualTo(o.tx().get("transactions").get("judged").asLong());
        assertThat(o.stdout()).contains("; transactions: ").contains(" judged, ");
    }

    @Test
    void theArchiveGivesTheSameVerdictsAsTheReplayFiles() throws Exception {
        Path archive = shared.resolve("messy-archive");
        replay(messy, "messy-archived-out", "1m", "1m", archive);
        Outcome fromArchive =
                parity(
                        shared.resolve("r-archive"),
                        "--archive",
                        archive.toString(),
                        "--date",
                        "2026-11-28",
                        "--window-size",
                        "1m",
                        "--max-mismatch-rate",
                        "1");
        Outcome fromFiles = parity(shared.resolve("r-files"), replayInputs(messy, messyOut, "1m"));

        assertThat(fromArchive.exitCode()).as(fromArchive.stderr()).isZero();
        for (String section :
                List.of(
                        "windows",
                        "byCause",
                        "records",
                        "byHour",
                        "lateness",
                        "scoreSkew",
                        "examples",
                        "transactions")) {
            assertThat(fromArchive.report().get(section))
                    .as(section)
                    .isEqualTo(fromFiles.report().get(section));
        }
        assertThat(fromArchive.stdout()).startsWith("parity PASS 2026-11-28: ");

        Outcome otherDay =
                parity(
                        shared.resolve("r-archive-missing-day"),
                        "--archive",
                        archive.toString(),
                        "--from",
                        "2026-11-28",
                        "--to",
                        "2026-11-29",
                        "--window-size",
                        "1m");
        assertThat(otherDay.exitCode()).isEqualTo(ParityCommand.EXIT_BAD_INPUT);
        assertThat(otherDay.stderr())
                .contains("missing archive partition")
                .contains("date=2026-11-29");
    }

    @Test
    void onCompleteOnTimeDataStreamingAndBatchAgreeExactly() throws Exception {
        Path onTime =
                simulate(
                        "on-time.jsonl",
                        SimulationConfig.builder()
                                .users(20)
                                .start(Instant.parse("2026-11-28T12:00:00Z"))
                                .duration(Duration.ofHours(1))
                                .seed(5)
                                .txPerUserDay(600)
                                .duplicateRate(0.02)
                                .futureRate(0)
                                .hoursLateShare(0)
                                .malformedRate(0)
                                .build());
        Path out = replay(onTime, "on-time-out", "1m", "1h");
        Outcome o = parity(shared.resolve("r-on-time"), replayInputs(onTime, out, "1m"));

        assertThat(o.exitCode()).as(o.stderr()).isZero();
        JsonNode windows = o.report().get("windows");
        assertThat(windows.get("judged").asLong()).isPositive();
        assertThat(windows.get("matched").asLong()).isEqualTo(windows.get("judged").asLong());
        assertThat(windows.get("mismatchRate").asDouble()).isZero();
        JsonNode skew = o.report().get("scoreSkew");
        assertThat(skew.get("compared").asLong()).isEqualTo(windows.get("judged").asLong());
        assertThat(skew.get("maxAbsDelta").asDouble()).isZero();
    }

    @Test
    void aRecordLostBetweenTheStreamAndTheArchiveIsUnexplained() throws Exception {
        // The archive holds a transaction the stream never counted: appended after the replay.
        List<String> lines = Files.readAllLines(messy);
        Transaction existing = firstValid(lines);
        Transaction lost =
                Transaction.newBuilder(existing)
                        .setTransactionId("lost-in-stream")
                        .setAmountMinor(4_242)
                        .build();
        Path withLost = shared.resolve("with-lost.jsonl");
        List<String> copy = new ArrayList<>(lines);
        copy.add(TransactionJson.toJsonLine(lost, existing.getEventTime().plusSeconds(1)));
        Files.write(withLost, copy);

        Outcome o = parity(shared.resolve("r-lost"), replayInputs(withLost, messyOut, "1m"));

        assertThat(o.exitCode()).isEqualTo(ParityCommand.EXIT_SKEW);
        assertThat(o.stdout()).startsWith("parity FAIL");
        assertThat(o.report().get("windows").get("alarms").asLong()).isEqualTo(1);
        assertThat(o.byCause(Cause.UNEXPLAINED)).isEqualTo(1);
        assertThat(o.exampleUsers(Cause.UNEXPLAINED))
                .singleElement()
                .asString()
                .startsWith(existing.getUserId() + "@");
        assertThat(o.report().get("violations").get(0).asText()).contains("1 unexplained");
    }

    @Test
    void aTamperedServedValueIsUnexplained() throws Exception {
        List<String> served = Files.readAllLines(messyOut.resolve("features.jsonl"));
        // The last line is a user's last window's last revision (sorted by user, window, revision).
        FeatureRecord last =
                AvroJson.fromJsonLine(served.get(served.size() - 1), FeatureRecord.class);
        last.setAmountSum(last.getAmountSum() + 1);
        served.set(served.size() - 1, AvroJson.toJsonLine(last));
        Path tamperedOut = shared.resolve("tampered-out");
        Files.createDirectories(tamperedOut);
        for (String f :
                List.of(
                        "scores.jsonl",
                        "late.jsonl",
                        "dead-letters.jsonl",
                        "transaction-scores.jsonl",
                        "policy.json")) {
            Files.copy(messyOut.resolve(f), tamperedOut.resolve(f));
        }
        Files.write(tamperedOut.resolve("features.jsonl"), served);

        Outcome o = parity(shared.resolve("r-tampered"), replayInputs(messy, tamperedOut, "1m"));

        assertThat(o.exitCode()).isEqualTo(ParityCommand.EXIT_SKEW);
        assertThat(o.byCause(Cause.UNEXPLAINED)).isEqualTo(1);
        JsonNode worst = o.report().get("worstUnexplained").get(0);
        assertThat(worst.get("userId").asText()).isEqualTo(last.getUserId());
        assertThat(worst.get("differingFeatures").toString()).isEqualTo("[\"amountSum\"]");
    }

    @Test
    void missingLateAndDeadLetterStreamsLeaveTheirWindowsUnexplained() throws Exception {
        Outcome o =
                parity(
                        shared.resolve("r-no-late"),
                        "--transactions",
                        messy.toString(),
                        "--served",
                        messyOut.resolve("features.jsonl").toString(),
                        "--window-size",
                        "1m",
                        "--no-score-skew");
        assertThat(o.exitCode()).isEqualTo(ParityCommand.EXIT_SKEW);
        assertThat(o.byCause(Cause.LATE_DROPPED)).isZero();
        assertThat(o.report().get("windows").get("alarms").asLong()).isPositive();
    }

    @Test
    void conflictingDuplicatesAreExplainedAsDuplicates() throws Exception {
        Instant w = Instant.parse("2026-11-28T12:00:00Z");
        Transaction first = tx("t1", "dup-user", w.plusSeconds(50), 9_000, "dev-9");
        Transaction conflicting = tx("t1", "dup-user", w.plusSeconds(10), 1_000, "dev-1");
        Transaction other = tx("t2", "dup-user", w.plusSeconds(20), 500, "dev-1");
        Path file = shared.resolve("dups.jsonl");
        Files.write(
                file,
                List.of(
                        TransactionJson.toJsonLine(other, w.plusSeconds(21)),
                        TransactionJson.toJsonLine(first, w.plusSeconds(51)),
                        TransactionJson.toJsonLine(first, w.plusSeconds(52)), // a plain retry
                        TransactionJson.toJsonLine(conflicting, w.plusSeconds(53)),
                        TransactionJson.toJsonLine(
                                tx("t3", "dup-user", w.plusSeconds(3_600), 1, "dev-1"),
                                w.plusSeconds(3_601))));
        Path out = replay(file, "dups-out", "10m", "2m");

        Outcome o = parity(shared.resolve("r-dups"), replayInputs(file, out, "10m"));

        assertThat(o.exitCode()).as(o.stderr()).isZero();
        assertThat(o.byCause(Cause.DUPLICATE)).isEqualTo(1);
        assertThat(o.byCause(Cause.MATCH)).isEqualTo(1);
    }

    @Test
    void consecutiveDaysJudgeEveryWindowOnceAcrossMidnight() throws Exception {
        // 7-minute windows do not divide the day: one window spans midnight.
        Instant midnight = Instant.parse("2026-11-29T00:00:00Z");
        List<String> lines = new ArrayList<>();
        int n = 0;
        for (Instant t = midnight.minusSeconds(1_200);
                t.isBefore(midnight.plusSeconds(1_200));
                t = t.plusSeconds(97)) {
            lines.add(
                    TransactionJson.toJsonLine(
                            tx("m" + n++, "night-owl", t, 100 + n, "d" + (n % 3)),
                            t.plusMillis(500)));
        }
        Transaction lastMilli = tx("edge-a", "night-owl", midnight.minusMillis(1), 7, "d0");
        Transaction firstMilli = tx("edge-b", "night-owl", midnight, 8, "d1");
        lines.add(TransactionJson.toJsonLine(lastMilli, midnight.plusSeconds(1_300)));
        lines.add(TransactionJson.toJsonLine(firstMilli, midnight.plusSeconds(1_300)));
        Path file = shared.resolve("midnight.jsonl");
        Files.write(file, lines);
        Path out = replay(file, "midnight-out", "7m", "1h");

        Outcome all = parity(shared.resolve("r-all"), replayInputs(file, out, "7m"));
        List<String> day1 = new ArrayList<>(List.of(replayInputs(file, out, "7m")));
        day1.addAll(List.of("--date", "2026-11-28"));
        List<String> day2 = new ArrayList<>(List.of(replayInputs(file, out, "7m")));
        day2.addAll(List.of("--date", "2026-11-29"));
        Outcome first = parity(shared.resolve("r-day1"), day1.toArray(String[]::new));
        Outcome second = parity(shared.resolve("r-day2"), day2.toArray(String[]::new));

        for (Outcome o : List.of(all, first, second)) {
            assertThat(o.exitCode()).as(o.stderr()).isZero();
            assertThat(o.report().get("windows").get("matched").asLong())
                    .isEqualTo(o.report().get("windows").get("judged").asLong());
        }
        long judgedAll = all.report().get("windows").get("judged").asLong();
        assertThat(
                        first.report().get("windows").get("judged").asLong()
                                + second.report().get("windows").get("judged").asLong())
                .isEqualTo(judgedAll);
        assertThat(first.stdout()).contains("2026-11-28");
        // Scores at arrival: each transaction judged by the day of its event time, with the
        // trailing window reaching back into the previous day.
        for (Outcome o : List.of(all, first, second)) {
            assertThat(o.tx().get("transactions").get("alarms").asLong()).isZero();
        }
        for (TransactionCause c : TransactionCause.values()) {
            assertThat(first.txByCause(c) + second.txByCause(c))
                    .as(c.name())
                    .isEqualTo(all.txByCause(c));
        }
        assertThat(all.tx().get("transactions").get("judged").asLong()).isEqualTo(lines.size());
        assertThat(all.txByCause(TransactionCause.ARRIVED_LATER)).isPositive();
    }

    @Test
    void aRerunWritesTheSameReportBytes() throws Exception {
        Path dir = shared.resolve("r-rerun");
        parity(dir, replayInputs(messy, messyOut, "1m"));
        byte[] json = Files.readAllBytes(dir.resolve(ReportFiles.JSON));
        byte[] html = Files.readAllBytes(dir.resolve(ReportFiles.HTML));
        Outcome again = parity(dir, replayInputs(messy, messyOut, "1m"));
        assertThat(again.exitCode()).isZero();
        assertThat(again.tx().get("checked").asBoolean()).isTrue();
        assertThat(Files.readAllBytes(dir.resolve(ReportFiles.JSON))).isEqualTo(json);
        assertThat(Files.readAllBytes(dir.resolve(ReportFiles.HTML))).isEqualTo(html);
        try (var files = Files.list(dir)) {
            assertThat(files.map(p -> p.getFileName().toString()))
                    .containsExactlyInAnyOrder(ReportFiles.JSON, ReportFiles.HTML);
        }
    }

    @Test
    void badInputIsExitCodeTwoWithTheReason() throws Exception {
        Outcome missing =
                parity(
                        shared.resolve("r-bad"),
                        "--transactions",
                        shared.resolve("nope.jsonl").toString(),
                        "--served",
                        messyOut.resolve("features.jsonl").toString());
        assertThat(missing.exitCode()).isEqualTo(ParityCommand.EXIT_BAD_INPUT);
        assertThat(missing.stderr())
                .contains("--transactions")
                .contains("nope.jsonl")
                .contains("does not exist");
        assertThat(missing.report()).isNull();

        Outcome usage = parity(shared.resolve("r-usage"), "--served", "x");
        assertThat(usage.exitCode()).isEqualTo(ParityCommand.EXIT_BAD_INPUT);
        assertThat(usage.stderr()).contains("--transactions");

        Path garbage = shared.resolve("garbage-features.jsonl");
        Files.writeString(garbage, "{not json\n");
        Outcome corrupt =
                parity(
                        shared.resolve("r-corrupt"),
                        "--transactions",
                        messy.toString(),
                        "--served",
                        garbage.toString(),
                        "--window-size",
                        "1m");
        assertThat(corrupt.exitCode()).isEqualTo(ParityCommand.EXIT_BAD_INPUT);
        assertThat(corrupt.stderr()).contains("could not run");
    }

    /** A copy of the messy replay's outputs with {@code file} replaced by {@code lines}. */
    private static Path outputsWith(String name, String file, List<String> lines) throws Exception {
        Path copy = shared.resolve(name);
        Files.createDirectories(copy);
        for (String f :
                List.of(
                        "features.jsonl",
                        "scores.jsonl",
                        "late.jsonl",
                        "dead-letters.jsonl",
                        "transaction-scores.jsonl",
                        "policy.json")) {
            Files.copy(messyOut.resolve(f), copy.resolve(f));
        }
        Files.write(copy.resolve(file), lines);
        return copy;
    }

    @Test
    void aPaneOfALowerRevisionWrittenAfterTheFinalOneIsARegression() throws Exception {
        List<String> served = Files.readAllLines(messyOut.resolve("features.jsonl"));
        // A window that re-fired: its revision 0, written again after its last revision.
        FeatureRecord refired = null;
        FeatureRecord first = null;
        for (String line : served) {
            FeatureRecord f = AvroJson.fromJsonLine(line, FeatureRecord.class);
            if (f.getRevision() == 1) {
                refired = f;
            }
        }
        assertThat(refired).as("the messy replay re-fires some window").isNotNull();
        for (String line : served) {
            FeatureRecord f = AvroJson.fromJsonLine(line, FeatureRecord.class);
            if (f.getUserId().equals(refired.getUserId())
                    && f.getWindowStart().equals(refired.getWindowStart())
                    && f.getRevision() == 0) {
                first = f;
            }
        }
        FeatureRecord again =
                FeatureRecord.newBuilder(first)
                        .setEmittedAt(refired.getEmittedAt().plusSeconds(60))
                        .build();
        List<String> regressed = new ArrayList<>(served);
        regressed.add(AvroJson.toJsonLine(again));
        Path out = outputsWith("regressed-out", "features.jsonl", regressed);

        Outcome o = parity(shared.resolve("r-regressed"), replayInputs(messy, out, "1m"));

        assertThat(o.exitCode()).isEqualTo(ParityCommand.EXIT_SKEW);
        assertThat(o.byCause(Cause.REVISION_REGRESSED)).isEqualTo(1);
        assertThat(o.exampleUsers(Cause.REVISION_REGRESSED))
                .containsExactly(refired.getUserId() + "@" + refired.getWindowStart());
        assertThat(o.stdout()).contains("REVISION_REGRESSED=1");
    }

    @Test
    void lateLabelsTheArchiveContradictsAreUnexplained() throws Exception {
        List<String> late = Files.readAllLines(messyOut.resolve("late.jsonl"));
        List<String> tampered = new ArrayList<>();
        int tooLate = -1;
        int future = -1;
        for (int i = 0; i < late.size(); i++) {
            LateRecord l = AvroJson.fromJsonLine(late.get(i), LateRecord.class);
            if (l.getReason() == LateReason.TOO_LATE && tooLate < 0) {
                tooLate = i;
                // A watermark a day beyond anything the replay had read.
                l.setWatermark(l.getWatermark().plus(Duration.ofDays(1)));
            } else if (l.getReason() == LateReason.TOO_LATE && future < 0) {
                future = i;
                // Labelled future-dated, though it arrived after its event time.
                l.setReason(LateReason.FUTURE_DATED);
            }
            tampered.add(AvroJson.toJsonLine(l));
        }
        assertThat(future).as("two too-late records in the messy replay").isPositive();
        Path out = outputsWith("relabelled-out", "late.jsonl", tampered);

        Outcome o = parity(shared.resolve("r-relabelled"), replayInputs(messy, out, "1m"));

        assertThat(o.exitCode()).isEqualTo(ParityCommand.EXIT_SKEW);
        assertThat(o.report().get("records").get("contradictedLabels").asLong()).isEqualTo(2);
        assertThat(o.report().get("records").get("uncheckedLabels").asLong()).isZero();
        assertThat(o.byCause(Cause.UNEXPLAINED)).isEqualTo(2);
        assertThat(Files.readString(o.dir().resolve(ReportFiles.JSON)))
                .contains("TOO_LATE label of")
                .contains("FUTURE_DATED label of");
    }

    @Test
    void thePolicyComesFromWhatTheJobRecordedAndAFlagThatDisagreesIsBadInput() throws Exception {
        // The replay recorded its policy next to its outputs: no flag needed.
        List<String> noFlags = new ArrayList<>(List.of(replayInputs(messy, messyOut, "1m")));
        noFlags.removeAll(List.of("--window-size", "1m"));
        Outcome recorded =
                parity(shared.resolve("r-recorded-policy"), noFlags.toArray(String[]::new));
        assertThat(recorded.exitCode()).as(recorded.stderr()).isZero();
        assertThat(recorded.report().get("run").get("policy").asText())
                .isEqualTo(
                        "window-size=1m allowed-lateness=1m out-of-orderness=0s idleness=none"
                                + " future-tolerance=5m");

        List<String> disagreeing = new ArrayList<>(noFlags);
        disagreeing.addAll(List.of("--allowed-lateness", "5m"));
        Outcome bad = parity(shared.resolve("r-bad-policy"), disagreeing.toArray(String[]::new));
        assertThat(bad.exitCode()).isEqualTo(ParityCommand.EXIT_BAD_INPUT);
        assertThat(bad.stderr())
                .contains("--allowed-lateness 5m disagrees with the policy the job recorded")
                .contains("allowed-lateness=1m")
                .contains("policy.json");
        assertThat(bad.report()).isNull();
    }

    @Test
    void theArchiveRecordsThePolicyAndTwoPoliciesInOnePeriodAreBadInput() throws Exception {
        Path archive = shared.resolve("policy-archive");
        replay(messy, "policy-archived-out", "1m", "1m", archive);
        try (var files = Files.list(archive.resolve(ArchivePolicy.DIRECTORY))) {
            List<Path> policies = files.toList();
            assertThat(policies).singleElement();
            assertThat(
                            ArchivePolicy.readFile(
                                            org.apache.flink.core.fs.Path.fromLocalFile(
                                                    policies.get(0).toFile()))
                                    .policy()
                                    .describe())
                    .isEqualTo(
                            "window-size=1m allowed-lateness=1m out-of-orderness=0s idleness=none"
                                    + " future-tolerance=5m");
        }
        // The job redeployed with another lateness during the day.
        ArchivePolicy other =
                new ArchivePolicy(
                        Duration.ofMinutes(1),
                        Duration.ofMinutes(3),
                        Duration.ZERO,
                        null,
                        Duration.ofMinutes(5));
        ArchivePolicy.record(
                org.apache.flink.core.fs.Path.fromLocalFile(archive.toFile()),
                other,
                Instant.parse("2026-11-28T15:00:00Z"));

        Outcome o =
                parity(
                        shared.resolve("r-two-policies"),
                        "--archive",
                        archive.toString(),
                        "--date",
                        "2026-11-28",
                        "--no-score-skew");
        assertThat(o.exitCode()).isEqualTo(ParityCommand.EXIT_BAD_INPUT);
        assertThat(o.stderr())
                .contains("two event-time policies")
                .contains("allowed-lateness=1m")
                .contains("allowed-lateness=3m");
        // The next day only the new one is in force.
        Outcome next =
                parity(
                        shared.resolve("r-next-day-policy"),
                        "--archive",
                        archive.toString(),
                        "--date",
                        "2026-11-29",
                        "--no-score-skew");
        assertThat(next.stderr()).doesNotContain("two event-time policies");
    }

    // ---- Scores at arrival: the per-transaction section -------------------------------------

    @Test
    void aRecordArrivingAfterTheTransactionsItBelongsToIsArrivedLaterWithExactCounts()
            throws Exception {
        Instant w = Instant.parse("2026-11-28T12:00:00Z");
        Transaction a = tx("a", "late-user", w, 1_000, "d1");
        Transaction b = tx("b", "late-user", w.plusSeconds(10), 2_000, "d1");
        Transaction c = tx("c", "late-user", w.plusSeconds(20), 3_000, "d2");
        // r happened at 5 s but reaches Kafka at 30 s: after b and c, whose trailing minutes
        // (-50 s, 10 s] and (-40 s, 20 s] hold it; a's (-60 s, 0 s] does not.
        Transaction r = tx("r", "late-user", w.plusSeconds(5), 4_000, "d3");
        Transaction calm1 = tx("q1", "calm-user", w.plusSeconds(3), 10, "d1");
        Transaction calm2 = tx("q2", "calm-user", w.plusSeconds(8), 20, "d1");
        Path file = shared.resolve("arrived-later.jsonl");
        Files.write(
                file,
                List.of(
                        TransactionJson.toJsonLine(a, w.plusMillis(100)),
                        TransactionJson.toJsonLine(calm1, w.plusMillis(3_100)),
                        TransactionJson.toJsonLine(calm2, w.plusMillis(8_100)),
                        TransactionJson.toJsonLine(b, w.plusMillis(10_100)),
                        TransactionJson.toJsonLine(c, w.plusMillis(20_100)),
                        TransactionJson.toJsonLine(r, w.plusSeconds(30))));
        Path out = replay(file, "arrived-later-out", "1m", "1m");

        Outcome o = parity(shared.resolve("r-arrived-later"), replayInputs(file, out, "1m"));

        assertThat(o.exitCode()).as(o.stderr()).isZero();
        assertThat(o.tx().get("transactions").get("judged").asLong()).isEqualTo(6);
        assertThat(o.txByCause(TransactionCause.ARRIVED_LATER)).isEqualTo(2);
        assertThat(o.txByCause(TransactionCause.MATCH)).isEqualTo(4);
        assertThat(o.tx().get("transactions").get("alarms").asLong()).isZero();
        List<JsonNode> affected = o.txExamples(TransactionCause.ARRIVED_LATER);
        assertThat(affected)
                .extracting(f -> f.get("transactionId").asText())
                .containsExactly("b", "c");
        for (JsonNode f : affected) {
            assertThat(f.get("differingFeatures").toString()).contains("txCount");
            assertThat(f.get("named")).hasSize(1);
            JsonNode named = f.get("named").get(0);
            assertThat(named.get("transactionId").asText()).isEqualTo("r");
            assertThat(named.get("delayMillis").asLong()).isEqualTo(25_000);
        }
        assertThat(affected.get(0).get("named").get(0).get("afterScoredMillis").asLong())
                .isEqualTo(19_900);
        assertThat(affected.get(1).get("named").get(0).get("afterScoredMillis").asLong())
                .isEqualTo(9_900);
        assertThat(o.tx().get("records").get("arrivedLaterRecords").asLong()).isEqualTo(1);
        JsonNode chart = o.tx().get("arrivedLaterDelay");
        long inMinute = 0;
        for (JsonNode bucket : chart) {
            if (bucket.get("label").asText().equals("<= 1 min")) {
                inMinute = bucket.get("count").asLong();
            }
        }
        assertThat(inMinute).isEqualTo(1);
        assertThat(o.stdout()).contains("6 judged, 4 match, 2 explained (ARRIVED_LATER=2)");
        assertThat(Files.readString(o.dir().resolve(ReportFiles.HTML)))
                .contains("Scores at arrival")
                .contains("ARRIVED_LATER r at arrived-later.jsonl-0@6");
    }

    /** The messy replay's transaction scores, one line per id answered once, by id. */
    private static Map<String, String> singleAnswers() throws Exception {
        Map<String, String> byId = new LinkedHashMap<>();
        Map<String, Integer> count = new java.util.HashMap<>();
        for (String line : Files.readAllLines(messyOut.resolve("transaction-scores.jsonl"))) {
            TransactionScore s = AvroJson.fromJsonLine(line, TransactionScore.class);
            count.merge(s.getTransactionId(), 1, Integer::sum);
            byId.put(s.getTransactionId(), line);
        }
        byId.keySet().removeIf(id -> count.get(id) > 1);
        return byId;
    }

    @Test
    void aTamperedServedTransactionScoreIsUnexplained() throws Exception {
        List<String> lines = Files.readAllLines(messyOut.resolve("transaction-scores.jsonl"));
        Map<String, String> single = singleAnswers();
        String victim = null;
        for (String line : single.values()) {
            TransactionScore s = AvroJson.fromJsonLine(line, TransactionScore.class);
            if (s.getFeatures().getTxCount() >= 2 && s.getFeatures().getHistoryComplete()) {
                victim = line;
                break;
            }
        }
        assertThat(victim).isNotNull();
        TransactionScore tampered = AvroJson.fromJsonLine(victim, TransactionScore.class);
        tampered.getFeatures().setAmountSum(tampered.getFeatures().getAmountSum() + 1);
        List<String> copy = new ArrayList<>(lines);
        copy.set(copy.indexOf(victim), AvroJson.toJsonLine(tampered));
        Path out = outputsWith("tampered-tx-out", "transaction-scores.jsonl", copy);

        Outcome o = parity(shared.resolve("r-tampered-tx"), replayInputs(messy, out, "1m"));

        assertThat(o.exitCode()).isEqualTo(ParityCommand.EXIT_SKEW);
        assertThat(o.txByCause(TransactionCause.UNEXPLAINED)).isEqualTo(1);
        assertThat(o.tx().get("transactions").get("alarms").asLong()).isEqualTo(1);
        assertThat(o.report().get("windows").get("alarms").asLong()).isZero();
        JsonNode f = o.txExamples(TransactionCause.UNEXPLAINED).get(0);
        assertThat(f.get("transactionId").asText()).isEqualTo(tampered.getTransactionId());
        assertThat(f.get("note").asText()).contains("as of arrival");
        assertThat(o.stdout()).startsWith("parity FAIL").contains("(UNEXPLAINED=1)");
        assertThat(o.report().get("violations").get(0).asText())
                .contains("0 unexplained window(s) and 1 transaction alarm(s)");
    }

    @Test
    void aScoreLostBetweenTheStreamAndTheArchiveIsAMissingScore() throws Exception {
        List<String> lines = Files.readAllLines(messyOut.resolve("transaction-scores.jsonl"));
        String lost = singleAnswers().values().iterator().next();
        List<String> copy = new ArrayList<>(lines);
        copy.remove(lost);
        Path out = outputsWith("lost-tx-out", "transaction-scores.jsonl", copy);

        Outcome o = parity(shared.resolve("r-lost-tx"), replayInputs(messy, out, "1m"));

        assertThat(o.exitCode()).isEqualTo(ParityCommand.EXIT_SKEW);
        assertThat(o.txByCause(TransactionCause.MISSING_SCORE)).isEqualTo(1);
        assertThat(o.tx().get("transactions").get("alarms").asLong()).isEqualTo(1);
        assertThat(
                        o.txExamples(TransactionCause.MISSING_SCORE)
                                .get(0)
                                .get("transactionId")
                                .asText())
                .isEqualTo(AvroJson.fromJsonLine(lost, TransactionScore.class).getTransactionId());
        assertThat(o.stdout()).contains("(MISSING_SCORE=1)");
    }

    @Test
    void cleanOnTimeTrafficMatchesEveryTransactionUnderTheDefaultThresholds() throws Exception {
        // Simulated traffic delivered in event-time order, each record 150 ms after it happened.
        List<Transaction> txs = new ArrayList<>();
        for (SimulatedRecord r :
                TransactionSimulator.generateAll(
                        SimulationConfig.builder()
                                .users(20)
                                .start(Instant.parse("2026-11-28T12:00:00Z"))
                                .duration(Duration.ofHours(1))
                                .seed(23)
                                .txPerUserDay(600)
                                .duplicateRate(0)
                                .futureRate(0)
                                .hoursLateShare(0)
                                .malformedRate(0)
                                .build())) {
            txs.add(r.transaction());
        }
        txs.sort(
                java.util.Comparator.comparing(Transaction::getEventTime)
                        .thenComparing(Transaction::getTransactionId));
        List<String> lines = new ArrayList<>();
        txs.forEach(
                t -> lines.add(TransactionJson.toJsonLine(t, t.getEventTime().plusMillis(150))));
        Path file = shared.resolve("clean.jsonl");
        Files.write(file, lines);
        Path out = replay(file, "clean-out", "1m", "1m");

        Outcome o =
                parity(
                        shared.resolve("r-clean-tx"),
                        "--transactions",
                        file.toString(),
                        "--served",
                        out.resolve("features.jsonl").toString(),
                        "--scores",
                        out.resolve("scores.jsonl").toString(),
                        "--late",
                        out.resolve("late.jsonl").toString(),
                        "--dead-letters",
                        out.resolve("dead-letters.jsonl").toString(),
                        "--transaction-scores",
                        out.resolve("transaction-scores.jsonl").toString());

        assertThat(o.exitCode()).as(o.stderr() + o.stdout()).isZero();
        JsonNode counts = o.tx().get("transactions");
        assertThat(counts.get("judged").asLong()).isEqualTo(txs.size());
        assertThat(counts.get("matched").asLong()).isEqualTo(txs.size());
        assertThat(counts.get("differingRate").asDouble()).isZero();
        JsonNode skew = o.tx().get("scoreSkew");
        assertThat(skew.get("compared").asLong()).isEqualTo(txs.size());
        assertThat(skew.get("maxAbsDelta").asDouble()).isZero();
        assertThat(o.stdout())
                .contains(
                        txs.size()
                                + " judged, "
                                + txs.size()
                                + " match, 0 explained, 0 unexplained");
    }

    @Test
    void labelsPriceTheSkewInFraud() throws Exception {
        List<String> args = new ArrayList<>(List.of(replayInputs(messy, messyOut, "1m")));
        args.addAll(List.of("--labels", labelsOf(messy).toString()));

        Outcome o = parity(shared.resolve("r-labels"), args.toArray(String[]::new));

        assertThat(o.exitCode()).as(o.stderr()).isZero();
        JsonNode labels = o.tx().get("scoreSkew").get("labels");
        assertThat(labels.get("given").asBoolean()).isTrue();
        assertThat(labels.get("labelled").asLong())
                .isEqualTo(o.tx().get("scoreSkew").get("compared").asLong());
        assertThat(labels.get("unlabelled").asLong()).isZero();
        assertThat(labels.get("fraudulent").asLong()).isPositive();
        assertThat(o.stdout()).contains("fraud(s) let through");
    }

    @Test
    void scoresOfAnotherModelOrTrailingWindowAreBadInputNamingBoth() throws Exception {
        List<String> relabelled = new ArrayList<>();
        for (String line : Files.readAllLines(messyOut.resolve("transaction-scores.jsonl"))) {
            TransactionScore s = AvroJson.fromJsonLine(line, TransactionScore.class);
            s.setModelVersion("1999-01-01-other");
            relabelled.add(AvroJson.toJsonLine(s));
        }
        Path out = outputsWith("other-model-out", "transaction-scores.jsonl", relabelled);

        Outcome model = parity(shared.resolve("r-other-model"), replayInputs(messy, out, "1m"));
        assertThat(model.exitCode()).isEqualTo(ParityCommand.EXIT_BAD_INPUT);
        assertThat(model.stderr())
                .contains("served by model fraud-transaction:1999-01-01-other")
                .contains("re-scores with fraud-transaction:")
                .contains("--transaction-model");
        assertThat(model.report()).isNull();

        List<String> args = new ArrayList<>(List.of(replayInputs(messy, messyOut, "1m")));
        args.addAll(List.of("--trailing-window", "2m"));
        Outcome trailing = parity(shared.resolve("r-other-trailing"), args.toArray(String[]::new));
        assertThat(trailing.exitCode()).isEqualTo(ParityCommand.EXIT_BAD_INPUT);
        assertThat(trailing.stderr())
                .contains("trailing window of 1m")
                .contains("recomputes over 2m");
    }

    private static Path messyArchive;

    /** The messy simulation replayed into an archive (once). */
    private static synchronized Path messyArchive() throws Exception {
        if (messyArchive == null) {
            Path archive = shared.resolve("messy-archive-tx");
            replay(messy, "messy-archive-tx-out", "1m", "1m", archive);
            messyArchive = archive;
        }
        return messyArchive;
    }

    @Test
    void aScoreLostFromTheArchiveIsAMissingScore() throws Exception {
        Path archive = copyOf(messyArchive(), "archive-lost-score");
        // Take one answer out of one committed Avro file of transaction-scores/.
        Path file;
        try (var files = Files.walk(archive.resolve("transaction-scores"))) {
            file =
                    files.filter(p -> p.getFileName().toString().endsWith(".avro"))
                            .sorted()
                            .findFirst()
                            .orElseThrow();
        }
        List<TransactionScore> kept = new ArrayList<>();
        TransactionScore removed = null;
        Map<String, Integer> answers = new java.util.HashMap<>();
        for (String line : Files.readAllLines(messyOut.resolve("transaction-scores.jsonl"))) {
            answers.merge(
                    AvroJson.fromJsonLine(line, TransactionScore.class).getTransactionId(),
                    1,
                    Integer::sum);
        }
        try (var reader =
                new org.apache.avro.file.DataFileReader<>(
                        file.toFile(),
                        new org.apache.avro.specific.SpecificDatumReader<>(
                                TransactionScore.class))) {
            for (TransactionScore s : reader) {
                if (removed == null && answers.get(s.getTransactionId()) == 1) {
                    removed = s;
                } else {
                    kept.add(s);
                }
            }
        }
        assertThat(removed).isNotNull();
        try (var writer =
                new org.apache.avro.file.DataFileWriter<>(
                        new org.apache.avro.specific.SpecificDatumWriter<>(
                                TransactionScore.class))) {
            writer.create(TransactionScore.getClassSchema(), file.toFile());
            for (TransactionScore s : kept) {
                writer.append(s);
            }
        }

        Outcome o =
                parity(
                        shared.resolve("r-archive-lost-score"),
                        "--archive",
                        archive.toString(),
                        "--date",
                        "2026-11-28",
                        "--max-mismatch-rate",
                        "1",
                        "--max-transaction-flipped-rate",
                        "1");

        assertThat(o.exitCode()).as(o.stderr()).isEqualTo(ParityCommand.EXIT_SKEW);
        assertThat(o.txByCause(TransactionCause.MISSING_SCORE)).isEqualTo(1);
        assertThat(o.tx().get("transactions").get("alarms").asLong()).isEqualTo(1);
        assertThat(
                        o.txExamples(TransactionCause.MISSING_SCORE)
                                .get(0)
                                .get("transactionId")
                                .asText())
                .isEqualTo(removed.getTransactionId());
    }

    @Test
    void anArchiveWrittenBeforeScoresAtArrivalChecksTheWindowsAndSaysSo() throws Exception {
        Path archive = copyOf(messyArchive(), "archive-before-scores");
        try (var files = Files.walk(archive.resolve("transaction-scores"))) {
            files.sorted(java.util.Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
        }

        Outcome o =
                parity(
                        shared.resolve("r-archive-before-scores"),
                        "--archive",
                        archive.toString(),
                        "--date",
                        "2026-11-28",
                        "--max-mismatch-rate",
                        "1");

        assertThat(o.exitCode()).as(o.stderr()).isZero();
        assertThat(o.report().get("windows").get("judged").asLong()).isPositive();
        assertThat(o.tx().get("checked").asBoolean()).isFalse();
        assertThat(o.tx().get("notChecked").asText()).contains("no transaction-scores/");
        assertThat(o.stdout()).contains("; transactions: not checked;");
        assertThat(Files.readString(o.dir().resolve(ReportFiles.HTML)))
                .contains("Not checked: the archive has no transaction-scores/");
    }

    private static Path copyOf(Path dir, String name) throws Exception {
        Path target = shared.resolve(name);
        try (var files = Files.walk(dir)) {
            for (Path p : (Iterable<Path>) files::iterator) {
                Path to = target.resolve(dir.relativize(p).toString());
                if (Files.isDirectory(p)) {
                    Files.createDirectories(to);
                } else {
                    Files.copy(p, to);
                }
            }
        }
        return target;
    }

    private static Transaction firstValid(List<String> lines) {
        for (int i = 0; i < lines.size(); i++) {
            try {
                return TransactionJson.parseValidLine("messy.jsonl", lines.get(i), i + 1)
                        .transaction();
            } catch (Exception e) {
                // malformed on purpose: try the next line
            }
        }
        throw new AssertionError("no valid line");
    }
}
