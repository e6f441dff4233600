package org.fraudpipe.tools.soak;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Properties;
import org.apache.avro.file.DataFileWriter;
import org.apache.avro.specific.SpecificDatumWriter;
import org.apache.avro.specific.SpecificRecord;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.fraudpipe.local.KafkaTestBroker;
import org.fraudpipe.schemas.Topic;
import org.fraudpipe.schemas.avro.ArchivedTransaction;
import org.fraudpipe.schemas.avro.DeadLetter;
import org.fraudpipe.schemas.avro.DeadLetterReason;
import org.fraudpipe.schemas.avro.Decision;
import org.fraudpipe.schemas.avro.FeatureRecord;
import org.fraudpipe.schemas.avro.ScoreRecord;
import org.fraudpipe.schemas.avro.Timing;
import org.fraudpipe.schemas.avro.Transaction;
import org.fraudpipe.schemas.avro.TransactionFeatures;
import org.fraudpipe.schemas.avro.TransactionScore;
import org.fraudpipe.schemas.security.ClientProperties;
import org.fraudpipe.schemas.wire.TopicSerdes;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * The campaign's checker catches what it claims to (a checker that cannot fail proves nothing):
 * against a real broker, an input and outputs written by this test, first as a correct job would
 * write them (no finding), then with one breach of each kind, each named with its record.
 */
class SoakCheckerIT {

    @RegisterExtension static final KafkaTestBroker KAFKA = new KafkaTestBroker(2);

    @TempDir Path dir;

    private static final Instant NOW =
            Instant.now().truncatedTo(java.time.temporal.ChronoUnit.SECONDS);

    private static Transaction tx(String id, String user, Instant eventTime) {
        return Transaction.newBuilder()
                .setTransactionId(id)
                .setUserId(user)
                .setAmountMinor(1_000)
                .setCurrency("EUR")
                .setMerchantId("m1")
                .setDeviceId("d1")
                .setCountry("DE")
                .setEventTime(eventTime)
                .build();
    }

    /** What one test wrote: the input's positions, by kind. */
    private record Input(
            List<RecordMetadata> valid, List<Transaction> validTx, RecordMetadata malformed) {}

    private <T extends SpecificRecord> byte[] encode(
            Topic topic, Class<T> type, T value, String scope) {
        return TopicSerdes.forRegistry("mock://" + scope)
                .valueCodec(topic, topic.defaultName(), type)
                .encode(value);
    }

    private Input writeInput(KafkaProducer<byte[], byte[]> producer, String scope)
            throws Exception {
        List<RecordMetadata> valid = new ArrayList<>();
        List<Transaction> validTx = new ArrayList<>();
        for (int i = 0; i < 4; i++) {
            Transaction t = tx(scope + "-t" + i, "u" + (i % 2), NOW.minusSeconds(60 - i));
            valid.add(
                    producer.send(
                                    new ProducerRecord<>(
                                            Topic.TRANSACTIONS.defaultName(),
                                            i % 2,
                                            t.getUserId().getBytes(StandardCharsets.UTF_8),
                                            encode(
                                                    Topic.TRANSACTIONS,
                                                    Transaction.class,
                                                    t,
                                                    scope)))
                            .get());
            validTx.add(t);
        }
        RecordMetadata malformed =
                producer.send(
                                new ProducerRecord<>(
                                        Topic.TRANSACTIONS.defaultName(),
                                        0,
                                        null,
                                        "not avro".getBytes(StandardCharsets.UTF_8)))
                        .get();
        return new Input(valid, validTx, malformed);
    }

    @Test
    void aCorrectRunHasNoFindingAndEveryBreachIsNamed() throws Exception {
        // Each case on a fresh set of topics would need a broker each: instead the input is
        // written once, the clean outputs checked, then the breaches added and checked again.
        Properties p = new Properties();
        p.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, KAFKA.bootstrapServers());
        String scope = "soak-checker";
        Path archive = dir.resolve("archive");
        try (KafkaProducer<byte[], byte[]> producer =
                new KafkaProducer<>(p, new ByteArraySerializer(), new ByteArraySerializer())) {
            Input in = writeInput(producer, scope);
            for (int i = 0; i < in.valid().size(); i++) {
                answer(producer, scope, in.validTx().get(i), in.valid().get(i), 0.1 * i);
            }
            pane(producer, scope, "u0", 0);
            pane(producer, scope, "u0", 1);
            deadLetter(producer, scope, in.malformed());
            archive(archive, in, in.valid().size());

            // Answered again after a failover beyond the state bound: other values, said by
            // historyComplete false (README, "Deterministic values"): counted, not a breach.
            answer(producer, scope, in.validTx().get(2), in.valid().get(2), 0.5, false);

            SoakChecker.Verdict clean = checker(scope, archive).check();

            assertThat(clean.findings()).as("a correct run").isEmpty();
            assertThat(clean.counts())
                    .containsEntry("validArrivals", 4L)
                    .containsEntry("answers", 5L)
                    .containsEntry("answersChangedBeyondTheStateBound", 1L)
                    .containsEntry("windows", 1L);

            // The breaches: an answer changed (another score for t1), a revision regressed, a
            // dead letter twice, an arrival archived twice, and a transaction never answered.
            answer(producer, scope, in.validTx().get(1), in.valid().get(1), 0.99);
            pane(producer, scope, "u0", 0);
            deadLetter(producer, scope, in.malformed());
            archive(dir.resolve("archive-2"), in, 1);
            Files.walk(dir.resolve("archive-2"))
                    .filter(Files::isRegularFile)
                    .forEach(
                            f -> {
                                try {
                                    Files.copy(
                                            f,
                                            archive.resolve("transactions")
                                                    .resolve("date=x")
                                                    .resolve("hour=00")
                                                    .resolve("part-dup.avro"));
                                } catch (java.io.IOException e) {
                                    throw new java.io.UncheckedIOException(e);
                                }
                            });
            Transaction unanswered = tx(scope + "-lost", "u1", NOW.minusSeconds(10));
            producer.send(
                            new ProducerRecord<>(
                                    Topic.TRANSACTIONS.defaultName(),
                                    1,
                                    null,
                                    encode(
                                            Topic.TRANSACTIONS,
                                            Transaction.class,
                                            unanswered,
                                            scope)))
                    .get();

            SoakChecker.Verdict broken = checker(scope, archive).check();

            assertThat(broken.findings())
                    .extracting(SoakChecker.Finding::kind)
                    .contains(
                            "answer changed",
                            "revision regressed",
                            "dead letter duplicated",
                            "archived arrival duplicated",
                            "answer lost",
                            "archived arrival missing");
            assertThat(broken.findings())
                    .filteredOn(f -> f.kind().equals("answer changed"))
                    .singleElement()
                    .satisfies(f -> assertThat(f.examples().get(0)).startsWith(scope + "-t1"));
        }
    }

    private SoakChecker checker(String scope, Path archive) {
        return new SoakChecker(
                KAFKA.bootstrapServers(),
                "mock://" + scope,
                ClientProperties.none(),
                archive,
                Duration.ofMinutes(5));
    }

    private void answer(
            KafkaProducer<byte[], byte[]> producer,
            String scope,
            Transaction t,
            RecordMetadata arrival,
            double score)
            throws Exception {
        answer(producer, scope, t, arrival, score, true);
    }

    private void answer(
            KafkaProducer<byte[], byte[]> producer,
            String scope,
            Transaction t,
            RecordMetadata arrival,
            double score,
            boolean historyComplete)
            throws Exception {
        TransactionFeatures f =
                TransactionFeatures.newBuilder()
                        .setTransactionId(t.getTransactionId())
                        .setUserId(t.getUserId())
                        .setEventTime(t.getEventTime())
                        .setTrailingWindowMillis(60_000)
                        .setTxCount(1)
                        .setAmountSum(t.getAmountMinor())
                        .setAmountMax(t.getAmountMinor())
                        .setDistinctDevices(1)
                        .setDistinctMerchants(1)
                        .setDistinctCountries(1)
                        .setAmountMinor(t.getAmountMinor())
                        .setNewDevice(true)
                        .setNewMerchant(true)
                        .setNewCountry(true)
                        .setHistoryComplete(historyComplete)
                        .build();
        TransactionScore s =
                TransactionScore.newBuilder()
                        .setTransactionId(t.getTransactionId())
                        .setUserId(t.getUserId())
                        .setEventTime(t.getEventTime())
                        .setFeatures(f)
                        .setScore(score)
                        .setDecision(Decision.ALLOW)
                        .setModelName("m")
                        .setModelVersion("1")
                        .setRecordTimestamp(Instant.ofEpochMilli(arrival.timestamp()))
                        .setSourcePartition(arrival.partition())
                        .setSourceOffset(arrival.offset())
                        .setScoredAt(Instant.now())
                        .build();
        producer.send(
                        new ProducerRecord<>(
                                Topic.TRANSACTION_SCORES.defaultName(),
                                null,
                                encode(Topic.TRANSACTION_SCORES, TransactionScore.class, s, scope)))
                .get();
    }

    private void pane(
            KafkaProducer<byte[], byte[]> producer, String scope, String user, int revision)
            throws Exception {
        Instant start = NOW.minusSeconds(120).truncatedTo(java.time.temporal.ChronoUnit.MINUTES);
        FeatureRecord f =
                FeatureRecord.newBuilder()
                        .setUserId(user)
                        .setWindowStart(start)
                        .setWindowEnd(start.plusSeconds(60))
                        .setTxCount(1 + revision)
                        .setAmountSum(1000)
                        .setAmountMax(1000)
                        .setDistinctDevices(1)
                        .setDistinctMerchants(1)
                        .setDistinctCountries(1)
                        .setRevision(revision)
                        .setTiming(revision == 0 ? Timing.ON_TIME : Timing.LATE)
                        .setLateRecordsIncluded(revision)
                        .setEmittedAt(start.plusSeconds(61))
                        .setWatermark(start.plusSeconds(61))
                        .build();
        ScoreRecord s =
                ScoreRecord.newBuilder()
                        .setUserId(user)
                        .setWindowStart(start)
                        .setWindowEnd(start.plusSeconds(60))
                        .setFeatures(f)
                        .setScore(0.1)
                        .setDecision(Decision.ALLOW)
                        .setModelName("m")
                        .setModelVersion("1")
                        .setRevision(revision)
                        .setTiming(f.getTiming())
                        .setScoredAt(start.plusSeconds(61))
                        .build();
        producer.send(
                        new ProducerRecord<>(
                                Topic.SCORES.defaultName(),
                                0,
                                user.getBytes(StandardCharsets.UTF_8),
                                encode(Topic.SCORES, ScoreRecord.class, s, scope)))
                .get();
    }

    private void deadLetter(KafkaProducer<byte[], byte[]> producer, String scope, RecordMetadata m)
            throws Exception {
        DeadLetter d =
                DeadLetter.newBuilder()
                        .setSourceTopic(m.topic())
                        .setSourcePartition(m.partition())
                        .setSourceOffset(m.offset())
                        .setRecordTimestamp(Instant.ofEpochMilli(m.timestamp()))
                        .setValue(
                                java.nio.ByteBuffer.wrap(
                                        "not avro".getBytes(StandardCharsets.UTF_8)))
                        .setReason(DeadLetterReason.UNDECODABLE)
                        .setErrorMessage("not avro")
                        .setDetectedAt(Instant.now())
                        .build();
        producer.send(
                        new ProducerRecord<>(
                                Topic.DEAD_LETTERS.defaultName(),
                                null,
                                encode(Topic.DEAD_LETTERS, DeadLetter.class, d, scope)))
                .get();
    }

    /** The first {@code n} valid arrivals of {@code in}, archived once each. */
    private static void archive(Path root, Input in, int n) throws Exception {
        Path hour = Files.createDirectories(root.resolve("transactions/date=x/hour=00"));
        try (DataFileWriter<ArchivedTransaction> w =
                new DataFileWriter<>(new SpecificDatumWriter<>(ArchivedTransaction.class))) {
            w.create(
                    ArchivedTransaction.getClassSchema(),
                    hour.resolve("part-" + root.getFileName() + ".avro").toFile());
            for (int i = 0; i < n; i++) {
                RecordMetadata m = in.valid().get(i);
                w.append(
                        new ArchivedTransaction(
                                in.validTx().get(i),
                                m.topic(),
                                m.partition(),
                                m.offset(),
                                Instant.ofEpochMilli(m.timestamp()),
                                Instant.ofEpochMilli(m.timestamp()),
                                false));
            }
        }
    }
}
