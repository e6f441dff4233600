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
     */
    public record Settings(
            Path dataDir,
            int port,
            int controllerPort,
            int registryPort,
            int partitions,
            boolean exitWithParent,
            Duration startTimeout,
            String brokerMaxHeap) {

        public Settings {
            if (partitions < 1) {
                throw new IllegalArgumentException(
                        "--partitions must be at least 1, was " + partitions);
            }
        }

        /** Free ports, tied to this JVM: a throw-away runtime (demo, tests). */
        public static Settings tiedToThisJvm(Path dataDir, int partitions) {
            return new Settings(dataDir, 0, 0, 0, partitions, true, Duration.ofSeconds(90), "512m");
        }

        LocalKafkaBroker.Settings broker() {
            return new LocalKafkaBroker.Settings(
                    dataDir, port, controllerPort, exitWithParent, startTimeout, brokerMaxHeap);
        }
    }

    /** A broker just started, and the topics created on it (those that did not exist). */
    public record StartedBroker(LocalKafkaBroker broker, List<String> createdTopics) {}

    private final LocalKafkaBroker broker;
    private final LocalSchemaRegistry.State registry;
    private final Path dataDir;
    private final List<String> createdTopics;

    private LocalKafka(
            LocalKafkaBroker broker,
            LocalSchemaRegistry.State registry,
            Path dataDir,
            List<String> createdTopics) {
        this.broker = broker;
        this.registry = registry;
        this.dataDir = dataDir;
        this.createdTopics = createdTopics;
    }

    /**
     * Starts a broker and creates the project's topics (default names) on it; stops the broker
     * again if the topics cannot be created.
     */
    public static StartedBroker startBroker(
            LocalKafkaBroker.Settings settings, BrokerRuntime runtime, int partitions) {
        LocalKafkaBroker broker = LocalKafkaBroker.start(settings, runtime);
        try (Admin admin = admin(broker.bootstrapServers())) {
            List<String> created =
                    new TopicProvisioner(admin)
                            .ensureTopics(TopicNames.defaults(), partitions, (short) 1);
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
        CompletableFuture<LocalSchemaRegistry.State> registry =
                CompletableFuture.supplyAsync(
                        () ->
                                LocalSchemaRegistry.start(
                                        new LocalSchemaRegistry.Settings(
                                                settings.dataDir(),
                                                settings.registryPort(),
                                                settings.exitWithParent(),
                                                settings.startTimeout())));
        StartedBroker started;
        try {
            started = startBroker(settings.broker(), runtime, settings.partitions());
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
                    started.createdTopics());
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
                settings.brokerMaxHeap());
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
        Properties props = new Properties();
        props.putAll(
                Map.of(
                        AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap,
                        AdminClientConfig.REQUEST_TIMEOUT_MS_CONFIG, "10000",
                        AdminClientConfig.DEFAULT_API_TIMEOUT_MS_CONFIG, "10000"));
        return Admin.create(props);
    }
}
