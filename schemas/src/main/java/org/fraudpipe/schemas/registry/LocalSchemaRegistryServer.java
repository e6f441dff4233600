package org.fraudpipe.schemas.registry;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.sun.net.httpserver.BasicAuthenticator;
import com.sun.net.httpserver.HttpContext;
import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import com.sun.net.httpserver.HttpsConfigurator;
import com.sun.net.httpserver.HttpsServer;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.security.KeyStore;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Properties;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.UUID;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import javax.net.ssl.KeyManagerFactory;
import javax.net.ssl.SSLContext;
import org.apache.avro.Schema;
import org.apache.avro.SchemaParseException;

/**
 * A small schema registry for local and development runs that speaks the subset of Confluent Schema
 * Registry's REST API the pipeline uses, so that separate JVMs (the simulator, a Flink cluster's
 * TaskManagers, the parity checker) share schema ids as they would with a real registry. {@code
 * ./fraud kafka start} runs one next to the local broker; production uses a real
 * Confluent-compatible registry.
 *
 * <p>API (Confluent's paths, content type {@value ConfluentSchemaRegistryClient#CONTENT_TYPE},
 * error bodies {@code {"error_code": N, "message": "..."}}):
 *
 * <ul>
 *   <li>{@code POST /subjects/{subject}/versions} {@code {"schema": "..."}}: {@code {"id": N}}; 409
 *       (error code 409) if the schema breaks the subject's compatibility level (the message names
 *       it); 422 (42201) if it is not valid Avro;
 *   <li>{@code GET /schemas/ids/{id}}: {@code {"schema": "..."}}; 404 (40403) for an unknown id;
 *   <li>{@code GET /subjects/{subject}/versions/latest}: {@code {"subject", "version", "id",
 *       "schema"}}; 404 (40401) for an unknown subject;
 *   <li>{@code POST /compatibility/subjects/{subject}/versions/latest}: {@code {"is_compatible":
 *       bool}}, true for a subject without versions (as Confluent 7.x answers);
 *   <li>{@code PUT /config/{subject}} {@code {"compatibility": "FULL_TRANSITIVE"}}: {@code
 *       {"compatibility": "..."}}, the subject's own level from then on (also before it has
 *       versions); 422 (42203) for an unknown level;
 *   <li>{@code GET /config/{subject}?defaultToGlobal=true}: {@code {"compatibilityLevel": "..."}},
 *       the subject's own level, else the global one; without {@code defaultToGlobal=true} a
 *       subject without a level of its own is 404 (40408), as in Confluent;
 *   <li>{@code GET /config}: the global level, always {@code BACKWARD} (Confluent's default; not
 *       settable here);
 *   <li>{@code GET /subjects}, {@code GET /subjects/{subject}/versions} for inspection.
 * </ul>
 *
 * <p>Semantics are those of {@link InMemorySchemaRegistry}: global ids from 1, the same id for the
 * same schema text under every subject, each subject checked under its {@link CompatibilityLevel}
 * (BACKWARD against the latest version unless set).
 *
 * <p>Persistence: with a journal file, every registration that added a version ({@code {"subject":
 * ..., "schema": ...}}) and every change of a subject's level ({@code {"subject": ...,
 * "compatibility": ...}}) is appended to it as one JSON line before it is answered, and a restart
 * replays the journal in order, so ids, versions and levels stay the same across restarts (topics
 * keep data framed with those ids). Without one, state lives as long as the server.
 *
 * <p>Binds to the loopback interface unless told otherwise. Open (plain HTTP, no authentication) by
 * default; with a {@link Security} (a properties file, {@code --security FILE}) it serves HTTPS
 * with the key store named there and asks every request for HTTP basic authentication by one of its
 * users. It authenticates only: every user may do everything (no per-subject rights). Thread-safe.
 */
public final class LocalSchemaRegistryServer implements AutoCloseable {

    private static final ObjectMapper JSON = new ObjectMapper();

    private final String scope = "local-registry-" + UUID.randomUUID();
    private final InMemorySchemaRegistry backend = InMemorySchemaRegistry.forScope(scope);
    private final Path journal;
    private final ExecutorService executor;
    private final HttpServer server;
    private final Object registrations = new Object();

    /**
     * TLS and basic authentication of a secured server, from a properties file: {@code
     * ssl.keystore.location}, {@code ssl.keystore.password}, optionally {@code ssl.keystore.type}
     * (default PKCS12), and one {@code user.<name>=<password>} per user. Keep the file readable by
     * its owner only.
     */
    public record Security(
            Path keystore,
            String keystoreType,
            char[] keystorePassword,
            Map<String, String> users) {

        /** Reads a security file. */
        public static Security load(Path file) throws IOException {
            Properties p = new Properties();
            try (java.io.Reader r = Files.newBufferedReader(file, StandardCharsets.UTF_8)) {
                p.load(r);
            }
            String location = p.getProperty("ssl.keystore.location");
            String password = p.getProperty("ssl.keystore.password");
            if (location == null || password == null) {
                throw new IOException(
                        file + " needs ssl.keystore.location and ssl.keystore.password");
            }
            Map<String, String> users = new TreeMap<>();
            for (String key : p.stringPropertyNames()) {
                if (key.startsWith("user.")) {
                    users.put(key.substring("user.".length()), p.getProperty(key));
                }
            }
            if (users.isEmpty()) {
                throw new IOException(file + " names no user (user.<name>=<password>)");
            }
            return new Security(
                    Path.of(location),
                    p.getProperty("ssl.keystore.type", "PKCS12"),
                    password.toCharArray(),
                    users);
        }

        /** Secrets hidden. */
        @Override
        public String toString() {
            return "Security[keystore=" + keystore + ", users=" + users.keySet() + "]";
        }

        SSLContext sslContext() throws IOException {
            try (java.io.InputStream in = Files.newInputStream(keystore)) {
                KeyStore store = KeyStore.getInstance(keystoreType);
                store.load(in, keystorePassword);
                KeyManagerFactory keys =
                        KeyManagerFactory.getInstance(KeyManagerFactory.getDefaultAlgorithm());
                keys.init(store, keystorePassword);
                SSLContext context = SSLContext.getInstance("TLS");
                context.init(keys.getKeyManagers(), null, null);
                return context;
            } catch (java.security.GeneralSecurityException e) {
                throw new IOException("cannot use the key store " + keystore + ": " + e, e);
            }
        }

        boolean accepts(String user, String password) {
            String expected = users.get(user);
            return expected != null
                    && java.security.MessageDigest.isEqual(
                            expected.getBytes(StandardCharsets.UTF_8),
                            password.getBytes(StandardCharsets.UTF_8));
        }
    }

    private final boolean tls;

    private LocalSchemaRegistryServer(InetSocketAddress address, Path journal, Security security)
            throws IOException {
        this.journal = journal;
        this.tls = security != null;
        try {
            if (journal != null) {
                replay(journal);
            }
            this.executor =
                    Executors.newFixedThreadPool(
                            4,
                            r -> {
                                Thread t = new Thread(r, "schema-registry-http");
                                t.setDaemon(true);
                                return t;
                            });
            if (security == null) {
                this.server = HttpServer.create(address, 0);
            } else {
                HttpsServer https = HttpsServer.create(address, 0);
                https.setHttpsConfigurator(new HttpsConfigurator(security.sslContext()));
                this.server = https;
            }
        } catch (IOException | RuntimeException e) {
            InMemorySchemaRegistry.dropScope(scope);
            throw e;
        }
        HttpContext context = server.createContext("/", this::handle);
        if (security != null) {
            context.setAuthenticator(
                    new BasicAuthenticator("fraudpipe schema registry") {
                        @Override
                        public boolean checkCredentials(String user, String password) {
                            return security.accepts(user, password);
                        }
                    });
        }
        server.setExecutor(executor);
        server.start();
    }

    /**
     * Starts a server on {@code localhost:port} (loopback only; 0 picks a free port).
     *
     * @param journal the file that keeps registrations across restarts (created on first
     *     registration), or null to keep them in memory only
     * @throws IOException if the port cannot be bound or the journal cannot be read
     */
    public static LocalSchemaRegistryServer start(int port, Path journal) throws IOException {
        return start(new InetSocketAddress(InetAddress.getLoopbackAddress(), port), journal);
    }

    /** Starts a server bound to {@code address}; see {@link #start(int, Path)}. */
    public static LocalSchemaRegistryServer start(InetSocketAddress address, Path journal)
            throws IOException {
        return new LocalSchemaRegistryServer(address, journal, null);
    }

    /**
     * Starts a secured server (HTTPS, basic authentication) on {@code localhost:port}; see {@link
     * #start(int, Path)} and {@link Security}.
     */
    public static LocalSchemaRegistryServer start(int port, Path journal, Security security)
            throws IOException {
        return new LocalSchemaRegistryServer(
                new InetSocketAddress(InetAddress.getLoopbackAddress(), port), journal, security);
    }

    /** The port the server listens on. */
    public int port() {
        return server.getAddress().getPort();
    }

    /** The URL to configure as {@code schema.registry.url}. */
    public String url() {
        return (tls ? "https" : "http") + "://localhost:" + port();
    }

    /** The registry behind the API (to inspect state without HTTP). */
    public SchemaRegistryClient backend() {
        return backend;
    }

    /** Stops answering and forgets the in-memory state (the journal stays). */
    @Override
    public void close() {
        server.stop(0);
        executor.shutdownNow();
        InMemorySchemaRegistry.dropScope(scope);
    }

    // ---------------------------------------------------------------------------------------
    // Persistence

    private void replay(Path file) throws IOException {
        if (!Files.exists(file)) {
            return;
        }
        int lineNumber = 0;
        try (BufferedReader reader = Files.newBufferedReader(file, StandardCharsets.UTF_8)) {
            String line;
            while ((line = reader.readLine()) != null) {
                lineNumber++;
                if (line.isBlank()) {
                    continue;
                }
                try {
                    JsonNode entry = JSON.readTree(line);
                    String subject = entry.get("subject").textValue();
                    if (entry.has("compatibility")) {
                        backend.setCompatibilityLevel(
                                subject,
                                CompatibilityLevel.parse(entry.get("compatibility").textValue()));
                        continue;
                    }
                    Schema schema = new Schema.Parser().parse(entry.get("schema").textValue());
                    int id = backend.register(subject, schema);
                    if (entry.hasNonNull("id") && entry.get("id").intValue() != id) {
                        throw new IllegalStateException(
                                "replaying it assigned id " + id + ", it says " + entry.get("id"));
                    }
                } catch (IOException | RuntimeException e) {
                    throw new IOException(
                            "schema registry journal "
                                    + file
                                    + " is corrupt at line "
                                    + lineNumber
                                    + " ("
                                    + e.getMessage()
                                    + "); it must only be written by this server. Restore it, or"
                                    + " delete it together with the topics' data (their records"
                                    + " carry the ids it assigned)",
                            e);
                }
            }
        }
    }

    /**
     * Registers and, if that added a version, journals it before answering; 409 if the schema
     * breaks the subject's compatibility level.
     */
    private Answer register(String subject, Schema schema) {
        synchronized (registrations) {
            int before = versions(subject);
            int id;
            try {
                id = backend.register(subject, schema);
            } catch (IncompatibleSchemaException e) {
                return Answer.error(
                        409,
                        SchemaRegistryException.INCOMPATIBLE_SCHEMA,
                        "Schema being registered is incompatible with an earlier schema for"
                                + " subject \""
                                + subject
                                + "\" ("
                                + e.compatibilityLevel()
                                + "): "
                                + e.details());
            }
            if (versions(subject) > before) {
                append(
                        JSON.createObjectNode()
                                .put("subject", subject)
                                .put("schema", schema.toString())
                                .put("id", id)
                                .put("registeredAt", Instant.now().toString()));
            }
            return Answer.ok(JSON.createObjectNode().put("id", id));
        }
    }

    /** Sets the subject's own level and, if that changed it, journals it before answering. */
    private Answer setLevel(String subject, String body) {
        CompatibilityLevel level;
        try {
            JsonNode request = JSON.readTree(body);
            JsonNode text = request == null ? null : request.get("compatibility");
            if (text == null || !text.isTextual()) {
                throw new IllegalArgumentException("no string 'compatibility'");
            }
            level = CompatibilityLevel.parse(text.textValue());
        } catch (IOException | IllegalArgumentException e) {
            return Answer.error(
                    422,
                    SchemaRegistryException.INVALID_COMPATIBILITY_LEVEL,
                    "Invalid compatibility level: the body must be {\"compatibility\":"
                            + " \"<level>\"} with one of "
                            + java.util.Arrays.toString(CompatibilityLevel.values())
                            + " ("
                            + e.getMessage()
                            + ")");
        }
        synchronized (registrations) {
            if (!backend.subjectCompatibilityLevel(subject).equals(Optional.of(level))) {
                backend.setCompatibilityLevel(subject, level);
                append(
                        JSON.createObjectNode()
                                .put("subject", subject)
                                .put("compatibility", level.name())
                                .put("setAt", Instant.now().toString()));
            }
        }
        return Answer.ok(JSON.createObjectNode().put("compatibility", level.name()));
    }

    /** Appends one line to the journal, if there is one; called under {@code registrations}. */
    private void append(ObjectNode entry) {
        if (journal == null) {
            return;
        }
        try {
            Files.writeString(
                    journal,
                    entry.toString() + "\n",
                    StandardCharsets.UTF_8,
                    StandardOpenOption.CREATE,
                    StandardOpenOption.APPEND,
                    StandardOpenOption.DSYNC);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot append to " + journal, e);
        }
    }

    private int versions(String subject) {
        try {
            return backend.latestSchema(subject).version();
        } catch (SubjectNotFoundException e) {
            return 0;
        }
    }

    // ---------------------------------------------------------------------------------------
    // HTTP

    private record Answer(int status, String body) {
        static Answer ok(JsonNode body) {
            return new Answer(200, body.toString());
        }

        static Answer error(int status, int errorCode, String message) {
            return new Answer(
                    status,
                    JSON.createObjectNode()
                            .put("error_code", errorCode)
                            .put("message", message)
                            .toString());
        }
    }

    private void handle(HttpExchange exchange) throws IOException {
        try (exchange) {
            Answer answer;
            try {
                String body =
                        new String(
                                exchange.getRequestBody().readAllBytes(), StandardCharsets.UTF_8);
                answer =
                        route(
                                exchange.getRequestMethod(),
                                exchange.getRequestURI().getRawPath(),
                                exchange.getRequestURI().getRawQuery(),
                                body);
            } catch (RuntimeException e) {
                answer = Answer.error(500, 50001, "Error in the local schema registry: " + e);
            }
            byte[] bytes = answer.body().getBytes(StandardCharsets.UTF_8);
            exchange.getResponseHeaders()
                    .set("Content-Type", ConfluentSchemaRegistryClient.CONTENT_TYPE);
            exchange.sendResponseHeaders(answer.status(), bytes.length);
            try (OutputStream out = exchange.getResponseBody()) {
                out.write(bytes);
            }
        }
    }

    private Answer route(String method, String rawPath, String rawQuery, String body) {
        List<String> s = segments(rawPath);
        boolean get = method.equals("GET");
        boolean post = method.equals("POST");
        boolean put = method.equals("PUT");
        try {
            if (s.isEmpty()) {
                return get ? Answer.ok(JSON.createObjectNode()) : notAllowed(method, rawPath);
            }
            if (s.size() == 1 && s.get(0).equals("config")) {
                return get
                        ? Answer.ok(
                                JSON.createObjectNode()
                                        .put(
                                                "compatibilityLevel",
                                                InMemorySchemaRegistry.DEFAULT_COMPATIBILITY
                                                        .name()))
                        : notAllowed(method, rawPath);
            }
            if (s.size() == 2 && s.get(0).equals("config")) {
                String subject = s.get(1);
                if (put) {
                    return setLevel(subject, body);
                }
                if (!get) {
                    return notAllowed(method, rawPath);
                }
                Optional<CompatibilityLevel> own = backend.subjectCompatibilityLevel(subject);
                if (own.isEmpty() && !defaultToGlobal(rawQuery)) {
                    return Answer.error(
                            404,
                            SchemaRegistryException.SUBJECT_LEVEL_NOT_CONFIGURED,
                            "Subject '"
                                    + subject
                                    + "' does not have subject-level compatibility configured");
                }
                return Answer.ok(
                        JSON.createObjectNode()
                                .put(
                                        "compatibilityLevel",
                                        backend.compatibilityLevel(subject).name()));
            }
            if (s.size() == 1 && s.get(0).equals("subjects")) {
                if (!get) {
                    return notAllowed(method, rawPath);
                }
                ArrayNode subjects = JSON.createArrayNode();
                new TreeSet<>(backend.subjects()).forEach(subjects::add);
                return Answer.ok(subjects);
            }
            if (s.size() == 3 && s.get(0).equals("subjects") && s.get(2).equals("versions")) {
                String subject = s.get(1);
                if (post) {
                    Optional<Schema> schema = schemaOf(body);
                    if (schema.isEmpty()) {
                        return invalidSchema(body);
                    }
                    return register(subject, schema.get());
                }
                if (!get) {
                    return notAllowed(method, rawPath);
                }
                int versions = backend.latestSchema(subject).version();
                ArrayNode list = JSON.createArrayNode();
                for (int v = 1; v <= versions; v++) {
                    list.add(v);
                }
                return Answer.ok(list);
            }
            if (s.size() == 3 && s.get(0).equals("schemas") && s.get(1).equals("ids")) {
                if (!get) {
                    return notAllowed(method, rawPath);
                }
                int id;
                try {
                    id = Integer.parseInt(s.get(2));
                } catch (NumberFormatException e) {
                    return schemaNotFound(s.get(2));
                }
                Schema schema = backend.getSchemaById(id);
                return Answer.ok(JSON.createObjectNode().put("schema", schema.toString()));
            }
            if (s.size() == 4
                    && s.get(0).equals("subjects")
                    && s.get(2).equals("versions")
                    && s.get(3).equals("latest")) {
                if (!get) {
                    return notAllowed(method, rawPath);
                }
                RegisteredSchema latest = backend.latestSchema(s.get(1));
                return Answer.ok(
                        JSON.createObjectNode()
                                .put("subject", latest.subject())
                                .put("version", latest.version())
                                .put("id", latest.id())
                                .put("schema", latest.schema().toString()));
            }
            if (s.size() == 5
                    && s.get(0).equals("compatibility")
                    && s.get(1).equals("subjects")
                    && s.get(3).equals("versions")
                    && s.get(4).equals("latest")) {
                if (!post) {
                    return notAllowed(method, rawPath);
                }
                Optional<Schema> schema = schemaOf(body);
                if (schema.isEmpty()) {
                    return invalidSchema(body);
                }
                return Answer.ok(
                        JSON.createObjectNode()
                                .put(
                                        "is_compatible",
                                        backend.testCompatibility(s.get(2), schema.get())));
            }
            return Answer.error(404, 404, "HTTP 404 Not Found");
        } catch (SubjectNotFoundException e) {
            return Answer.error(
                    404,
                    SchemaRegistryException.SUBJECT_NOT_FOUND,
                    "Subject '" + e.subject() + "' not found.");
        } catch (SchemaNotFoundException e) {
            return schemaNotFound(Integer.toString(e.schemaId()));
        }
    }

    private static Answer schemaNotFound(String id) {
        return Answer.error(
                404, SchemaRegistryException.SCHEMA_NOT_FOUND, "Schema " + id + " not found");
    }

    private static Answer notAllowed(String method, String rawPath) {
        return Answer.error(405, 405, "HTTP 405 Method " + method + " Not Allowed on " + rawPath);
    }

    private static Answer invalidSchema(String body) {
        String shown = body.length() > 200 ? body.substring(0, 200) + "..." : body;
        return Answer.error(
                422,
                SchemaRegistryException.INVALID_SCHEMA,
                "Invalid schema: the body must be {\"schema\": \"<Avro schema JSON>\"} with an Avro"
                        + " schema (schemaType AVRO); got "
                        + shown);
    }

    /** The Avro schema of a registration body, or empty if the body does not hold one. */
    private static Optional<Schema> schemaOf(String body) {
        try {
            JsonNode request = JSON.readTree(body);
            if (request == null || !request.path("schema").isTextual()) {
                return Optional.empty();
            }
            String type = request.path("schemaType").asText("AVRO");
            if (!type.equalsIgnoreCase("AVRO")) {
                return Optional.empty();
            }
            return Optional.of(new Schema.Parser().parse(request.get("schema").textValue()));
        } catch (IOException | SchemaParseException e) {
            return Optional.empty();
        }
    }

    /** Whether the query string has {@code defaultToGlobal=true}. */
    private static boolean defaultToGlobal(String rawQuery) {
        if (rawQuery == null) {
            return false;
        }
        for (String parameter : rawQuery.split("&")) {
            if (parameter.equalsIgnoreCase("defaultToGlobal=true")) {
                return true;
            }
        }
        return false;
    }

    /** Percent-decoded path segments ({@code +} stays a plus, as in any URL path). */
    private static List<String> segments(String rawPath) {
        List<String> segments = new ArrayList<>();
        for (String raw : rawPath.split("/")) {
            if (!raw.isEmpty()) {
                segments.add(URLDecoder.decode(raw.replace("+", "%2B"), StandardCharsets.UTF_8));
            }
        }
        return segments;
    }

    // ---------------------------------------------------------------------------------------
    // Stand-alone process

    /**
     * Runs a server until the JVM is stopped (SIGTERM): {@code LocalSchemaRegistryServer --port N
     * [--journal FILE] [--exit-with-parent PID]}. With {@code --exit-with-parent} the JVM exits
     * when that process ends. Prints one line with the URL once it answers.
     */
    public static void main(String[] args) throws IOException {
        Integer port = null;
        Path journal = null;
        Long parentPid = null;
        Security security = null;
        for (int i = 0; i < args.length; i++) {
            String value = i + 1 < args.length ? args[i + 1] : null;
            switch (args[i]) {
                case "--port" -> port = Integer.parseInt(required(args[i], value));
                case "--journal" -> journal = Path.of(required(args[i], value));
                case "--exit-with-parent" -> parentPid = Long.parseLong(required(args[i], value));
                case "--security" -> security = Security.load(Path.of(required(args[i], value)));
                default -> usage("unexpected argument: " + args[i]);
            }
            i++;
        }
        if (port == null) {
            usage("--port is required");
        }
        if (parentPid != null) {
            long pid = parentPid;
            Optional<ProcessHandle> parent = ProcessHandle.of(pid).filter(ProcessHandle::isAlive);
            if (parent.isEmpty()) {
                System.err.println("parent process " + pid + " is already gone; not starting");
                System.exit(3);
            }
            parent.get().onExit().thenRun(() -> System.exit(0));
        }
        LocalSchemaRegistryServer server = start(port, journal, security);
        Runtime.getRuntime()
                .addShutdownHook(
                        new Thread(
                                () -> {
                                    server.close();
                                    System.out.println(Instant.now() + " schema registry stopped");
                                },
                                "schema-registry-shutdown"));
        System.out.printf(
                "%s schema registry listening on %s (journal %s, %d subjects%s)%n",
                Instant.now(),
                server.url(),
                journal == null ? "none: in memory only" : journal.toAbsolutePath(),
                server.backend.subjects().size(),
                security == null ? "" : "; TLS, basic auth for users " + security.users().keySet());
        System.out.flush();
        // Runs until the JVM is stopped (SIGTERM runs the shutdown hook).
        try {
            Thread.currentThread().join();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    private static String required(String option, String value) {
        if (value == null) {
            usage(option + " needs a value");
        }
        return value;
    }

    private static void usage(String problem) {
        System.err.println(problem);
        System.err.println(
                "usage: LocalSchemaRegistryServer --port N [--journal FILE] [--exit-with-parent"
                        + " PID] [--security FILE]");
        System.exit(2);
    }
}
