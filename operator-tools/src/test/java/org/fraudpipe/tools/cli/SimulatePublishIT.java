package org.fraudpipe.tools.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.ByteArrayOutputStream;
import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.fraudpipe.local.KafkaTestBroker;
import org.fraudpipe.schemas.Topic;
import org.fraudpipe.schemas.avro.DeadLetterReason;
import org.fraudpipe.schemas.avro.Transaction;
import org.fraudpipe.schemas.json.ReplayFormatException;
import org.fraudpipe.schemas.json.TransactionJson;
import org.fraudpipe.schemas.wire.ConfluentAvroCodec;
import org.fraudpipe.schemas.wire.TopicSerdes;
import org.fraudpipe.schemas.wire.WireFormatException;
import org.fraudpipe.tools.FraudCli;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

/**
 * {@code ./fraud simulate --bootstrap-servers} against a real broker: every line of the file
 * arrives, valid transactions as Confluent-framed Avro that decodes back to the same transaction,
 * malformed payloads as their raw bytes (which the job will dead-letter).
 */
class SimulatePublishIT {

    @RegisterExtension static final KafkaTestBroker KAFKA = new KafkaTestBroker(2);

    @TempDir Path tmp;

    @Test
    void publishesEveryGeneratedRecordValidOnesAsAvroMalformedOnesRaw() throws Exception {
        String registry = "mock://simulate-publish-it";
        Path out = tmp.resolve("tx.jsonl");
        ByteArrayOutputStream stdout = new ByteArrayOutputStream();
        CommandLine cl = FraudCli.commandLine();
        cl.setOut(new PrintWriter(stdout, true, StandardCharsets.UTF_8));
        int exit =
                cl.execute(
                        "simulate",
                        "--users",
                        "40",
                        "--start",
                        "2026-11-28T12:00:00Z",
                        "--duration",
                        "2h",
                        "--seed",
                        "3",
                        "--malformed-rate",
                        "0.05",
                        "--out",
                        out.toString(),
                        "--bootstrap-servers",
                        KAFKA.bootstrapServers(),
                        "--schema-registry-url",
                        registry,
                        "--speedup",
                        "0");
        assertThat(exit).isZero();
        List<String> lines = Files.readAllLines(out);
        List<ConsumerRecord<byte[], byte[]>> read =
                KAFKA.readCommitted(
                        Topic.TRANSACTIONS.defaultName(), lines.size(), Duration.ofSeconds(60));
        assertThat(read).hasSize(lines.size());

        ConfluentAvroCodec<Transaction> codec =
                TopicSerdes.forRegistry(registry)
                        .valueCodec(
                                Topic.TRANSACTIONS,
                                Topic.TRANSACTIONS.defaultName(),
                                Transaction.class);
        Map<String, Transaction> inFile = new HashMap<>();
        for (int i = 0; i < lines.size(); i++) {
            try {
                Transaction tx = TransactionJson.parseLine(lines.get(i), i + 1).transaction();
                inFile.put(tx.getTransactionId(), tx);
            } catch (ReplayFormatException malformed) {
                // sent raw; checked below
            }
        }
        long raw = 0;
        Set<String> fileLines = new HashSet<>(lines);
        for (ConsumerRecord<byte[], byte[]> r : read) {
            if (r.key() == null) {
                raw++;
                assertThat(fileLines).contains(new String(r.value(), StandardCharsets.UTF_8));
                assertThatThrownBy(() -> codec.decode(r.value()))
                        .isInstanceOfSatisfying(
                                WireFormatException.class,
                                e ->
                                        assertThat(e.reason())
                                                .isEqualTo(DeadLetterReason.NOT_CONFLUENT_FRAMED));
            } else {
                Transaction tx = codec.decode(r.value());
                assertThat(new String(r.key(), StandardCharsets.UTF_8)).isEqualTo(tx.getUserId());
                assertThat(lines)
                        .anyMatch(
                                l ->
                                        l.startsWith(
                                                TransactionJson.toJsonLine(
                                                                tx, java.time.Instant.EPOCH)
                                                        .substring(0, 30)));
            }
        }
        assertThat(raw).isPositive();
        assertThat(stdout.toString(StandardCharsets.UTF_8))
                .contains("published      " + lines.size() + " records");
    }
}
