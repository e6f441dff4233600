package org.fraudpipe.job.kafka;

import java.time.Duration;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.Config;
import org.apache.kafka.clients.admin.ConfigEntry;
import org.apache.kafka.common.Node;
import org.apache.kafka.common.config.ConfigResource;
import org.fraudpipe.job.config.Durations;
import org.fraudpipe.job.config.JobConfig;
import org.fraudpipe.job.config.JobOption;
import org.fraudpipe.schemas.Topic;
import org.fraudpipe.schemas.registry.SchemaRegistries;
import org.fraudpipe.schemas.registry.SchemaRegistryException;
import org.fraudpipe.schemas.registry.SubjectNotFoundException;

/**
 * What must hold before the job is submitted, checked against the real Kafka cluster and registry
 * so that a mistake fails at start-up with a message naming it and the fix, not minutes later in a
 * restart loop: the brokers answer, every topic exists, the brokers accept the sinks' transaction
 * timeout, and the schema registry answers.
 */
public final class StartupChecks {

    static final Duration KAFKA_TIMEOUT = Duration.ofSeconds(20);

    private StartupChecks() {}

    /**
     * Runs every check.
     *
     * @throws IllegalStateException describing the first problem and what to do
     */
    public static void verify(JobConfig config) {
        Properties props = new Properties();
        props.put(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, config.bootstrapServers());
        props.put(AdminClientConfig.REQUEST_TIMEOUT_MS_CONFIG, "5000");
        props.put(
                AdminClientConfig.DEFAULT_API_TIMEOUT_MS_CONFIG,
                Long.toString(KAFKA_TIMEOUT.toMillis()));
        try (Admin admin = Admin.create(props)) {
            Collection<Node> nodes = brokers(admin, config);
            topicsExist(admin, config);
            transactionTimeoutAccepted(admin, config, nodes.iterator().next());
        }
        registryAnswers(config);
    }

    private static Collection<Node> brokers(Admin admin, JobConfig config) {
        try {
            return admin.describeCluster()
                    .nodes()
                    .get(KAFKA_TIMEOUT.toMillis(), TimeUnit.MILLISECONDS);
        } catch (Exception e) {
            throw new IllegalStateException(
                    "cannot reach Kafka at "
                            + config.bootstrapServers()
                            + " within "
                            + Durations.format(KAFKA_TIMEOUT)
                            + " ("
                            + rootMessage(e)
                            + "): check "
                            + JobOption.BOOTSTRAP_SERVERS.flag()
                            + ", or start the local broker with `./fraud kafka start`",
                    e);
        }
    }

    private static void topicsExist(Admin admin, JobConfig config) {
        Set<String> existing;
        try {
            existing =
                    admin.listTopics().names().get(KAFKA_TIMEOUT.toMillis(), TimeUnit.MILLISECONDS);
        } catch (Exception e) {
            throw new IllegalStateException("cannot list Kafka topics: " + rootMessage(e), e);
        }
        Set<String> missing = new TreeSet<>();
        for (Map.Entry<Topic, String> t : config.topics().asMap().entrySet()) {
            if (!existing.contains(t.getValue())) {
                missing.add(t.getValue() + " (" + t.getKey().topicConfig() + ")");
            }
        }
        if (!missing.isEmpty()) {
            throw new IllegalStateException(
                    "topics missing on "
                            + config.bootstrapServers()
                            + ": "
                            + missing
                            + ". Create them with those configs (features and scores must be"
                            + " compacted); locally `./fraud kafka start` creates them. Topic names are"
                            + " set with --topic.<name>.");
        }
    }

    private static void transactionTimeoutAccepted(Admin admin, JobConfig config, Node broker) {
        ConfigResource resource = new ConfigResource(ConfigResource.Type.BROKER, broker.idString());
        Duration max;
        try {
            Config brokerConfig =
                    admin.describeConfigs(List.of(resource))
                            .all()
                            .get(KAFKA_TIMEOUT.toMillis(), TimeUnit.MILLISECONDS)
                            .get(resource);
            ConfigEntry entry = brokerConfig.get("transaction.max.timeout.ms");
            if (entry == null || entry.value() == null) {
                return;
            }
            max = Duration.ofMillis(Long.parseLong(entry.value()));
        } catch (Exception notAuthorised) {
            // Without DescribeConfigs rights we rely on --broker-transaction-max-timeout
            // (JobConfig).
            return;
        }
        if (config.transactionTimeout().compareTo(max) > 0) {
            throw new IllegalStateException(
                    JobOption.TRANSACTION_TIMEOUT.flag()
                            + " ("
                            + Durations.format(config.transactionTimeout())
                            + ") exceeds transaction.max.timeout.ms of broker "
                            + broker.idString()
                            + " ("
                            + Durations.format(max)
                            + "): the exactly-once sinks would fail to start. Lower "
                            + JobOption.TRANSACTION_TIMEOUT.flag()
                            + " or raise the brokers' transaction.max.timeout.ms");
        }
    }

    private static void registryAnswers(JobConfig config) {
        try {
            SchemaRegistries.forUrl(config.schemaRegistryUrl())
                    .latestSchema(Topic.valueSubject(config.topics().name(Topic.TRANSACTIONS)));
        } catch (SubjectNotFoundException fine) {
            // The registry answers; producers have not registered a schema yet.
        } catch (SchemaRegistryException e) {
            throw new IllegalStateException(
                    "schema registry at "
                            + config.schemaRegistryUrl()
                            + " does not answer properly ("
                            + e.getMessage()
                            + "): check "
                            + JobOption.SCHEMA_REGISTRY_URL.flag(),
                    e);
        }
    }

    private static String rootMessage(Throwable e) {
        Throwable t = e;
        while (t.getCause() != null) {
            t = t.getCause();
        }
        return t.getClass().getSimpleName() + (t.getMessage() == null ? "" : ": " + t.getMessage());
    }
}
