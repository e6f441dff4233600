package org.fraudpipe.local;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.Properties;
import org.fraudpipe.schemas.TopicNames;
import org.fraudpipe.schemas.registry.LocalSchemaRegistryServer;
import org.fraudpipe.schemas.registry.SchemaRegistries;
import org.fraudpipe.schemas.registry.SchemaRegistryClient;
import org.fraudpipe.schemas.security.ClientProperties;

/**
 * The local schema registry ({@link LocalSchemaRegistryServer}, Confluent's REST API on localhost)
 * as a background JVM next to the local Kafka broker, sharing its data directory: {@code ./fraud
 * kafka start} starts both, {@code ./fraud kafka stop} stops both. Separate JVMs (simulator, a
 * Flink session cluster's TaskManagers, the job's client) then agree on schema ids, which {@code
 * mock://} registries (one per JVM) cannot do.
 *
 * <p>Files in the data directory: the journal of registrations ({@value #JOURNAL_FILE}; ids stay
 * stable across restarts as long as the topics keep data framed with them; deleting the data
 * directory resets both), the log ({@value #LOG_FILE}) and the state ({@value #STATE_FILE}: pid,
 * port, start time; a pid whose process started at another time is never signalled).
 *
 * <p>Once it answers, every subject of the project's topics ({@link Settings#topics()}, the default
 * names unless told otherwise) is set to its level, FULL_TRANSITIVE ({@link
 * TopicNames#subjectCompatibility()}), over the REST API as an operator would: the job's start-up
 * check then finds its input protected, and producers' and the job's schema changes are held to
 * what every reader can read. The registry journals the levels; setting them again at the next
 * start adds nothing, and puts back a level changed by hand.
 *
 * <p>The registry JVM runs on the classpath of the JVM that starts it (the feature-job classpath
 * under {@code ./fraud}) and is not tied to it unless {@link Settings#exitWithParent()}.
 */
public final class LocalSchemaRegistry {

    public static final String STATE_FILE = "schema-registry.state";
    public static final String LOG_FILE = "schema-registry.log";
    public static final String JOURNAL_FILE = "schema-registry.jsonl";
    public static final int DEFAULT_PORT = 8081;
    static final String MAIN_CLASS = LocalSchemaRegistryServer.class.getName();

    private LocalSchemaRegistry() {}

    /**
     * How to start the registry.
     *
     * @param dataDir where the journal, log and state live (the broker's data directory)
     * @param port the port on localhost; 0 picks a free one
     * @param exitWithParent whether the registry JVM ends when this JVM ends (tests)
     * @param startTimeout how long to wait for it to answer
     * @param topics the topics whose subjects get their compatibility level
     * @param security null for plain HTTP without authentication; else HTTPS with the server
     *     certificate of {@code security} and basic authentication of its users
     */
    public record Settings(
            Path dataDir,
            int port,
            boolean exitWithParent,
            Duration startTimeout,
            TopicNames topics,
            LocalSecurity security) {
        public Settings {
            if (port < 0 || port > 65535) {
                throw new IllegalArgumentException("--registry-port must be 0..65535, was " + port);
            }
            Objects.requireNonNull(topics, "topics");
        }

        public Settings(
                Path dataDir,
                int port,
                boolean exitWithParent,
                Duration startTimeout,
                TopicNames topics) {
            this(dataDir, port, exitWithParent, startTimeout, topics, null);
        }

        /** For the project's topics under their default names (what {@code ./fraud} creates). */
        public Settings(Path dataDir, int port, boolean exitWithParent, Duration startTimeout) {
            this(dataDir, port, exitWithParent, startTimeout, TopicNames.defaults());
        }

        /** These settings with {@code security} (null: open). */
        public Settings withSecurity(LocalSecurity security) {
            return new Settings(dataDir, port, exitWithParent, startTimeout, topics, security);
        }
    }

    /** A running registry, as recorded in its state file. */
    public record State(long pid, int port, Instant startedAt, boolean secure) {

        public State(long pid, int port, Instant startedAt) {
            this(pid, port, startedAt, false);
        }

        public String url() {
            return (secure ? "https" : "http") + "://localhost:" + port;
        }

        /** The registry's process, if it is alive and is the one recorded. */
        public Optional<ProcessHandle> process() {
            return StateFile.process(pid, startedAt);
        }
    }

    /**
     * Starts the registry JVM and waits until it answers.
     *
     * @throws IllegalStateException if one already runs from {@code dataDir}, the port is taken, or
     *     it does not answer in time (then it is killed; the message has the end of its log)
     */
    public static State start(Settings settings) {
        Path dataDir = settings.dataDir().toAbsolutePath();
        try {
            Files.createDirectories(dataDir);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot create " + dataDir, e);
        }
        Optional<State> previous = running(dataDir);
        if (previous.isPresent()) {
            throw new IllegalStateException(
                    "a schema registry is already running from "
                            + dataDir
                            + " ("
                            + previous.get().url()
                            + ", pid "
                            + previous.get().pid()
                            + ")");
        }
        int port =
                settings.port() == 0
                        ? LocalKafkaBroker.freePort()
                        : LocalKafkaBroker.requireFree(settings.port(), "--registry-port");
        List<String> command = new ArrayList<>();
        command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
        command.add("-Xmx96m");
        command.add("-XX:+UseSerialGC");
        command.add("-XX:TieredStopAtLevel=1");
        command.add("-Djava.awt.headless=true");
        command.add("-cp");
        command.add(System.getProperty("java.class.path"));
        command.add(MAIN_CLASS);
        command.add("--port");
        command.add(Integer.toString(port));
        command.add("--journal");
        command.add(dataDir.resolve(JOURNAL_FILE).toString());
        if (settings.exitWithParent()) {
            command.add("--exit-with-parent");
            command.add(Long.toString(ProcessHandle.current().pid()));
        }
        if (settings.security() != null) {
            command.add("--security");
            command.add(settings.security().registrySecurityFile().toString());
        }
        Path logFile = dataDir.resolve(LOG_FILE);
        Process process = BackgroundJvm.start(command, logFile, "the schema registry JVM");
        State state =
                new State(
                        process.pid(),
                        port,
                        process.info().startInstant().orElseGet(Instant::now),
                        settings.security() != null);
        ClientProperties admin =
                settings.security() == null
                        ? ClientProperties.none()
                        : settings.security().client(LocalSecurity.ADMIN);
        try {
            BackgroundJvm.awaitAnswer(
                    process.toHandle(),
                    () -> answers(state.url(), admin),
                    "the schema registry JVM",
                    state.url(),
                    settings.startTimeout(),
                    logFile,
                    100);
            setLevels(state.url(), admin, settings.topics());
        } catch (RuntimeException e) {
            LocalKafkaBroker.stopProcess(process.toHandle(), Duration.ofSeconds(5));
            throw e;
        }
        write(dataDir, state);
        return state;
    }

    /**
     * Sets every subject of {@code topics} to its compatibility level ({@code PUT
     * /config/{subject}}) on the registry at {@code url}.
     */
    public static void setLevels(String url, TopicNames topics) {
        setLevels(url, ClientProperties.none(), topics);
    }

    /** As {@link #setLevels(String, TopicNames)}, as the user of {@code client}. */
    public static void setLevels(String url, ClientProperties client, TopicNames topics) {
        SchemaRegistryClient registry = SchemaRegistries.forConfig(client.registryConfig(url));
        topics.subjectCompatibility().forEach(registry::setCompatibilityLevel);
    }

    /** The registry recorded in {@code dataDir}, if its process is still alive. */
    public static Optional<State> running(Path dataDir) {
        return read(dataDir.toAbsolutePath()).filter(s -> s.process().isPresent());
    }

    /**
     * Stops the registry recorded in {@code dataDir} (SIGTERM, forced after {@code grace}). Returns
     * false if none was running. The journal stays.
     */
    public static boolean stop(Path dataDir, Duration grace) {
        Path dir = dataDir.toAbsolutePath();
        Optional<State> state = read(dir);
        if (state.isEmpty()) {
            return false;
        }
        Optional<ProcessHandle> process = state.get().process();
        process.ifPresent(p -> LocalKafkaBroker.stopProcess(p, grace));
        try {
            Files.deleteIfExists(dir.resolve(STATE_FILE));
        } catch (IOException e) {
            throw new UncheckedIOException("cannot delete " + dir.resolve(STATE_FILE), e);
        }
        return process.isPresent();
    }

    /** Whether the registry at {@code url} answers {@code GET /subjects} within two seconds. */
    public static boolean answers(String url) {
        try {
            HttpResponse<Void> response =
                    HttpClient.newBuilder()
                            .connectTimeout(Duration.ofSeconds(2))
                            .build()
                            .send(
                                    HttpRequest.newBuilder(URI.create(url + "/subjects"))
                                            .timeout(Duration.ofSeconds(2))
                                            .GET()
                                            .build(),
                                    HttpResponse.BodyHandlers.discarding());
            return response.statusCode() == 200;
        } catch (IOException e) {
            return false;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return false;
        }
    }

    /**
     * Whether the registry at {@code url} answers the user of {@code client} (TLS and basic auth as
     * its settings say) within its timeouts.
     */
    public static boolean answers(String url, ClientProperties client) {
        if (client.registry().isEmpty()) {
            return answers(url);
        }
        try {
            SchemaRegistries.forConfig(client.registryConfig(url))
                    .compatibilityLevel(
                            TopicNames.defaults().name(org.fraudpipe.schemas.Topic.TRANSACTIONS)
                                    + "-value");
            return true;
        } catch (RuntimeException notYet) {
            return false;
        }
    }

    private static void write(Path dataDir, State state) {
        Properties p = new Properties();
        p.setProperty("pid", Long.toString(state.pid()));
        p.setProperty("port", Integer.toString(state.port()));
        p.setProperty("url", state.url());
        p.setProperty("started.at", state.startedAt().toString());
        p.setProperty("secure", Boolean.toString(state.secure()));
        StateFile.write(
                dataDir.resolve(STATE_FILE),
                p,
                "local schema registry started by ./fraud; removed when it is stopped");
    }

    static Optional<State> read(Path dataDir) {
        return StateFile.read(dataDir.resolve(STATE_FILE))
                .map(
                        p ->
                                new State(
                                        Long.parseLong(p.getProperty("pid")),
                                        Integer.parseInt(p.getProperty("port")),
                                        Instant.parse(p.getProperty("started.at")),
                                        Boolean.parseBoolean(p.getProperty("secure", "false"))));
    }
}
