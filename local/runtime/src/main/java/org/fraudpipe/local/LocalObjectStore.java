package org.fraudpipe.local;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.security.SecureRandom;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Optional;
import java.util.Properties;

/**
 * A local S3-compatible object store (S3Proxy in a JVM of its own, module {@code
 * local/object-store}) in front of a directory, started and stopped as the local broker is: {@code
 * ./fraud s3 start|status|stop}, and by the ITs that put checkpoints, savepoints and the archive on
 * object storage.
 *
 * <p>Files in the data directory: the objects ({@value #OBJECTS_DIR}/{@code <bucket>/...}), the
 * credentials ({@value #CREDENTIALS_FILE}: made at the first start, readable by the owner only,
 * kept across restarts), S3Proxy's properties, the log ({@value #LOG_FILE}), the state ({@value
 * #STATE_FILE}: pid, port, start time), and {@value #FLINK_CONF_DIR}{@code /config.yaml}: the Flink
 * settings that reach the store (endpoint, path-style access, the credentials), for {@code
 * FLINK_CONF_DIR} of a local run or to copy into a cluster's configuration. No secret is ever on a
 * command line.
 *
 * <p>Flink reaches it through its own S3 file systems, loaded as plugins ({@link
 * #pluginsDir(Path)}): {@code s3p://BUCKET/...} (Presto) for checkpoints and savepoints, {@code
 * s3a://BUCKET/...} (Hadoop) for the archive, whose {@code FileSink} needs a recoverable writer,
 * which only the Hadoop one has.
 */
public final class LocalObjectStore {

    public static final String HOME_PROPERTY = "fraud.object-store.home";
    public static final String STATE_FILE = "object-store.state";
    public static final String LOG_FILE = "object-store.log";
    public static final String CREDENTIALS_FILE = "object-store-credentials.properties";
    public static final String OBJECTS_DIR = "objects";
    public static final String FLINK_CONF_DIR = "flink-conf";
    public static final String DEFAULT_BUCKET = "fraudpipe";
    public static final int DEFAULT_PORT = 9000;
    static final String MAIN_CLASS = "org.fraudpipe.local.store.LocalObjectStoreMain";
    private static final String PROPERTIES_FILE = "s3proxy.properties";
    private static final String ACCESS_KEY = "fraudpipe";

    private LocalObjectStore() {}

    /**
     * How to start the store.
     *
     * @param dataDir where the objects, credentials, log and state live
     * @param port the port on localhost; 0 picks a free one
     * @param bucket the bucket made at start (a directory under {@value #OBJECTS_DIR})
     * @param exitWithParent whether the store's JVM ends when this JVM ends (tests)
     * @param startTimeout how long to wait for it to answer
     */
    public record Settings(
            Path dataDir, int port, String bucket, boolean exitWithParent, Duration startTimeout) {
        public Settings {
            if (port < 0 || port > 65535) {
                throw new IllegalArgumentException("--port must be 0..65535, was " + port);
            }
            if (!bucket.matches("[a-z0-9][a-z0-9.-]{1,61}[a-z0-9]")) {
                throw new IllegalArgumentException(
                        "--bucket '"
                                + bucket
                                + "' is not an S3 bucket name: 3 to 63 lower-case letters, digits,"
                                + " dots and hyphens");
            }
        }
    }

    /** A running store, as recorded in its state file. */
    public record State(long pid, int port, Instant startedAt, String bucket) {

        /** The endpoint clients are given: {@code http://localhost:PORT}. */
        public String endpoint() {
            return "http://localhost:" + port;
        }

        /** The store's process, if it is alive and is the one recorded. */
        public Optional<ProcessHandle> process() {
            return StateFile.process(pid, startedAt);
        }
    }

    /** The access key and secret key of the store's one user. */
    public record Credentials(String accessKey, String secretKey) {
        @Override
        public String toString() {
            return "Credentials[accessKey=" + accessKey + ", secretKey=(hidden)]";
        }
    }

    /**
     * The root of checkpoints in {@code bucket}: Presto's S3 file system ({@code s3p://}), the one
     * Flink recommends for checkpoints.
     */
    public static String checkpointUri(String bucket) {
        return "s3p://" + bucket + "/checkpoints";
    }

    /** Where savepoints go in {@code bucket} ({@code s3p://}, as checkpoints). */
    public static String savepointUri(String bucket) {
        return "s3p://" + bucket + "/savepoints";
    }

    /**
     * The archive's root in {@code bucket}: Hadoop's S3A ({@code s3a://}), the only S3 file system
     * with the recoverable writer the archive's {@code FileSink} needs.
     */
    public static String archiveUri(String bucket) {
        return "s3a://" + bucket + "/archive";
    }

    /**
     * The object of {@code bucket} that file {@code file} under {@link #objectFiles} is, as s3p.
     */
    public static String s3pUriOf(Path dataDir, String bucket, Path file) {
        return "s3p://" + bucket + "/" + objectFiles(dataDir, bucket).relativize(file);
    }

    /**
     * The directory whose files are the objects of {@code bucket} of the store in {@code dataDir}.
     */
    public static Path objectFiles(Path dataDir, String bucket) {
        return dataDir.toAbsolutePath().resolve(OBJECTS_DIR).resolve(bucket);
    }

    /** The {@code FLINK_CONF_DIR} that reaches the store in {@code dataDir}. */
    public static Path flinkConfDir(Path dataDir) {
        return dataDir.toAbsolutePath().resolve(FLINK_CONF_DIR);
    }

    /**
     * Flink's S3 plugins laid out by the build ({@code plugins/s3-fs-presto}, {@code
     * plugins/s3-fs-hadoop}) under the store's runtime home, for {@code FLINK_PLUGINS_DIR}.
     */
    public static Path pluginsDir(Path home) {
        return home.resolve("plugins");
    }

    /** The runtime home named by {@value #HOME_PROPERTY}; fails with what to do when missing. */
    public static Path homeFromSystemProperty() {
        String home = System.getProperty(HOME_PROPERTY);
        if (home == null || home.isBlank()) {
            throw new IllegalStateException(
                    "system property "
                            + HOME_PROPERTY
                            + " is not set: it must point at local/object-store/target. Run"
                            + " through ./fraud (which sets it), or build with `mvn -pl"
                            + " local/object-store package`");
        }
        Path dir = Path.of(home);
        if (!Files.isDirectory(dir.resolve("classes"))
                || !Files.isRegularFile(dir.resolve("store.classpath"))) {
            throw new IllegalStateException(
                    "the local object store runtime is not built at "
                            + dir.toAbsolutePath()
                            + " (expected classes/ and store.classpath): build it with `mvn -pl"
                            + " local/object-store package`, or run through ./fraud, which"
                            + " builds it");
        }
        return dir;
    }

    /**
     * Starts the store's JVM, makes the bucket, and waits until it answers.
     *
     * @throws IllegalStateException if one already runs from {@code dataDir}, the port is taken, or
     *     it does not answer in time (then it is killed; the message has the end of its log)
     */
    public static State start(Settings settings, Path home) {
        Path dataDir = settings.dataDir().toAbsolutePath();
        Optional<State> previous = running(dataDir);
        if (previous.isPresent()) {
            throw new IllegalStateException(
                    "an object store is already running from "
                            + dataDir
                            + " ("
                            + previous.get().endpoint()
                            + ", pid "
                            + previous.get().pid()
                            + "): use it, or stop it with `./fraud s3 stop`");
        }
        int port =
                settings.port() == 0
                        ? LocalKafkaBroker.freePort()
                        : LocalKafkaBroker.requireFree(settings.port(), "--port");
        Credentials credentials;
        Path propertiesFile = dataDir.resolve(PROPERTIES_FILE);
        try {
            Files.createDirectories(dataDir.resolve(OBJECTS_DIR).resolve(settings.bucket()));
            credentials = credentials(dataDir);
            Properties p = new Properties();
            p.setProperty("s3proxy.endpoint", "http://127.0.0.1:" + port);
            p.setProperty("s3proxy.authorization", "aws-v2-or-v4");
            p.setProperty("s3proxy.identity", credentials.accessKey());
            p.setProperty("s3proxy.credential", credentials.secretKey());
            p.setProperty("jclouds.provider", "filesystem-nio2");
            // The backend's own login (unused by a directory, required by the provider).
            p.setProperty("jclouds.identity", credentials.accessKey());
            p.setProperty("jclouds.credential", credentials.secretKey());
            p.setProperty("jclouds.filesystem.basedir", dataDir.resolve(OBJECTS_DIR).toString());
            writePrivate(propertiesFile, p, "S3Proxy's settings, written by ./fraud s3 start");
            writeFlinkConfig(dataDir, port, credentials);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot prepare " + dataDir, e);
        }
        List<String> command = new ArrayList<>();
        command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
        command.add("-Xmx192m");
        command.add("-XX:+UseSerialGC");
        command.add("-XX:TieredStopAtLevel=1");
        command.add("-cp");
        command.add(classpath(home));
        command.add(MAIN_CLASS);
        if (settings.exitWithParent()) {
            command.add("--exit-with-parent");
            command.add(Long.toString(ProcessHandle.current().pid()));
        }
        command.add(propertiesFile.toString());
        Path logFile = dataDir.resolve(LOG_FILE);
        Process process = BackgroundJvm.start(command, logFile, "the object store's JVM");
        State state =
                new State(
                        process.pid(),
                        port,
                        process.info().startInstant().orElseGet(Instant::now),
                        settings.bucket());
        try {
            BackgroundJvm.awaitAnswer(
                    process.toHandle(),
                    () -> answers(state.endpoint()),
                    "the object store's JVM",
                    state.endpoint(),
                    settings.startTimeout(),
                    logFile,
                    100);
        } catch (RuntimeException e) {
            LocalKafkaBroker.stopProcess(process.toHandle(), Duration.ofSeconds(5));
            throw e;
        }
        Properties p = new Properties();
        p.setProperty("pid", Long.toString(state.pid()));
        p.setProperty("port", Integer.toString(state.port()));
        p.setProperty("endpoint", state.endpoint());
        p.setProperty("bucket", state.bucket());
        p.setProperty("started.at", state.startedAt().toString());
        StateFile.write(
                dataDir.resolve(STATE_FILE),
                p,
                "local object store started by ./fraud s3 start; removed when it is stopped");
        return state;
    }

    /** The store recorded in {@code dataDir}, if its process is still alive. */
    public static Optional<State> running(Path dataDir) {
        return StateFile.read(dataDir.toAbsolutePath().resolve(STATE_FILE))
                .map(
                        p ->
                                new State(
                                        Long.parseLong(p.getProperty("pid")),
                                        Integer.parseInt(p.getProperty("port")),
                                        Instant.parse(p.getProperty("started.at")),
                                        p.getProperty("bucket", DEFAULT_BUCKET)))
                .filter(s -> s.process().isPresent());
    }

    /**
     * Stops the store recorded in {@code dataDir} (SIGTERM, forced after {@code grace}). Returns
     * false if none was running. The objects stay.
     */
    public static boolean stop(Path dataDir, Duration grace) {
        Path dir = dataDir.toAbsolutePath();
        Optional<State> state = running(dir);
        state.flatMap(State::process).ifPresent(p -> LocalKafkaBroker.stopProcess(p, grace));
        try {
            Files.deleteIfExists(dir.resolve(STATE_FILE));
        } catch (IOException e) {
            throw new UncheckedIOException("cannot delete " + dir.resolve(STATE_FILE), e);
        }
        return state.isPresent();
    }

    /** The store's credentials in {@code dataDir}, made (random) at the first start. */
    public static Credentials credentials(Path dataDir) throws IOException {
        Path file = dataDir.resolve(CREDENTIALS_FILE);
        if (!Files.exists(file)) {
            byte[] secret = new byte[24];
            new SecureRandom().nextBytes(secret);
            Properties p = new Properties();
            p.setProperty("access.key", ACCESS_KEY);
            p.setProperty("secret.key", HexFormat.of().formatHex(secret));
            writePrivate(file, p, "the local object store's user; keep private");
        }
        Properties p = new Properties();
        try (var in = Files.newBufferedReader(file, StandardCharsets.UTF_8)) {
            p.load(in);
        }
        return new Credentials(p.getProperty("access.key"), p.getProperty("secret.key"));
    }

    /**
     * The Flink settings that reach the store at {@code port}, as {@code
     * FLINK_CONF_DIR/config.yaml} reads them. Both S3 file systems read the {@code s3.} keys.
     */
    static String flinkConfig(int port, Credentials credentials) {
        return "# Written by ./fraud s3 start: Flink's S3 file systems (s3p:// Presto, s3a:// Hadoop)\n"
                + "# against the local object store. Point FLINK_CONF_DIR at this directory.\n"
                + "s3.endpoint: http://localhost:"
                + port
                + "\n"
                + "s3.path.style.access: true\n"
                + "s3.access-key: "
                + credentials.accessKey()
                + "\n"
                + "s3.secret-key: "
                + credentials.secretKey()
                + "\n"
                // The Hadoop S3A client asks for a region; the store ignores it.
                + "fs.s3a.endpoint.region: us-east-1\n"
                // S3A deletes the directory markers above every file it finishes, on its bounded
                // transfer pool, and waits for that from a task of the same pool: with the
                // archive's many small files that waited minutes. Keeping the markers (what S3A
                // recommends since Hadoop 3.3.1, and every reader understands) skips it.
                + "fs.s3a.directory.marker.retention: keep\n";
    }

    private static void writeFlinkConfig(Path dataDir, int port, Credentials credentials)
            throws IOException {
        Path dir = Files.createDirectories(flinkConfDir(dataDir));
        Path file = dir.resolve("config.yaml");
        Files.deleteIfExists(file);
        Files.createFile(file, PosixFilePermissions.asFileAttribute(ownerOnly()));
        Files.writeString(file, flinkConfig(port, credentials), StandardCharsets.UTF_8);
    }

    private static void writePrivate(Path file, Properties p, String comment) throws IOException {
        Files.deleteIfExists(file);
        Files.createFile(file, PosixFilePermissions.asFileAttribute(ownerOnly()));
        try (var out = Files.newBufferedWriter(file, StandardCharsets.UTF_8)) {
            p.store(out, comment);
        }
    }

    private static java.util.Set<java.nio.file.attribute.PosixFilePermission> ownerOnly() {
        return PosixFilePermissions.fromString("rw-------");
    }

    private static String classpath(Path home) {
        try {
            return home.resolve("classes").toAbsolutePath()
                    + java.io.File.pathSeparator
                    + Files.readString(home.resolve("store.classpath"), StandardCharsets.UTF_8)
                            .trim();
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read " + home.resolve("store.classpath"), e);
        }
    }

    /** Whether something answers HTTP at {@code endpoint} within two seconds. */
    public static boolean answers(String endpoint) {
        try {
            HttpResponse<Void> response =
                    HttpClient.newBuilder()
                            .connectTimeout(Duration.ofSeconds(2))
                            .build()
                            .send(
                                    HttpRequest.newBuilder(URI.create(endpoint + "/"))
                                            .timeout(Duration.ofSeconds(2))
                                            .GET()
                                            .build(),
                                    HttpResponse.BodyHandlers.discarding());
            // Unsigned: S3 answers 403, which is an answer.
            return response.statusCode() > 0;
        } catch (IOException e) {
            return false;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return false;
        }
    }
}
