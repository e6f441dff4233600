package org.fraudpipe.tools.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Base64;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.apache.avro.specific.SpecificRecordBase;
import org.fraudpipe.job.config.JobConfig;
import org.fraudpipe.job.replay.AvroJson;
import org.fraudpipe.job.replay.Replay;
import org.fraudpipe.job.replay.ReplayConfig;
import org.fraudpipe.job.replay.ReplayOutput;
import org.fraudpipe.job.replay.ReplaySummary;
import org.fraudpipe.job.testing.ArchiveFiles;
import org.fraudpipe.schemas.archive.ArchivePartition;
import org.fraudpipe.schemas.archive.ArchiveStream;
import org.fraudpipe.schemas.avro.ArchivedTransaction;
import org.fraudpipe.schemas.avro.Transaction;
import org.fraudpipe.schemas.json.TransactionJson;
import org.fraudpipe.sim.SimulatedRecord;
import org.fraudpipe.sim.SimulationConfig;
import org.fraudpipe.sim.TransactionSimulator;
import org.fraudpipe.tools.FraudCli;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

/**
 * The replay end to end on a real MiniCluster: the three fates of a record on a hand-written file,
 * every valid transaction's score at arrival ({@code transaction-scores.jsonl}), determinism of
 * every output file (run to run, and across window parallelism) on simulated traffic, and the
 * archive a replay writes with {@code --archive}.
 */
class ReplayIT {

    private static final ObjectMapper JSON = new ObjectMapper();
    private static final String END_OF_INPUT = "+292278994-08-17T07:12:55.807Z";

    @TempDir static Path shared;
    @TempDir Path tmp;

    private static Path simulated;
    private static Path reference;
    private static Path referenceArchive;

    // ---- the three fates, on a hand-written file ----

    private static String at(String time) {
        return "2026-11-28T" + time + "Z";
    }

    private static String tx(
            String id,
            String user,
            long amount,
            String device,
            String merchant,
            String country,
            String eventTime,
            String arrivalTime) {
        Transaction t =
                new Transaction(
                        id,
                        user,
                        amount,
                        "EUR",
                        merchant,
                        device,
                        country,
                        Instant.parse(at(eventTime)));
        return TransactionJson.toJsonLine(
                t, arrivalTime == null ? null : Instant.parse(at(arrivalTime)));
    }

    /**
     * Window 10m, allowed lateness 2m, out-of-orderness 5s (watermark = max event time - 5s - 1ms),
     * future tolerance 5m. Window [12:00, 12:10) fires at watermark 12:09:59.999 and is closed at
     * 12:11:59.999.
     */
    private static final List<String> HAND_WRITTEN =
            List.of(
                    // 1: on time; watermark 12:00:54.999
                    tx("t1", "alice", 1000, "d-a1", "m-1", "DE", "12:01:00", "12:01:00.200"),
                    // 2: on time; watermark 12:01:54.999
                    tx("t2", "bob", 500, "d-b1", "m-2", "DE", "12:02:00", "12:02:01"),
                    // 3: behind the watermark, window open: counted on time
                    tx("t3", "alice", 2000, "d-a2", "m-1", "DE", "12:00:30", "12:02:02"),
                    // 4: malformed
                    "{\"transactionId\":\"t4\",",
                    // 5: negative amount
                    tx("t5", "carol", -5, "d-c1", "m-1", "DE", "12:03:00", "12:03:00"),
                    // 6: future-dated (an hour ahead of its arrival)
                    tx("t6", "bob", 700, "d-b1", "m-2", "DE", "13:00:00", "12:04:00"),
                    // 7: duplicate of 1 (producer retry): counted once
                    tx("t1", "alice", 1000, "d-a1", "m-1", "DE", "12:01:00", "12:05:00"),
                    // 8: next window; watermark 12:10:04.999 fires [12:00, 12:10)
                    tx("t7", "dave", 300, "d-d1", "m-3", "FR", "12:10:10", "12:10:10.500"),
                    // 9: late within grace: bob's window re-fires, revision 1
                    tx("t8", "bob", 250, "d-b1", "m-4", "DE", "12:08:00", "12:10:30"),
                    // 10: late within grace for a window without records: first pane is LATE
                    tx("t12", "frank", 900, "d-f1", "m-6", "IT", "12:05:00", "12:10:40"),
                    // 11: watermark 12:12:24.999 closes [12:00, 12:10)
                    tx("t9", "erin", 100, "d-e1", "m-5", "DE", "12:12:30", "12:12:31"),
                    // 12: too late
                    tx("t10", "alice", 400, "d-a1", "m-1", "DE", "12:09:00", "12:12:40"),
                    // 13: no arrivalTime: its event time stands for it
                    tx("t11", "erin", 200, "d-e1", "m-5", "DE", "12:13:00", null));

    private static String pane(
            String user,
            String windowStart,
            String windowEnd,
            long txCount,
            long sum,
            long max,
            int devices,
            int merchants,
            int countries,
            int revision,
            String timing,
            int lateIncluded,
            String watermark) {
        return String.format(
                Locale.ROOT,
                "{\"userId\":\"%s\",\"windowStart\":\"%s\",\"windowEnd\":\"%s\",\"txCount\":%d,"
                        + "\"amountSum\":%d,\"amountMax\":%d,\"distinctDevices\":%d,"
                        + "\"distinctMerchants\":%d,\"distinctCountries\":%d,\"revision\":%d,"
                        + "\"timing\":\"%s\",\"lateRecordsIncluded\":%d,\"emittedAt\":\"%s\","
                        + "\"watermark\":\"%s\"}",
                user,
                windowStart,
                windowEnd,
                txCount,
                sum,
                max,
                devices,
                merchants,
                countries,
                revision,
                timing,
                lateIncluded,
                watermark,
                watermark);
    }

    @Test
    void everyFateOfAHandWrittenFileEndToEnd() throws Exception {
        Path input = tmp.resolve("tx.jsonl");
        Files.writeString(input, String.join("\n", HAND_WRITTEN) + "\n", StandardCharsets.UTF_8);
        Path out = tmp.resolve("out");
        Path archive = tmp.resolve("archive");
        Set<Thread> threadsBefore = liveNonDaemonThreads();

        StringWriter stdout = new StringWriter();
        StringWriter stderr = new StringWriter();
        CommandLine cli = FraudCli.commandLine();
        cli.setOut(new PrintWriter(stdout, true));
        cli.setErr(new PrintWriter(stderr, true));
        int exit =
                cli.execute(
                        "replay",
                        "--input",
                        input.toString(),
                        "--output",
                        out.toString(),
                        "--window",
                        "10m",
                        "--allowed-lateness",
                        "2m",
                        "--out-of-orderness",
                        "5s",
                        "--future-tolerance",
                        "5m",
                        "--parallelism",
                        "2",
                        "--archive",
                        archive.toString());

        assertThat(exit).as(stderr.toString()).isZero();

        String w0 = at("12:00:00");
        String w1 = at("12:10:00");
        String w2 = at("12:20:00");
        String fired = at("12:10:04.999");
        assertThat(lines(out.resolve("features.jsonl")))
                .containsExactly(
                        pane("alice", w0, w1, 2, 3000, 2000, 2, 1, 1, 0, "ON_TIME", 0, fired),
                        pane("bob", w0, w1, 1, 500, 500, 1, 1, 1, 0, "ON_TIME", 0, fired),
                        pane("bob", w0, w1, 2, 750, 500, 1, 2, 1, 1, "LATE", 1, fired),
                        pane("dave", w1, w2, 1, 300, 300, 1, 1, 1, 0, "ON_TIME", 0, END_OF_INPUT),
                        pane("erin", w1, w2, 2, 300, 200, 1, 1, 1, 0, "ON_TIME", 0, END_OF_INPUT),
                        pane("frank", w0, w1, 1, 900, 900, 1, 1, 1, 0, "LATE", 1, fired));

        // Every pane, on time and late, is scored by the default model, in the same canonical
        // order;
        // bob's late re-fire gives a second score with revision 1.
        List<JsonNode> features = json(out.resolve("features.jsonl"));
        List<JsonNode> scores = json(out.resolve("scores.jsonl"));
        assertThat(scores).hasSize(features.size());
        for (int i = 0; i < scores.size(); i++) {
            JsonNode score = scores.get(i);
            assertThat(score.get("features")).isEqualTo(features.get(i));
            assertThat(score.get("revision")).isEqualTo(features.get(i).get("revision"));
            assertThat(score.get("timing")).isEqualTo(features.get(i).get("timing"));
            assertThat(score.get("scoredAt")).isEqualTo(features.get(i).get("emittedAt"));
            assertThat(score.get("modelName").asText()).isEqualTo("fraud-window");
            double p = score.get("score").asDouble();
            assertThat(p).isBetween(0.0, 1.0);
            assertThat(score.get("decision").asText())
                    .isEqualTo(p >= 0.9 ? "BLOCK" : p >= 0.5 ? "REVIEW" : "ALLOW");
        }
        assertThat(scores)
                .filteredOn(sc -> sc.get("userId").asText().equals("bob"))
                .extracting(sc -> sc.get("revision").asInt())
                .containsExactly(0, 1);

        List<JsonNode> late = json(out.resolve("late.jsonl"));
        assertThat(late).hasSize(2);
        JsonNode tooLate = late.get(0);
        assertThat(tooLate.at("/transaction/transactionId").asText()).isEqualTo("t10");
        assertThat(tooLate.get("reason").asText()).isEqualTo("TOO_LATE");
        assertThat(tooLate.get("windowStart").asText()).isEqualTo(w0);
        assertThat(tooLate.get("windowEnd").asText()).isEqualTo(w1);
        assertThat(tooLate.get("watermark").asText()).isEqualTo(at("12:12:24.999"));
        assertThat(tooLate.get("lateByMillis").asLong()).isEqualTo(204_999);
        assertThat(tooLate.get("detectedAt").asText()).isEqualTo(at("12:12:24.999"));
        JsonNode future = late.get(1);
        assertThat(future.at("/transaction/transactionId").asText()).isEqualTo("t6");
        assertThat(future.get("reason").asText()).isEqualTo("FUTURE_DATED");
        assertThat(future.get("windowStart").asText()).isEqualTo(at("13:00:00"));
        assertThat(future.get("windowEnd").asText()).isEqualTo(at("13:10:00"));
        assertThat(future.get("watermark").asText()).isEqualTo(at("12:01:54.999"));
        assertThat(future.get("lateByMillis").asLong()).isEqualTo(-56 * 60_000);
        assertThat(future.get("detectedAt").asText()).isEqualTo(at("12:04:00"));

        List<JsonNode> dead = json(out.resolve("dead-letters.jsonl"));
        assertThat(dead).hasSize(2);
        assertThat(dead.get(0).get("reason").asText()).isEqualTo("UNDECODABLE");
        assertThat(dead.get(0).get("sourceTopic").asText()).isEqualTo("tx.jsonl");
        assertThat(dead.get(0).get("sourcePartition").asInt()).isZero();
        assertThat(dead.get(0).get("sourceOffset").asLong()).isEqualTo(4);
        assertThat(dead.get(0).get("errorMessage").asText())
                .startsWith("tx.jsonl:4: not valid JSON");
        assertThat(Base64.getDecoder().decode(dead.get(0).get("value").asText()))
                .isEqualTo(HAND_WRITTEN.get(3).getBytes(StandardCharsets.UTF_8));
        assertThat(dead.get(0).get("detectedAt").asText()).isEqualTo(at("12:02:02"));
        assertThat(dead.get(1).get("reason").asText()).isEqualTo("INVALID");
        assertThat(dead.get(1).get("sourceOffset").asLong()).isEqualTo(5);
        assertThat(dead.get(1).get("errorMessage").asText())
                .isEqualTo("amountMinor is negative (-5) in transaction t5");
        assertThat(dead.get(1).get("detectedAt").asText()).isEqualTo(at("12:03:00"));

        // Every valid, not future-dated line is scored at its arrival: the retry of t1 again,
        // with the original's values; the too-late t10 too, over its user's earlier lines.
        List<JsonNode> txScores = json(out.resolve("transaction-scores.jsonl"));
        assertThat(txScores)
                .extracting(sc -> sc.get("transactionId").asText())
                .containsExactly("t1", "t1", "t10", "t11", "t12", "t2", "t3", "t7", "t8", "t9");
        JsonNode t1 = txScores.get(0);
        JsonNode t1Retry = txScores.get(1);
        assertThat(t1.get("scoredAt").asText()).isEqualTo(at("12:01:00.200"));
        assertThat(t1Retry.get("scoredAt").asText()).isEqualTo(at("12:05:00"));
        for (String field : List.of("features", "score", "decision", "modelName", "modelVersion")) {
            assertThat(t1Retry.get(field)).as(field).isEqualTo(t1.get(field));
        }
        assertThat(t1.get("modelName").asText()).isEqualTo("fraud-transaction");
        assertThat(t1.get("recordTimestamp").isNull()).isTrue();
        assertThat(t1.at("/features/txCount").asLong()).isEqualTo(1);
        JsonNode t3 = txScores.get(6);
        assertThat(t3.at("/features/txCount").asLong()).as("t1 is after t3").isEqualTo(1);
        assertThat(t3.at("/features/historyComplete").asBoolean()).isTrue();
        JsonNode t10 = txScores.get(2);
        assertThat(t10.at("/features/txCount").asLong()).isEqualTo(3);
        assertThat(t10.at("/features/amountSum").asLong()).isEqualTo(3400);
        assertThat(t10.at("/features/newDevice").asBoolean()).isFalse();
        // 3m24.999s behind the watermark, beyond the allowed lateness, yet nothing of its window
        // had left: alice's entries leave at their event time + T + L (12:13 and later), so its
        // features are exact and say so (the state's record of what left decides, not the
        // watermark of the moment).
        assertThat(t10.at("/features/historyComplete").asBoolean())
                .as("nothing of t10's window had left the state")
                .isTrue();
        assertThat(t10.get("scoredAt").asText()).isEqualTo(at("12:12:40"));
        JsonNode t8 = txScores.get(8);
        assertThat(t8.at("/features/txCount").asLong()).as("t2; t6 is quarantined").isEqualTo(2);
        assertThat(t8.at("/features/newMerchant").asBoolean()).isTrue();
        JsonNode t11 = txScores.get(3);
        assertThat(t11.at("/features/txCount").asLong()).isEqualTo(2);
        assertThat(t11.get("scoredAt").asText())
                .as("its event time stands for its arrival")
                .isEqualTo(at("12:13:00"));
        for (JsonNode sc : txScores) {
            double p = sc.get("score").asDouble();
            assertThat(sc.get("decision").asText())
                    .isEqualTo(p >= 0.9 ? "BLOCK" : p >= 0.5 ? "REVIEW" : "ALLOW");
        }

        assertThat(stdout.toString())
                .contains("tx scores              10  at arrival, trailing-window=10m: 9 ids (1")
                .contains("input lines            13")
                .contains("valid                  10")
                .contains("dead letters            2")
                .contains("quarantined             1")
                .contains("too late                1")
                .contains("feature panes           6  of which 2 LATE")
                .contains("scores                  6  ALLOW ")
                .contains(out.resolve("features.jsonl").toString())
                .contains("archived to");

        // The archive: every valid line once (the malformed line 4 and the invalid line 5 are dead
        // letters), with its line number and arrival; the future-dated t6 flagged, in its own
        // event-time hour; and exactly the records of the four output files.
        assertArchivedTransactions(
                archive,
                List.of(
                        received(1, "t1", "12:01:00.200", false),
                        received(2, "t2", "12:02:01", false),
                        received(3, "t3", "12:02:02", false),
                        received(6, "t6", "12:04:00", true),
                        received(7, "t1", "12:05:00", false),
                        received(8, "t7", "12:10:10.500", false),
                        received(9, "t8", "12:10:30", false),
                        received(10, "t12", "12:10:40", false),
                        received(11, "t9", "12:12:31", false),
                        received(12, "t10", "12:12:40", false),
                        received(13, "t11", "12:13:00", false)));
        assertThat(
                        ArchiveFiles.read(
                                archive, ArchiveStream.TRANSACTIONS, ArchivedTransaction.class))
                .filteredOn(a -> a.record().getQuarantined())
                .singleElement()
                .extracting(a -> a.partition().path())
                .isEqualTo("date=2026-11-28/hour=13");
        assertArchiveHoldsTheOutputs(archive, out);
        try (Stream<Path> files = Files.list(out)) {
            assertThat(files.map(p -> p.getFileName().toString()))
                    .as("staging and temporary files are gone")
                    .containsExactlyInAnyOrder(
                            "features.jsonl",
                            "scores.jsonl",
                            "late.jsonl",
                            "dead-letters.jsonl",
                            "transaction-scores.jsonl",
                            "policy.json");
        }
        assertThat(newThreadsAfterSettling(threadsBefore))
                .as("threads left behind by the replay")
                .isEmpty();
    }

    // ---- determinism, on simulated traffic ----

    @BeforeAll
    static void simulate() throws IOException {
        SimulationConfig config =
                SimulationConfig.builder()
                        .users(30)
                        .start(Instant.parse("2026-11-28T12:00:00Z")) // afternoon: busy
                        .duration(Duration.ofHours(2))
                        .seed(11)
                        .txPerUserDay(600)
                        .duplicateRate(0.02)
                        .futureRate(0.01)
                        .hoursLateShare(0.02)
                        .malformedRate(0.01)
                        .build();
        StringBuilder text = new StringBuilder();
        for (SimulatedRecord r : TransactionSimulator.generateAll(config)) {
            text.append(r.jsonLine()).append('\n');
        }
        simulated = shared.resolve("simulated.jsonl");
        Files.writeString(simulated, text, StandardCharsets.UTF_8);
    }

    private static ReplayConfig simulatedReplay(Path output, int parallelism) {
        Map<String, String> options = new LinkedHashMap<>();
        // Short windows and no out-of-orderness, so that network delays of a second or two make
        // records late within grace often enough to be compared.
        options.put("window-size", "1m");
        options.put("allowed-lateness", "1m");
        options.put("out-of-orderness", "0s");
        options.put("parallelism", Integer.toString(parallelism));
        options.put("state-backend", "hashmap");
        return ReplayConfig.of(simulated, output, JobConfig.of(options));
    }

    /**
     * The simulated file replayed once at parallelism 2, shared by the tests below. It also writes
     * an archive, the runs it is compared with do not: so the comparisons also show that archiving
     * leaves the output files byte for byte as they were.
     */
    private static synchronized Path reference() throws Exception {
        if (reference == null) {
            Path out = shared.resolve("reference");
            Path archive = shared.resolve("reference-archive");
            ReplaySummary s =
                    Replay.run(
                            simulatedReplay(out, 2)
                                    .withArchive(
                                            org.apache.flink.core.fs.Path.fromLocalFile(
                                                    archive.toFile())));
            System.out.print(s.format(simulatedReplay(out, 2)));
            // The file exercises every path, or the comparisons below prove little.
            assertThat(s.deadLetters()).isPositive();
            assertThat(s.quarantined()).isPositive();
            assertThat(s.tooLate()).isPositive();
            assertThat(s.latePanes()).isPositive();
            assertThat(s.inputLines()).isEqualTo(Files.readAllLines(simulated).size());
            assertThat(s.inputLines()).isEqualTo(s.valid() + s.deadLetters() + s.quarantined());
            reference = out;
            referenceArchive = archive;
        }
        return reference;
    }

    @Test
    void theArchiveOfAReplayHoldsEveryValidLineOnceAndEveryOutputRecordInItsPartition()
            throws Exception {
        Path out = reference();
        Path archive = referenceArchive;

        // Expected from the input file itself: every line that is not a dead letter, with its
        // line number, its arrival (or event time without one) and the quarantine rule (event time
        // beyond arrival + the default tolerance of 5 minutes).
        Set<Long> deadLines =
                json(out.resolve("dead-letters.jsonl")).stream()
                        .map(d -> d.get("sourceOffset").asLong())
                        .collect(Collectors.toSet());
        List<String> input = lines(simulated);
        List<Received> expected = new ArrayList<>();
        for (int i = 0; i < input.size(); i++) {
            long line = i + 1;
            if (deadLines.contains(line)) {
                continue;
            }
            JsonNode tx = JSON.readTree(input.get(i));
            Instant eventTime = Instant.parse(tx.get("eventTime").asText());
            Instant arrival =
                    tx.has("arrivalTime")
                            ? Instant.parse(tx.get("arrivalTime").asText())
                            : eventTime;
            expected.add(
                    new Received(
                            line,
                            tx.get("transactionId").asText(),
                            arrival,
                            eventTime.isAfter(arrival.plus(Duration.ofMinutes(5)))));
        }
        assertThat(expected.stream().filter(Received::quarantined).count())
                .as("quarantined lines = FUTURE_DATED late records")
                .isEqualTo(
                        json(out.resolve("late.jsonl")).stream()
                                .filter(l -> l.get("reason").asText().equals("FUTURE_DATED"))
                                .count())
                .isPositive();
        assertArchivedTransactions(archive, expected);
        assertArchiveHoldsTheOutputs(archive, out);

        // The run spans hours, and the sinks ran at parallelism 2: several partitions and files.
        assertThat(
                        ArchiveFiles.read(
                                        archive,
                                        ArchiveStream.TRANSACTIONS,
                                        ArchivedTransaction.class)
                                .stream()
                                .map(a -> a.partition())
                                .distinct()
                                .count())
                .isGreaterThan(2);
        assertThat(ArchiveFiles.files(archive.resolve("features"))).hasSizeGreaterThan(2);
    }

    @Test
    void simulatedTrafficReplayedTwiceGivesByteIdenticalFiles() throws Exception {
        Path again = tmp.resolve("again");
        Replay.run(simulatedReplay(again, 2));

        assertSameFiles(reference(), again);
    }

    @Test
    void theOutputDoesNotDependOnTheWindowParallelism() throws Exception {
        Path single = tmp.resolve("p1");
        Replay.run(simulatedReplay(single, 1));

        assertSameFiles(reference(), single);
    }

    // ---- helpers ----

    /** One archived transaction, as far as the archive's readers care. */
    private record Received(
            long line, String transactionId, Instant receivedAt, boolean quarantined) {}

    private static Received received(long line, String id, String arrival, boolean quarantined) {
        return new Received(line, id, Instant.parse(at(arrival)), quarantined);
    }

    /**
     * The transactions archive holds exactly {@code expected}, once each, from the replayed file
     * (partition 0, no Kafka timestamp), each in the partition of its event time.
     */
    private static void assertArchivedTransactions(Path archive, List<Received> expected) {
        List<ArchiveFiles.Archived<ArchivedTransaction>> archived =
                ArchiveFiles.read(archive, ArchiveStream.TRANSACTIONS, ArchivedTransaction.class);
        String file = archived.isEmpty() ? "" : archived.get(0).record().getSourceTopic();
        assertThat(file).endsWith(".jsonl");
        for (ArchiveFiles.Archived<ArchivedTransaction> a : archived) {
            ArchivedTransaction r = a.record();
            assertThat(a.partition())
                    .as("partition of %s", r)
                    .isEqualTo(ArchiveStream.TRANSACTIONS.partitionOf(r))
                    .isEqualTo(
                            ArchivePartition.of(r.getTransaction().getEventTime().toEpochMilli()));
            assertThat(r.getSourceTopic()).isEqualTo(file);
            assertThat(r.getSourcePartition()).isZero();
            assertThat(r.getRecordTimestamp()).isNull();
        }
        assertThat(archived)
                .extracting(
                        a ->
                                new Received(
                                        a.record().getSourceOffset(),
                                        a.record().getTransaction().getTransactionId(),
                                        a.record().getReceivedAt(),
                                        a.record().getQuarantined()))
                .containsExactlyInAnyOrderElementsOf(expected);
    }

    /**
     * Each output file's records are exactly (as a multiset) the records of its archive stream,
     * each in the partition the contract gives it; no hidden (in-progress, pending) file is left.
     */
    private static void assertArchiveHoldsTheOutputs(Path archive, Path out) throws IOException {
        assertArchivedAsWritten(archive, ArchiveStream.FEATURES, ReplayOutput.FEATURES, out);
        assertArchivedAsWritten(archive, ArchiveStream.SCORES, ReplayOutput.SCORES, out);
        assertArchivedAsWritten(archive, ArchiveStream.LATE, ReplayOutput.LATE, out);
        assertArchivedAsWritten(
                archive, ArchiveStream.DEAD_LETTERS, ReplayOutput.DEAD_LETTERS, out);
        assertArchivedAsWritten(
                archive, ArchiveStream.TRANSACTION_SCORES, ReplayOutput.TRANSACTION_SCORES, out);
        List<Path> files = new java.util.ArrayList<>(ArchiveFiles.files(archive));
        // Beside the streams, the replay's event-time policy: one file, in force since always.
        Path policies = archive.resolve(org.fraudpipe.job.archive.ArchivePolicy.DIRECTORY);
        assertThat(files)
                .filteredOn(f -> f.startsWith(policies))
                .singleElement()
                .satisfies(
                        f ->
                                assertThat(f.getFileName().toString())
                                        .startsWith("policy-0000000000000-")
                                        .endsWith(".json"));
        files.removeIf(f -> f.startsWith(policies));
        assertThat(files).isNotEmpty();
        assertThat(files)
                .as("only committed part files")
                .allSatisfy(
                        f -> {
                            assertThat(ArchiveFiles.isHidden(f)).as(f.toString()).isFalse();
                            assertThat(f.getFileName().toString())
                                    .startsWith("part-")
                                    .endsWith(".avro");
                        });
    }

    private static <T extends SpecificRecordBase> void assertArchivedAsWritten(
            Path archive, ArchiveStream stream, ReplayOutput<T> output, Path out)
            throws IOException {
        List<ArchiveFiles.Archived<T>> archived = ArchiveFiles.read(archive, stream, output.type());
        for (ArchiveFiles.Archived<T> a : archived) {
            assertThat(a.partition())
                    .as("%s partition of %s", stream, a.record())
                    .isEqualTo(stream.partitionOf(a.record()));
        }
        List<String> written = lines(out.resolve(output.fileName()));
        assertThat(written).as(output.fileName()).isNotEmpty();
        assertThat(archived.stream().map(a -> AvroJson.toJsonLine(a.record())).sorted().toList())
                .as("%s archive vs %s", stream, output.fileName())
                .containsExactlyElementsOf(written.stream().sorted().toList());
    }

    private static void assertSameFiles(Path expected, Path actual) throws IOException {
        for (ReplayOutput<?> output : ReplayOutput.ALL) {
            byte[] a = Files.readAllBytes(expected.resolve(output.fileName()));
            byte[] b = Files.readAllBytes(actual.resolve(output.fileName()));
            assertThat(a).as(output.fileName()).isNotEmpty();
            if (!Arrays.equals(a, b)) {
                // The lines, for a readable failure.
                assertThat(lines(actual.resolve(output.fileName())))
                        .as(output.fileName())
                        .containsExactlyElementsOf(lines(expected.resolve(output.fileName())));
            }
            assertThat(b).as(output.fileName()).isEqualTo(a);
        }
    }

    private static List<String> lines(Path file) throws IOException {
        return Files.readAllLines(file, StandardCharsets.UTF_8);
    }

    private static List<JsonNode> json(Path file) throws IOException {
        List<JsonNode> out = new ArrayList<>();
        for (String line : lines(file)) {
            out.add(JSON.readTree(line));
        }
        return out;
    }

    private static Set<Thread> liveNonDaemonThreads() {
        return Thread.getAllStackTraces().keySet().stream()
                .filter(t -> t.isAlive() && !t.isDaemon())
                .collect(Collectors.toSet());
    }

    /**
     * Non-daemon threads started since {@code before} that are still alive after a grace period.
     */
    private static List<String> newThreadsAfterSettling(Set<Thread> before)
            throws InterruptedException {
        List<String> left = List.of();
        for (int i = 0; i < 50; i++) {
            left =
                    liveNonDaemonThreads().stream()
                            .filter(t -> !before.contains(t))
                            .map(Thread::getName)
                            .sorted()
                            .toList();
            if (left.isEmpty()) {
                break;
            }
            Thread.sleep(200);
        }
        return left;
    }
}
