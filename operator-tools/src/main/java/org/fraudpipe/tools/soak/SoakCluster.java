package org.fraudpipe.tools.soak;

import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import org.apache.kafka.clients.admin.Admin;
import org.fraudpipe.local.BrokerRuntime;
import org.fraudpipe.local.LocalKafka;
import org.fraudpipe.local.LocalKafkaBroker;
import org.fraudpipe.local.LocalSchemaRegistry;
import org.fraudpipe.local.TopicProvisioner;
import org.fraudpipe.schemas.TopicNames;

/**
 * The soak's broker and schema registry, each in a JVM of its own on fixed ports (so that a restart
 * finds them where the clients left them), and the {@link FaultyLink} the job reaches the broker
 * through. The traffic's publisher and the checker use the broker's own listener ({@link
 * #directBootstrap}), the job the proxied one ({@link #jobBootstrap}): the network faults hit the
 * job alone.
 */
final class SoakCluster implements AutoCloseable {

    private static final Duration START_TIMEOUT = Duration.ofSeconds(90);
    private static final Duration STOP_GRACE = Duration.ofSeconds(30);

    private final Path dataDir;
    private final int partitions;
    private final int brokerPort;
    private final int controllerPort;
    private final int proxiedPort;
    private final int registryPort;
    private final BrokerRuntime runtime;
    private final FaultyLink link;
    private volatile LocalKafkaBroker broker;

    private SoakCluster(
            Path dataDir, int partitions, int[] ports, BrokerRuntime runtime, FaultyLink link) {
        this.dataDir = dataDir.toAbsolutePath();
        this.partitions = partitions;
        this.brokerPort = ports[0];
        this.controllerPort = ports[1];
        this.proxiedPort = ports[2];
        this.registryPort = ports[3];
        this.runtime = runtime;
        this.link = link;
    }

    /** Starts the registry and the broker (with its topics) under {@code dataDir}. */
    static SoakCluster start(Path dataDir, int partitions) throws IOException {
        int[] ports = LocalKafkaBroker.freePorts(4);
        FaultyLink link = new FaultyLink(ports[2]);
        SoakCluster c =
                new SoakCluster(
                        dataDir, partitions, ports, BrokerRuntime.fromSystemProperty(), link);
        try {
            c.startRegistry();
            c.startBroker();
            try (Admin admin = LocalKafka.admin(c.directBootstrap())) {
                new TopicProvisioner(admin)
                        .ensureTopics(TopicNames.defaults(), partitions, (short) 1);
            }
            LocalSchemaRegistry.setLevels(c.registryUrl(), TopicNames.defaults());
            return c;
        } catch (RuntimeException e) {
            c.close();
            throw e;
        }
    }

    /** The broker's own listener: the traffic's publisher and the checker. */
    String directBootstrap() {
        return "localhost:" + brokerPort;
    }

    /** Through the faulty link: the job. */
    String jobBootstrap() {
        return "localhost:" + link.port();
    }

    String registryUrl() {
        return "http://localhost:" + registryPort;
    }

    FaultyLink link() {
        return link;
    }

    Path dataDir() {
        return dataDir;
    }

    int partitions() {
        return partitions;
    }

    long brokerPid() {
        LocalKafkaBroker b = broker;
        return b == null ? -1 : b.pid();
    }

    void startBroker() {
        broker =
                LocalKafkaBroker.start(
                        new LocalKafkaBroker.Settings(
                                dataDir, brokerPort, controllerPort, true, START_TIMEOUT, "512m"),
                        runtime,
                        new LocalKafkaBroker.ProxiedListener(proxiedPort, link.port()));
    }

    /** Stops the broker (SIGTERM, as an operator's restart does). */
    void stopBroker() {
        LocalKafkaBroker b = broker;
        broker = null;
        if (b != null) {
            b.close();
        }
    }

    void startRegistry() {
        LocalSchemaRegistry.start(
                new LocalSchemaRegistry.Settings(dataDir, registryPort, true, START_TIMEOUT));
    }

    void stopRegistry() {
        LocalSchemaRegistry.stop(dataDir, STOP_GRACE);
    }

    @Override
    public void close() {
        try {
            link.close();
            stopRegistry();
        } finally {
            stopBroker();
        }
    }
}
