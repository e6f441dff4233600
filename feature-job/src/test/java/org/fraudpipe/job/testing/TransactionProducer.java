package org.fraudpipe.job.testing;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Properties;
import java.util.concurrent.Future;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.fraudpipe.job.config.JobConfig;
import org.fraudpipe.schemas.Topic;
import org.fraudpipe.schemas.avro.Transaction;
import org.fraudpipe.schemas.security.ClientProperties;
import org.fraudpipe.schemas.wire.ConfluentAvroCodec;
import org.fraudpipe.schemas.wire.TopicSerdes;

/**
 * Produces to a deployment's transactions topic as the bank's producers would: key = UTF-8 userId,
 * value = Confluent-framed Avro against the deployment's registry; or raw bytes, as a broken client
 * would. Every send waits for the broker's acknowledgement and returns where the record landed, so
 * a test knows each record's partition and offset and the order within a partition is the send
 * order. Idempotent and non-transactional: offsets in a partition are consecutive from 0.
 */
public final class TransactionProducer implements AutoCloseable {

    private final KafkaProducer<byte[], byte[]> kafka;
    private final ConfluentAvroCodec<Transaction> codec;
    private final String topic;

    TransactionProducer(JobConfig config, ClientProperties client) {
        Properties p = client.kafkaProperties(config.bootstrapServers());
        p.put(ProducerConfig.ACKS_CONFIG, "all");
        p.put(ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, "true");
        // Topics are created just before the tests write: see TransactionPublisher (KAFKA-15591).
        p.put(ProducerConfig.MAX_IN_FLIGHT_REQUESTS_PER_CONNECTION, "1");
        kafka = new KafkaProducer<>(p, new ByteArraySerializer(), new ByteArraySerializer());
        topic = config.topics().name(Topic.TRANSACTIONS);
        codec =
                TopicSerdes.forRegistry(
                                client.isEmpty()
                                        ? config.registryConfig()
                                        : client.registryConfig(config.schemaRegistryUrl()))
                        .valueCodec(Topic.TRANSACTIONS, topic, Transaction.class);
    }

    /** The framed bytes the producer sends for {@code tx}. */
    public byte[] encode(Transaction tx) {
        return codec.encode(tx);
    }

    /** Sends {@code tx} to {@code partition} (null: Kafka's partitioner, by userId). */
    public RecordMetadata send(Integer partition, Transaction tx) throws Exception {
        return kafka.send(
                        new ProducerRecord<>(
                                topic,
                                partition,
                                tx.getUserId().getBytes(StandardCharsets.UTF_8),
                                codec.encode(tx)))
                .get();
    }

    /**
     * Sends each record to its partition, in list order (the idempotent producer keeps the order
     * within a partition), and returns once the broker acknowledged all of them.
     */
    public void sendAll(List<PartitionedTransaction> records) throws Exception {
        List<Future<RecordMetadata>> sent = new ArrayList<>();
        for (PartitionedTransaction r : records) {
            Transaction tx = r.transaction();
            sent.add(
                    kafka.send(
                            new ProducerRecord<>(
                                    topic,
                                    r.partition(),
                                    tx.getUserId().getBytes(StandardCharsets.UTF_8),
                                    codec.encode(tx))));
        }
        for (Future<RecordMetadata> f : sent) {
            f.get();
        }
    }

    /** Sends a raw value (no key) to {@code partition}. */
    public RecordMetadata sendRaw(int partition, byte[] value) throws Exception {
        return kafka.send(new ProducerRecord<>(topic, partition, null, value)).get();
    }

    @Override
    public void close() {
        kafka.close();
    }

    /** A transaction and the partition it is produced to. */
    public record PartitionedTransaction(int partition, Transaction transaction) {}
}
