package org.fraudpipe.bench;

import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.fraudpipe.local.BrokerRuntime;
import org.fraudpipe.local.LocalKafkaBroker;
import org.fraudpipe.local.LocalSchemaRegistry;
import org.fraudpipe.schemas.Topic;
import org.fraudpipe.schemas.registry.ConfluentSchemaRegistryClient;
import org.fraudpipe.schemas.registry.SchemaRegistryClient;

/**
 * The benchmark's Kafka: a local broker and schema registry of the project's local runtime ({@link
 * LocalKafkaBroker}, {@link LocalSchemaRegistry}), on free ports, in the run's directory, tied to
 * this JVM (they exit with it, even on {@code kill -9}); plus topic creation and reading a topic's
 * committed records.
 */
final class BenchKafka implements AutoCloseable {

    private final LocalKafkaBroker broker;
    private final LocalSchemaRegistry.State registry;
    private final Path dataDir;
    private final Admin admin;

    private BenchKafka(LocalKafkaBroker broker, LocalSchemaRegistry.State registry, Path dataDir) {
        this.broker = broker;
        this.registry = registry;
        this.dataDir = dataDir;
        Properties p = new Properties();
        p.put(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, broker.bootstrapServers());
        this.admin = Admin.create(p);
    }

    static BenchKafka start(Path dataDir, String brokerHeap) {
        LocalKafkaBroker broker =
                LocalKafkaBroker.start(
                        new LocalKafkaBroker.Settings(
                                dataDir, 0, 0, true, Duration.ofSeconds(120), brokerHeap),
                        BrokerRuntime.fromSystemProperty());
        try {
            LocalSchemaRegistry.State registry =
                    LocalSchemaRegistry.start(
                            new LocalSchemaRegistry.Settings(
                                    dataDir, 0, true, Duration.ofSeconds(60)));
            return new BenchKafka(broker, registry, dataDir);
        } catch (RuntimeException e) {
            broker.close();
            throw e;
        }
    }

    String bootstrapServers() {
        return broker.bootstrapServers();
    }

    String registryUrl() {
        return registry.url();
    }

    long brokerPid() {
        return broker.pid();
    }

    long registryPid() {
        return registry.pid();
    }

    /** CPU seconds the broker JVM used so far (-1 if unknown). */
    double brokerCpuSeconds() {
        return ProcessHandle.of(broker.pid())
                .flatMap(p -> p.info().totalCpuDuration())
                .map(d -> d.toNanos() / 1e9)
                .orElse(-1.0);
    }

    /**
     * Creates the topics (name to the project topic each stands for) that do not exist yet, each
     * with its topic's configuration, and sets their registry subjects to their topic's
     * compatibility level, as {@code ./fraud kafka start} does for the default names: the job's
     * start-up check then finds its input protected.
     */
    void createTopics(Map<String, Topic> topics, int partitions) {
        SchemaRegistryClient registry = new ConfluentSchemaRegistryClient(registryUrl());
        topics.forEach(
                (name, topic) -> {
                    for (String subject : topic.subjects(name)) {
                        registry.setCompatibilityLevel(subject, topic.compatibilityLevel());
                    }
                });
        try {
            Set<String> existing = admin.listTopics().names().get(30, TimeUnit.SECONDS);
            List<NewTopic> missing = new ArrayList<>();
            topics.forEach(
                    (name, topic) -> {
                        if (!existing.contains(name)) {
                            missing.add(
                                    new NewTopic(name, topic.partitions(partitions), (short) 1)
                                            .configs(topic.topicConfig()));
                        }
                    });
            admin.createTopics(missing).all().get(60, TimeUnit.SECONDS);
            long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
            while (!admin.listTopics()
                    .names()
                    .get(30, TimeUnit.SECONDS)
                    .containsAll(topics.keySet())) {
                if (System.nanoTime() > deadline) {
                    throw new IllegalStateException("topics not visible: " + topics.keySet());
                }
                Thread.sleep(100);
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted", e);
        } catch (Exception e) {
            throw new IllegalStateException(
                    "cannot create topics " + topics.keySet() + ": " + e, e);
        }
    }

    /**
     * Calls {@code each} for every committed record of {@code topic}, partition by partition in
     * offset order, from the beginning to the end offsets seen at the start (read_committed).
     *
     * @return records read
     */
    long readCommitted(String topic, Consumer<ConsumerRecord<byte[], byte[]>> each) {
        long n = 0;
        try (KafkaConsumer<byte[], byte[]> consumer = committedConsumer()) {
            List<TopicPartition> partitions = new ArrayList<>();
            consumer.partitionsFor(topic, Duration.ofSeconds(30))
                    .forEach(i -> partitions.add(new TopicPartition(topic, i.partition())));
            partitions.sort((a, b) -> Integer.compare(a.partition(), b.partition()));
            Map<TopicPartition, Long> end = consumer.endOffsets(partitions);
            for (TopicPartition tp : partitions) {
                consumer.assign(List.of(tp));
                consumer.seekToBeginning(List.of(tp));
                long deadline = System.nanoTime() + Duration.ofMinutes(5).toNanos();
                while (consumer.position(tp) < end.get(tp)) {
                    if (System.nanoTime() > deadline) {
                        throw new IllegalStateException("could not read " + tp + " up to " + end);
                    }
                    for (ConsumerRecord<byte[], byte[]> r : consumer.poll(Duration.ofMillis(500))) {
                        if (r.offset() < end.get(tp)) {
                            each.accept(r);
                            n++;
                        }
                    }
                }
            }
        }
        return n;
    }

    /**
     * A consumer of this broker's committed records (read_committed, no group, no auto-commit),
     * byte arrays; the caller assigns partitions and closes it.
     */
    KafkaConsumer<byte[], byte[]> committedConsumer() {
        Map<String, Object> config = new HashMap<>();
        config.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrapServers());
        config.put(ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed");
        config.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, "false");
        config.put(ConsumerConfig.MAX_POLL_RECORDS_CONFIG, "5000");
        config.put(ConsumerConfig.FETCH_MAX_BYTES_CONFIG, Integer.toString(64 << 20));
        config.put(ConsumerConfig.MAX_PARTITION_FETCH_BYTES_CONFIG, Integer.toString(16 << 20));
        return new KafkaConsumer<>(
                config, new ByteArrayDeserializer(), new ByteArrayDeserializer());
    }

    /**
     * The offsets {@code group} has committed on {@code topic}, summed over its partitions: how far
     * a system under benchmark has read its input (Flink commits them at checkpoints, Kafka Streams
     * at its commit interval); -1 while it has committed none.
     */
    long committedOffsets(String group, String topic) throws Exception {
        long sum = 0;
        boolean found = false;
        for (var e :
                admin.listConsumerGroupOffsets(group)
                        .partitionsToOffsetAndMetadata()
                        .get(2, TimeUnit.SECONDS)
                        .entrySet()) {
            if (e.getKey().topic().equals(topic) && e.getValue() != null) {
                sum += e.getValue().offset();
                found = true;
            }
        }
        return found ? sum : -1;
    }

    Path dataDir() {
        return dataDir;
    }

    @Override
    public void close() {
        admin.close(Duration.ofSeconds(5));
        LocalSchemaRegistry.stop(dataDir, Duration.ofSeconds(10));
        broker.close();
    }
}
