package org.fraudpipe.job.kafka;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.DescribeConsumerGroupsOptions;
import org.apache.kafka.clients.admin.DescribeTopicsOptions;
import org.apache.kafka.clients.admin.TopicDescription;
import org.apache.kafka.common.acl.AclOperation;
import org.apache.kafka.common.errors.GroupAuthorizationException;
import org.apache.kafka.common.errors.SaslAuthenticationException;
import org.apache.kafka.common.errors.SslAuthenticationException;
import org.apache.kafka.common.errors.TopicAuthorizationException;
import org.apache.kafka.common.errors.TransactionalIdAuthorizationException;
import org.apache.kafka.common.errors.TransactionalIdNotFoundException;
import org.fraudpipe.job.config.JobConfig;
import org.fraudpipe.job.config.JobOption;
import org.fraudpipe.schemas.Topic;
import org.fraudpipe.schemas.security.ClientProperties;

/**
 * The start-up checks of what the job's Kafka principal may do, so that a wrong password, an
 * untrusted certificate or a missing ACL stops the job before it is submitted, in one message that
 * names the principal, the listener or resource and the operation refused, instead of a restart
 * loop of tasks failing with {@code TopicAuthorizationException} (issue #18).
 *
 * <p>What the job needs: READ on the input topic and on its consumer group, WRITE on the five
 * output topics, WRITE on the transactional ids starting with its prefix (the exactly-once sinks).
 * DESCRIBE_CONFIGS on the cluster is optional: without it the brokers' transaction limit is taken
 * from {@code --broker-transaction-max-timeout}.
 */
final class KafkaAccess {

    private KafkaAccess() {}

    /**
     * The message for an authentication failure (SASL: wrong user or password; TLS: a certificate
     * not trusted either way), if {@code e} is one.
     */
    static Optional<String> authenticationFailure(JobConfig config, Throwable e) {
        ClientProperties client = config.kafkaClient();
        String where =
                "Kafka at "
                        + config.bootstrapServers()
                        + " (security.protocol "
                        + client.securityProtocol()
                        + client.saslMechanism().map(m -> ", sasl.mechanism " + m).orElse("")
                        + ")";
        for (Throwable t = e; t != null; t = t.getCause()) {
            if (t instanceof SaslAuthenticationException) {
                return Optional.of(
                        where
                                + " refused to authenticate "
                                + client.kafkaPrincipal()
                                + ": "
                                + t.getMessage()
                                + ". Check the user and password of sasl.jaas.config in "
                                + fileOf(client)
                                + "; nothing was submitted.");
            }
            if (t instanceof SslAuthenticationException) {
                return Optional.of(
                        "TLS handshake with "
                                + where
                                + " failed for "
                                + client.kafkaPrincipal()
                                + ": "
                                + rootMessage(t)
                                + ". If the broker's certificate is signed by a CA the client does"
                                + " not know, set ssl.truststore.location (and"
                                + " ssl.truststore.password) in "
                                + fileOf(client)
                                + " to a trust store holding that CA; nothing was submitted.");
            }
        }
        return Optional.empty();
    }

    /**
     * Refuses topics of the job that the principal may not see: a topic it may not DESCRIBE is not
     * listed, and would otherwise be reported as missing.
     */
    static void refuseUndescribable(Admin admin, JobConfig config, Set<String> listed) {
        List<String> hidden = new ArrayList<>();
        for (Map.Entry<Topic, String> t : config.topics().asMap().entrySet()) {
            if (listed.contains(t.getValue())) {
                continue;
            }
            try {
                admin.describeTopics(List.of(t.getValue()))
                        .allTopicNames()
                        .get(StartupChecks.KAFKA_TIMEOUT.toMillis(), TimeUnit.MILLISECONDS);
            } catch (ExecutionException e) {
                if (e.getCause() instanceof TopicAuthorizationException) {
                    hidden.add(t.getValue());
                }
            } catch (Exception e) {
                // the existence check that follows reports it
            }
        }
        if (!hidden.isEmpty()) {
            throw refused(
                    config,
                    "DESCRIBE",
                    hidden.size() == 1 ? "topic" : "topics",
                    String.join("', '", hidden),
                    "--topic.<name>");
        }
    }

    /**
     * Checks READ on the topics the job reads, WRITE on those it writes, READ on the group, WRITE
     * on the transactional ids.
     */
    static void verify(Admin admin, JobConfig config) {
        Map<String, TopicDescription> topics;
        try {
            topics =
                    admin.describeTopics(
                                    config.topics().asMap().values(),
                                    new DescribeTopicsOptions().includeAuthorizedOperations(true))
                            .allTopicNames()
                            .get(StartupChecks.KAFKA_TIMEOUT.toMillis(), TimeUnit.MILLISECONDS);
        } catch (Exception e) {
            throw new IllegalStateException("cannot describe the job's topics: " + e, e);
        }
        for (Map.Entry<Topic, String> t : config.topics().asMap().entrySet()) {
            requireOperation(
                    config,
                    topics.get(t.getValue()),
                    t.getKey().readByJob() ? AclOperation.READ : AclOperation.WRITE);
        }
        groupReadable(admin, config);
        transactionalIdsWritable(admin, config);
    }

    private static void requireOperation(
            JobConfig config, TopicDescription topic, AclOperation operation) {
        Set<AclOperation> allowed = topic.authorizedOperations();
        if (allowed == null || allowed.contains(operation) || allowed.contains(AclOperation.ALL)) {
            return; // a broker that does not tell, or the right is there
        }
        throw refused(config, operation.name(), "topic", topic.name(), "--topic.<name>");
    }

    private static void groupReadable(Admin admin, JobConfig config) {
        try {
            Set<AclOperation> allowed =
                    admin.describeConsumerGroups(
                                    List.of(config.groupId()),
                                    new DescribeConsumerGroupsOptions()
                                            .includeAuthorizedOperations(true))
                            .all()
                            .get(StartupChecks.KAFKA_TIMEOUT.toMillis(), TimeUnit.MILLISECONDS)
                            .get(config.groupId())
                            .authorizedOperations();
            if (allowed != null
                    && !allowed.isEmpty()
                    && !allowed.contains(AclOperation.READ)
                    && !allowed.contains(AclOperation.ALL)) {
                throw groupRefused(config);
            }
        } catch (ExecutionException e) {
            if (e.getCause() instanceof GroupAuthorizationException) {
                throw groupRefused(config);
            }
            // other failures (a group coordinator still loading): the source reports them
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while checking the consumer group", e);
        } catch (java.util.concurrent.TimeoutException e) {
            // the source reports an unreachable coordinator itself
        }
    }

    private static IllegalStateException groupRefused(JobConfig config) {
        return refused(
                config, "READ", "consumer group", config.groupId(), JobOption.GROUP_ID.flag());
    }

    private static void transactionalIdsWritable(Admin admin, JobConfig config) {
        // The sinks' ids are <prefix>-<topic>-<subtask>-<n>: WRITE (which includes DESCRIBE) on
        // the prefix covers them all; describing one that does not exist tells which.
        String probe =
                config.transactionalIdPrefix()
                        + "-"
                        + config.topics().name(Topic.FEATURES)
                        + "-0-1";
        try {
            admin.describeTransactions(List.of(probe))
                    .all()
                    .get(StartupChecks.KAFKA_TIMEOUT.toMillis(), TimeUnit.MILLISECONDS);
        } catch (ExecutionException e) {
            if (e.getCause() instanceof TransactionalIdAuthorizationException) {
                throw refused(
                        config,
                        "WRITE",
                        "transactional ids with prefix",
                        config.transactionalIdPrefix(),
                        JobOption.TRANSACTIONAL_ID_PREFIX.flag());
            }
            if (!(e.getCause() instanceof TransactionalIdNotFoundException)) {
                // a coordinator still loading: the sinks report it themselves
                return;
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while checking transactional ids", e);
        } catch (java.util.concurrent.TimeoutException e) {
            // the sinks report an unreachable coordinator themselves
        }
    }

    private static IllegalStateException refused(
            JobConfig config, String operation, String kind, String name, String option) {
        ClientProperties client = config.kafkaClient();
        return new IllegalStateException(
                "Kafka at "
                        + config.bootstrapServers()
                        + " refuses "
                        + client.kafkaPrincipal()
                        + " "
                        + operation
                        + " on "
                        + kind
                        + " '"
                        + name
                        + "': the job needs it. Grant it (kafka-acls.sh --bootstrap-server ..."
                        + " --command-config ADMIN.properties --add --allow-principal "
                        + client.kafkaPrincipal()
                        + " --operation "
                        + operation.charAt(0)
                        + operation.substring(1).toLowerCase(java.util.Locale.ROOT)
                        + " ...), run the job as a principal that has it ("
                        + JobOption.KAFKA_CONFIG.flag()
                        + "), or check "
                        + option
                        + "; nothing was submitted.");
    }

    private static String fileOf(ClientProperties client) {
        return client.source()
                .map(s -> JobOption.KAFKA_CONFIG.flag() + " " + s)
                .orElse(JobOption.KAFKA_CONFIG.flag());
    }

    private static String rootMessage(Throwable e) {
        Throwable t = e;
        while (t.getCause() != null) {
            t = t.getCause();
        }
        return t.getClass().getSimpleName() + (t.getMessage() == null ? "" : ": " + t.getMessage());
    }
}
