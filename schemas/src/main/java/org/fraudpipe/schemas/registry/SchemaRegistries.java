package org.fraudpipe.schemas.registry;

import java.time.Duration;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentMap;
import javax.net.ssl.SSLContext;

/**
 * Where schema registry clients come from: one call turns {@code schema.registry.url} into a
 * client.
 *
 * <ul>
 *   <li>{@code mock://<scope>}: the JVM-wide {@link InMemorySchemaRegistry} of that scope;
 *   <li>{@code http://...} or {@code https://...}: a {@link ConfluentSchemaRegistryClient}, one per
 *       (URL, credentials, timeouts) for the JVM, so its caches are shared by every serde of the
 *       process;
 *   <li>anything else: {@link IllegalArgumentException} naming {@code schema.registry.url} and the
 *       accepted forms.
 * </ul>
 *
 * Only one URL is accepted (no comma-separated fail-over list): put several registry instances
 * behind one address.
 */
public final class SchemaRegistries {

    /** The configuration key of the registry URL (as in Confluent's serializers). */
    public static final String URL_CONFIG = "schema.registry.url";

    /** Optional {@code user:password} for HTTP basic authentication. */
    public static final String BASIC_AUTH_USER_INFO_CONFIG = "basic.auth.user.info";

    /**
     * Where the basic-auth credentials come from, as Confluent's clients say: {@code USER_INFO}
     * ({@value #BASIC_AUTH_USER_INFO_CONFIG}; the default when it is set) or {@code URL} (the
     * {@code user:password@} of the URL; the default otherwise).
     */
    public static final String BASIC_AUTH_CREDENTIALS_SOURCE_CONFIG =
            "basic.auth.credentials.source";

    /** Prefix of the registry client's TLS settings, as Confluent's clients name them. */
    public static final String SSL_PREFIX = "schema.registry.ssl.";

    /** Trust store of the registry client (its CA, for an https registry with a private CA). */
    public static final String SSL_TRUSTSTORE_LOCATION_CONFIG = SSL_PREFIX + "truststore.location";

    public static final String SSL_TRUSTSTORE_PASSWORD_CONFIG = SSL_PREFIX + "truststore.password";
    public static final String SSL_TRUSTSTORE_TYPE_CONFIG = SSL_PREFIX + "truststore.type";

    /** Key store with a client certificate, for a registry that asks for one (mutual TLS). */
    public static final String SSL_KEYSTORE_LOCATION_CONFIG = SSL_PREFIX + "keystore.location";

    public static final String SSL_KEYSTORE_PASSWORD_CONFIG = SSL_PREFIX + "keystore.password";
    public static final String SSL_KEYSTORE_TYPE_CONFIG = SSL_PREFIX + "keystore.type";
    public static final String SSL_KEY_PASSWORD_CONFIG = SSL_PREFIX + "key.password";

    /** Optional connect timeout in milliseconds (default 5000). */
    public static final String CONNECT_TIMEOUT_MS_CONFIG = "schema.registry.connect.timeout.ms";

    /** Optional per-request timeout in milliseconds (default 10000). */
    public static final String REQUEST_TIMEOUT_MS_CONFIG = "schema.registry.request.timeout.ms";

    private static final String ACCEPTED_FORMS =
            "accepted forms: http://host:port[/path], https://host:port[/path], or mock://<scope>"
                    + " for an in-memory registry shared within the JVM";

    private static final ConcurrentMap<String, ConfluentSchemaRegistryClient> REST_CLIENTS =
            new ConcurrentHashMap<>();

    private SchemaRegistries() {}

    /** The client for {@code url}, without authentication and with the default timeouts. */
    public static SchemaRegistryClient forUrl(String url) {
        return forConfig(Map.of(URL_CONFIG, url == null ? "" : url));
    }

    /**
     * The client configured by {@code configs}: {@value #URL_CONFIG} (required), {@value
     * #BASIC_AUTH_USER_INFO_CONFIG}, {@value #CONNECT_TIMEOUT_MS_CONFIG} and {@value
     * #REQUEST_TIMEOUT_MS_CONFIG} (optional). Other keys are ignored, so a Kafka client's whole
     * configuration can be passed.
     */
    public static SchemaRegistryClient forConfig(Map<String, ?> configs) {
        Objects.requireNonNull(configs, "configs");
        Object rawUrl = configs.get(URL_CONFIG);
        String url = rawUrl == null ? "" : rawUrl.toString().trim();
        if (url.isEmpty()) {
            throw new IllegalArgumentException(
                    URL_CONFIG
                            + " is not set: set it to the schema registry's URL; "
                            + ACCEPTED_FORMS);
        }
        if (url.contains(",")) {
            throw new IllegalArgumentException(
                    URL_CONFIG
                            + "='"
                            + url
                            + "' lists several URLs; only one is supported (put the registry"
                            + " instances behind one address); "
                            + ACCEPTED_FORMS);
        }
        String lower = url.toLowerCase(Locale.ROOT);
        if (lower.startsWith(InMemorySchemaRegistry.URL_PREFIX)) {
            String scope = url.substring(InMemorySchemaRegistry.URL_PREFIX.length());
            if (scope.endsWith("/")) {
                scope = scope.substring(0, scope.length() - 1);
            }
            if (scope.isBlank() || scope.contains("/")) {
                throw new IllegalArgumentException(
                        URL_CONFIG
                                + "='"
                                + url
                                + "' has no valid scope after mock:// (e.g. mock://demo); "
                                + ACCEPTED_FORMS);
            }
            return InMemorySchemaRegistry.forScope(scope);
        }
        if (!lower.startsWith("http://") && !lower.startsWith("https://")) {
            throw new IllegalArgumentException(
                    URL_CONFIG + "='" + url + "' is not a supported URL; " + ACCEPTED_FORMS);
        }
        String userInfo = userInfo(configs);
        SSLContext ssl = RegistryTls.context(configs);
        Duration connect =
                millis(
                        configs,
                        CONNECT_TIMEOUT_MS_CONFIG,
                        ConfluentSchemaRegistryClient.DEFAULT_CONNECT_TIMEOUT);
        Duration request =
                millis(
                        configs,
                        REQUEST_TIMEOUT_MS_CONFIG,
                        ConfluentSchemaRegistryClient.DEFAULT_REQUEST_TIMEOUT);
        String key =
                url
                        + '\u0000'
                        + (userInfo == null ? "" : userInfo)
                        + '\u0000'
                        + connect
                        + request
                        + '\u0000'
                        + RegistryTls.cacheKey(configs);
        try {
            return REST_CLIENTS.computeIfAbsent(
                    key,
                    k -> new ConfluentSchemaRegistryClient(url, userInfo, connect, request, ssl));
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException(e.getMessage() + "; " + ACCEPTED_FORMS, e);
        }
    }

    /**
     * The basic-auth {@code user:password} by {@value #BASIC_AUTH_CREDENTIALS_SOURCE_CONFIG}, or
     * null to take it from the URL (the client does that itself).
     */
    private static String userInfo(Map<String, ?> configs) {
        String info = stringOrNull(configs.get(BASIC_AUTH_USER_INFO_CONFIG));
        String source = stringOrNull(configs.get(BASIC_AUTH_CREDENTIALS_SOURCE_CONFIG));
        if (source == null) {
            return info;
        }
        switch (source.trim().toUpperCase(Locale.ROOT)) {
            case "USER_INFO":
                if (info == null) {
                    throw new IllegalArgumentException(
                            BASIC_AUTH_CREDENTIALS_SOURCE_CONFIG
                                    + "=USER_INFO but "
                                    + BASIC_AUTH_USER_INFO_CONFIG
                                    + " is not set: give <user>:<password> in the client"
                                    + " properties file, or in the environment variable"
                                    + " SCHEMA_REGISTRY_BASIC_AUTH_USER_INFO");
                }
                return info;
            case "URL":
                return null;
            default:
                throw new IllegalArgumentException(
                        BASIC_AUTH_CREDENTIALS_SOURCE_CONFIG
                                + "='"
                                + source
                                + "' is not supported: USER_INFO or URL");
        }
    }

    private static String stringOrNull(Object value) {
        if (value == null) {
            return null;
        }
        String text = value.toString();
        return text.isEmpty() ? null : text;
    }

    private static Duration millis(Map<String, ?> configs, String key, Duration fallback) {
        Object value = configs.get(key);
        if (value == null || value.toString().isBlank()) {
            return fallback;
        }
        try {
            long ms = Long.parseLong(value.toString().trim());
            if (ms <= 0) {
                throw new NumberFormatException("not positive");
            }
            return Duration.ofMillis(ms);
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException(
                    key + "='" + value + "' is not a positive number of milliseconds", e);
        }
    }
}
