package org.fraudpipe.job.kafka;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.stream.Collectors;
import org.apache.flink.runtime.minicluster.MiniCluster;
import org.apache.flink.runtime.testutils.MiniClusterResourceConfiguration;
import org.apache.flink.test.junit5.InjectMiniCluster;
import org.apache.flink.test.junit5.MiniClusterExtension;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.errors.TopicAuthorizationException;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.fraudpipe.job.config.JobConfig;
import org.fraudpipe.job.reliability.KnownCountTraffic;
import org.fraudpipe.job.testing.JobDeployment;
import org.fraudpipe.job.testing.RunningJob;
import org.fraudpipe.job.testing.TransactionProducer;
import org.fraudpipe.local.KafkaTestBroker;
import org.fraudpipe.local.LocalSecurity;
import org.fraudpipe.schemas.Topic;
import org.fraudpipe.schemas.avro.FeatureRecord;
import org.fraudpipe.schemas.avro.ScoreRecord;
import org.fraudpipe.schemas.avro.TransactionScore;
import org.fraudpipe.schemas.security.ClientProperties;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * Issue #18: the production job on the secured local runtime, a {@code SASL_SSL} listener (TLS with
 * a CA made at start, SCRAM-SHA-512 users) with ACLs, and the schema registry over HTTPS with basic
 * authentication. The job runs as {@code feature-job}, the test's traffic is written as {@code
 * producer}; each principal may do only what it needs, and a wrong password, an unknown CA or a
 * missing right stops the job at start-up with one message naming the principal and what was
 * refused.
 */
class SecuredKafkaIT {

    private static final int PARTITIONS = 2;
    private static final Instant START = Instant.parse("2025-01-06T00:00:00Z");
    private static final Duration WINDOW = Duration.ofMinutes(10);
    private static final Duration TIMEOUT = Duration.ofMinutes(3);

    @RegisterExtension static final KafkaTestBroker KAFKA = KafkaTestBroker.secured(PARTITIONS);

    @RegisterExtension
    static final MiniClusterExtension FLINK =
            new MiniClusterExtension(
                    new MiniClusterResourceConfiguration.Builder()
                            .setNumberTaskManagers(1)
                            .setNumberSlotsPerTaskManager(2)
                            .build());

    @TempDir Path dir;

    @Test
    @DisplayName(
            "#18 the job runs end to end on TLS + SCRAM + ACLs and the secured registry:"
                    + " exactly-once outputs as in plaintext; the reader may read scores, not"
                    + " transactions")
    void theJobRunsEndToEndAsItsOwnPrincipalAndTheReaderIsRefusedTheInput(
            @InjectMiniCluster MiniCluster cluster) throws Exception {
        JobDeployment deployment =
                JobDeployment.create(KAFKA, "secured", PARTITIONS, dir, Map.of("idleness", "30m"));
        assertThat(deployment.config().kafkaClient().kafkaPrincipal())
                .isEqualTo("User:" + LocalSecurity.FEATURE_JOB);
        KnownCountTraffic traffic = new KnownCountTraffic(3, 2, 2, START, WINDOW, PARTITIONS);
        RunningJob job = new RunningJob(cluster, deployment.start()).awaitAllTasksRunning(TIMEOUT);
        try (TransactionProducer producer = deployment.producer()) {
            producer.sendAll(traffic.all());
            producer.sendAll(traffic.closingTicks(traffic.end().plus(Duration.ofMinutes(1))));
        }
        List<FeatureRecord> features =
                deployment.awaitCommitted(
                        Topic.FEATURES, FeatureRecord.class, traffic.windowResults(), TIMEOUT);
        List<ScoreRecord> scores =
                deployment.awaitCommitted(
                        Topic.SCORES, ScoreRecord.class, traffic.windowResults(), TIMEOUT);
        // Exactly once: one pane per (user, window), each with the known count, and one score.
        Set<String> users =
                traffic.all().stream()
                        .map(t -> t.transaction().getUserId())
                        .collect(Collectors.toSet());
        List<FeatureRecord> userPanes =
                features.stream().filter(f -> users.contains(f.getUserId())).toList();
        assertThat(userPanes).hasSize(traffic.windowResults());
        assertThat(userPanes).allSatisfy(f -> assertThat(f.getTxCount()).isEqualTo(2));
        assertThat(
                        userPanes.stream()
                                .map(f -> f.getUserId() + "@" + f.getWindowStart())
                                .collect(Collectors.toSet()))
                .hasSize(traffic.windowResults());
        assertThat(scores.stream().filter(s -> users.contains(s.getUserId())))
                .hasSize(traffic.windowResults());
        List<TransactionScore> atArrival =
                deployment.awaitCommitted(
                        Topic.TRANSACTION_SCORES,
                        TransactionScore.class,
                        traffic.all().size(),
                        TIMEOUT);
        Set<String> ids = new HashSet<>();
        atArrival.forEach(s -> ids.add(s.getTransactionId()));
        assertThat(ids)
                .containsAll(
                        traffic.all().stream()
                                .map(t -> t.transaction().getTransactionId())
                                .toList());
        assertThat(job.restarts()).as("no restart on the way").isZero();

        // The reader: scores yes, the raw transactions no.
        assertThat(readAs(LocalSecurity.READER, deployment.topic(Topic.SCORES)))
                .isGreaterThanOrEqualTo(traffic.windowResults());
        assertThatThrownBy(() -> readAs(LocalSecurity.READER, deployment.topic(Topic.TRANSACTIONS)))
                .isInstanceOf(TopicAuthorizationException.class)
                .hasMessageContaining(deployment.topic(Topic.TRANSACTIONS));
        job.client().cancel().get();

        // No generated password in what the run wrote: the broker's and the registry's logs and
        // data (the KRaft metadata holds SCRAM's salted keys, not passwords), the job's
        // checkpoints and archive. Not searched: the security directory itself and the broker's
        // server.properties (its configuration, owner-only), where they are meant to be.
        List<Path> written = new java.util.ArrayList<>();
        for (Path root : List.of(KAFKA.dataDir(), dir)) {
            try (var walk = Files.walk(root)) {
                walk.filter(Files::isRegularFile)
                        .filter(f -> !f.startsWith(KAFKA.security().dir()))
                        .filter(f -> !f.getFileName().toString().equals("server.properties"))
                        // offset indexes (preallocated, 10 MB each) hold offsets only
                        .filter(f -> !f.toString().endsWith("index"))
                        .forEach(written::add);
            }
        }
        assertThat(written)
                .anyMatch(f -> f.getFileName().toString().equals("broker.log"))
                .anyMatch(f -> f.getFileName().toString().equals("schema-registry.log"))
                .anyMatch(f -> f.toString().contains("archive-"));
        for (String secret : KAFKA.security().secrets()) {
            for (Path f : written) {
                assertThat(
                                new String(
                                        Files.readAllBytes(f),
                                        java.nio.charset.StandardCharsets.ISO_8859_1))
                        .as("%s", f)
                        .doesNotContain(secret);
            }
        }
    }

    @Test
    @DisplayName(
            "#18 a wrong password, an unknown CA, a missing ACL and a refused registry user each"
                    + " stop the job at start-up with one message naming the principal and what"
                    + " was refused")
    void everyAuthenticationOrAuthorizationFailureStopsTheJobAtStartUpNamingIt() throws Exception {
        JobDeployment deployment =
                JobDeployment.create(KAFKA, "refused", PARTITIONS, dir, Map.of());
        ClientProperties jobClient = KAFKA.client(LocalSecurity.FEATURE_JOB);
        String goodJaas = jobClient.all().get("sasl.jaas.config");

        Map<String, String> wrongPassword = new HashMap<>(jobClient.all());
        wrongPassword.put(
                "sasl.jaas.config", goodJaas.replaceAll("password=\"[^\"]*\"", "password=\"x\""));
        assertThatThrownBy(() -> StartupChecks.verify(configWith(deployment, wrongPassword)))
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("refused to authenticate User:feature-job")
                .hasMessageContaining("SASL_SSL")
                .hasMessageContaining("SCRAM-SHA-512")
                .hasMessageNotContaining(secretOf(goodJaas));

        Map<String, String> unknownCa = new HashMap<>(jobClient.all());
        unknownCa.remove("ssl.truststore.location");
        unknownCa.remove("ssl.truststore.password");
        unknownCa.remove("ssl.truststore.type");
        assertThatThrownBy(() -> StartupChecks.verify(configWith(deployment, unknownCa)))
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("TLS handshake with Kafka at " + KAFKA.bootstrapServers())
                .hasMessageContaining("User:feature-job")
                .hasMessageContaining("ssl.truststore.location");

        // The reader's credentials are right, but it may not touch the job's input.
        Map<String, String> reader = KAFKA.client(LocalSecurity.READER).all();
        assertThatThrownBy(() -> StartupChecks.verify(configWith(deployment, reader)))
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("refuses User:reader")
                .hasMessageContaining(deployment.topic(Topic.TRANSACTIONS))
                .hasMessageContaining("nothing was submitted");

        Map<String, String> wrongRegistryUser = new HashMap<>(jobClient.all());
        wrongRegistryUser.put("basic.auth.user.info", "feature-job:not-the-password");
        assertThatThrownBy(() -> StartupChecks.verify(configWith(deployment, wrongRegistryUser)))
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("refused the job's user 'feature-job' (HTTP 401)")
                .hasMessageNotContaining("not-the-password");
    }

    @Test
    @DisplayName(
            "#18 a registry certificate the client does not trust stops the job, naming the fix")
    void anUntrustedRegistryCertificateStopsTheJobNamingTheTrustStoreSetting() throws Exception {
        JobDeployment deployment =
                JobDeployment.create(KAFKA, "untrusted", PARTITIONS, dir, Map.of());
        Map<String, String> client = new HashMap<>(KAFKA.client(LocalSecurity.FEATURE_JOB).all());
        client.keySet().removeIf(k -> k.startsWith("schema.registry.ssl."));
        assertThatThrownBy(() -> StartupChecks.verify(configWith(deployment, client)))
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("schema registry at " + KAFKA.schemaRegistryUrl())
                .hasMessageContaining("TLS handshake failed")
                .hasMessageContaining("schema.registry.ssl.truststore.location");
    }

    /** The deployment's configuration with other client settings, as its own file. */
    private JobConfig configWith(JobDeployment deployment, Map<String, String> client)
            throws Exception {
        Path file = Files.createTempFile(dir, "client", ".properties");
        Properties p = new Properties();
        p.putAll(client);
        try (var out = Files.newOutputStream(file)) {
            p.store(out, null);
        }
        Map<String, String> options = new HashMap<>(deployment.config().asMap());
        options.put("kafka-config", file.toString());
        return JobConfig.of(options);
    }

    private static String secretOf(String jaas) {
        return jaas.replaceAll(".*password=\"([^\"]*)\".*", "$1");
    }

    /** Reads {@code topic} as {@code principal} in the reader's group; returns how many. */
    private static int readAs(String principal, String topic) {
        Properties p = KAFKA.client(principal).kafkaProperties(KAFKA.bootstrapServers());
        p.put(ConsumerConfig.GROUP_ID_CONFIG, LocalSecurity.READER_GROUP);
        p.put(ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed");
        p.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
        p.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, "false");
        int read = 0;
        try (KafkaConsumer<byte[], byte[]> consumer =
                new KafkaConsumer<>(p, new ByteArrayDeserializer(), new ByteArrayDeserializer())) {
            consumer.subscribe(List.of(topic));
            long deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
            int empty = 0;
            while (System.nanoTime() < deadline && (read == 0 || empty < 3)) {
                int n = consumer.poll(Duration.ofMillis(500)).count();
                read += n;
                empty = n == 0 ? empty + 1 : 0;
            }
        }
        return read;
    }
}
