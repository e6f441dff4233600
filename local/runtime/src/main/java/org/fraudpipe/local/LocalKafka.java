package org.fraudpipe.local;

import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.fraudpipe.schemas.TopicNames;
import org.fraudpipe.schemas.security.ClientProperties;

/**
 * The local Kafka runtime: a broker ({@link LocalKafkaBroker}) with the project's topics, and a
 * schema registry ({@link LocalSchemaRegistry}) next to it in the same data directory, with the
 * topics' subjects at FULL_TRANSITIVE. {@code ./fraud kafka start} starts them as background
 * services (reusing whichever already runs, through {@link #startBroker}); {@code ./fraud demo}
 * starts both tied to its JVM ({@link #start}), and stops them when it ends.
 *
 * <p>Invariant: a start that fails leaves nothing running that it started.
 */
public final class LocalKafka implements AutoCloseable {

    static final Duration STOP_GRACE = Duration.ofSeconds(30);

    /**
     * How to start both.
     *
     * @param dataDir the broker's data directory; the registry's journal, log and state go there
     *     too
     * @param port the broker's client port on localhost; 0 picks a free one
     * @param controllerPort the KRaft controller port; 0 picks a free one
     * @param registryPort the registry's port; 0 picks a free one
     * @param partitions partitions of each project topic
     * @param exitWithParent whether both JVMs end when this JVM ends (even on {@code kill -9})
     * @param startTimeout how long to wait for each to answer
     * @param brokerMaxHeap the broker JVM's -Xmx
     * @param secureJob null for a plaintext broker and an open registry; else both secured ({@link
     *     LocalSecurity}), the feature job's ACLs granted to this consumer group and
     *     transactional-id prefix
     */
    public record Settings(
            Path dataDir,
            int port,
            int controllerPort,
            int registryPort,
            int partitions,
            boolean exitWithParent,
            Duration startTimeout,
            String brokerMaxHeap,
            LocalSecurity.JobIdentity secureJob) {

        public Settings {
            if (partitions < 1) {
                throw new IllegalArgumentException(
                        "--partitions must be at least 1, was " + partitions);
            }
        }

        /** A plaintext runtime. */
        public Settings(
                Path dataDir,
                int port,
                int controllerPort,
                int registryPort,
                int partitions,
                boolean exitWithParent,
                Duration startTimeout,
                String brokerMaxHeap) {
            this(
                    dataDir,
                    port,
                    controllerPort,
                    registryPort,
                    partitions,
                    exitWithParent,
                    startTimeout,
                    brokerMaxHeap,
                    null);
        }

        /** Free ports, tied to this JVM: a throw-away runtime (demo, tests). */
        public static Settings tiedToThisJvm(Path dataDir, int partitions) {
            return new Settings(dataDir, 0, 0, 0, partitions, true, Duration.ofSeconds(90), "512m");
        }

        /** These settings, secured, the job's ACLs for {@code job}. */
        public Settings secured(LocalSecurity.JobIdentity job) {
            return new Settings(
                    dataDir,
                    port,
                    controllerPort,
                    registryPort,
                    partitions,
                    exitWithParent,
                    startTimeout,
                    brokerMaxHeap,
                    job);
        }

        LocalKafkaBroker.Settings broker(LocalSecurity security) {
            return new LocalKafkaBroker.Settings(
                    dataDir,
                    port,
                    controllerPort,
                    exitWithParent,
                    startTimeout,
                    brokerMaxHeap,
                    security);
        }
    }

    /** A broker just started, and the topics created on it (those that did not exist). */
    public record StartedBroker(LocalKafkaBroker broker, List<String> createdTopics) {}

    private final LocalKafkaBroker broker;
    private final LocalSchemaRegistry.State registry;
    private final Path dataDir;
    private final List<String> createdTopics;
    private final LocalSecurity security;

    private LocalKafka(
            LocalKafkaBroker broker,
            LocalSchemaRegistry.State registry,
            Path dataDir,
            List<String> createdTopics,
            LocalSecurity security) {
        this.broker = broker;
        this.registry = registry;
        this.dataDir = dataDir;
        this.createdTopics = createdTopics;
        this.security = security;
    }

    /**
     * Starts a broker and creates the project's topics (default names) on it; stops the broker
     * again if the topics cannot be created.
     */
    public static StartedBroker startBroker(
            LocalKafkaBroker.Settings settings, BrokerRuntime runtime, int partitions) {
        return startBroker(settings, runtime, partitions, LocalSecurity.JobIdentity.defaults());
    }

    /**
     * As {@link #startBroker(LocalKafkaBroker.Settings, BrokerRuntime, int)}; a secured broker also
     * gets every principal's ACLs, the feature job's for {@code job}.
     */
    public static StartedBroker startBroker(
            LocalKafkaBroker.Settings settings,
            BrokerRuntime runtime,
            int partitions,
            LocalSecurity.JobIdentity job) {
        LocalKafkaBroker broker = LocalKafkaBroker.start(settings, runtime);
        ClientProperties admin =
                settings.security() == null
                        ? ClientProperties.none()
                        : settings.security().client(LocalSecurity.ADMIN);
        try (Admin client = admin(broker.bootstrapServers(), admin)) {
            List<String> created =
                    new TopicProvisioner(client)
                            .ensureTopics(TopicNames.defaults(), partitions, (short) 1);
            if (settings.security() != null) {
                settings.security().createAcls(client, TopicNames.defaults(), job);
            }
            return new StartedBroker(broker, created);
        } catch (RuntimeException e) {
            broker.close();
            throw e;
        }
    }

    /**
     * Starts the broker with its topics and, at the same time (they do not depend on each other),
     * the registry; if either fails, stops the other.
     */
    public static LocalKafka start(Settings requested, BrokerRuntime runtime) {
        Settings settings = withPorts(requested);
        LocalSecurity security = null;
        if (settings.secureJob() != null) {
            LocalKafkaBroker.requireSameMode(settings.dataDir().toAbsolutePath(), true);
            security = LocalSecurity.prepare(settings.dataDir());
        }
        LocalSecurity secured = security;
        CompletableFuture<LocalSchemaRegistry.State> registry =
                CompletableFuture.supplyAsync(
                        () ->
                                LocalSchemaRegistry.start(
                                        new LocalSchemaRegistry.Settings(
                                                        settings.dataDir(),
                                                        settings.registryPort(),
                                                        settings.exitWithParent(),
                                                        settings.startTimeout())
                                                .withSecurity(secured)));
        StartedBroker started;
        try {
            started =
                    startBroker(
                            settings.broker(security),
                            runtime,
                            settings.partitions(),
                            settings.secureJob() == null
                                    ? LocalSecurity.JobIdentity.defaults()
                                    : settings.secureJob());
        } catch (RuntimeException e) {
            try {
                registry.join();
            } catch (RuntimeException registryFailedToo) {
                e.addSuppressed(registryFailedToo);
            }
            LocalSchemaRegistry.stop(settings.dataDir(), STOP_GRACE);
            throw e;
        }
        try {
            return new LocalKafka(
                    started.broker(),
                    registry.join(),
                    settings.dataDir().toAbsolutePath(),
                    started.createdTopics(),
                    security);
        } catch (CompletionException e) {
            started.broker().close();
            throw e.getCause() instanceof RuntimeException r ? r : e;
        }
    }

    /**
     * {@code settings} with every port 0 replaced by a free one, all picked together: the broker
     * and the registry start at the same time, and ports each picked on its own could collide.
     */
    static Settings withPorts(Settings settings) {
        int[] free =
                LocalKafkaBroker.freePorts(
                        3, settings.port(), settings.controllerPort(), settings.registryPort());
        return new Settings(
                settings.dataDir(),
                settings.port() == 0 ? free[0] : settings.port(),
                settings.controllerPort() == 0 ? free[1] : settings.controllerPort(),
                settings.registryPort() == 0 ? free[2] : settings.registryPort(),
                settings.partitions(),
                settings.exitWithParent(),
                settings.startTimeout(),
                settings.brokerMaxHeap(),
                settings.secureJob());
    }

    public String bootstrapServers() {
        return broker.bootstrapServers();
    }

    public String schemaRegistryUrl() {
        return registry.url();
    }

    public long brokerPid() {
        return broker.pid();
    }

    public long registryPid() {
        return registry.pid();
    }

    public List<String> createdTopics() {
        return createdTopics;
    }

    /** The security of a secured runtime, empty for a plaintext one. */
    public java.util.Optional<LocalSecurity> security() {
        return java.util.Optional.ofNullable(security);
    }

    /**
     * The client settings of {@code principal} ({@link LocalSecurity#PRINCIPALS}); none on a
     * plaintext runtime.
     */
    public ClientProperties client(String principal) {
        return security == null ? ClientProperties.none() : security.client(principal);
    }

    /** Whether the broker's or the registry's process is still alive. */
    public boolean anyAlive() {
        return broker.isAlive() || registry.process().isPresent();
    }

    /** Stops the registry, then the broker (each: SIGTERM, forced after 30 s). Idempotent. */
    @Override
    public void close() {
        try {
            LocalSchemaRegistry.stop(dataDir, STOP_GRACE);
        } finally {
            broker.close();
        }
    }

    /** An admin client for {@code bootstrap} with 10 s timeouts. */
    public static Admin admin(String bootstrap) {
        return admin(bootstrap, ClientProperties.none());
    }

    /** An admin client for {@code bootstrap} with {@code client}'s settings, 10 s timeouts. */
    public static Admin admin(String bootstrap, ClientProperties client) {
        Properties props = client.kafkaProperties(bootstrap);
        props.putAll(
                Map.of(
                        AdminClientConfig.REQUEST_TIMEOUT_MS_CONFIG, "10000",
                        AdminClientConfig.DEFAULT_API_TIMEOUT_MS_CONFIG, "10000"));
        return Admin.create(props);
    }
}
