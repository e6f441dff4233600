package org.fraudpipe.sim;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Properties;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.common.serialization.Serializer;
import org.fraudpipe.local.KafkaTestBroker;
import org.fraudpipe.schemas.Topic;
import org.fraudpipe.schemas.avro.Transaction;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/** The publisher against a real broker: what it sends, how it paces, how it counts failures. */
class TransactionPublisherIT {

    @RegisterExtension static final KafkaTestBroker KAFKA = new KafkaTestBroker(1);

    private static final Instant T0 = Instant.parse("2026-11-28T12:00:00Z");
    private static final Serializer<Transaction> TAGGED =
            (topic, tx) -> ("avro:" + tx.getTransactionId()).getBytes(StandardCharsets.UTF_8);

    private static Transaction tx(String id, String user) {
        return new Transaction(id, user, 100L, "EUR", "m-1", "d-1", "DE", T0);
    }

    /** A clock that only moves when the publisher sleeps. */
    private static final class FakePacing implements TransactionPublisher.Pacing {
        long now = 1_000_000_000L;
        final List<Long> sleeps = new ArrayList<>();

        @Override
        public long nanoTime() {
            return now;
        }

        @Override
        public void sleepNanos(long nanos) {
            sleeps.add(nanos);
            now += nanos;
        }
    }

    private static KafkaProducer<byte[], byte[]> producer() {
        Properties p = TransactionPublisher.producerProperties(KAFKA.bootstrapServers());
        p.put(ProducerConfig.MAX_BLOCK_MS_CONFIG, "3000");
        p.put(ProducerConfig.DELIVERY_TIMEOUT_MS_CONFIG, "5000");
        p.put(ProducerConfig.REQUEST_TIMEOUT_MS_CONFIG, "2000");
        return new KafkaProducer<>(p);
    }

    @Test
    void validTransactionsGoThroughTheSerializerKeyedByUserAndMalformedOnesRaw() throws Exception {
        String topic = Topic.TRANSACTIONS.defaultName();
        TransactionPublisher.Result result;
        try (TransactionPublisher publisher =
                new TransactionPublisher(producer(), topic, TAGGED, 0)) {
            publisher.send(TransactionPublisher.Item.valid(tx("t-1", "u-7"), T0));
            publisher.send(
                    TransactionPublisher.Item.raw(
                            "{\"transactionId\":".getBytes(StandardCharsets.UTF_8), T0));
            result = publisher.finish();
        }
        List<ConsumerRecord<byte[], byte[]>> read =
                KAFKA.readCommitted(topic, 2, Duration.ofSeconds(30));
        assertThat(read).hasSize(2);
        // The end offsets a drain waits for: per partition, the offset after the last record.
        java.util.Map<Integer, Long> ends = new java.util.TreeMap<>();
        read.forEach(r -> ends.merge(r.partition(), r.offset() + 1, Math::max));
        assertThat(result).isEqualTo(new TransactionPublisher.Result(2, 1, 1, 2, 0, null, ends));
        assertThat(new String(read.get(0).key(), StandardCharsets.UTF_8)).isEqualTo("u-7");
        assertThat(new String(read.get(0).value(), StandardCharsets.UTF_8)).isEqualTo("avro:t-1");
        assertThat(read.get(1).key()).isNull();
        assertThat(new String(read.get(1).value(), StandardCharsets.UTF_8))
                .isEqualTo("{\"transactionId\":");
    }

    @Test
    void pacesByArrivalTimeDividedBySpeedupOnAnAbsoluteSchedule() throws Exception {
        FakePacing pacing = new FakePacing();
        String topic = Topic.LATE.defaultName();
        try (TransactionPublisher publisher =
                new TransactionPublisher(producer(), topic, TAGGED, 10, pacing)) {
            publisher.send(TransactionPublisher.Item.valid(tx("a", "u"), T0));
            publisher.send(TransactionPublisher.Item.valid(tx("b", "u"), T0.plusSeconds(10)));
            publisher.send(TransactionPublisher.Item.valid(tx("c", "u"), T0.plusSeconds(10)));
            pacing.now += 500_000_000L; // sending took 0.5 s of wall time
            publisher.send(TransactionPublisher.Item.valid(tx("d", "u"), T0.plusSeconds(30)));
            publisher.send(TransactionPublisher.Item.raw(new byte[] {1}, null)); // never waits
        }
        // 10 s of arrival at 10x = 1 s; then 20 s more = 2 s, of which 0.5 s already passed.
        assertThat(pacing.sleeps).containsExactly(1_000_000_000L, 1_500_000_000L);
    }

    @Test
    void speedupZeroSendsWithoutWaiting() throws Exception {
        FakePacing pacing = new FakePacing();
        try (TransactionPublisher publisher =
                new TransactionPublisher(
                        producer(), Topic.DEAD_LETTERS.defaultName(), TAGGED, 0, pacing)) {
            publisher.send(TransactionPublisher.Item.valid(tx("a", "u"), T0));
            publisher.send(TransactionPublisher.Item.valid(tx("b", "u"), T0.plusSeconds(3600)));
        }
        assertThat(pacing.sleeps).isEmpty();
    }

    @Test
    void sendsToATopicThatDoesNotExistAreCountedAsFailedWithTheFirstError() throws Exception {
        // The broker does not auto-create topics, so every send times out waiting for metadata.
        try (TransactionPublisher publisher =
                new TransactionPublisher(producer(), "no-such-topic", TAGGED, 0)) {
            publisher.send(TransactionPublisher.Item.valid(tx("a", "u"), T0));
            publisher.send(TransactionPublisher.Item.valid(tx("b", "u"), T0));
            TransactionPublisher.Result result = publisher.finish();
            assertThat(result.acknowledged()).isZero();
            assertThat(result.failed()).isEqualTo(2);
            assertThat(result.firstError()).hasMessageContaining("no-such-topic");
        }
    }
}
