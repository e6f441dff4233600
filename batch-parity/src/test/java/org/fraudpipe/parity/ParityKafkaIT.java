package org.fraudpipe.parity;

import static org.assertj.core.api.Assertions.assertThat;
import static org.fraudpipe.parity.ParityFixtures.tx;

import com.fasterxml.jackson.databind.JsonNode;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.Serializer;
import org.fraudpipe.job.config.JobConfig;
import org.fraudpipe.job.replay.AvroJson;
import org.fraudpipe.job.replay.Replay;
import org.fraudpipe.job.replay.ReplayConfig;
import org.fraudpipe.local.KafkaTestBroker;
import org.fraudpipe.parity.cli.ParityCommand;
import org.fraudpipe.parity.report.ReportFiles;
import org.fraudpipe.parity.report.ReportJson;
import org.fraudpipe.schemas.Topic;
import org.fraudpipe.schemas.avro.FeatureRecord;
import org.fraudpipe.schemas.avro.Transaction;
import org.fraudpipe.schemas.avro.WindowKey;
import org.fraudpipe.schemas.json.TransactionJson;
import org.fraudpipe.schemas.wire.TopicSerdes;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

/**
 * {@code ./fraud parity --served-from kafka} against a real broker: the job's archive comes from a
 * replay, the compacted features topic is written by this test in Kafka transactions (as the job's
 * exactly-once sink writes it), with the troubles the archive cannot see: a transaction aborted
 * after the archive committed its pane, a pane the archive never held, a regression.
 */
class ParityKafkaIT {

    @RegisterExtension static final KafkaTestBroker KAFKA = new KafkaTestBroker(2);

    private static final String REGISTRY = "mock://parity-kafka-it";
    private static final Instant W = Instant.parse("2026-11-28T12:00:00Z");

    @TempDir Path dir;

    @Test
    void theUpsertReadersValueIsJudgedAndDisagreementsWithTheArchiveAreAlarms() throws Exception {
        // Four users in [12:00, 12:10); u3 gets a record late but within the lateness: revision 1.
        List<String> lines = new ArrayList<>();
        for (String user : List.of("u1", "u2", "u3", "u4")) {
            Transaction t = tx("t-" + user, user, W.plusSeconds(60), 1_000, "d-" + user);
            lines.add(TransactionJson.toJsonLine(t, W.plusSeconds(61)));
        }
        Transaction clock = tx("t-clock", "clock", W.plusSeconds(620), 1, "d0");
        lines.add(TransactionJson.toJsonLine(clock, W.plusSeconds(621)));
        Transaction late = tx("t-u3-late", "u3", W.plusSeconds(300), 500, "d-x");
        lines.add(TransactionJson.toJsonLine(late, W.plusSeconds(630)));
        Path input = dir.resolve("tx.jsonl");
        Files.write(input, lines);
        Path archive = dir.resolve("archive");
        Map<String, String> options = new LinkedHashMap<>();
        options.put("window-size", "10m");
        options.put("allowed-lateness", "2m");
        options.put("out-of-orderness", "0s");
        options.put("parallelism", "1");
        options.put("state-backend", "hashmap");
        Replay.run(
                ReplayConfig.of(input, dir.resolve("out"), JobConfig.of(options))
                        .withArchive(
                                org.apache.flink.core.fs.Path.fromLocalFile(archive.toFile())));

        // What the job served, in emission order, per user.
        Map<String, List<FeatureRecord>> panes = new LinkedHashMap<>();
        List<FeatureRecord> all = new ArrayList<>();
        for (String line : Files.readAllLines(dir.resolve("out/features.jsonl"))) {
            all.add(AvroJson.fromJsonLine(line, FeatureRecord.class));
        }
        all.sort(
                Comparator.comparing(FeatureRecord::getEmittedAt)
                        .thenComparingInt(FeatureRecord::getRevision));
        all.forEach(f -> panes.computeIfAbsent(f.getUserId(), u -> new ArrayList<>()).add(f));
        assertThat(panes.get("u3")).extracting(FeatureRecord::getRevision).containsExactly(0, 1);

        String topic = Topic.FEATURES.defaultName();
        try (Writer kafka = new Writer(topic)) {
            // u1, clock: as served.
            kafka.committed(panes.get("u1"));
            kafka.committed(panes.get("clock"));
            // u2: the transaction carrying its pane was aborted (e.g. timed out): the archive has
            // it.
            kafka.aborted(panes.get("u2"));
            // u3: revision 0, revision 1, then revision 0 again: the reader ends on the old value.
            kafka.committed(panes.get("u3"));
            kafka.committed(List.of(panes.get("u3").get(0)));
            // u4: as served, then a pane the archive never held.
            kafka.committed(panes.get("u4"));
            FeatureRecord extra = FeatureRecord.newBuilder(panes.get("u4").get(0)).build();
            extra.setRevision(1);
            extra.setTxCount(extra.getTxCount() + 1);
            kafka.committed(List.of(extra));
        }

        Path report = dir.resolve("report");
        StringWriter out = new StringWriter();
        StringWriter err = new StringWriter();
        CommandLine cl = ParityCommand.commandLine();
        cl.setOut(new PrintWriter(out));
        cl.setErr(new PrintWriter(err));
        int code =
                cl.execute(
                        "--archive",
                        archive.toString(),
                        "--date",
                        "2026-11-28",
                        "--served-from",
                        "kafka",
                        "--bootstrap-servers",
                        KAFKA.bootstrapServers(),
                        "--schema-registry-url",
                        REGISTRY,
                        "--topic.features",
                        topic,
                        "--no-score-skew",
                        "--parallelism",
                        "2",
                        "--report",
                        report.toString());

        assertThat(code).as(err.toString() + out).isEqualTo(ParityCommand.EXIT_SKEW);
        JsonNode json = ReportJson.read(Files.readString(report.resolve(ReportFiles.JSON)));
        JsonNode byCause = json.get("byCause");
        assertThat(byCause.get("MATCH").asLong()).isEqualTo(2); // u1, clock
        assertThat(byCause.get("LOST_IN_KAFKA").asLong()).isEqualTo(1);
        assertThat(byCause.get("REVISION_REGRESSED").asLong()).isEqualTo(1);
        assertThat(byCause.get("EXTRA_IN_KAFKA").asLong()).isEqualTo(1);
        assertThat(users(json, "LOST_IN_KAFKA")).containsExactly("u2");
        assertThat(users(json, "REVISION_REGRESSED")).containsExactly("u3");
        assertThat(users(json, "EXTRA_IN_KAFKA")).containsExactly("u4");
        assertThat(json.get("run").get("servedFrom").asText()).startsWith("kafka ");
        assertThat(out.toString())
                .startsWith("parity FAIL 2026-11-28: ")
                .contains("REVISION_REGRESSED=1")
                .contains("LOST_IN_KAFKA=1")
                .contains("EXTRA_IN_KAFKA=1");
        assertThat(Files.readString(report.resolve(ReportFiles.HTML))).contains("LOST_IN_KAFKA");

        // The archive's own copy, judged without Kafka, has none of this.
        Path archiveOnly = dir.resolve("report-archive");
        CommandLine again = ParityCommand.commandLine();
        again.setOut(new PrintWriter(new StringWriter()));
        again.setErr(new PrintWriter(new StringWriter()));
        assertThat(
                        again.execute(
                                "--archive",
                                archive.toString(),
                                "--date",
                                "2026-11-28",
                                "--no-score-skew",
                                "--report",
                                archiveOnly.toString()))
                .isEqualTo(ParityCommand.EXIT_PASS);
    }

    private static List<String> users(JsonNode report, String cause) {
        List<String> users = new ArrayList<>();
        report.get("examples").get(cause).forEach(f -> users.add(f.get("userId").asText()));
        return users;
    }

    /** A transactional producer of the features topic, framed like the job's sink. */
    private static final class Writer implements AutoCloseable {
        private final String topic;
        private final KafkaProducer<WindowKey, FeatureRecord> producer;

        Writer(String topic) {
            this.topic = topic;
            TopicSerdes serdes = TopicSerdes.forRegistry(REGISTRY);
            Serializer<WindowKey> keys = serdes.keySerializer(Topic.FEATURES, WindowKey.class);
            Serializer<FeatureRecord> values =
                    serdes.valueSerializer(Topic.FEATURES, FeatureRecord.class);
            Properties p = new Properties();
            p.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, KAFKA.bootstrapServers());
            p.put(ProducerConfig.TRANSACTIONAL_ID_CONFIG, "parity-kafka-it");
            p.put(ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, "true");
            producer = new KafkaProducer<>(p, keys, values);
            producer.initTransactions();
        }

        void committed(List<FeatureRecord> panes) throws Exception {
            send(panes);
            producer.commitTransaction();
        }

        void aborted(List<FeatureRecord> panes) throws Exception {
            send(panes);
            producer.abortTransaction();
        }

        private void send(List<FeatureRecord> panes) throws Exception {
            producer.beginTransaction();
            for (FeatureRecord f : panes) {
                producer.send(
                                new ProducerRecord<>(
                                        topic, new WindowKey(f.getUserId(), f.getWindowStart()), f))
                        .get();
            }
        }

        @Override
        public void close() {
            producer.close();
        }
    }
}
