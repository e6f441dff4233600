package org.fraudpipe.local;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.Config;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.config.ConfigResource;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.fraudpipe.schemas.Topic;
import org.fraudpipe.schemas.TopicNames;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The local broker is a real Kafka broker in its own JVM, and never outlives whoever started it.
 */
class LocalKafkaBrokerIT {

    @TempDir Path dir;

    @Test
    void plainKafkaClientsProduceToAndConsumeFromTheBrokerAndCompactedTopicsAreCompacted()
            throws Exception {
        try (LocalKafkaBroker broker =
                LocalKafkaBroker.start(
                        LocalKafkaBroker.Settings.forTests(dir),
                        BrokerRuntime.fromSystemProperty())) {
            TopicNames names = TopicNames.defaults();
            try (Admin admin = admin(broker.bootstrapServers())) {
                List<String> created =
                        new TopicProvisioner(admin).ensureTopics(names, 2, (short) 1);
                assertThat(created).containsExactlyInAnyOrderElementsOf(names.asMap().values());
                assertThat(new TopicProvisioner(admin).ensureTopics(names, 2, (short) 1))
                        .as("a second provisioning creates nothing")
                        .isEmpty();
                for (Topic topic : Topic.values()) {
                    ConfigResource resource =
                            new ConfigResource(ConfigResource.Type.TOPIC, names.name(topic));
                    Config config =
                            admin.describeConfigs(List.of(resource))
                                    .all()
                                    .get(10, TimeUnit.SECONDS)
                                    .get(resource);
                    assertThat(config.get("cleanup.policy").value())
                            .as("cleanup.policy of %s", topic)
                            .isEqualTo(topic.cleanupPolicy().configValue());
                }
            }
            assertThat(Topic.FEATURES.cleanupPolicy()).isEqualTo(Topic.CleanupPolicy.COMPACT);
            assertThat(Topic.SCORES.cleanupPolicy()).isEqualTo(Topic.CleanupPolicy.COMPACT);

            String topic = names.name(Topic.TRANSACTIONS);
            try (KafkaProducer<String, String> producer =
                    new KafkaProducer<>(
                            Map.of(
                                    ProducerConfig.BOOTSTRAP_SERVERS_CONFIG,
                                    broker.bootstrapServers(),
                                    ProducerConfig.ACKS_CONFIG,
                                    "all"),
                            new StringSerializer(),
                            new StringSerializer())) {
                for (int i = 0; i < 10; i++) {
                    producer.send(new ProducerRecord<>(topic, "user-" + i, "value-" + i)).get();
                }
            }
            List<String> values = new ArrayList<>();
            try (KafkaConsumer<String, String> consumer =
                    new KafkaConsumer<>(
                            Map.of(
                                    ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG,
                                    broker.bootstrapServers(),
                                    ConsumerConfig.GROUP_ID_CONFIG,
                                    "broker-it",
                                    ConsumerConfig.AUTO_OFFSET_RESET_CONFIG,
                                    "earliest"),
                            new StringDeserializer(),
                            new StringDeserializer())) {
                consumer.subscribe(List.of(topic));
                long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
                while (values.size() < 10 && System.nanoTime() < deadline) {
                    for (ConsumerRecord<String, String> r : consumer.poll(Duration.ofMillis(500))) {
                        values.add(r.value());
                    }
                }
            }
            assertThat(values)
                    .containsExactlyInAnyOrder(
                            "value-0", "value-1", "value-2", "value-3", "value-4", "value-5",
                            "value-6", "value-7", "value-8", "value-9");
        }
    }

    @Test
    void closeStopsTheBrokerJvmAndRemovesItsStateFile() {
        LocalKafkaBroker broker =
                LocalKafkaBroker.start(
                        LocalKafkaBroker.Settings.forTests(dir),
                        BrokerRuntime.fromSystemProperty());
        ProcessHandle process = ProcessHandle.of(broker.pid()).orElseThrow();
        assertThat(LocalKafkaBroker.running(dir)).isPresent();

        broker.close();

        assertThat(process.isAlive()).isFalse();
        assertThat(LocalKafkaBroker.running(dir)).isEmpty();
        assertThat(dir.resolve(LocalKafkaBroker.STATE_FILE)).doesNotExist();
    }

    @Test
    void restartWithTheSameDataDirectoryKeepsTopics() throws Exception {
        TopicNames names = TopicNames.defaults();
        try (LocalKafkaBroker broker =
                LocalKafkaBroker.start(
                        LocalKafkaBroker.Settings.forTests(dir),
                        BrokerRuntime.fromSystemProperty())) {
            try (Admin admin = admin(broker.bootstrapServers())) {
                new TopicProvisioner(admin).ensureTopics(names, 1, (short) 1);
            }
        }
        try (LocalKafkaBroker broker =
                LocalKafkaBroker.start(
                        LocalKafkaBroker.Settings.forTests(dir),
                        BrokerRuntime.fromSystemProperty())) {
            try (Admin admin = admin(broker.bootstrapServers())) {
                assertThat(admin.listTopics().names().get(30, TimeUnit.SECONDS))
                        .containsAll(names.asMap().values());
            }
        }
    }

    @Test
    void aSecondBrokerOnTheSameDataDirectoryIsRefused() {
        try (LocalKafkaBroker broker =
                LocalKafkaBroker.start(
                        LocalKafkaBroker.Settings.forTests(dir),
                        BrokerRuntime.fromSystemProperty())) {
            assertThatThrownBy(
                            () ->
                                    LocalKafkaBroker.start(
                                            LocalKafkaBroker.Settings.forTests(dir),
                                            BrokerRuntime.fromSystemProperty()))
                    .isInstanceOf(IllegalStateException.class)
                    .hasMessageContaining("already running")
                    .hasMessageContaining(Long.toString(broker.pid()));
        }
    }

    @Test
    void theBrokerExitsWhenTheJvmThatStartedItIsKilled() throws Exception {
        // A separate JVM starts a broker tied to itself, reports the broker's pid, and is then
        // killed -9:
        // no shutdown hook runs in it, so only the broker's own parent watch can end the broker.
        Process starter =
                new ProcessBuilder(
                                Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                                "-cp",
                                System.getProperty("java.class.path"),
                                "-D"
                                        + BrokerRuntime.HOME_PROPERTY
                                        + "="
                                        + System.getProperty(BrokerRuntime.HOME_PROPERTY),
                                BrokerStarterMain.class.getName(),
                                dir.toString())
                        .redirectErrorStream(true)
                        .start();
        long brokerPid;
        try (BufferedReader out =
                new BufferedReader(
                        new InputStreamReader(starter.getInputStream(), StandardCharsets.UTF_8))) {
            brokerPid = readBrokerPid(out);
            ProcessHandle broker = ProcessHandle.of(brokerPid).orElseThrow();
            assertThat(broker.isAlive()).isTrue();

            starter.destroyForcibly().waitFor(30, TimeUnit.SECONDS);

            broker.onExit().get(60, TimeUnit.SECONDS);
            assertThat(broker.isAlive()).isFalse();
        } finally {
            starter.destroyForcibly();
            ProcessHandle.of(readPidQuietly(dir)).ifPresent(ProcessHandle::destroyForcibly);
        }
    }

    private static long readBrokerPid(BufferedReader out) throws Exception {
        String line;
        StringBuilder seen = new StringBuilder();
        while ((line = out.readLine()) != null) {
            if (line.startsWith(BrokerStarterMain.PID_PREFIX)) {
                return Long.parseLong(line.substring(BrokerStarterMain.PID_PREFIX.length()));
            }
            seen.append(line).append('\n');
        }
        throw new AssertionError("the starter JVM ended without starting a broker:\n" + seen);
    }

    private static long readPidQuietly(Path dir) {
        try {
            return BrokerState.read(dir).map(BrokerState::pid).orElse(-1L);
        } catch (RuntimeException e) {
            return -1L;
        }
    }

    private static Admin admin(String bootstrap) {
        Properties props = new Properties();
        props.put(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        return Admin.create(props);
    }
}
