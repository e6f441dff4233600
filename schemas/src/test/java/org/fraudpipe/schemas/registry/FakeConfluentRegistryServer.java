package org.fraudpipe.schemas.registry;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import org.apache.avro.Schema;

/**
 * A local HTTP server that answers like Confluent Schema Registry (paths, content type, JSON
 * bodies, error codes), backed by an {@link InMemorySchemaRegistry} scope of its own. Every request
 * is recorded. Answers can be scripted ({@link #answerNext}) and the server can be made to hang
 * ({@link #hangNext}). Serves under an optional path prefix, as Apicurio does.
 */
public final class FakeConfluentRegistryServer implements AutoCloseable {

    /** One request as the server saw it. */
    public record Request(
            String method,
            String rawPath,
            String contentType,
            String accept,
            String authorization,
            String body,
            String rawQuery) {}

    private record Scripted(int status, String body) {}

    private static final ObjectMapper JSON = new ObjectMapper();
    private static final String CONTENT_TYPE = "application/vnd.schemaregistry.v1+json";

    private final String prefix;
    private final String scope = "fake-server-" + UUID.randomUUID();
    private final InMemorySchemaRegistry backend = InMemorySchemaRegistry.forScope(scope);
    private final List<Request> requests = new CopyOnWriteArrayList<>();
    private final BlockingQueue<Scripted> scripted = new LinkedBlockingQueue<>();
    private final CountDownLatch release = new CountDownLatch(1);
    private volatile int hangs;
    private final ExecutorService executor = Executors.newCachedThreadPool();
    private final HttpServer server;

    public FakeConfluentRegistryServer() throws IOException {
        this("");
    }

    public FakeConfluentRegistryServer(String prefix) throws IOException {
        this.prefix = prefix;
        server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
        server.createContext("/", this::handle);
        server.setExecutor(executor);
        server.start();
    }

    /** Base URL to configure as {@code schema.registry.url}. */
    public String url() {
        return "http://127.0.0.1:" + server.getAddress().getPort() + prefix;
    }

    /** The registry behind the API, to set up or inspect state without HTTP. */
    public InMemorySchemaRegistry backend() {
        return backend;
    }

    public List<Request> requests() {
        return List.copyOf(requests);
    }

    public Request lastRequest() {
        return requests.get(requests.size() - 1);
    }

    /** The next request is answered with {@code status} and {@code body} instead. */
    public void answerNext(int status, String body) {
        scripted.add(new Scripted(status, body));
    }

    /** The next request gets no answer until the server is closed. */
    public void hangNext() {
        hangs++;
    }

    @Override
    public void close() {
        release.countDown();
        server.stop(0);
        executor.shutdownNow();
        InMemorySchemaRegistry.dropScope(scope);
    }

    private void handle(HttpExchange exchange) throws IOException {
        try (exchange) {
            String body =
                    new String(exchange.getRequestBody().readAllBytes(), StandardCharsets.UTF_8);
            String rawPath = exchange.getRequestURI().getRawPath();
            requests.add(
                    new Request(
                            exchange.getRequestMethod(),
                            rawPath,
                            exchange.getRequestHeaders().getFirst("Content-Type"),
                            exchange.getRequestHeaders().getFirst("Accept"),
                            exchange.getRequestHeaders().getFirst("Authorization"),
                            body,
                            exchange.getRequestURI().getRawQuery()));
            if (hangs > 0) {
                hangs--;
                release.await(30, TimeUnit.SECONDS);
                return;
            }
            Scripted next = scripted.poll();
            if (next != null) {
                send(exchange, next.status(), next.body());
                return;
            }
            if (!rawPath.startsWith(prefix + "/")) {
                send(exchange, 404, error(404, "HTTP 404 Not Found"));
                return;
            }
            String[] segments = rawPath.substring(prefix.length() + 1).split("/", -1);
            route(exchange, exchange.getRequestMethod(), segments, body);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    private void route(HttpExchange exchange, String method, String[] s, String body)
            throws IOException {
        try {
            if (method.equals("POST")
                    && s.length == 3
                    && s[0].equals("subjects")
                    && s[2].equals("versions")) {
                int id = backend.register(decode(s[1]), schemaOf(body));
                send(exchange, 200, "{\"id\":" + id + "}");
            } else if (method.equals("GET")
                    && s.length == 3
                    && s[0].equals("schemas")
                    && s[1].equals("ids")) {
                Schema schema = backend.getSchemaById(Integer.parseInt(s[2]));
                ObjectNode answer = JSON.createObjectNode().put("schema", schema.toString());
                send(exchange, 200, answer.toString());
            } else if (method.equals("GET")
                    && s.length == 4
                    && s[0].equals("subjects")
                    && s[2].equals("versions")
                    && s[3].equals("latest")) {
                RegisteredSchema latest = backend.latestSchema(decode(s[1]));
                ObjectNode answer =
                        JSON.createObjectNode()
                                .put("subject", latest.subject())
                                .put("version", latest.version())
                                .put("id", latest.id())
                                .put("schema", latest.schema().toString());
                send(exchange, 200, answer.toString());
            } else if (method.equals("POST")
                    && s.length == 5
                    && s[0].equals("compatibility")
                    && s[1].equals("subjects")
                    && s[3].equals("versions")
                    && s[4].equals("latest")) {
                String subject = decode(s[2]);
                if (!backend.subjects().contains(subject)) {
                    // As Confluent 5.x answered; 7.x answers is_compatible=true.
                    send(exchange, 404, error(40401, "Subject '" + subject + "' not found."));
                    return;
                }
                boolean compatible = backend.testCompatibility(subject, schemaOf(body));
                send(exchange, 200, "{\"is_compatible\":" + compatible + "}");
            } else {
                send(exchange, 404, error(404, "HTTP 404 Not Found"));
            }
        } catch (SubjectNotFoundException e) {
            send(exchange, 404, error(40401, "Subject '" + e.subject() + "' not found."));
        } catch (SchemaNotFoundException e) {
            send(exchange, 404, error(40403, "Schema " + e.schemaId() + " not found"));
        } catch (IncompatibleSchemaException e) {
            send(
                    exchange,
                    409,
                    error(
                            409,
                            "Schema being registered is incompatible with an earlier schema for"
                                    + " subject \""
                                    + e.subject()
                                    + "\""));
        } catch (RuntimeException e) {
            send(exchange, 422, error(42201, "Invalid schema: " + e.getMessage()));
        }
    }

    private static Schema schemaOf(String body) throws IOException {
        JsonNode request = JSON.readTree(body);
        return new Schema.Parser().parse(request.get("schema").textValue());
    }

    private static String decode(String segment) {
        return URLDecoder.decode(segment, StandardCharsets.UTF_8);
    }

    private static String error(int code, String message) {
        return JSON.createObjectNode().put("error_code", code).put("message", message).toString();
    }

    private static void send(HttpExchange exchange, int status, String body) throws IOException {
        byte[] bytes = body.getBytes(StandardCharsets.UTF_8);
        exchange.getResponseHeaders().set("Content-Type", CONTENT_TYPE);
        exchange.sendResponseHeaders(status, bytes.length == 0 ? -1 : bytes.length);
        if (bytes.length > 0) {
            try (OutputStream out = exchange.getResponseBody()) {
                out.write(bytes);
            }
        }
    }
}
