package org.fraudpipe.schemas.security;

import java.io.IOException;
import java.io.Reader;
import java.io.Serializable;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Properties;
import java.util.TreeMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.fraudpipe.schemas.registry.SchemaRegistries;

/**
 * Client settings of one principal, the Kafka way: the entries of a client properties file ({@code
 * --kafka-config FILE}, like the {@code --command-config} of Kafka's own tools), for every
 * consumer, producer and admin client a command creates, and, in the same file, the schema registry
 * client's settings as Confluent's clients name them ({@code basic.auth.credentials.source}, {@code
 * basic.auth.user.info}, {@code schema.registry.ssl.*}).
 *
 * <ul>
 *   <li>{@link #kafka()}: every entry except the registry's; {@code bootstrap.servers} is the
 *       command's own option and wins over the file's.
 *   <li>{@link #registry()}: {@code schema.registry.*} and {@code basic.auth.*}; {@code
 *       schema.registry.url} is the command's own option as well. Without {@code
 *       basic.auth.user.info} in the file, the environment variable {@value
 *       #REGISTRY_USER_INFO_ENV} gives it (so a secret need not be in a file, and never on a
 *       command line).
 * </ul>
 *
 * <p>Secrets never leave through {@link #toString()} or {@link #redacted()}: the values of {@link
 * #isSecret secret keys} (passwords, {@code sasl.jaas.config}, user info, tokens) print as {@value
 * #HIDDEN}. Serializable, so a Flink job's sources and sinks carry it to the TaskManagers inside
 * their own (Java-serialized) objects, never in Flink's configuration. Immutable.
 */
public final class ClientProperties implements Serializable {

    private static final long serialVersionUID = 1L;

    /** How a secret's value is printed. */
    public static final String HIDDEN = "[hidden]";

    /** Environment variable with the registry's {@code user:password}, if the file has none. */
    public static final String REGISTRY_USER_INFO_ENV = "SCHEMA_REGISTRY_BASIC_AUTH_USER_INFO";

    /** Confluent's key naming where the registry credentials come from. */
    public static final String BASIC_AUTH_CREDENTIALS_SOURCE = "basic.auth.credentials.source";

    private static final Pattern SECRET =
            Pattern.compile("password|secret|jaas|user\\.info|token|credentials?$|keystore\\.key$");
    private static final Pattern JAAS_USER = Pattern.compile("username\\s*=\\s*\"([^\"]*)\"");

    private static final ClientProperties NONE = new ClientProperties(Map.of(), null);

    private final TreeMap<String, String> entries;
    private final String source;

    private ClientProperties(Map<String, String> entries, String source) {
        this.entries = new TreeMap<>(entries);
        this.source = source;
    }

    /** No settings: a plaintext cluster and an open registry. */
    public static ClientProperties none() {
        return NONE;
    }

    /** These entries (e.g. the job's {@code --kafka.<key>} options), from {@code source}. */
    public static ClientProperties of(Map<String, String> entries, String source) {
        return entries.isEmpty() && source == null ? NONE : new ClientProperties(entries, source);
    }

    /**
     * Reads a client properties file; {@code option} (e.g. {@code --kafka-config}) names it in the
     * message when it cannot be read.
     *
     * @throws IllegalArgumentException if the file is missing or unreadable
     */
    public static ClientProperties load(Path file, String option) {
        Properties p = new Properties();
        try (Reader r = Files.newBufferedReader(file, StandardCharsets.UTF_8)) {
            p.load(r);
        } catch (NoSuchFileException e) {
            throw new IllegalArgumentException(option + " " + file + ": no such file");
        } catch (IOException e) {
            throw new IllegalArgumentException(option + " " + file + " cannot be read: " + e);
        }
        Map<String, String> entries = new LinkedHashMap<>();
        p.stringPropertyNames().forEach(k -> entries.put(k.trim(), p.getProperty(k).trim()));
        return new ClientProperties(entries, file.toAbsolutePath().toString());
    }

    /** {@link #load}, or {@link #none()} when {@code file} is null. */
    public static ClientProperties loadOrNone(Path file, String option) {
        return file == null ? NONE : load(file, option);
    }

    /** These settings with {@code more} on top (later wins), e.g. options over a file. */
    public ClientProperties with(Map<String, String> more) {
        if (more.isEmpty()) {
            return this;
        }
        Map<String, String> merged = new LinkedHashMap<>(entries);
        merged.putAll(more);
        return new ClientProperties(merged, source);
    }

    /** Whether there is nothing to add to a plaintext client. */
    public boolean isEmpty() {
        return entries.isEmpty();
    }

    /** The file the settings came from, if any. */
    public Optional<String> source() {
        return Optional.ofNullable(source);
    }

    /** Every entry, secrets included: for the clients only, never to print. */
    public Map<String, String> all() {
        return Collections.unmodifiableMap(entries);
    }

    /** The Kafka clients' entries: everything but the registry's. */
    public Map<String, String> kafka() {
        Map<String, String> out = new LinkedHashMap<>();
        entries.forEach(
                (k, v) -> {
                    if (!isRegistryKey(k)) {
                        out.put(k, v);
                    }
                });
        return out;
    }

    /**
     * Properties for a Kafka client of {@code bootstrapServers}: the file's Kafka entries, then
     * {@code bootstrap.servers} (the command's option wins).
     */
    public Properties kafkaProperties(String bootstrapServers) {
        Properties p = new Properties();
        p.putAll(kafka());
        p.put("bootstrap.servers", bootstrapServers);
        return p;
    }

    /** The registry client's entries ({@code schema.registry.*}, {@code basic.auth.*}). */
    public Map<String, String> registry() {
        Map<String, String> out = new LinkedHashMap<>();
        entries.forEach(
                (k, v) -> {
                    if (isRegistryKey(k)) {
                        out.put(k, v);
                    }
                });
        if (!out.containsKey(SchemaRegistries.BASIC_AUTH_USER_INFO_CONFIG)) {
            String env = System.getenv(REGISTRY_USER_INFO_ENV);
            if (env != null && !env.isBlank()) {
                out.put(SchemaRegistries.BASIC_AUTH_USER_INFO_CONFIG, env.trim());
                out.putIfAbsent(BASIC_AUTH_CREDENTIALS_SOURCE, "USER_INFO");
            }
        }
        return out;
    }

    /** The registry client's configuration: {@code url} plus {@link #registry()}. */
    public Map<String, String> registryConfig(String url) {
        Map<String, String> out = new LinkedHashMap<>(registry());
        out.put(SchemaRegistries.URL_CONFIG, url);
        return out;
    }

    /** Whether {@code key} configures the registry client, not Kafka's. */
    public static boolean isRegistryKey(String key) {
        return key.startsWith("schema.registry.") || key.startsWith("basic.auth.");
    }

    /**
     * Whether the value of {@code key} is a secret: passwords ({@code ssl.truststore.password},
     * ...), {@code sasl.jaas.config}, {@code basic.auth.user.info}, tokens, credentials. The same
     * words Flink's own redaction of sensitive configuration keys looks for, and some more.
     */
    public static boolean isSecret(String key) {
        return SECRET.matcher(key.toLowerCase(Locale.ROOT)).find();
    }

    /** {@code entries} with every secret's value replaced by {@value #HIDDEN}, in key order. */
    public static Map<String, String> redact(Map<String, String> entries) {
        Map<String, String> out = new TreeMap<>();
        entries.forEach((k, v) -> out.put(k, isSecret(k) ? HIDDEN : v));
        return out;
    }

    /**
     * {@code url} with the password of its user info ({@code https://user:password@host}) hidden:
     * what may be printed of a URL that may carry credentials.
     */
    public static String redactUrl(String url) {
        if (url == null) {
            return null;
        }
        int scheme = url.indexOf("://");
        int at = url.indexOf('@');
        int slash = scheme < 0 ? -1 : url.indexOf('/', scheme + 3);
        if (scheme < 0 || at < 0 || (slash >= 0 && at > slash)) {
            return url;
        }
        String userInfo = url.substring(scheme + 3, at);
        int colon = userInfo.indexOf(':');
        String user = colon < 0 ? userInfo : userInfo.substring(0, colon);
        return url.substring(0, scheme + 3) + user + ":" + HIDDEN + url.substring(at);
    }

    /** Every entry, secrets as {@value #HIDDEN}: what may be printed. */
    public Map<String, String> redacted() {
        return redact(entries);
    }

    /**
     * The Kafka principal these settings authenticate as, for messages: the {@code username} of
     * {@code sasl.jaas.config}, the keystore of a TLS client certificate, or "ANONYMOUS".
     */
    public String kafkaPrincipal() {
        String jaas = entries.get("sasl.jaas.config");
        if (jaas != null) {
            Matcher m = JAAS_USER.matcher(jaas);
            if (m.find()) {
                return "User:" + m.group(1);
            }
            return "the user of sasl.jaas.config";
        }
        String keystore = entries.get("ssl.keystore.location");
        if (keystore != null) {
            return "the certificate in ssl.keystore.location=" + keystore;
        }
        return "User:ANONYMOUS";
    }

    /** {@code security.protocol} (Kafka's default PLAINTEXT). */
    public String securityProtocol() {
        return entries.getOrDefault("security.protocol", "PLAINTEXT").toUpperCase(Locale.ROOT);
    }

    /** {@code sasl.mechanism} if SASL is used (Kafka's default GSSAPI), else empty. */
    public Optional<String> saslMechanism() {
        return securityProtocol().startsWith("SASL")
                ? Optional.of(entries.getOrDefault("sasl.mechanism", "GSSAPI"))
                : Optional.empty();
    }

    /** The registry user of {@code basic.auth.user.info}, or empty. */
    public Optional<String> registryUser() {
        String info = registry().get(SchemaRegistries.BASIC_AUTH_USER_INFO_CONFIG);
        if (info == null || info.isEmpty()) {
            return Optional.empty();
        }
        int colon = info.indexOf(':');
        return Optional.of(colon < 0 ? info : info.substring(0, colon));
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof ClientProperties c && c.entries.equals(entries);
    }

    @Override
    public int hashCode() {
        return entries.hashCode();
    }

    /** Secrets hidden. */
    @Override
    public String toString() {
        return "ClientProperties" + (source == null ? "" : "(" + source + ")") + redacted();
    }
}
