package org.fraudpipe.schemas.registry;

import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.KeyStore;
import java.util.Map;
import javax.net.ssl.KeyManager;
import javax.net.ssl.KeyManagerFactory;
import javax.net.ssl.SSLContext;
import javax.net.ssl.TrustManager;
import javax.net.ssl.TrustManagerFactory;

/**
 * The registry client's TLS context from Confluent-style settings ({@code
 * schema.registry.ssl.truststore.*}, {@code schema.registry.ssl.keystore.*}): a trust store for a
 * registry whose certificate a private CA signed, a key store for a registry that asks for a client
 * certificate. Neither set: the JVM's defaults. Store types default to PKCS12.
 */
final class RegistryTls {

    private RegistryTls() {}

    /** The context, or null when no TLS setting is given. */
    static SSLContext context(Map<String, ?> configs) {
        String trustLocation = text(configs, SchemaRegistries.SSL_TRUSTSTORE_LOCATION_CONFIG);
        String keyLocation = text(configs, SchemaRegistries.SSL_KEYSTORE_LOCATION_CONFIG);
        if (trustLocation == null && keyLocation == null) {
            return null;
        }
        try {
            TrustManager[] trust = null;
            if (trustLocation != null) {
                KeyStore store =
                        load(
                                SchemaRegistries.SSL_TRUSTSTORE_LOCATION_CONFIG,
                                trustLocation,
                                text(configs, SchemaRegistries.SSL_TRUSTSTORE_TYPE_CONFIG),
                                text(configs, SchemaRegistries.SSL_TRUSTSTORE_PASSWORD_CONFIG));
                TrustManagerFactory f =
                        TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
                f.init(store);
                trust = f.getTrustManagers();
            }
            KeyManager[] keys = null;
            if (keyLocation != null) {
                String storePassword = text(configs, SchemaRegistries.SSL_KEYSTORE_PASSWORD_CONFIG);
                KeyStore store =
                        load(
                                SchemaRegistries.SSL_KEYSTORE_LOCATION_CONFIG,
                                keyLocation,
                                text(configs, SchemaRegistries.SSL_KEYSTORE_TYPE_CONFIG),
                                storePassword);
                String keyPassword = text(configs, SchemaRegistries.SSL_KEY_PASSWORD_CONFIG);
                KeyManagerFactory f =
                        KeyManagerFactory.getInstance(KeyManagerFactory.getDefaultAlgorithm());
                f.init(store, chars(keyPassword != null ? keyPassword : storePassword));
                keys = f.getKeyManagers();
            }
            SSLContext context = SSLContext.getInstance("TLS");
            context.init(keys, trust, null);
            return context;
        } catch (GeneralSecurityException e) {
            throw new IllegalArgumentException(
                    "cannot set up TLS for the schema registry client from "
                            + SchemaRegistries.SSL_PREFIX
                            + "*: "
                            + e.getMessage(),
                    e);
        }
    }

    /** What distinguishes one TLS setting from another in the client cache (no secret printed). */
    static String cacheKey(Map<String, ?> configs) {
        StringBuilder b = new StringBuilder();
        configs.entrySet().stream()
                .filter(e -> e.getKey().startsWith(SchemaRegistries.SSL_PREFIX))
                .sorted(Map.Entry.comparingByKey())
                .forEach(e -> b.append(e.getKey()).append('=').append(e.getValue()).append(';'));
        return b.toString();
    }

    private static KeyStore load(String option, String location, String type, String password)
            throws GeneralSecurityException {
        KeyStore store = KeyStore.getInstance(type == null ? "PKCS12" : type);
        try (InputStream in = Files.newInputStream(Path.of(location))) {
            store.load(in, chars(password));
        } catch (IOException e) {
            throw new IllegalArgumentException(
                    option
                            + "="
                            + location
                            + " cannot be read ("
                            + e.getMessage()
                            + "): check the path and its password",
                    e);
        }
        return store;
    }

    private static char[] chars(String password) {
        return password == null ? null : password.toCharArray();
    }

    private static String text(Map<String, ?> configs, String key) {
        Object v = configs.get(key);
        return v == null || v.toString().isBlank() ? null : v.toString().trim();
    }
}
