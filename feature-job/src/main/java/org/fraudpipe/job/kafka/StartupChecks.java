package org.fraudpipe.job.kafka;

import java.net.URI;
import java.time.Duration;
import java.util.ArrayList;
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
import org.fraudpipe.job.config.JobConfig.SchemaCompatibilityCheck;
import org.fraudpipe.job.config.JobOption;
import org.fraudpipe.schemas.Topic;
import org.fraudpipe.schemas.registry.CompatibilityLevel;
import org.fraudpipe.schemas.registry.ConfluentSchemaRegistryClient;
import org.fraudpipe.schemas.registry.InMemorySchemaRegistry;
import org.fraudpipe.schemas.registry.SchemaRegistries;
import org.fraudpipe.schemas.registry.SchemaRegistryClient;
import org.fraudpipe.schemas.registry.SchemaRegistryException;
import org.fraudpipe.schemas.registry.SchemaRegistryUnavailableException;
import org.fraudpipe.schemas.registry.SubjectNotFoundException;
import org.fraudpipe.schemas.security.ClientProperties;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What must hold before the job is submitted, checked against the real Kafka cluster and registry
 * so that a mistake fails at start-up with a message naming it and the fix, not minutes later in a
 * restart loop: the brokers answer, every topic exists, the brokers accept the sinks' transaction
 * timeout, the schema registry answers, and its compatibility level for the input subject protects
 * the job.
 *
 * <p>The level (issue #15 item 8): the job reads producers' records with the Transaction schema it
 * was built with, possibly several versions behind theirs. Only FORWARD_TRANSITIVE and
 * FULL_TRANSITIVE make the registry refuse every producer schema the job could not read. NONE,
 * BACKWARD and BACKWARD_TRANSITIVE let through, e.g., a field the job needs dropped: every record
 * written with it would be an INCOMPATIBLE_SCHEMA dead letter. The job refuses to start on them
 * ({@code --schema-compatibility-check refuse}, the default) or warns ({@code warn}). FORWARD and
 * FULL check against the latest version only: accepted with a warning. A registry that does not
 * tell the level (HTTP 401, 403, 404, 405, 501 on its config endpoints: a user without the right to
 * read configuration, a registry without the endpoint) is accepted with a warning, whatever the
 * option: the job cannot judge what it cannot read, and refusing would leave such deployments no
 * way to start but turning the check off.
 */
public final class StartupChecks {

    static final Duration KAFKA_TIMEOUT = Duration.ofSeconds(20);

    /** The level the job asks for in its messages (also what {@code ./fraud kafka start} sets). */
    static final CompatibilityLevel RECOMMENDED = Topic.TRANSACTIONS.compatibilityLevel();

    private static final Logger LOG = LoggerFactory.getLogger(StartupChecks.class);

    private StartupChecks() {}

    /**
     * Runs every check.
     *
     * @throws IllegalStateException describing the first problem and what to do
     */
    public static void verify(JobConfig config) {
        Properties props = config.kafkaClient().kafkaProperties(config.bootstrapServers());
        props.put(AdminClientConfig.REQUEST_TIMEOUT_MS_CONFIG, "5000");
        props.put(
                AdminClientConfig.DEFAULT_API_TIMEOUT_MS_CONFIG,
                Long.toString(KAFKA_TIMEOUT.toMillis()));
        try (Admin admin = Admin.create(props)) {
            Collection<Node> nodes = brokers(admin, config);
            topicsExist(admin, config);
            KafkaAccess.verify(admin, config);
            transactionTimeoutAccepted(admin, config, nodes.iterator().next());
        }
        verifyRegistry(config);
    }

    /**
     * The registry part of {@link #verify}, which needs no Kafka: the registry answers, and the
     * input subject's compatibility level protects the job. Logs each warning (WARN) and returns
     * them; empty when the level is FORWARD_TRANSITIVE or FULL_TRANSITIVE.
     *
     * @throws IllegalStateException if the registry does not answer, or if the level does not
     *     protect the job and {@code --schema-compatibility-check} is {@code refuse}
     */
    public static List<String> verifyRegistry(JobConfig config) {
        SchemaRegistryClient registry = SchemaRegistries.forConfig(config.registryConfig());
        registryAnswers(config, registry);
        List<String> warnings = inputSubjectProtected(config, registry);
        warnings.forEach(LOG::warn);
        return warnings;
    }

    private static Collection<Node> brokers(Admin admin, JobConfig config) {
        try {
            return admin.describeCluster()
                    .nodes()
                    .get(KAFKA_TIMEOUT.toMillis(), TimeUnit.MILLISECONDS);
        } catch (Exception e) {
            KafkaAccess.authenticationFailure(config, e)
                    .ifPresent(
                            message -> {
                                throw new IllegalStateException(message, e);
                            });
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
        // A topic the principal may not DESCRIBE is not listed: say that, not "missing".
        KafkaAccess.refuseUndescribable(admin, config, existing);
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

    private static void registryAnswers(JobConfig config, SchemaRegistryClient registry) {
        try {
            registry.latestSchema(inputSubject(config));
        } catch (SubjectNotFoundException fine) {
            // The registry answers; producers have not registered a schema yet.
        } catch (SchemaRegistryException e) {
            throw doesNotAnswer(config, e);
        }
    }

    private static IllegalStateException doesNotAnswer(
            JobConfig config, SchemaRegistryException e) {
        if (e.httpStatus() == 401 || e.httpStatus() == 403) {
            return new IllegalStateException(
                    "schema registry at "
                            + SchemaRegistries.forConfig(config.registryConfig()).url()
                            + " refused the job's user "
                            + config.kafkaClient()
                                    .registryUser()
                                    .map(u -> "'" + u + "'")
                                    .orElse("(anonymous: no basic.auth.user.info)")
                            + " (HTTP "
                            + e.httpStatus()
                            + "): "
                            + e.getMessage()
                            + " The registry's settings are the schema.registry.* and basic.auth.*"
                            + " entries of "
                            + JobOption.KAFKA_CONFIG.flag(),
                    e);
        }
        return new IllegalStateException(
                "schema registry at "
                        + ClientProperties.redactUrl(config.schemaRegistryUrl())
                        + " does not answer properly ("
                        + e.getMessage()
                        + "): check "
                        + JobOption.SCHEMA_REGISTRY_URL.flag(),
                e);
    }

    /** The warnings to log; throws if the level does not protect the job and the option refuses. */
    private static List<String> inputSubjectProtected(
            JobConfig config, SchemaRegistryClient registry) {
        String subject = inputSubject(config);
        String where =
                "schema registry at "
                        + registry.url()
                        + ": the job's input subject '"
                        + subject
                        + "'";
        List<String> warnings = new ArrayList<>();
        CompatibilityLevel level;
        try {
            level = registry.compatibilityLevel(subject);
        } catch (SchemaRegistryUnavailableException e) {
            throw doesNotAnswer(config, e);
        } catch (SchemaRegistryException e) {
            if (!cannotTell(e.httpStatus())) {
                throw doesNotAnswer(config, e);
            }
            warnings.add(
                    where
                            + ": cannot read its compatibility level (HTTP "
                            + e.httpStatus()
                            + ": "
                            + e.getMessage()
                            + "), so the job cannot check that the registry refuses producers'"
                            + " schema changes it could not read (under NONE or BACKWARD such a"
                            + " change makes every new record an INCOMPATIBLE_SCHEMA dead letter)."
                            + " Starting anyway. Give the job's registry user read access to"
                            + " /config, or have the registry's owner set the subject to "
                            + RECOMMENDED
                            + ": "
                            + fix(config, registry, subject));
            return warnings;
        }
        if (level.forward() && level.transitive()) {
            LOG.info(
                    "{} is {}: the registry refuses every producer schema the job could not read",
                    where,
                    level);
            return warnings;
        }
        if (level.forward()) {
            warnings.add(
                    where
                            + " is "
                            + level
                            + " ("
                            + level.meaning()
                            + "): a producer's schema is checked against the latest version only,"
                            + " so the job is protected only while its own Transaction schema is"
                            + " the latest registered one. A change the latest can read but an"
                            + " older version the job reads with cannot would make every new"
                            + " record an INCOMPATIBLE_SCHEMA dead letter. Set it to "
                            + RECOMMENDED
                            + ": "
                            + fix(config, registry, subject));
            return warnings;
        }
        boolean refuse = config.schemaCompatibilityCheck() == SchemaCompatibilityCheck.REFUSE;
        String problem =
                where
                        + " has compatibility level "
                        + level
                        + " ("
                        + level.meaning()
                        + "), which does not protect the job: nothing makes the registry check"
                        + " that the job's Transaction schema can read a producer's new one, so it"
                        + " accepts a change the job cannot read (a field the job needs dropped, a"
                        + " type changed) and every record written with it becomes a dead letter"
                        + " (INCOMPATIBLE_SCHEMA). ";
        String setIt =
                "Set the subject to "
                        + RECOMMENDED
                        + " (FORWARD_TRANSITIVE protects the job too; docs/DEPLOY.md, \"Schema"
                        + " registry\"): "
                        + fix(config, registry, subject);
        if (refuse) {
            throw new IllegalStateException(
                    problem
                            + "If the registry is managed elsewhere, "
                            + JobOption.SCHEMA_COMPATIBILITY_CHECK.flag()
                            + " warn starts the job anyway with a warning. "
                            + setIt);
        }
        warnings.add(
                problem
                        + "Starting anyway ("
                        + JobOption.SCHEMA_COMPATIBILITY_CHECK.flag()
                        + " warn). "
                        + setIt);
        return warnings;
    }

    /** Whether a failure of the config endpoint means the registry does not tell the level. */
    private static boolean cannotTell(int httpStatus) {
        return httpStatus == 401
                || httpStatus == 403
                || httpStatus == 404
                || httpStatus == 405
                || httpStatus == 501;
    }

    /** How to set the subject's level: the REST call, or the in-memory registry's method. */
    static String fix(JobConfig config, SchemaRegistryClient registry, String subject) {
        if (registry instanceof InMemorySchemaRegistry) {
            return registry.url()
                    + " is an in-memory registry of this JVM: set the level where the subject is"
                    + " created, SchemaRegistries.forUrl(\""
                    + registry.url()
                    + "\").setCompatibilityLevel(\""
                    + subject
                    + "\", CompatibilityLevel."
                    + RECOMMENDED
                    + ")";
        }
        String userInfo = URI.create(config.schemaRegistryUrl()).getRawUserInfo();
        return "curl -X PUT "
                + (userInfo == null ? "" : "-u USER:PASSWORD ")
                + "-H 'Content-Type: "
                + ConfluentSchemaRegistryClient.CONTENT_TYPE
                + "' --data '{\"compatibility\":\""
                + RECOMMENDED
                + "\"}' "
                + registry.url()
                + "/config/"
                + subject;
    }

    private static String inputSubject(JobConfig config) {
        return Topic.valueSubject(config.topics().name(Topic.TRANSACTIONS));
    }

    private static String rootMessage(Throwable e) {
        Throwable t = e;
        while (t.getCause() != null) {
            t = t.getCause();
        }
        return t.getClass().getSimpleName() + (t.getMessage() == null ? "" : ": " + t.getMessage());
    }
}
