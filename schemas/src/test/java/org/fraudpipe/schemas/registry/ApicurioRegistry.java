package org.fraudpipe.schemas.registry;

import java.io.File;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.lang.reflect.InvocationTargetException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.jar.JarFile;
import java.util.stream.Stream;
import org.junit.jupiter.api.extension.AfterAllCallback;
import org.junit.jupiter.api.extension.AfterEachCallback;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * A real Apicurio Registry (the in-memory app built by {@code testing/apicurio-registry}) for one
 * test class ({@code @RegisterExtension static}), in a JVM of its own on a free loopback port.
 *
 * <p>{@link #url()} is its Confluent-compatible API root ({@code .../apis/ccompat/v7}), usable as
 * {@code schema.registry.url}. The registry JVM is tied to the test JVM three ways: {@code
 * afterAll} stops it, a shutdown hook stops it if the test JVM exits first, and it watches the test
 * JVM's pid and exits by itself if the test JVM dies without running hooks (kill -9). Its log is
 * kept in a temporary directory, deleted when the class passed and kept (and named) when it failed.
 *
 * <p>The runner jar comes from the system property {@value #RUNNER_PROPERTY}, which the schemas
 * module's Failsafe configuration sets.
 */
public final class ApicurioRegistry
        implements BeforeAllCallback, AfterEachCallback, AfterAllCallback {

    /** System property: the path of Apicurio's {@code *-runner.jar}. */
    public static final String RUNNER_PROPERTY = "fraud.apicurio.runner";

    /** Where Apicurio serves Confluent's REST API. */
    public static final String CCOMPAT_PATH = "/apis/ccompat/v7";

    private static final String CONTENT_TYPE = ConfluentSchemaRegistryClient.CONTENT_TYPE;
    private static final Duration START_TIMEOUT = Duration.ofSeconds(120);
    private static final Duration STOP_GRACE = Duration.ofSeconds(15);

    private final HttpClient http =
            HttpClient.newBuilder()
                    .version(HttpClient.Version.HTTP_1_1)
                    .connectTimeout(Duration.ofSeconds(2))
                    .build();

    private Path workDir;
    private Path logFile;
    private Process process;
    private Thread shutdownHook;
    private String url;
    private Duration startTime;
    private boolean testFailed;

    @Override
    public void beforeAll(ExtensionContext context) throws Exception {
        Path runner = runnerJar();
        workDir = Files.createTempDirectory("apicurio-it-");
        logFile = workDir.resolve("apicurio.log");
        int port = freeLoopbackPort();
        url = "http://127.0.0.1:" + port + CCOMPAT_PATH;

        List<String> command = new ArrayList<>();
        command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
        // A few requests per test class: C1 only and the serial collector halve the start-up on
        // two busy cores (measured 7 s -> 3-4 s) and leave the cores to the tests.
        command.add("-Xmx512m");
        command.add("-XX:TieredStopAtLevel=1");
        command.add("-XX:+UseSerialGC");
        command.add("-Djava.awt.headless=true");
        command.add("-cp");
        command.add(launcherDir() + File.pathSeparator + runner);
        command.add(ExitWithParent.class.getName());
        command.add(Long.toString(ProcessHandle.current().pid()));
        command.add(mainClass(runner));

        ProcessBuilder builder =
                new ProcessBuilder(command)
                        .directory(workDir.toFile())
                        .redirectErrorStream(true)
                        .redirectOutput(ProcessBuilder.Redirect.appendTo(logFile.toFile()))
                        .redirectInput(ProcessBuilder.Redirect.from(nullFile()));
        builder.environment().put("HTTP_PORT", Integer.toString(port));
        builder.environment().put("QUARKUS_HTTP_HOST", "127.0.0.1");
        long started = System.nanoTime();
        process = builder.start();
        shutdownHook = new Thread(this::stopProcess, "stop-apicurio-registry");
        Runtime.getRuntime().addShutdownHook(shutdownHook);
        awaitReady();
        startTime = Duration.ofNanos(System.nanoTime() - started);
        System.out.println(
                "Apicurio Registry answered at " + url + " after " + startTime.toMillis() + " ms");
    }

    @Override
    public void afterEach(ExtensionContext context) {
        testFailed |= context.getExecutionException().isPresent();
    }

    @Override
    public void afterAll(ExtensionContext context) throws IOException {
        stopProcess();
        if (shutdownHook != null) {
            try {
                Runtime.getRuntime().removeShutdownHook(shutdownHook);
            } catch (IllegalStateException alreadyShuttingDown) {
                // the hook is running or has run
            }
        }
        if (workDir != null && !testFailed && context.getExecutionException().isEmpty()) {
            try (Stream<Path> files = Files.walk(workDir)) {
                for (Path f : files.sorted(Comparator.reverseOrder()).toList()) {
                    Files.deleteIfExists(f);
                }
            }
        }
    }

    /** The Confluent-compatible API root, e.g. {@code http://127.0.0.1:41234/apis/ccompat/v7}. */
    public String url() {
        return url;
    }

    /** From starting the JVM to the first answer of {@code GET /subjects}. */
    public Duration startTime() {
        return startTime;
    }

    /** The registry's log (deleted after a class that passed). */
    public Path logFile() {
        return logFile;
    }

    /**
     * Sets the compatibility level of {@code subject} ({@code PUT /config/{subject}}), e.g. {@code
     * BACKWARD}, {@code FORWARD}, {@code NONE}.
     */
    public void setCompatibility(String subject, String level) {
        HttpResponse<String> answer =
                send(
                        HttpRequest.newBuilder(uri("/config/" + segment(subject)))
                                .header("Content-Type", CONTENT_TYPE)
                                .PUT(
                                        HttpRequest.BodyPublishers.ofString(
                                                "{\"compatibility\":\"" + level + "\"}")));
        if (answer.statusCode() != 200 || !answer.body().contains(level)) {
            throw new IllegalStateException(
                    "PUT "
                            + url
                            + "/config/"
                            + subject
                            + " answered "
                            + answer.statusCode()
                            + ": "
                            + answer.body());
        }
    }

    /** {@code GET} of {@code path} under {@link #url()}: status and body as the registry sent. */
    public HttpResponse<String> get(String path) {
        return send(HttpRequest.newBuilder(uri(path)).GET());
    }

    /** A subject name as one URL path segment. */
    public static String segment(String subject) {
        return ConfluentSchemaRegistryClient.encodeSegment(subject);
    }

    // ---------------------------------------------------------------------------------------

    private HttpResponse<String> send(HttpRequest.Builder request) {
        try {
            return http.send(
                    request.timeout(Duration.ofSeconds(10)).build(),
                    HttpResponse.BodyHandlers.ofString(StandardCharsets.UTF_8));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }

    private URI uri(String path) {
        return URI.create(url + path);
    }

    private void awaitReady() throws InterruptedException {
        long deadline = System.nanoTime() + START_TIMEOUT.toNanos();
        HttpRequest probe =
                HttpRequest.newBuilder(uri("/subjects"))
                        .timeout(Duration.ofSeconds(2))
                        .GET()
                        .build();
        while (true) {
            if (!process.isAlive()) {
                throw new IllegalStateException(
                        "Apicurio Registry's JVM exited with "
                                + process.exitValue()
                                + " during start-up; its log is "
                                + logFile
                                + ", which ends:\n"
                                + tail(logFile, 30));
            }
            try {
                if (http.send(probe, HttpResponse.BodyHandlers.discarding()).statusCode() == 200) {
                    return;
                }
            } catch (IOException notListeningYet) {
                // keep polling until the deadline
            }
            if (System.nanoTime() - deadline > 0) {
                stopProcess();
                throw new IllegalStateException(
                        "Apicurio Registry did not answer GET "
                                + url
                                + "/subjects within "
                                + START_TIMEOUT.toSeconds()
                                + " s; its log is "
                                + logFile
                                + ", which ends:\n"
                                + tail(logFile, 30));
            }
            Thread.sleep(100);
        }
    }

    private void stopProcess() {
        Process p = process;
        if (p == null || !p.isAlive()) {
            return;
        }
        p.destroy();
        try {
            if (!p.waitFor(STOP_GRACE.toMillis(), TimeUnit.MILLISECONDS)) {
                p.destroyForcibly();
                p.waitFor(10, TimeUnit.SECONDS);
            }
        } catch (InterruptedException e) {
            p.destroyForcibly();
            Thread.currentThread().interrupt();
        }
    }

    private static Path runnerJar() {
        String value = System.getProperty(RUNNER_PROPERTY);
        if (value == null || value.isBlank()) {
            throw new IllegalStateException(
                    "system property "
                            + RUNNER_PROPERTY
                            + " is not set: run this test through Maven (schemas' Failsafe sets"
                            + " it), or set it to testing/apicurio-registry/target/"
                            + "apicurio-registry-runtime-<version>-runner.jar");
        }
        Path runner = Path.of(value).toAbsolutePath().normalize();
        if (!Files.isRegularFile(runner)) {
            throw new IllegalStateException(
                    RUNNER_PROPERTY
                            + "="
                            + runner
                            + " does not exist: build it first with `mvn install -DskipTests -pl"
                            + " testing/apicurio-registry`");
        }
        return runner;
    }

    /** The runner jar's own main class (its manifest's; the jar's Class-Path brings lib/). */
    private static String mainClass(Path runner) throws IOException {
        try (JarFile jar = new JarFile(runner.toFile())) {
            String main = jar.getManifest().getMainAttributes().getValue("Main-Class");
            if (main == null) {
                throw new IllegalStateException(runner + " has no Main-Class in its manifest");
            }
            return main;
        }
    }

    /**
     * A directory holding only {@link ExitWithParent}'s class file, so the registry's classpath is
     * that class plus the runner jar, nothing of the tests.
     */
    private Path launcherDir() throws IOException {
        String classFile = ExitWithParent.class.getName().replace('.', '/') + ".class";
        Path target = workDir.resolve("launcher").resolve(classFile);
        Files.createDirectories(target.getParent());
        try (InputStream in =
                ApicurioRegistry.class.getClassLoader().getResourceAsStream(classFile)) {
            if (in == null) {
                throw new IllegalStateException("cannot find " + classFile + " on the classpath");
            }
            Files.copy(in, target);
        }
        return workDir.resolve("launcher");
    }

    private static int freeLoopbackPort() throws IOException {
        try (ServerSocket socket = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            return socket.getLocalPort();
        }
    }

    private static File nullFile() {
        return new File(System.getProperty("os.name").startsWith("Windows") ? "NUL" : "/dev/null");
    }

    private static String tail(Path file, int lines) {
        try {
            List<String> all = Files.readAllLines(file, StandardCharsets.UTF_8);
            return String.join("\n", all.subList(Math.max(0, all.size() - lines), all.size()));
        } catch (IOException | UncheckedIOException e) {
            return "(cannot read " + file + ": " + e + ")";
        }
    }

    /**
     * Main class of the registry JVM: {@code <parent pid> <main class> [args...]}. Exits when the
     * process {@code <parent pid>} is gone (so a killed test JVM cannot leave a registry running),
     * then runs {@code <main class>}. Uses nothing but the JDK: it is the only class of the tests
     * on the registry's classpath.
     */
    static final class ExitWithParent {
        private ExitWithParent() {}

        public static void main(String[] args) throws Throwable {
            long parentPid = Long.parseLong(args[0]);
            Optional<ProcessHandle> parent = ProcessHandle.of(parentPid);
            if (parent.isEmpty() || !parent.get().isAlive()) {
                System.err.println("parent process " + parentPid + " is gone; not starting");
                System.exit(3);
            }
            parent.get()
                    .onExit()
                    .thenRun(
                            () -> {
                                System.err.println(
                                        "parent process " + parentPid + " exited; stopping");
                                System.exit(0);
                            });
            String[] rest = new String[args.length - 2];
            System.arraycopy(args, 2, rest, 0, rest.length);
            try {
                Class.forName(args[1])
                        .getMethod("main", String[].class)
                        .invoke(null, (Object) rest);
            } catch (InvocationTargetException e) {
                throw e.getCause();
            }
        }
    }
}
