package org.fraudpipe.tools.soak;

import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.TreeMap;
import java.util.stream.Stream;
import org.apache.avro.file.DataFileStream;
import org.apache.avro.specific.SpecificDatumReader;
import org.apache.avro.specific.SpecificRecord;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.fraudpipe.job.ingest.IngestedRecord;
import org.fraudpipe.job.ingest.RecordIngestor;
import org.fraudpipe.job.ingest.SourcePosition;
import org.fraudpipe.schemas.Topic;
import org.fraudpipe.schemas.archive.ArchiveStream;
import org.fraudpipe.schemas.avro.ArchivedTransaction;
import org.fraudpipe.schemas.avro.DeadLetter;
import org.fraudpipe.schemas.avro.LateReason;
import org.fraudpipe.schemas.avro.LateRecord;
import org.fraudpipe.schemas.avro.ScoreRecord;
import org.fraudpipe.schemas.avro.Transaction;
import org.fraudpipe.schemas.avro.TransactionScore;
import org.fraudpipe.schemas.security.ClientProperties;
import org.fraudpipe.schemas.wire.ConfluentAvroCodec;
import org.fraudpipe.schemas.wire.TopicSerdes;

/**
 * The campaign's judge, from outside the job, once it has been drained: the input topic as the
 * producers wrote it, against what the job wrote ({@code read_committed}) and archived. What it
 * asserts (a finding names the records that show a breach):
 *
 * <ul>
 *   <li><b>no answer lost</b>: every valid, not future-dated arrival of the input has an answer to
 *       that arrival (its partition and offset) on {@code transaction-scores};
 *   <li><b>no answer changed</b>: every answer of one transaction id has the same values (features,
 *       score, decision, release, the Kafka timestamp scored), whatever failover, restore or retry
 *       produced it, but for a transaction beyond the state bound answered again after a failover
 *       ({@code historyComplete} false in one of its answers: counted apart, as the README's
 *       promise allows); and no answer names an id that never arrived valid;
 *   <li><b>no revision regresses</b>: per window, the revisions on {@code scores} (and {@code
 *       features}) come in increasing order, each once (exactly-once: a revision written twice is a
 *       duplicate);
 *   <li><b>dead letters and quarantine exact</b>: every arrival that cannot be a transaction is one
 *       dead letter (by partition and offset), every future-dated arrival one {@code FUTURE_DATED}
 *       late record, and nothing else;
 *   <li><b>the archive holds every valid arrival once</b> (by partition and offset).
 * </ul>
 *
 * The windows' values and the too-late decisions are judged by {@code ./fraud parity} over the
 * archive (run by the campaign after this): it recomputes them with the job's rules from what
 * arrived and when, which the order of a live run (several partitions, faults) makes the only exact
 * reference.
 *
 * <p>The soak and the production rehearsal ({@code ./fraud rehearsal}) both judge with it; on a
 * secured broker it reads as the principal of the client properties it is given (one that may read
 * every topic: the input, the outputs, the late and dead-letter topics).
 */
public final class SoakChecker {

    /** A breach of one kind, with its count and the first few records that show it. */
    public record Finding(String kind, long count, List<String> examples) {}

    /** What the checker saw and found. */
    public record Verdict(Map<String, Long> counts, List<Finding> findings) {
        public boolean clean() {
            return findings.isEmpty();
        }
    }

    private static final int EXAMPLES = 5;
    private static final Duration POLL = Duration.ofMillis(500);

    private final String bootstrap;
    private final String registryUrl;
    private final ClientProperties client;
    private final Path archive;
    private final Duration futureTolerance;
    private final Map<String, Finding> findings = new LinkedHashMap<>();
    private final Map<String, Long> counts = new LinkedHashMap<>();

    /**
     * @param archive the archive's files (for an object store, the directory its objects are files
     *     in)
     * @param futureTolerance the job's {@code --future-tolerance}
     */
    public SoakChecker(
            String bootstrap,
            String registryUrl,
            ClientProperties client,
            Path archive,
            Duration futureTolerance) {
        this.bootstrap = bootstrap;
        this.registryUrl = registryUrl;
        this.client = client;
        this.archive = archive;
        this.futureTolerance = futureTolerance;
    }

    public Verdict check() throws IOException {
        // The input, classified by the job's own rules (decode, validate, future-dated).
        ConfluentAvroCodec<Transaction> input = codec(Topic.TRANSACTIONS, Transaction.class);
        RecordIngestor ingestor = new RecordIngestor(futureTolerance);
        Map<String, String> validIds = new HashMap<>(); // id -> first arrival's position
        List<String> validArrivals = new ArrayList<>();
        List<String> allValid = new ArrayList<>(); // future-dated included: the archive's
        Map<String, Long> futureIds = new TreeMap<>();
        Map<String, Long> deadPositions = new TreeMap<>();
        for (ConsumerRecord<byte[], byte[]> r : readAll(Topic.TRANSACTIONS, false)) {
            String position = r.partition() + "@" + r.offset();
            IngestedRecord in =
                    ingestor.ingest(
                            new SourcePosition(
                                    r.topic(),
                                    r.partition(),
                                    r.offset(),
                                    Instant.ofEpochMilli(r.timestamp())),
                            r.key(),
                            r.value(),
                            r.timestamp(),
                            input::decode);
            if (in.transaction == null) {
                deadPositions.merge(position, 1L, Long::sum);
                continue;
            }
            allValid.add(position);
            if (in.futureDated) {
                futureIds.merge(in.transaction.getTransactionId(), 1L, Long::sum);
            } else {
                validArrivals.add(position);
                validIds.putIfAbsent(in.transaction.getTransactionId(), position);
            }
        }
        counts.put("inputRecords", (long) (allValid.size() + deadPositions.size()));
        counts.put("validArrivals", (long) validArrivals.size());
        counts.put("futureDated", futureIds.values().stream().mapToLong(Long::longValue).sum());
        counts.put("deadLetterInputs", (long) deadPositions.size());

        checkAnswers(validArrivals, validIds);
        checkWindows();
        checkDeadLetters(deadPositions);
        checkQuarantine(futureIds);
        checkArchive(allValid);
        return new Verdict(counts, List.copyOf(findings.values()));
    }

    private void checkAnswers(List<String> validArrivals, Map<String, String> validIds) {
        ConfluentAvroCodec<TransactionScore> codec =
                codec(Topic.TRANSACTION_SCORES, TransactionScore.class);
        Map<String, Long> answeredArrivals = new HashMap<>();
        Map<String, TransactionScore> firstById = new HashMap<>();
        long answers = 0;
        long changedBeyondTheBound = 0;
        for (ConsumerRecord<byte[], byte[]> r : readAll(Topic.TRANSACTION_SCORES, true)) {
            TransactionScore s = codec.decode(r.value());
            answers++;
            answeredArrivals.merge(
                    s.getSourcePartition() + "@" + s.getSourceOffset(), 1L, Long::sum);
            if (!validIds.containsKey(s.getTransactionId())) {
                find("extra answer", s.getTransactionId() + " never arrived valid");
                continue;
            }
            TransactionScore first = firstById.putIfAbsent(s.getTransactionId(), s);
            if (first != null
                    && !values(first).equals(values(s))
                    && !(first.getFeatures().getHistoryComplete()
                            && s.getFeatures().getHistoryComplete())) {
                // Beyond the state bound (README, "Deterministic values"): what the state still
                // held when the transaction was answered again depends on the watermark; said by
                // historyComplete false in at least one answer. Counted, not a breach.
                changedBeyondTheBound++;
            } else if (first != null && !values(first).equals(values(s))) {
                find(
                        "answer changed",
                        s.getTransactionId()
                                + ": "
                                + differences(values(first), values(s))
                                + " (answering "
                                + first.getSourcePartition()
                                + "@"
                                + first.getSourceOffset()
                                + ", then "
                                + s.getSourcePartition()
                                + "@"
                                + s.getSourceOffset()
                                + ")");
            }
        }
        counts.put("answers", answers);
        counts.put("answersChangedBeyondTheStateBound", changedBeyondTheBound);
        counts.put(
                "answersBeyondOnePerArrival",
                answeredArrivals.values().stream().mapToLong(n -> n - 1).sum());
        for (String arrival : validArrivals) {
            if (!answeredArrivals.containsKey(arrival)) {
                find("answer lost", "arrival " + arrival + " has no answer");
            }
        }
    }

    /** The fields (and feature fields) where {@code a} and {@code b} differ, with both values. */
    static String differences(
            org.apache.avro.specific.SpecificRecordBase a,
            org.apache.avro.specific.SpecificRecordBase b) {
        List<String> out = new ArrayList<>();
        for (org.apache.avro.Schema.Field f : a.getSchema().getFields()) {
            Object x = a.get(f.pos());
            Object y = b.get(f.pos());
            if (java.util.Objects.equals(x, y)) {
                continue;
            }
            if (x instanceof org.apache.avro.specific.SpecificRecordBase rx
                    && y instanceof org.apache.avro.specific.SpecificRecordBase ry) {
                out.add(f.name() + ".{" + differences(rx, ry) + "}");
            } else {
                out.add(f.name() + " " + x + " then " + y);
            }
        }
        return String.join(", ", out);
    }

    /** An answer without what differs between two answers of one id (the arrival, the time). */
    private static TransactionScore values(TransactionScore s) {
        return TransactionScore.newBuilder(s)
                .setScoredAt(Instant.EPOCH)
                .setSourcePartition(null)
                .setSourceOffset(null)
                .build();
    }

    private void checkWindows() {
        ConfluentAvroCodec<ScoreRecord> scores = codec(Topic.SCORES, ScoreRecord.class);
        Map<String, Integer> lastRevision = new HashMap<>();
        long panes = 0;
        for (ConsumerRecord<byte[], byte[]> r : readAll(Topic.SCORES, true)) {
            ScoreRecord s = scores.decode(r.value());
            panes++;
            String key = s.getUserId() + "@" + s.getWindowStart();
            Integer before = lastRevision.put(key, s.getRevision());
            if (before != null && s.getRevision() <= before) {
                find(
                        s.getRevision() == before ? "revision written twice" : "revision regressed",
                        key + ": revision " + s.getRevision() + " after " + before);
            }
        }
        counts.put("panes", panes);
        counts.put("windows", (long) lastRevision.size());
    }

    private void checkDeadLetters(Map<String, Long> expected) {
        ConfluentAvroCodec<DeadLetter> codec = codec(Topic.DEAD_LETTERS, DeadLetter.class);
        Map<String, Long> seen = new TreeMap<>();
        for (ConsumerRecord<byte[], byte[]> r : readAll(Topic.DEAD_LETTERS, true)) {
            DeadLetter d = codec.decode(r.value());
            seen.merge(d.getSourcePartition() + "@" + d.getSourceOffset(), 1L, Long::sum);
        }
        compare("dead letter", expected, seen);
        counts.put("deadLetters", seen.values().stream().mapToLong(Long::longValue).sum());
    }

    private void checkQuarantine(Map<String, Long> expected) {
        ConfluentAvroCodec<LateRecord> codec = codec(Topic.LATE, LateRecord.class);
        Map<String, Long> seen = new TreeMap<>();
        long tooLate = 0;
        for (ConsumerRecord<byte[], byte[]> r : readAll(Topic.LATE, true)) {
            LateRecord l = codec.decode(r.value());
            if (l.getReason() == LateReason.FUTURE_DATED) {
                seen.merge(l.getTransaction().getTransactionId(), 1L, Long::sum);
            } else {
                tooLate++;
            }
        }
        compare("quarantined record", expected, seen);
        counts.put("tooLate", tooLate);
    }

    /** Each expected key as often as expected, nothing else. */
    private void compare(String what, Map<String, Long> expected, Map<String, Long> seen) {
        for (Map.Entry<String, Long> e : expected.entrySet()) {
            long n = seen.getOrDefault(e.getKey(), 0L);
            if (n < e.getValue()) {
                find(what + " missing", e.getKey() + ": " + n + " of " + e.getValue());
            } else if (n > e.getValue()) {
                find(what + " duplicated", e.getKey() + ": " + n + " for " + e.getValue());
            }
        }
        for (String k : seen.keySet()) {
            if (!expected.containsKey(k)) {
                find(what + " unexpected", k);
            }
        }
    }

    private void checkArchive(List<String> validArrivals) throws IOException {
        Map<String, Long> archived = new HashMap<>();
        Path dir = archive.resolve(ArchiveStream.TRANSACTIONS.directory());
        for (ArchivedTransaction a : readArchive(dir, ArchivedTransaction.class)) {
            archived.merge(a.getSourcePartition() + "@" + a.getSourceOffset(), 1L, Long::sum);
        }
        Map<String, Long> expected = new HashMap<>();
        validArrivals.forEach(p -> expected.put(p, 1L));
        compare("archived arrival", expected, archived);
        counts.put("archived", archived.values().stream().mapToLong(Long::longValue).sum());
    }

    private static <T extends SpecificRecord> List<T> readArchive(Path dir, Class<T> type)
            throws IOException {
        List<T> out = new ArrayList<>();
        if (!Files.isDirectory(dir)) {
            return out;
        }
        try (Stream<Path> files = Files.walk(dir)) {
            for (Path f : files.filter(Files::isRegularFile).toList()) {
                String name = f.getFileName().toString();
                if (name.startsWith(".") || name.startsWith("_")) {
                    continue;
                }
                try (InputStream in = Files.newInputStream(f);
                        DataFileStream<T> records =
                                new DataFileStream<>(in, new SpecificDatumReader<>(type))) {
                    records.forEach(out::add);
                }
            }
        }
        return out;
    }

    private void find(String kind, String example) {
        Finding f = findings.get(kind);
        List<String> examples = f == null ? new ArrayList<>() : new ArrayList<>(f.examples());
        if (examples.size() < EXAMPLES) {
            examples.add(example);
        }
        findings.put(kind, new Finding(kind, (f == null ? 0 : f.count()) + 1, examples));
    }

    private <T extends org.apache.avro.specific.SpecificRecord> ConfluentAvroCodec<T> codec(
            Topic topic, Class<T> type) {
        return TopicSerdes.forRegistry(client.registryConfig(registryUrl))
                .valueCodec(topic, topic.defaultName(), type);
    }

    /** Every record of {@code topic} up to its end offsets now. */
    private List<ConsumerRecord<byte[], byte[]>> readAll(Topic topic, boolean committed) {
        Properties p = client.kafkaProperties(bootstrap);
        p.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, "false");
        p.put(
                ConsumerConfig.ISOLATION_LEVEL_CONFIG,
                committed ? "read_committed" : "read_uncommitted");
        List<ConsumerRecord<byte[], byte[]>> out = new ArrayList<>();
        try (KafkaConsumer<byte[], byte[]> c =
                new KafkaConsumer<>(p, new ByteArrayDeserializer(), new ByteArrayDeserializer())) {
            List<TopicPartition> parts =
                    c.partitionsFor(topic.defaultName(), Duration.ofSeconds(30)).stream()
                            .map(i -> new TopicPartition(i.topic(), i.partition()))
                            .toList();
            c.assign(parts);
            c.seekToBeginning(parts);
            Map<TopicPartition, Long> end = c.endOffsets(parts, Duration.ofSeconds(30));
            while (parts.stream().anyMatch(tp -> c.position(tp) < end.get(tp))) {
                c.poll(POLL).forEach(out::add);
            }
        }
        out.sort(
                java.util.Comparator.comparingInt(
                                (ConsumerRecord<byte[], byte[]> r) -> r.partition())
                        .thenComparingLong(ConsumerRecord::offset));
        return out;
    }
}
