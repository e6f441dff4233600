package org.fraudpipe.local;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.Properties;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.DescribeClusterOptions;
import org.apache.kafka.common.Uuid;
import org.fraudpipe.schemas.security.ClientProperties;

/**
 * A real Apache Kafka broker (KRaft, one combined broker+controller node) in a separate JVM, for
 * local runs and integration tests. It is started from the jars of module {@code
 * local/kafka-broker} (see {@link BrokerRuntime}), listens on {@code localhost} only, and keeps its
 * log segments, its log file ({@value #LOG_FILE}) and a state file ({@value #STATE_FILE}) in its
 * data directory.
 *
 * <p>Lifecycle invariants:
 *
 * <ul>
 *   <li>{@link #start} returns only once the broker answers on its listener; if the broker JVM dies
 *       or does not answer within the timeout, it is killed and the exception carries the end of
 *       its log.
 *   <li>With {@link Settings#exitWithParent()} (tests, demo) the broker JVM watches this JVM and
 *       exits when it ends, even on {@code kill -9}; {@link #close()} and a shutdown hook stop it
 *       earlier. Without it ({@code ./fraud kafka start}) the broker outlives its starter until
 *       {@link #stop(Path, Duration)}.
 *   <li>A data directory is formatted once (a new cluster id); a restart with the same directory
 *       keeps topics and data.
 * </ul>
 */
public final class LocalKafkaBroker implements AutoCloseable {

    public static final String LOG_FILE = "broker.log";
    public static final String STATE_FILE = "broker.state";
    static final Duration DEFAULT_STOP_GRACE = Duration.ofSeconds(30);

    /**
     * How to start a broker.
     *
     * @param dataDir where log segments, the log file and the state file live; created if missing
     * @param port the client listener port on localhost; 0 picks a free one
     * @param controllerPort the KRaft controller listener port; 0 picks a free one
     * @param exitWithParent whether the broker JVM ends when this JVM ends
     * @param startTimeout how long to wait for the broker to answer
     * @param maxHeap the broker JVM's -Xmx, e.g. "512m"
     * @param security null for the plaintext broker; else its client listener is {@code SASL_SSL}
     *     (SCRAM-SHA-512 over TLS) with ACLs, the users and key material of {@code security}
     */
    public record Settings(
            Path dataDir,
            int port,
            int controllerPort,
            boolean exitWithParent,
            Duration startTimeout,
            String maxHeap,
            LocalSecurity security) {

        /** A plaintext broker. */
        public Settings(
                Path dataDir,
                int port,
                int controllerPort,
                boolean exitWithParent,
                Duration startTimeout,
                String maxHeap) {
            this(dataDir, port, controllerPort, exitWithParent, startTimeout, maxHeap, null);
        }

        public Settings {
            if (port < 0 || port > 65535) {
                throw new IllegalArgumentException("--port must be 0..65535, was " + port);
            }
            if (controllerPort < 0 || controllerPort > 65535) {
                throw new IllegalArgumentException(
                        "--controller-port must be 0..65535, was " + controllerPort);
            }
            if (port != 0 && port == controllerPort) {
                throw new IllegalArgumentException(
                        "--port and --controller-port must differ, both were " + port);
            }
        }

        /** Free ports, tied to this JVM: what tests use. */
        public static Settings forTests(Path dataDir) {
            return new Settings(dataDir, 0, 0, true, Duration.ofSeconds(90), "512m");
        }

        /** These settings with {@code security} (null: plaintext). */
        public Settings withSecurity(LocalSecurity security) {
            return new Settings(
                    dataDir, port, controllerPort, exitWithParent, startTimeout, maxHeap, security);
        }
    }

    private final ProcessHandle process;
    private final BrokerState state;
    private final Thread shutdownHook;

    private LocalKafkaBroker(ProcessHandle process, BrokerState state, boolean withShutdownHook) {
        this.process = process;
        this.state = state;
        if (withShutdownHook) {
            this.shutdownHook = new Thread(() -> stopProcess(process, DEFAULT_STOP_GRACE));
            Runtime.getRuntime().addShutdownHook(shutdownHook);
        } else {
            this.shutdownHook = null;
        }
    }

    /**
     * A second client listener, {@code PROXIED} (plaintext), on {@code port}, advertised at {@code
     * advertisedPort}: where a proxy in front of the broker listens, so that a client that
     * bootstraps through the proxy keeps using it for every connection (the soak's network faults),
     * while other clients use the broker's own listener.
     */
    public record ProxiedListener(int port, int advertisedPort) {}

    /** Starts a broker and waits until it answers. */
    public static LocalKafkaBroker start(Settings settings, BrokerRuntime runtime) {
        return start(settings, runtime, null);
    }

    /**
     * Starts a broker with a {@link ProxiedListener} (null: none) and waits until it answers on its
     * own listener.
     */
    public static LocalKafkaBroker start(
            Settings settings, BrokerRuntime runtime, ProxiedListener proxied) {
        if (proxied != null && settings.security() != null) {
            throw new IllegalArgumentException("a proxied listener is plaintext only");
        }
        Path dataDir = settings.dataDir().toAbsolutePath();
        try {
            Files.createDirectories(dataDir);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot create broker data directory " + dataDir, e);
        }
        requireSameMode(dataDir, settings.security() != null);
        Optional<BrokerState> previous = BrokerState.read(dataDir);
        if (previous.isPresent() && previous.get().process().isPresent()) {
            throw new IllegalStateException(
                    "a broker is already running from "
                            + dataDir
                            + " (pid "
                            + previous.get().pid()
                            + ", "
                            + previous.get().bootstrapServers()
                            + "): use it, or stop it with `./fraud kafka stop`");
        }
        int port = settings.port() == 0 ? 0 : requireFree(settings.port(), "--port");
        int controllerPort =
                settings.controllerPort() == 0
                        ? 0
                        : requireFree(settings.controllerPort(), "--controller-port");
        int[] free = freePorts(2, port, controllerPort);
        if (port == 0) {
            port = free[0];
        }
        if (controllerPort == 0) {
            controllerPort = free[1];
        }

        Path propertiesFile = dataDir.resolve("server.properties");
        writeServerProperties(
                propertiesFile,
                dataDir.resolve("logs"),
                port,
                controllerPort,
                settings.security(),
                proxied);
        formatIfNeeded(runtime, dataDir, propertiesFile, settings.security());

        List<String> command = new ArrayList<>();
        command.add(runtime.javaExecutable().toString());
        command.add("-Xms128m");
        command.add("-Xmx" + settings.maxHeap());
        command.add("-XX:+UseG1GC");
        command.add("-Djava.awt.headless=true");
        command.add("-cp");
        command.add(runtime.classpath());
        command.add(BrokerRuntime.MAIN_CLASS);
        if (settings.exitWithParent()) {
            command.add("--exit-with-parent");
            command.add(Long.toString(ProcessHandle.current().pid()));
        }
        command.add(propertiesFile.toString());

        Path logFile = dataDir.resolve(LOG_FILE);
        Process process = BackgroundJvm.start(command, logFile, "the broker JVM");
        BrokerState state =
                new BrokerState(
                        process.pid(),
                        "localhost:" + port,
                        port,
                        controllerPort,
                        dataDir,
                        process.info().startInstant().orElseGet(Instant::now),
                        settings.security() != null);
        LocalKafkaBroker broker =
                new LocalKafkaBroker(process.toHandle(), state, settings.exitWithParent());
        try {
            awaitReady(
                    process.toHandle(),
                    state.bootstrapServers(),
                    settings.security() == null
                            ? ClientProperties.none()
                            : settings.security().client(LocalSecurity.ADMIN),
                    settings.startTimeout(),
                    logFile);
            state.write();
            return broker;
        } catch (RuntimeException e) {
            broker.close();
            throw e;
        }
    }

    /** The broker recorded in {@code dataDir}, if its process is still alive. */
    public static Optional<BrokerState> running(Path dataDir) {
        return BrokerState.read(dataDir.toAbsolutePath()).filter(s -> s.process().isPresent());
    }

    /**
     * Stops the broker recorded in {@code dataDir}: SIGTERM (controlled shutdown), then a forced
     * kill after {@code grace}. Returns false if none was running.
     */
    public static boolean stop(Path dataDir, Duration grace) {
        Optional<BrokerState> state = BrokerState.read(dataDir.toAbsolutePath());
        if (state.isEmpty()) {
            return false;
        }
        Optional<ProcessHandle> process = state.get().process();
        process.ifPresent(p -> stopProcess(p, grace));
        BrokerState.delete(dataDir.toAbsolutePath());
        return process.isPresent();
    }

    public String bootstrapServers() {
        return state.bootstrapServers();
    }

    public BrokerState state() {
        return state;
    }

    public long pid() {
        return process.pid();
    }

    public boolean isAlive() {
        return process.isAlive();
    }

    /** Stops the broker (controlled shutdown, forced after 30 s). Idempotent. */
    @Override
    public void close() {
        stopProcess(process, DEFAULT_STOP_GRACE);
        BrokerState.delete(state.dataDir());
        if (shutdownHook != null) {
            try {
                Runtime.getRuntime().removeShutdownHook(shutdownHook);
            } catch (IllegalStateException alreadyShuttingDown) {
                // the hook is running or has run; nothing to remove
            }
        }
    }

    static void stopProcess(ProcessHandle process, Duration grace) {
        if (!process.isAlive()) {
            return;
        }
        process.destroy();
        try {
            process.onExit().get(grace.toMillis(), TimeUnit.MILLISECONDS);
        } catch (Exception notInTime) {
            process.destroyForcibly();
            try {
                process.onExit().get(10, TimeUnit.SECONDS);
            } catch (Exception e) {
                throw new IllegalStateException(
                        "broker process " + process.pid() + " did not exit after kill -9", e);
            }
        }
    }

    /**
     * Refuses to start a data directory in the other mode than it was made for: a plaintext one has
     * no SCRAM users (they are created when the storage is formatted), and a secured one started in
     * plaintext would serve its data to anyone.
     */
    public static void requireSameMode(Path dataDir, boolean secure) {
        boolean formatted = Files.exists(dataDir.resolve("logs").resolve("meta.properties"));
        boolean hasSecurity = Files.exists(dataDir.resolve(LocalSecurity.DIR));
        if (formatted && secure && !hasSecurity) {
            throw new IllegalStateException(
                    dataDir
                            + " holds a plaintext broker's data: a secured broker needs a new data"
                            + " directory (--data-dir DIR), or delete this one");
        }
        if (hasSecurity && !secure) {
            throw new IllegalStateException(
                    dataDir
                            + " holds a secured broker (its users, ACLs and certificates are in "
                            + dataDir.resolve(LocalSecurity.DIR)
                            + "): start it with --secure, or use another --data-dir for a"
                            + " plaintext one");
        }
    }

    private static void awaitReady(
            ProcessHandle process,
            String bootstrap,
            ClientProperties client,
            Duration timeout,
            Path logFile) {
        Properties props = client.kafkaProperties(bootstrap);
        props.put(AdminClientConfig.REQUEST_TIMEOUT_MS_CONFIG, "2000");
        props.put(AdminClientConfig.DEFAULT_API_TIMEOUT_MS_CONFIG, "2000");
        props.put(AdminClientConfig.RECONNECT_BACKOFF_MAX_MS_CONFIG, "200");
        try (Admin admin = Admin.create(props)) {
            BackgroundJvm.awaitAnswer(
                    process,
                    () -> {
                        try {
                            return !admin.describeCluster(
                                            new DescribeClusterOptions().timeoutMs(2000))
                                    .nodes()
                                    .get(3, TimeUnit.SECONDS)
                                    .isEmpty();
                        } catch (Exception notYet) {
                            // not listening yet, or still electing itself controller
                            return false;
                        }
                    },
                    "the broker JVM",
                    bootstrap,
                    timeout,
                    logFile,
                    200);
        }
    }

    private static void writeServerProperties(
            Path file,
            Path logDirs,
            int port,
            int controllerPort,
            LocalSecurity security,
            ProxiedListener proxied) {
        String listener = security == null ? "PLAINTEXT" : "SASL_SSL";
        String proxiedListener = proxied == null ? "" : ",PROXIED://localhost:" + proxied.port();
        String proxiedAdvertised =
                proxied == null ? "" : ",PROXIED://localhost:" + proxied.advertisedPort();
        StringBuilder secured = new StringBuilder();
        if (security != null) {
            // The controller listener stays PLAINTEXT on loopback (docs/DECISIONS.md, "Security").
            security.brokerProperties()
                    .forEach((k, v) -> secured.append(k).append('=').append(v).append('\n'));
        }
        String content =
                String.join(
                                "\n",
                                "# Written by LocalKafkaBroker at every start; edits are overwritten.",
                                "process.roles=broker,controller",
                                "node.id=1",
                                "controller.quorum.voters=1@localhost:" + controllerPort,
                                "listeners="
                                        + listener
                                        + "://localhost:"
                                        + port
                                        + ",CONTROLLER://localhost:"
                                        + controllerPort
                                        + proxiedListener,
                                "advertised.listeners="
                                        + listener
                                        + "://localhost:"
                                        + port
                                        + proxiedAdvertised,
                                "listener.security.protocol.map="
                                        + listener
                                        + ":"
                                        + listener
                                        + ",CONTROLLER:PLAINTEXT"
                                        + (proxied == null ? "" : ",PROXIED:PLAINTEXT"),
                                "controller.listener.names=CONTROLLER",
                                "inter.broker.listener.name=" + listener,
                                "log.dirs=" + logDirs,
                                // Topics are created explicitly with their contract
                                // (ProjectTopics).
                                "auto.create.topics.enable=false",
                                "num.partitions=3",
                                // One node: internal topics must not ask for more replicas than
                                // exist.
                                "offsets.topic.replication.factor=1",
                                "offsets.topic.num.partitions=4",
                                "transaction.state.log.replication.factor=1",
                                "transaction.state.log.min.isr=1",
                                "transaction.state.log.num.partitions=4",
                                "share.coordinator.state.topic.replication.factor=1",
                                "share.coordinator.state.topic.min.isr=1",
                                "group.initial.rebalance.delay.ms=0",
                                // Kafka's default; the job validates its transaction.timeout.ms
                                // against it.
                                "transaction.max.timeout.ms=900000",
                                "log.cleaner.backoff.ms=5000",
                                "")
                        + secured;
        try {
            if (security != null) {
                // It holds the admin's password and the key store's: its owner's only.
                Files.deleteIfExists(file);
                Files.createFile(file);
                try {
                    Files.setPosixFilePermissions(
                            file,
                            java.nio.file.attribute.PosixFilePermissions.fromString("rw-------"));
                } catch (UnsupportedOperationException notPosix) {
                    // not a POSIX file system: the data directory's own protection applies
                }
            }
            Files.writeString(file, content, StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot write " + file, e);
        }
    }

    private static void formatIfNeeded(
            BrokerRuntime runtime, Path dataDir, Path propertiesFile, LocalSecurity security) {
        if (Files.exists(dataDir.resolve("logs").resolve("meta.properties"))) {
            return;
        }
        List<String> tool = new ArrayList<>();
        tool.add("kafka.tools.StorageTool");
        tool.add("format");
        tool.add("-t");
        tool.add(Uuid.randomUuid().toString());
        tool.add("-c");
        tool.add(propertiesFile.toString());
        List<String> command =
                new ArrayList<>(
                        List.of(
                                runtime.javaExecutable().toString(),
                                "-Xmx256m",
                                "-cp",
                                runtime.classpath()));
        Path argFile = dataDir.resolve("format.args");
        try {
            if (security == null) {
                command.addAll(tool);
            } else {
                // SCRAM users are created with the storage (in KRaft's bootstrap metadata, so they
                // exist before the broker accepts its first connection). Their passwords go to
                // the tool in a Java argument file readable by its owner only, deleted after, so
                // they are never on a command line (ps).
                tool.addAll(security.scramFormatArguments());
                Files.deleteIfExists(argFile);
                Files.createFile(argFile);
                try {
                    Files.setPosixFilePermissions(
                            argFile,
                            java.nio.file.attribute.PosixFilePermissions.fromString("rw-------"));
                } catch (UnsupportedOperationException notPosix) {
                    // not a POSIX file system
                }
                Files.write(argFile, tool, StandardCharsets.UTF_8);
                command.add("@" + argFile);
            }
            Process format =
                    new ProcessBuilder(command)
                            .redirectErrorStream(true)
                            .redirectInput(ProcessBuilder.Redirect.from(nullFile()))
                            .start();
            String output;
            try (InputStream in = format.getInputStream()) {
                output = new String(in.readAllBytes(), StandardCharsets.UTF_8);
            }
            Files.deleteIfExists(argFile);
            if (security != null) {
                for (String secret : security.secrets()) {
                    output = output.replace(secret, ClientProperties.HIDDEN);
                }
            }
            if (security != null) {
                for (String secret : security.secrets()) {
                    output = output.replace(secret, ClientProperties.HIDDEN);
                }
            }
            if (!format.waitFor(60, TimeUnit.SECONDS)) {
                format.destroyForcibly();
                throw new IllegalStateException("formatting " + dataDir + " timed out");
            }
            if (format.exitValue() != 0) {
                throw new IllegalStateException(
                        "formatting the broker storage in "
                                + dataDir
                                + " failed (exit "
                                + format.exitValue()
                                + "); delete the directory to start afresh. Output:\n"
                                + output);
            }
        } catch (IOException e) {
            throw new UncheckedIOException("cannot run the Kafka storage tool", e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while formatting " + dataDir, e);
        }
    }

    static int freePort() {
        return freePorts(1)[0];
    }

    /**
     * {@code count} distinct free local ports, none of them in {@code taken}. All sockets are held
     * open until every port is picked: closing one before opening the next lets the OS hand out the
     * same port twice (which made a broker's two listeners collide).
     */
    public static int[] freePorts(int count, int... taken) {
        List<ServerSocket> sockets = new ArrayList<>();
        try {
            int[] ports = new int[count];
            int found = 0;
            while (found < count) {
                ServerSocket socket = new ServerSocket(0, 1, InetAddress.getLoopbackAddress());
                sockets.add(socket);
                int port = socket.getLocalPort();
                if (java.util.Arrays.stream(taken).noneMatch(t -> t == port)) {
                    ports[found++] = port;
                }
            }
            return ports;
        } catch (IOException e) {
            throw new UncheckedIOException("no free local port", e);
        } finally {
            for (ServerSocket socket : sockets) {
                try {
                    socket.close();
                } catch (IOException ignored) {
                    // closing a listening socket we opened: nothing to do
                }
            }
        }
    }

    static int requireFree(int port, String option) {
        try (ServerSocket socket = new ServerSocket(port, 1, InetAddress.getLoopbackAddress())) {
            socket.setReuseAddress(true);
            return port;
        } catch (IOException e) {
            throw new IllegalStateException(
                    "port "
                            + port
                            + " on localhost is in use (another Kafka or schema registry?): choose another with "
                            + option
                            + " (0 picks a free one), or stop what holds it");
        }
    }

    static String tail(Path file, int lines) {
        try {
            List<String> all = Files.readAllLines(file, StandardCharsets.UTF_8);
            return String.join("\n", all.subList(Math.max(0, all.size() - lines), all.size()));
        } catch (IOException e) {
            return "(cannot read " + file + ": " + e.getMessage() + ")";
        }
    }

    static java.io.File nullFile() {
        return new java.io.File(
                System.getProperty("os.name").startsWith("Windows") ? "NUL" : "/dev/null");
    }
}
