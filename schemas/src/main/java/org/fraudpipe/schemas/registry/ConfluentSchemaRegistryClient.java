package org.fraudpipe.schemas.registry;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.net.ConnectException;
import java.net.URI;
import java.net.URISyntaxException;
import java.net.http.HttpClient;
import java.net.http.HttpConnectTimeoutException;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.net.http.HttpTimeoutException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Base64;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentMap;
import java.util.function.Supplier;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLException;
import org.apache.avro.Schema;
import org.apache.avro.SchemaParseException;

/**
 * A {@link SchemaRegistryClient} speaking the Confluent Schema Registry REST API (also served by
 * Apicurio's {@code /apis/ccompat/v7}, Karapace and Redpanda):
 *
 * <ul>
 *   <li>{@code POST /subjects/{subject}/versions} with {@code {"schema": "<schema json>"}} answers
 *       {@code {"id": N}};
 *   <li>{@code GET /schemas/ids/{id}} answers {@code {"schema": "..."}};
 *   <li>{@code GET /subjects/{subject}/versions/latest} answers {@code {"subject", "version", "id",
 *       "schema"}};
 *   <li>{@code POST /compatibility/subjects/{subject}/versions/latest} answers {@code
 *       {"is_compatible": bool}};
 *   <li>{@code GET /config/{subject}?defaultToGlobal=true}, after a 404 (a registry without {@code
 *       defaultToGlobal}, or Apicurio for a subject it does not know) {@code GET /config}, answer
 *       {@code {"compatibilityLevel": "..."}}: the subject's effective level ({@link
 *       #compatibilityLevel}), also asked after a refusal (409) so that {@link
 *       IncompatibleSchemaException} names the level the registry checked;
 *   <li>{@code PUT /config/{subject}} with {@code {"compatibility": "..."}} answers {@code
 *       {"compatibility": "..."}} ({@link #setCompatibilityLevel}).
 * </ul>
 *
 * Requests carry {@code Content-Type: application/vnd.schemaregistry.v1+json}; subject names are
 * percent-encoded as one path segment; the base URL may have a path (e.g. {@code
 * http://apicurio:8080/apis/ccompat/v7}).
 *
 * <p>Caching (the hot path never asks the registry twice for the same thing): schemas by id and ids
 * by (subject, schema text) are cached forever, because both are immutable in the registry.
 * Concurrent first lookups of the same key make one request (the others wait for it). Failed
 * lookups are not cached, except that an unknown id is remembered for {@link
 * #DEFAULT_UNKNOWN_ID_TTL} so that a flood of records with a bogus id cannot flood the registry.
 * {@link #latestSchema}, {@link #testCompatibility} and {@link #compatibilityLevel} always ask
 * (their answers change).
 *
 * <p>Thread-safe. No retries: a failed call throws, and the caller (the Flink job's restart
 * strategy, a Kafka client's caller) decides. Timeouts: {@link #DEFAULT_CONNECT_TIMEOUT} to
 * connect, {@link #DEFAULT_REQUEST_TIMEOUT} per request unless configured.
 */
public final class ConfluentSchemaRegistryClient implements SchemaRegistryClient {

    /** The registry's content type; sent with every request body. */
    public static final String CONTENT_TYPE = "application/vnd.schemaregistry.v1+json";

    static final String ACCEPT =
            "application/vnd.schemaregistry.v1+json, application/vnd.schemaregistry+json;"
                    + " qs=0.9, application/json; qs=0.5";

    public static final Duration DEFAULT_CONNECT_TIMEOUT = Duration.ofSeconds(5);
    public static final Duration DEFAULT_REQUEST_TIMEOUT = Duration.ofSeconds(10);
    public static final Duration DEFAULT_UNKNOWN_ID_TTL = Duration.ofSeconds(10);

    private static final ObjectMapper JSON = new ObjectMapper();
    private static final int MAX_BODY_IN_MESSAGE = 300;

    private final String baseUrl;
    private final String authorization;
    private final String user;
    private final Duration requestTimeout;
    private final long unknownIdTtlNanos;
    private final HttpClient http;

    private final ConcurrentMap<Integer, CompletableFuture<Schema>> schemasById =
            new ConcurrentHashMap<>();
    private final ConcurrentMap<SubjectSchema, CompletableFuture<Integer>> idsBySubjectSchema =
            new ConcurrentHashMap<>();
    private final ConcurrentMap<Integer, Long> unknownIdsUntil = new ConcurrentHashMap<>();

    private record SubjectSchema(String subject, String schemaText) {}

    /** A client for {@code baseUrl} without authentication and with the default timeouts. */
    public ConfluentSchemaRegistryClient(String baseUrl) {
        this(baseUrl, null, DEFAULT_CONNECT_TIMEOUT, DEFAULT_REQUEST_TIMEOUT);
    }

    /**
     * @param baseUrl {@code http(s)://host:port[/path]}; credentials in the URL ({@code
     *     http://user:password@host}) are used for basic authentication unless {@code
     *     basicAuthUserInfo} is given
     * @param basicAuthUserInfo {@code user:password} for HTTP basic authentication ({@code
     *     basic.auth.user.info}), or null
     * @param connectTimeout how long to wait for a connection
     * @param requestTimeout how long to wait for each answer
     */
    public ConfluentSchemaRegistryClient(
            String baseUrl,
            String basicAuthUserInfo,
            Duration connectTimeout,
            Duration requestTimeout) {
        this(baseUrl, basicAuthUserInfo, connectTimeout, requestTimeout, DEFAULT_UNKNOWN_ID_TTL);
    }

    ConfluentSchemaRegistryClient(
            String baseUrl,
            String basicAuthUserInfo,
            Duration connectTimeout,
            Duration requestTimeout,
            Duration unknownIdTtl) {
        this(baseUrl, basicAuthUserInfo, connectTimeout, requestTimeout, unknownIdTtl, null);
    }

    /**
     * As {@link #ConfluentSchemaRegistryClient(String, String, Duration, Duration)}, over TLS with
     * {@code sslContext} (its trust store decides which registry certificates are trusted, its key
     * store holds a client certificate if the registry asks for one); null: the JVM's defaults.
     */
    public ConfluentSchemaRegistryClient(
            String baseUrl,
            String basicAuthUserInfo,
            Duration connectTimeout,
            Duration requestTimeout,
            SSLContext sslContext) {
        this(
                baseUrl,
                basicAuthUserInfo,
                connectTimeout,
                requestTimeout,
                DEFAULT_UNKNOWN_ID_TTL,
                sslContext);
    }

    ConfluentSchemaRegistryClient(
            String baseUrl,
            String basicAuthUserInfo,
            Duration connectTimeout,
            Duration requestTimeout,
            Duration unknownIdTtl,
            SSLContext sslContext) {
        Objects.requireNonNull(baseUrl, "baseUrl");
        URI uri;
        try {
            uri = new URI(baseUrl.trim());
        } catch (URISyntaxException e) {
            throw new IllegalArgumentException(
                    "schema.registry.url '" + baseUrl + "' is not a valid URL: " + e.getMessage(),
                    e);
        }
        String scheme = uri.getScheme() == null ? "" : uri.getScheme().toLowerCase();
        if (!scheme.equals("http") && !scheme.equals("https") || uri.getHost() == null) {
            throw new IllegalArgumentException(
                    "schema.registry.url '"
                            + baseUrl
                            + "' is not an http(s) URL with a host, e.g. http://localhost:8081");
        }
        String userInfo = basicAuthUserInfo;
        if ((userInfo == null || userInfo.isEmpty()) && uri.getRawUserInfo() != null) {
            userInfo = uri.getUserInfo();
        }
        String withoutCredentials =
                scheme
                        + "://"
                        + uri.getRawAuthority().substring(uri.getRawAuthority().indexOf('@') + 1)
                        + (uri.getRawPath() == null ? "" : uri.getRawPath());
        this.baseUrl =
                withoutCredentials.endsWith("/")
                        ? withoutCredentials.substring(0, withoutCredentials.length() - 1)
                        : withoutCredentials;
        int colon = userInfo == null ? -1 : userInfo.indexOf(':');
        this.user =
                userInfo == null || userInfo.isEmpty()
                        ? null
                        : colon < 0 ? userInfo : userInfo.substring(0, colon);
        this.authorization =
                userInfo == null || userInfo.isEmpty()
                        ? null
                        : "Basic "
                                + Base64.getEncoder()
                                        .encodeToString(userInfo.getBytes(StandardCharsets.UTF_8));
        this.requestTimeout = Objects.requireNonNull(requestTimeout, "requestTimeout");
        this.unknownIdTtlNanos = unknownIdTtl.toNanos();
        HttpClient.Builder http =
                HttpClient.newBuilder()
                        .version(HttpClient.Version.HTTP_1_1)
                        .connectTimeout(Objects.requireNonNull(connectTimeout, "connectTimeout"))
                        .followRedirects(HttpClient.Redirect.NORMAL);
        if (sslContext != null) {
            http.sslContext(sslContext);
        }
        this.http = http.build();
    }

    @Override
    public String url() {
        return baseUrl;
    }

    @Override
    public int register(String subject, Schema schema) {
        Objects.requireNonNull(subject, "subject");
        String text = schema.toString();
        return once(
                idsBySubjectSchema,
                new SubjectSchema(subject, text),
                () -> {
                    String path = "/subjects/" + encodeSegment(subject) + "/versions";
                    JsonNode answer =
                            call(
                                    "POST",
                                    path,
                                    schemaBody(text),
                                    (status, code, message) ->
                                            status == 409
                                                    ? new IncompatibleSchemaException(
                                                            subject,
                                                            baseUrl,
                                                            message,
                                                            levelForRefusal(subject),
                                                            code)
                                                    : null);
                    int id = requiredInt(answer, "id", "POST " + path);
                    schemasById.putIfAbsent(id, CompletableFuture.completedFuture(schema));
                    return id;
                });
    }

    @Override
    public Schema getSchemaById(int id) {
        Long until = unknownIdsUntil.get(id);
        if (until != null) {
            if (System.nanoTime() - until < 0) {
                throw new SchemaNotFoundException(
                        id,
                        baseUrl,
                        "answered 40403 for this id less than "
                                + Duration.ofNanos(unknownIdTtlNanos).toSeconds()
                                + " s ago, not asked again yet");
            }
            unknownIdsUntil.remove(id, until);
        }
        return once(
                schemasById,
                id,
                () -> {
                    String path = "/schemas/ids/" + id;
                    JsonNode answer;
                    try {
                        answer =
                                call(
                                        "GET",
                                        path,
                                        null,
                                        (status, code, message) ->
                                                code == SchemaRegistryException.SCHEMA_NOT_FOUND
                                                        ? new SchemaNotFoundException(
                                                                id, baseUrl, message)
                                                        : null);
                    } catch (SchemaNotFoundException e) {
                        if (unknownIdTtlNanos > 0) {
                            unknownIdsUntil.put(id, System.nanoTime() + unknownIdTtlNanos);
                        }
                        throw e;
                    }
                    String schemaType = answer.path("schemaType").asText("AVRO");
                    if (!schemaType.equalsIgnoreCase("AVRO")) {
                        throw new NotAvroSchemaException(
                                id, baseUrl, "it is a " + schemaType + " schema", null);
                    }
                    String text = requiredText(answer, "schema", "GET " + path);
                    try {
                        return new Schema.Parser().parse(text);
                    } catch (SchemaParseException e) {
                        throw new NotAvroSchemaException(
                                id, baseUrl, "Avro cannot parse it: " + e.getMessage(), e);
                    }
                });
    }

    @Override
    public RegisteredSchema latestSchema(String subject) {
        String path = "/subjects/" + encodeSegment(subject) + "/versions/latest";
        JsonNode answer =
                call(
                        "GET",
                        path,
                        null,
                        (status, code, message) ->
                                code == SchemaRegistryException.SUBJECT_NOT_FOUND
                                                || code == SchemaRegistryException.VERSION_NOT_FOUND
                                        ? new SubjectNotFoundException(
                                                subject, baseUrl, message, code)
                                        : null);
        String what = "GET " + path;
        int id = requiredInt(answer, "id", what);
        int version = requiredInt(answer, "version", what);
        Schema schema = parseSchema(requiredText(answer, "schema", what), path);
        schemasById.putIfAbsent(id, CompletableFuture.completedFuture(schema));
        return new RegisteredSchema(subject, id, version, schema);
    }

    @Override
    public boolean testCompatibility(String subject, Schema schema) {
        String path = "/compatibility/subjects/" + encodeSegment(subject) + "/versions/latest";
        try {
            JsonNode answer =
                    call(
                            "POST",
                            path,
                            schemaBody(schema.toString()),
                            (status, code, message) ->
                                    code == SchemaRegistryException.SUBJECT_NOT_FOUND
                                                    || code
                                                            == SchemaRegistryException
                                                                    .VERSION_NOT_FOUND
                                            ? new SubjectNotFoundException(
                                                    subject, baseUrl, message)
                                            : null);
            JsonNode compatible = answer.get("is_compatible");
            if (compatible == null || !compatible.isBoolean()) {
                throw unexpectedAnswer("POST " + path, "no boolean 'is_compatible'", answer);
            }
            return compatible.booleanValue();
        } catch (SubjectNotFoundException e) {
            // Older registries answer 40401/40402 where 7.x answers is_compatible=true: nothing is
            // registered, so nothing can be incompatible (as register() would accept it).
            return true;
        }
    }

    @Override
    public CompatibilityLevel compatibilityLevel(String subject) {
        Objects.requireNonNull(subject, "subject");
        Level answer = effectiveLevel(subject);
        try {
            return CompatibilityLevel.parse(answer.text());
        } catch (IllegalArgumentException e) {
            throw new SchemaRegistryException(
                    "The schema registry at "
                            + baseUrl
                            + " answered "
                            + answer.what()
                            + " with a compatibility level this client does not know: '"
                            + answer.text()
                            + "' ("
                            + e.getMessage()
                            + ")",
                    200,
                    SchemaRegistryException.NO_ERROR_CODE,
                    e);
        }
    }

    @Override
    public void setCompatibilityLevel(String subject, CompatibilityLevel level) {
        Objects.requireNonNull(subject, "subject");
        Objects.requireNonNull(level, "level");
        String path = "/config/" + encodeSegment(subject);
        String body;
        try {
            body = JSON.writeValueAsString(Map.of("compatibility", level.name()));
        } catch (JsonProcessingException e) {
            throw new IllegalStateException("cannot write a JSON string", e);
        }
        JsonNode answer = call("PUT", path, body, (status, code, message) -> null);
        String set = levelText(answer);
        if (set != null && !set.equalsIgnoreCase(level.name())) {
            throw unexpectedAnswer(
                    "PUT " + path, "another level than the one asked for (" + level + ")", answer);
        }
    }

    @Override
    public String toString() {
        return "ConfluentSchemaRegistryClient[" + baseUrl + "]";
    }

    private record Level(String text, String what) {}

    /**
     * The subject's level as the registry names it: the subject's own or, with {@code
     * defaultToGlobal=true}, the global one; after a 404 (Confluent before 5.5 for a subject
     * without a level of its own: 40408 or 40401; Apicurio for a subject it does not know: 40401)
     * the global one. Any other failure is thrown: a 403 must not pass off the global level as the
     * subject's.
     */
    private Level effectiveLevel(String subject) {
        String path = "/config/" + encodeSegment(subject) + "?defaultToGlobal=true";
        JsonNode answer;
        try {
            answer = call("GET", path, null, (status, code, message) -> null);
        } catch (SchemaRegistryException e) {
            if (e.httpStatus() != 404) {
                throw e;
            }
            path = "/config";
            answer = call("GET", path, null, (status, code, message) -> null);
        }
        String text = levelText(answer);
        if (text == null || text.isBlank()) {
            throw unexpectedAnswer("GET " + path, "no string 'compatibilityLevel'", answer);
        }
        return new Level(text, "GET " + path);
    }

    /** {@code compatibilityLevel} (GET answers) or {@code compatibility} (PUT answers), or null. */
    private static String levelText(JsonNode answer) {
        JsonNode level = answer == null ? null : answer.get("compatibilityLevel");
        if (level == null) {
            level = answer == null ? null : answer.get("compatibility");
        }
        return level != null && level.isTextual() ? level.textValue() : null;
    }

    /**
     * The level to name in an {@link IncompatibleSchemaException}, as the registry names it, or
     * null if it does not tell: explaining a refusal must not fail.
     */
    private String levelForRefusal(String subject) {
        try {
            return effectiveLevel(subject).text();
        } catch (SchemaRegistryException e) {
            return null;
        }
    }

    // ---------------------------------------------------------------------------------------

    @FunctionalInterface
    private interface ErrorMapper {
        /** A specific exception for this answer, or null for the generic one. */
        SchemaRegistryException map(int status, int errorCode, String message);
    }

    private JsonNode call(String method, String path, String jsonBody, ErrorMapper errors) {
        String what = method + " " + path;
        HttpRequest.Builder request =
                HttpRequest.newBuilder(URI.create(baseUrl + path))
                        .timeout(requestTimeout)
                        .header("Accept", ACCEPT);
        if (authorization != null) {
            request.header("Authorization", authorization);
        }
        if (jsonBody == null) {
            request.method(method, HttpRequest.BodyPublishers.noBody());
        } else {
            request.header("Content-Type", CONTENT_TYPE)
                    .method(
                            method,
                            HttpRequest.BodyPublishers.ofString(jsonBody, StandardCharsets.UTF_8));
        }
        HttpResponse<String> response;
        try {
            response =
                    http.send(
                            request.build(),
                            HttpResponse.BodyHandlers.ofString(StandardCharsets.UTF_8));
        } catch (HttpConnectTimeoutException e) {
            throw new SchemaRegistryUnavailableException(
                    baseUrl, what, "no connection within the connect timeout", e);
        } catch (HttpTimeoutException e) {
            throw new SchemaRegistryUnavailableException(
                    baseUrl, what, "did not answer within " + requestTimeout.toMillis() + " ms", e);
        } catch (SSLException e) {
            throw new SchemaRegistryUnavailableException(
                    baseUrl,
                    what,
                    "the TLS handshake failed ("
                            + e.getMessage()
                            + "): if the registry's certificate is not trusted, set"
                            + " schema.registry.ssl.truststore.location (and .password) to a trust"
                            + " store holding its CA",
                    e);
        } catch (ConnectException e) {
            throw new SchemaRegistryUnavailableException(
                    baseUrl, what, "connection refused or host unreachable (" + e + ")", e);
        } catch (IOException e) {
            throw new SchemaRegistryUnavailableException(baseUrl, what, e.toString(), e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new SchemaRegistryException(
                    "Interrupted while calling the schema registry at "
                            + baseUrl
                            + " ("
                            + what
                            + ")",
                    SchemaRegistryException.NO_HTTP_STATUS,
                    SchemaRegistryException.NO_ERROR_CODE,
                    e);
        }
        int status = response.statusCode();
        String body = response.body() == null ? "" : response.body();
        if (status >= 200 && status < 300) {
            try {
                return JSON.readTree(body);
            } catch (JsonProcessingException e) {
                throw new SchemaRegistryException(
                        "The schema registry at "
                                + baseUrl
                                + " answered "
                                + what
                                + " with HTTP "
                                + status
                                + " but a body that is not JSON: "
                                + abbreviate(body)
                                + ". Check that schema.registry.url points at the"
                                + " Confluent-compatible API root.",
                        status,
                        SchemaRegistryException.NO_ERROR_CODE,
                        e);
            }
        }
        int errorCode = SchemaRegistryException.NO_ERROR_CODE;
        String message = abbreviate(body);
        try {
            JsonNode error = JSON.readTree(body);
            if (error != null && error.isObject()) {
                if (error.path("error_code").canConvertToInt()) {
                    errorCode = error.path("error_code").intValue();
                }
                if (error.hasNonNull("message")) {
                    message = error.get("message").asText();
                }
            }
        } catch (JsonProcessingException e) {
            // not JSON (a proxy's HTML page, say): keep the raw body as the message
        }
        SchemaRegistryException specific = errors.map(status, errorCode, message);
        if (specific != null) {
            throw specific;
        }
        throw new SchemaRegistryException(
                "The schema registry at "
                        + baseUrl
                        + " answered "
                        + what
                        + " with HTTP "
                        + status
                        + (errorCode == SchemaRegistryException.NO_ERROR_CODE
                                ? ""
                                : " (error_code " + errorCode + ")")
                        + ": "
                        + (message.isEmpty() ? "<empty body>" : message)
                        + ". "
                        + hint(status, errorCode, what),
                status,
                errorCode);
    }

    private String hint(int status, int errorCode, String what) {
        if (status == 401) {
            return user == null
                    ? "The registry asks for credentials: set basic.auth.credentials.source=USER_INFO"
                            + " and basic.auth.user.info=<user>:<password> in the client"
                            + " properties file (--kafka-config)."
                    : "The registry refused the credentials of user '"
                            + user
                            + "' (wrong password, or no such user): fix basic.auth.user.info.";
        }
        if (status == 403) {
            return "The registry refused "
                    + what
                    + " to user '"
                    + (user == null ? "anonymous" : user)
                    + "': grant it that right on the registry, or use another user.";
        }
        if (errorCode == SchemaRegistryException.INVALID_SCHEMA || status == 422) {
            return "The registry rejected the schema or request as invalid: fix the schema.";
        }
        if (status == 404) {
            return "Check that schema.registry.url points at the registry's Confluent-compatible API"
                    + " root (for Apicurio: .../apis/ccompat/v7).";
        }
        if (status >= 500) {
            return "This is a problem of the registry itself: check its logs and health, then"
                    + " retry.";
        }
        return "Check the request and the registry's documentation for this error.";
    }

    private static <K, V> V once(
            ConcurrentMap<K, CompletableFuture<V>> cache, K key, Supplier<V> loader) {
        CompletableFuture<V> existing = cache.get(key);
        if (existing == null) {
            CompletableFuture<V> mine = new CompletableFuture<>();
            existing = cache.putIfAbsent(key, mine);
            if (existing == null) {
                try {
                    V value = loader.get();
                    mine.complete(value);
                    return value;
                } catch (RuntimeException | Error e) {
                    cache.remove(key, mine);
                    mine.completeExceptionally(e);
                    throw e;
                }
            }
        }
        try {
            return existing.join();
        } catch (CompletionException e) {
            // A concurrent first lookup of the same key failed: fail the same way.
            if (e.getCause() instanceof RuntimeException cause) {
                throw cause;
            }
            if (e.getCause() instanceof Error cause) {
                throw cause;
            }
            throw e;
        }
    }

    private static String schemaBody(String schemaText) {
        try {
            return JSON.writeValueAsString(Map.of("schema", schemaText));
        } catch (JsonProcessingException e) {
            throw new IllegalStateException("cannot write a JSON string", e);
        }
    }

    private Schema parseSchema(String text, String path) {
        try {
            return new Schema.Parser().parse(text);
        } catch (SchemaParseException e) {
            throw new SchemaRegistryException(
                    "The schema registry at "
                            + baseUrl
                            + " returned a schema for "
                            + path
                            + " that is not valid Avro ("
                            + e.getMessage()
                            + "): check what was registered there.",
                    200,
                    SchemaRegistryException.NO_ERROR_CODE,
                    e);
        }
    }

    private int requiredInt(JsonNode answer, String field, String what) {
        JsonNode value = answer == null ? null : answer.get(field);
        if (value == null || !value.canConvertToInt() || !value.isIntegralNumber()) {
            throw unexpectedAnswer(what, "no integer '" + field + "'", answer);
        }
        return value.intValue();
    }

    private String requiredText(JsonNode answer, String field, String what) {
        JsonNode value = answer == null ? null : answer.get(field);
        if (value == null || !value.isTextual()) {
            throw unexpectedAnswer(what, "no string '" + field + "'", answer);
        }
        return value.textValue();
    }

    private SchemaRegistryException unexpectedAnswer(String what, String problem, JsonNode answer) {
        return new SchemaRegistryException(
                "The schema registry at "
                        + baseUrl
                        + " answered "
                        + what
                        + " with "
                        + problem
                        + ": "
                        + abbreviate(String.valueOf(answer))
                        + ". Check that schema.registry.url points at a Confluent-compatible"
                        + " registry API.",
                200,
                SchemaRegistryException.NO_ERROR_CODE);
    }

    private static String abbreviate(String body) {
        String oneLine = body.strip().replaceAll("\\s+", " ");
        return oneLine.length() <= MAX_BODY_IN_MESSAGE
                ? oneLine
                : oneLine.substring(0, MAX_BODY_IN_MESSAGE) + "...";
    }

    /** Percent-encodes {@code value} as one URL path segment (RFC 3986 unreserved kept). */
    static String encodeSegment(String value) {
        byte[] bytes = value.getBytes(StandardCharsets.UTF_8);
        StringBuilder out = new StringBuilder(bytes.length + 8);
        for (byte b : bytes) {
            int c = b & 0xff;
            if (c >= 'a' && c <= 'z'
                    || c >= 'A' && c <= 'Z'
                    || c >= '0' && c <= '9'
                    || c == '-'
                    || c == '.'
                    || c == '_'
                    || c == '~') {
                out.append((char) c);
            } else {
                out.append('%')
                        .append(Character.toUpperCase(Character.forDigit(c >> 4, 16)))
                        .append(Character.toUpperCase(Character.forDigit(c & 0xf, 16)));
            }
        }
        return out.toString();
    }
}
