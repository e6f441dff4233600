package org.fraudpipe.local;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.stream.Stream;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.fraudpipe.schemas.TopicNames;
import org.fraudpipe.schemas.security.ClientProperties;
import org.junit.jupiter.api.extension.AfterAllCallback;
import org.junit.jupiter.api.extension.AfterEachCallback;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * A real local Kafka broker for one test class ({@code @RegisterExtension static}), with the
 * project's topics created, plus small helpers to read what a test produced. The broker JVM is tied
 * to the test JVM, so it never outlives the build.
 *
 * <p>{@link #secured} gives the secured runtime instead ({@link LocalSecurity}): a {@code SASL_SSL}
 * listener with SCRAM users and ACLs, and next to it the local schema registry with HTTPS and basic
 * authentication. The helpers then act as the admin principal.
 */
public final class KafkaTestBroker
        implements BeforeAllCallback, AfterEachCallback, AfterAllCallback {

    private final int partitions;
    private final boolean secure;
    private LocalKafka secured;
    private LocalKafkaBroker broker;
    private Path dataDir;
    private int port;
    private int controllerPort;
    private boolean testFailed;

    public KafkaTestBroker(int partitions) {
        this(partitions, false);
    }

    private KafkaTestBroker(int partitions, boolean secure) {
        this.partitions = partitions;
        this.secure = secure;
    }

    /** The secured broker and registry (TLS, SCRAM, ACLs; HTTPS, basic auth). */
    public static KafkaTestBroker secured(int partitions) {
        return new KafkaTestBroker(partitions, true);
    }

    @Override
    public void beforeAll(ExtensionContext context) throws Exception {
        dataDir = Files.createTempDirectory("kafka-it-");
        if (secure) {
            secured =
                    LocalKafka.start(
                            LocalKafka.Settings.tiedToThisJvm(dataDir, partitions)
                                    .secured(LocalSecurity.JobIdentity.defaults()),
                            BrokerRuntime.fromSystemProperty());
            return;
        }
        broker =
                LocalKafkaBroker.start(
                        LocalKafkaBroker.Settings.forTests(dataDir),
                        BrokerRuntime.fromSystemProperty());
        port = broker.state().port();
        controllerPort = broker.state().controllerPort();
        try (Admin admin = admin()) {
            new TopicProvisioner(admin).ensureTopics(TopicNames.defaults(), partitions, (short) 1);
        }
    }

    @Override
    public void afterEach(ExtensionContext context) {
        testFailed |= context.getExecutionException().isPresent();
    }

    @Override
    public void afterAll(ExtensionContext context) throws IOException {
        if (secured != null) {
            secured.close();
        }
        if (broker != null) {
            broker.close();
        }
        if (dataDir != null && !testFailed && context.getExecutionException().isEmpty()) {
            // Log segments and the broker's log: kept only when a test failed, for its diagnosis.
            try (Stream<Path> files = Files.walk(dataDir)) {
                for (Path f : files.sorted(Comparator.reverseOrder()).toList()) {
                    Files.deleteIfExists(f);
                }
            }
        }
    }

    public String bootstrapServers() {
        return secured != null ? secured.bootstrapServers() : broker.bootstrapServers();
    }

    /** The data directory of the broker (and of the secured runtime's registry). */
    public Path dataDir() {
        return dataDir;
    }

    /** Whether this is the secured runtime ({@link #secured}). */
    public boolean isSecured() {
        return secure;
    }

    /** The secured runtime's schema registry ({@link #secured} only). */
    public String schemaRegistryUrl() {
        return secured().schemaRegistryUrl();
    }

    /** The secured runtime's users, keys and client files ({@link #secured} only). */
    public LocalSecurity security() {
        return secured().security().orElseThrow();
    }

    /** The client settings of {@code principal}; none on the plaintext broker. */
    public ClientProperties client(String principal) {
        return secured == null ? ClientProperties.none() : security().client(principal);
    }

    /** Grants the principals their rights on {@code topics}, the job's for {@code job}. */
    public void grant(TopicNames topics, LocalSecurity.JobIdentity job) {
        try (Admin admin = admin()) {
            security().createAcls(admin, topics, job);
        }
    }

    private LocalKafka secured() {
        if (secured == null) {
            throw new IllegalStateException("a plaintext test broker: use KafkaTestBroker.secured");
        }
        return secured;
    }

    /**
     * Restarts the broker while clients may be connected: a controlled shutdown (SIGTERM, as an
     * operator's rolling restart), then a start on the same ports and data directory, so topics,
     * committed data, consumer offsets and transaction state survive, and clients reconnect to the
     * same address. Returns once the broker answers again.
     */
    public void restart() {
        if (secured != null) {
            throw new UnsupportedOperationException("restart of the secured runtime");
        }
        broker.close();
        broker =
                LocalKafkaBroker.start(
                        new LocalKafkaBroker.Settings(
                                dataDir,
                                port,
                                controllerPort,
                                true,
                                Duration.ofSeconds(90),
                                "512m"),
                        BrokerRuntime.fromSystemProperty());
    }

    /** An admin client (on the secured runtime: the admin principal, a super user). */
    public Admin admin() {
        return Admin.create(client(LocalSecurity.ADMIN).kafkaProperties(bootstrapServers()));
    }

    /**
     * Everything committed to {@code topic} so far: reads with {@code read_committed} from the
     * beginning up to the end offsets seen at the start (for such a reader, the last stable
     * offset), so a duplicate or a record too many is seen, not cut off by an expected count.
     */
    public List<ConsumerRecord<byte[], byte[]>> readAllCommitted(String topic) {
        return readAll(topic, true);
    }

    /**
     * Everything in {@code topic} so far, with {@code read_uncommitted}: also the records of open
     * and aborted transactions (what exactly-once hides from {@code read_committed} readers).
     */
    public List<ConsumerRecord<byte[], byte[]>> readAllUncommitted(String topic) {
        return readAll(topic, false);
    }

    private List<ConsumerRecord<byte[], byte[]>> readAll(String topic, boolean committed) {
        List<ConsumerRecord<byte[], byte[]>> records = new ArrayList<>();
        try (KafkaConsumer<byte[], byte[]> consumer = consumer(committed)) {
            List<TopicPartition> partitions = partitions(consumer, topic);
            consumer.assign(partitions);
            consumer.seekToBeginning(partitions);
            Map<TopicPartition, Long> end = consumer.endOffsets(partitions);
            long deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
            while (partitions.stream().anyMatch(p -> consumer.position(p) < end.get(p))) {
                if (System.nanoTime() > deadline) {
                    throw new AssertionError("could not read " + topic + " up to " + end);
                }
                consumer.poll(Duration.ofMillis(200)).forEach(records::add);
            }
        }
        return records;
    }

    private KafkaConsumer<byte[], byte[]> consumer() {
        return consumer(true);
    }

    private KafkaConsumer<byte[], byte[]> consumer(boolean committed) {
        Properties p = client(LocalSecurity.ADMIN).kafkaProperties(bootstrapServers());
        p.putAll(
                Map.of(
                        ConsumerConfig.ISOLATION_LEVEL_CONFIG,
                        committed ? "read_committed" : "read_uncommitted",
                        ConsumerConfig.AUTO_OFFSET_RESET_CONFIG,
                        "earliest",
                        ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG,
                        "false"));
        return new KafkaConsumer<>(p, new ByteArrayDeserializer(), new ByteArrayDeserializer());
    }

    private static List<TopicPartition> partitions(
            KafkaConsumer<byte[], byte[]> consumer, String topic) {
        List<TopicPartition> partitions = new ArrayList<>();
        consumer.partitionsFor(topic)
                .forEach(info -> partitions.add(new TopicPartition(topic, info.partition())));
        return partitions;
    }

    /**
     * Reads {@code topic} from the beginning with {@code read_committed} until {@code expected}
     * records were read or {@code timeout} passed, and returns what was read (the caller asserts
     * the count).
     */
    public List<ConsumerRecord<byte[], byte[]>> readCommitted(
            String topic, int expected, Duration timeout) {
        List<ConsumerRecord<byte[], byte[]>> records = new ArrayList<>();
        try (KafkaConsumer<byte[], byte[]> consumer = consumer()) {
            List<TopicPartition> partitionsOf = partitions(consumer, topic);
            consumer.assign(partitionsOf);
            consumer.seekToBeginning(partitionsOf);
            long deadline = System.nanoTime() + timeout.toNanos();
            while (records.size() < expected && System.nanoTime() < deadline) {
                consumer.poll(Duration.ofMillis(200)).forEach(records::add);
            }
        }
        return records;
    }
}
