package org.fraudpipe.parity;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Stream;
import org.fraudpipe.job.config.JobConfig;
import org.fraudpipe.job.replay.AvroJson;
import org.fraudpipe.job.replay.Replay;
import org.fraudpipe.job.replay.ReplayConfig;
import org.fraudpipe.job.scoring.release.ModelReleases;
import org.fraudpipe.job.testing.TrainedReleases;
import org.fraudpipe.parity.cli.ParityCommand;
import org.fraudpipe.parity.report.ReportFiles;
import org.fraudpipe.parity.report.ReportJson;
import org.fraudpipe.schemas.avro.AssignmentAction;
import org.fraudpipe.schemas.avro.ModelKind;
import org.fraudpipe.schemas.avro.ScoreRecord;
import org.fraudpipe.schemas.avro.TransactionScore;
import org.fraudpipe.sim.SimulatedRecord;
import org.fraudpipe.sim.SimulationConfig;
import org.fraudpipe.sim.TransactionSimulator;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

/**
 * Parity across model releases (issue #30): a day in which the champion changed twice and a
 * challenger shadowed part of it, replayed with the job's topology and that registry (the replay
 * archives the registry as the job does), then checked from the archive. Each served record is
 * re-scored by the release that served it, so the day passes; the same archive without its record
 * of the registry cannot be judged (bad input, exit 2, naming the releases).
 */
class ParityAcrossReleasesIT {

    private static final Instant DAY = Instant.parse("2026-11-28T00:00:00Z");
    private static final Instant START = DAY.plus(Duration.ofHours(12));
    private static final Duration LEAD = Duration.ofMinutes(10);

    /** Appended 12:30, effective 12:40. */
    private static final Instant V1_FROM = START.plus(Duration.ofMinutes(40));

    /** Appended 12:10, effective 12:20. */
    private static final Instant SHADOW_FROM = START.plus(Duration.ofMinutes(20));

    /** Appended 13:10, effective 13:20. */
    private static final Instant V2_FROM = START.plus(Duration.ofMinutes(80));

    @TempDir static Path dir;

    private static Path archive;
    private static Path out;

    @BeforeAll
    static void replayADayWithTwoSwitches() throws Exception {
        Path input = dir.resolve("day.jsonl");
        StringBuilder text = new StringBuilder();
        for (SimulatedRecord r :
                TransactionSimulator.generateAll(
                        SimulationConfig.builder()
                                .users(25)
                                .start(START)
                                .duration(Duration.ofHours(2))
                                .seed(30)
                                .txPerUserDay(500)
                                .duplicateRate(0.02)
                                .futureRate(0.01)
                                .hoursLateShare(0.02)
                                .malformedRate(0.01)
                                .build())) {
            text.append(r.jsonLine()).append('\n');
        }
        Files.writeString(input, text, StandardCharsets.UTF_8);

        TrainedReleases.History history = new TrainedReleases.History();
        Instant published = START.minus(Duration.ofHours(1));
        for (ModelKind kind : ModelKind.values()) {
            for (String v : List.of("v1", "v2", "v3")) {
                history.publish(kind, v, TrainedReleases.model(kind, v), published);
            }
        }
        for (ModelKind kind : ModelKind.values()) {
            history.assign(kind, AssignmentAction.SHADOW, "v3", SHADOW_FROM.minus(LEAD), LEAD);
            history.assign(kind, AssignmentAction.PROMOTE, "v1", V1_FROM.minus(LEAD), LEAD);
            history.assign(kind, AssignmentAction.PROMOTE, "v2", V2_FROM.minus(LEAD), LEAD);
        }

        Map<String, String> options = new LinkedHashMap<>();
        options.put("window-size", "1m");
        options.put("allowed-lateness", "1m");
        options.put("out-of-orderness", "0s");
        options.put("parallelism", "2");
        options.put("state-backend", "hashmap");
        archive = dir.resolve("archive");
        out = dir.resolve("out");
        Replay.run(
                ReplayConfig.of(input, out, JobConfig.of(options))
                        .withReleases(ModelReleases.Fixed.of(history.entries()))
                        .withArchive(
                                org.apache.flink.core.fs.Path.fromLocalFile(archive.toFile())));
    }

    private record Outcome(int exitCode, String stdout, String stderr, JsonNode report) {}

    private static Outcome parity(Path archiveRoot, String name) throws Exception {
        Path reportDir = dir.resolve(name);
        StringWriter o = new StringWriter();
        StringWriter e = new StringWriter();
        CommandLine cl = ParityCommand.commandLine();
        cl.setOut(new PrintWriter(o));
        cl.setErr(new PrintWriter(e));
        int code =
                cl.execute(
                        "--archive", archiveRoot.toString(),
                        "--date", "2026-11-28",
                        "--window-size", "1m",
                        "--max-mismatch-rate", "1",
                        "--max-transaction-flipped-rate", "1",
                        "--report", reportDir.toString(),
                        "--parallelism", "2");
        Path json = reportDir.resolve(ReportFiles.JSON);
        return new Outcome(
                code,
                o.toString(),
                e.toString(),
                Files.exists(json) ? ReportJson.read(Files.readString(json)) : null);
    }

    private static <T extends org.apache.avro.specific.SpecificRecordBase> List<T> lines(
            String file, Class<T> type) throws Exception {
        List<T> records = new ArrayList<>();
        for (String line : Files.readAllLines(out.resolve(file))) {
            records.add(AvroJson.fromJsonLine(line, type));
        }
        return records;
    }

    @Test
    void theReplayScoresEveryRecordByTheReleaseOfItsCoordinate() throws Exception {
        Set<String> txVersions = new HashSet<>();
        for (TransactionScore s : lines("transaction-scores.jsonl", TransactionScore.class)) {
            long c = s.getScoredAt().toEpochMilli(); // a replay's scoredAt: the arrival answered
            assertThat(s.getModelVersion())
                    .as("%s at %s", s.getTransactionId(), s.getScoredAt())
                    .isNotEqualTo("v3");
            if (!s.getScoredAt().isBefore(V2_FROM)) {
                txVersions.add(s.getModelVersion());
            }
            assertThat(s.getChallenger() != null)
                    .as("challenger of %s", s.getTransactionId())
                    .isEqualTo(c >= SHADOW_FROM.toEpochMilli());
        }
        assertThat(txVersions)
                .as("after v2's promotion, retries of earlier ids aside")
                .contains("v2");
        Set<String> paneVersions = new HashSet<>();
        for (ScoreRecord p : lines("scores.jsonl", ScoreRecord.class)) {
            Instant start = p.getWindowStart();
            String expected =
                    start.isBefore(V1_FROM) ? null : start.isBefore(V2_FROM) ? "v1" : "v2";
            if (expected != null) {
                assertThat(p.getModelVersion()).isEqualTo(expected);
            }
            paneVersions.add(p.getModelVersion());
            assertThat(p.getChallenger() != null).isEqualTo(!start.isBefore(SHADOW_FROM));
        }
        assertThat(paneVersions).hasSize(3).contains("v1", "v2");
    }

    @Test
    void aDayWithTwoSwitchesPassesWhenEachRecordIsReScoredByTheReleaseThatServedIt()
            throws Exception {
        Outcome o = parity(archive, "report");

        assertThat(o.exitCode()).as(o.stderr() + o.stdout()).isZero();
        assertThat(o.stdout()).startsWith("parity PASS 2026-11-28");
        JsonNode windows = o.report().get("scoreSkew");
        assertThat(windows.get("otherModelVersion").asLong())
                .as("windows whose served release is not the one the rule gives")
                .isZero();
        assertThat(column(windows.get("byRelease"), "release"))
                .hasSize(3)
                .contains("fraud-window:v1", "fraud-window:v2");
        assertShadowRowsAreTheRecomputation(windows.get("shadow"), finalPanes());
        JsonNode transactions = o.report().get("transactions").get("scoreSkew");
        assertThat(column(transactions.get("byRelease"), "release"))
                .contains("fraud-transaction:v1", "fraud-transaction:v2");
        assertShadowRowsAreTheRecomputation(transactions.get("shadow"), firstAnswers());
    }

    private static List<String> column(JsonNode rows, String field) {
        List<String> out = new ArrayList<>();
        rows.forEach(r -> out.add(r.get(field).asText()));
        return out;
    }

    /** A record scored by a champion and its challenger: what the shadow rows fold. */
    private record Shadowed(
            String champion,
            double score,
            String decision,
            String challenger,
            double challengerScore,
            String challengerDecision) {}

    /** The upsert reader's value of every window of the day: its last revision. */
    private static List<Shadowed> finalPanes() throws Exception {
        Map<String, ScoreRecord> last = new LinkedHashMap<>();
        for (ScoreRecord p : lines("scores.jsonl", ScoreRecord.class)) {
            last.merge(
                    p.getUserId() + "@" + p.getWindowStart(),
                    p,
                    (a, b) -> b.getRevision() >= a.getRevision() ? b : a);
        }
        List<Shadowed> out = new ArrayList<>();
        for (ScoreRecord p : last.values()) {
            if (p.getChallenger() != null) {
                out.add(
                        new Shadowed(
                                p.getModelName() + ":" + p.getModelVersion(),
                                p.getScore(),
                                p.getDecision().name(),
                                p.getChallenger().getModelName()
                                        + ":"
                                        + p.getChallenger().getModelVersion(),
                                p.getChallenger().getScore(),
                                p.getChallenger().getDecision().name()));
            }
        }
        return out;
    }

    /** The first answer of every transaction id (a retry's repeats its values). */
    private static List<Shadowed> firstAnswers() throws Exception {
        Map<String, TransactionScore> first = new LinkedHashMap<>();
        for (TransactionScore s : lines("transaction-scores.jsonl", TransactionScore.class)) {
            first.putIfAbsent(s.getTransactionId(), s);
        }
        List<Shadowed> out = new ArrayList<>();
        for (TransactionScore s : first.values()) {
            if (s.getChallenger() != null) {
                out.add(
                        new Shadowed(
                                s.getModelName() + ":" + s.getModelVersion(),
                                s.getScore(),
                                s.getDecision().name(),
                                s.getChallenger().getModelName()
                                        + ":"
                                        + s.getChallenger().getModelVersion(),
                                s.getChallenger().getScore(),
                                s.getChallenger().getDecision().name()));
            }
        }
        return out;
    }

    /**
     * The report's champion-against-challenger rows are the test's own recomputation from the
     * replay's outputs: per pair, the records scored by both, the decisions that would flip and the
     * mean |challenger - champion|.
     */
    private static void assertShadowRowsAreTheRecomputation(JsonNode rows, List<Shadowed> records) {
        Map<String, List<Shadowed>> byPair = new LinkedHashMap<>();
        for (Shadowed r : records) {
            byPair.computeIfAbsent(r.champion() + " | " + r.challenger(), k -> new ArrayList<>())
                    .add(r);
        }
        assertThat(rows).as("shadow rows").hasSize(byPair.size()).hasSizeGreaterThanOrEqualTo(2);
        for (JsonNode row : rows) {
            List<Shadowed> pair =
                    byPair.get(
                            row.get("champion").asText() + " | " + row.get("challenger").asText());
            assertThat(pair).as("pair %s", row).isNotNull();
            assertThat(row.get("scored").asLong()).isEqualTo(pair.size());
            assertThat(row.get("flippedDecisions").asLong())
                    .isEqualTo(
                            pair.stream()
                                    .filter(r -> !r.decision().equals(r.challengerDecision()))
                                    .count());
            assertThat(row.get("meanAbsDelta").asDouble())
                    .isCloseTo(
                            pair.stream()
                                    .mapToDouble(r -> Math.abs(r.challengerScore() - r.score()))
                                    .average()
                                    .orElse(0),
                            org.assertj.core.data.Offset.offset(1e-12));
        }
    }

    @Test
    void withoutTheArchivedRegistryTheDayCannotBeJudged() throws Exception {
        Path copy = dir.resolve("archive-without-registry");
        copyTree(archive, copy);
        deleteTree(copy.resolve("model-events"));

        Outcome o = parity(copy, "report-without-registry");

        assertThat(o.exitCode()).isEqualTo(ParityCommand.EXIT_BAD_INPUT);
        assertThat(o.stderr()).contains("were served by model").contains(":v");
    }

    private static void copyTree(Path from, Path to) throws Exception {
        try (Stream<Path> all = Files.walk(from)) {
            for (Path p : all.toList()) {
                Path target = to.resolve(from.relativize(p).toString());
                if (Files.isDirectory(p)) {
                    Files.createDirectories(target);
                } else {
                    Files.copy(p, target);
                }
            }
        }
    }

    private static void deleteTree(Path root) throws Exception {
        try (Stream<Path> all = Files.walk(root)) {
            for (Path p : all.sorted(Comparator.reverseOrder()).toList()) {
                Files.delete(p);
            }
        }
    }
}
