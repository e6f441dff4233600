package org.fraudpipe.tools.model;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.fraudpipe.schemas.Topic;
import org.fraudpipe.schemas.avro.ModelEvent;
import org.fraudpipe.schemas.security.ClientProperties;
import org.fraudpipe.schemas.wire.TopicSerdes;
import org.fraudpipe.scoring.release.ModelRegistry;

/**
 * The model registry topic as {@code ./fraud model} uses it: read from the beginning to its end and
 * folded ({@link ModelRegistry}), one event published and read back.
 *
 * <p>Reading back is what tells the operator the truth: the registry's rules are applied by every
 * reader to what the broker appended (the lead is counted from the broker's append time, not the
 * publisher's clock), so the command reports the outcome of its own record as the job will see it.
 */
public final class RegistryTopic implements AutoCloseable {

    /** One event of the topic with where and when the broker put it. */
    public record Entry(
            long offset, long appendTime, ModelEvent event, ModelRegistry.Outcome outcome) {}

    private static final Duration TIMEOUT = Duration.ofSeconds(30);

    private final String topic;
    private final String bootstrapServers;
    private final TopicPartition partition;
    private final KafkaConsumer<String, ModelEvent> consumer;
    private final Properties producerProperties;
    private final TopicSerdes serdes;

    public RegistryTopic(
            String bootstrapServers, String registryUrl, ClientProperties client, String topic) {
        this.topic = topic;
        this.bootstrapServers = bootstrapServers;
        this.partition = new TopicPartition(topic, 0);
        this.serdes = TopicSerdes.forRegistry(client.registryConfig(registryUrl));
        Properties c = client.kafkaProperties(bootstrapServers);
        c.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, "false");
        c.put(ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed");
        c.put(ConsumerConfig.CLIENT_ID_CONFIG, "fraud-model");
        c.put(ConsumerConfig.MAX_PARTITION_FETCH_BYTES_CONFIG, Topic.MODEL_EVENT_MAX_BYTES);
        c.put(ConsumerConfig.FETCH_MAX_BYTES_CONFIG, Topic.MODEL_EVENT_MAX_BYTES);
        this.consumer =
                new KafkaConsumer<>(
                        c,
                        new StringDeserializer(),
                        serdes.valueDeserializer(Topic.MODEL_RELEASES, ModelEvent.class));
        Properties p = client.kafkaProperties(bootstrapServers);
        p.put(ProducerConfig.ACKS_CONFIG, "all");
        p.put(ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, "true");
        p.put(ProducerConfig.MAX_REQUEST_SIZE_CONFIG, Topic.MODEL_EVENT_MAX_BYTES);
        p.put(ProducerConfig.CLIENT_ID_CONFIG, "fraud-model");
        p.put(ProducerConfig.DELIVERY_TIMEOUT_MS_CONFIG, (int) TIMEOUT.toMillis());
        p.put(ProducerConfig.REQUEST_TIMEOUT_MS_CONFIG, (int) TIMEOUT.toMillis() / 2);
        p.put(ProducerConfig.MAX_BLOCK_MS_CONFIG, (int) TIMEOUT.toMillis());
        this.producerProperties = p;
    }

    /**
     * Every event from the beginning to the end of the topic, folded into {@code registry} in
     * order.
     *
     * @throws IllegalStateException naming the topic when it does not exist or cannot be read
     */
    public List<Entry> readAll(ModelRegistry registry) {
        List<org.apache.kafka.common.PartitionInfo> partitions;
        try {
            partitions = consumer.partitionsFor(topic, TIMEOUT);
        } catch (org.apache.kafka.common.errors.TimeoutException e) {
            throw new IllegalStateException(
                    "cannot reach Kafka at "
                            + bootstrapServers
                            + " within "
                            + TIMEOUT.toSeconds()
                            + " s: check --bootstrap-servers (and --kafka-config on a secured"
                            + " broker), or start the local broker with `./fraud kafka start`",
                    e);
        } catch (org.apache.kafka.common.errors.AuthenticationException
                | org.apache.kafka.common.errors.AuthorizationException e) {
            throw new IllegalStateException(
                    "Kafka at "
                            + bootstrapServers
                            + " refused the client: "
                            + e.getMessage()
                            + "; check the principal and password in --kafka-config",
                    e);
        }
        if (partitions.isEmpty()) {
            throw new IllegalStateException(
                    "the model registry topic "
                            + topic
                            + " does not exist: create it as ./fraud kafka start does (one"
                            + " partition, "
                            + Topic.MODEL_RELEASES.topicConfig()
                            + ")");
        }
        consumer.assign(List.of(partition));
        consumer.seekToBeginning(List.of(partition));
        long end = consumer.endOffsets(List.of(partition), TIMEOUT).get(partition);
        List<Entry> entries = new ArrayList<>();
        long deadline = System.nanoTime() + TIMEOUT.toNanos();
        while (consumer.position(partition, TIMEOUT) < end) {
            if (System.nanoTime() > deadline) {
                throw new IllegalStateException(
                        "timed out reading the model registry topic "
                                + topic
                                + " to offset "
                                + end);
            }
            for (ConsumerRecord<String, ModelEvent> r : consumer.poll(Duration.ofMillis(500))) {
                entries.add(
                        new Entry(
                                r.offset(),
                                r.timestamp(),
                                r.value(),
                                registry.apply(r.value(), r.timestamp())));
            }
        }
        return entries;
    }

    /**
     * Publishes {@code event} and reads the topic on from where {@code registry} stood (the end of
     * {@link #readAll}) up to and including it; returns its entry, with the outcome every reader
     * gives it.
     */
    public Entry publish(ModelEvent event, ModelRegistry registry) {
        RecordMetadata sent;
        try (KafkaProducer<String, ModelEvent> producer =
                new KafkaProducer<>(
                        producerProperties,
                        new StringSerializer(),
                        serdes.valueSerializer(Topic.MODEL_RELEASES, ModelEvent.class))) {
            sent =
                    producer.send(new ProducerRecord<>(topic, 0, ModelRegistry.key(event), event))
                            .get(TIMEOUT.toMillis(), TimeUnit.MILLISECONDS);
        } catch (ExecutionException e) {
            throw new IllegalStateException(
                    "cannot publish to the model registry topic " + topic + ": " + e.getCause(),
                    e.getCause());
        } catch (TimeoutException e) {
            throw new IllegalStateException(
                    "timed out publishing to the model registry topic " + topic, e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while publishing", e);
        }
        long deadline = System.nanoTime() + TIMEOUT.toNanos();
        while (System.nanoTime() < deadline) {
            for (ConsumerRecord<String, ModelEvent> r : consumer.poll(Duration.ofMillis(500))) {
                Entry entry =
                        new Entry(
                                r.offset(),
                                r.timestamp(),
                                r.value(),
                                registry.apply(r.value(), r.timestamp()));
                if (r.offset() == sent.offset()) {
                    return entry;
                }
            }
        }
        throw new IllegalStateException(
                "published to "
                        + topic
                        + " at offset "
                        + sent.offset()
                        + " but could not read it back within "
                        + TIMEOUT.toSeconds()
                        + " s");
    }

    /** The topic's configuration a deployment must create it with. */
    public static Map<String, String> topicConfig() {
        return Topic.MODEL_RELEASES.topicConfig();
    }

    @Override
    public void close() {
        consumer.close();
    }
}
