package org.fraudpipe.local;

import java.io.IOException;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.security.SecureRandom;
import java.util.ArrayList;
import java.util.Base64;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.common.acl.AccessControlEntry;
import org.apache.kafka.common.acl.AclBinding;
import org.apache.kafka.common.acl.AclOperation;
import org.apache.kafka.common.acl.AclPermissionType;
import org.apache.kafka.common.resource.PatternType;
import org.apache.kafka.common.resource.ResourcePattern;
import org.apache.kafka.common.resource.ResourceType;
import org.fraudpipe.schemas.Topic;
import org.fraudpipe.schemas.TopicNames;
import org.fraudpipe.schemas.security.ClientProperties;

/**
 * The key material, users and rights of a secured local runtime ({@code ./fraud kafka start
 * --secure}, {@code ./fraud demo --secure}, the secured tests), all in {@code
 * <data-dir>/security/}, readable by its owner only, generated at the first start and kept for the
 * next (nothing of it is in the repository):
 *
 * <ul>
 *   <li>a CA ({@code ca.p12}, {@code ca.pem}) and a server certificate for {@code localhost} and
 *       {@code 127.0.0.1} signed by it ({@code server.p12}), used by the broker's {@code SASL_SSL}
 *       listener and by the schema registry's HTTPS; a trust store with the CA ({@code
 *       truststore.p12}) for the clients. Made by the JDK's {@code keytool}, in one JVM.
 *   <li>random passwords ({@code secrets.properties}): the stores', and one per principal for Kafka
 *       (SCRAM-SHA-512) and one for the registry (basic auth).
 *   <li>one client properties file per principal ({@code <principal>.properties}): what {@code
 *       --kafka-config} takes, Kafka's and the registry's settings together.
 * </ul>
 *
 * <p>The principals and their ACLs (least privilege, {@link #acls}): {@value #ADMIN} (super user:
 * creates topics and ACLs), {@value #FEATURE_JOB} (reads the transactions topic in its group,
 * writes the five output topics in transactions with its prefix), {@value #PRODUCER} (writes the
 * transactions topic only), {@value #READER} (reads the scores and transaction-scores topics in its
 * own group only), {@value #MODEL_PUBLISHER} (reads and appends to the model registry topic, which
 * the job reads too). The registry authenticates every user and lets each do everything.
 */
public final class LocalSecurity {

    public static final String DIR = "security";
    public static final String ADMIN = "admin";
    public static final String FEATURE_JOB = "feature-job";
    public static final String PRODUCER = "producer";
    public static final String READER = "reader";

    /** Publishes model releases and assigns roles ({@code ./fraud model}). */
    public static final String MODEL_PUBLISHER = "model-publisher";

    /** Every principal, the admin first. */
    public static final List<String> PRINCIPALS =
            List.of(ADMIN, FEATURE_JOB, PRODUCER, READER, MODEL_PUBLISHER);

    /** The reader principal's consumer group. */
    public static final String READER_GROUP = "fraudpipe-reader";

    static final String SECRETS_FILE = "secrets.properties";
    static final String SERVER_KEYSTORE = "server.p12";
    static final String TRUSTSTORE = "truststore.p12";
    static final String REGISTRY_SECURITY_FILE = "schema-registry-server.properties";
    static final String SCRAM_MECHANISM = "SCRAM-SHA-512";

    /**
     * Who the feature job is on this runtime: its consumer group and transactional-id prefix, the
     * names its ACLs grant.
     */
    public record JobIdentity(String groupId, String transactionalIdPrefix) {
        /** The job's defaults ({@code --group-id}, {@code --transactional-id-prefix}). */
        public static JobIdentity defaults() {
            return new JobIdentity("fraudpipe-feature-job", "fraudpipe-feature-job");
        }
    }

    private final Path dir;
    private final Properties secrets;

    private LocalSecurity(Path dir, Properties secrets) {
        this.dir = dir;
        this.secrets = secrets;
    }

    /**
     * The security of {@code dataDir}: read if it was made before, else made now (passwords, CA,
     * certificates, client files).
     */
    public static LocalSecurity prepare(Path dataDir) {
        Path dir = dataDir.toAbsolutePath().resolve(DIR);
        try {
            Files.createDirectories(dir);
            ownerOnly(dir, "rwx------");
            Path secretsFile = dir.resolve(SECRETS_FILE);
            Properties secrets = new Properties();
            if (Files.exists(secretsFile)) {
                try (var in = Files.newBufferedReader(secretsFile, StandardCharsets.UTF_8)) {
                    secrets.load(in);
                }
            } else {
                secrets.setProperty("store", password());
                for (String p : PRINCIPALS) {
                    secrets.setProperty("kafka." + p, password());
                    secrets.setProperty("registry." + p, password());
                }
                writePrivate(secretsFile, secrets, "passwords of the local secured runtime");
            }
            LocalSecurity security = new LocalSecurity(dir, secrets);
            if (!Files.exists(dir.resolve(TRUSTSTORE))) {
                Certificates.generate(dir, secrets.getProperty("store"));
            }
            security.writeFiles();
            return security;
        } catch (IOException e) {
            throw new UncheckedIOException("cannot prepare the security material in " + dir, e);
        }
    }

    /** The directory of the material. */
    public Path dir() {
        return dir;
    }

    /** The client properties file of {@code principal} ({@link #PRINCIPALS}). */
    public Path clientFile(String principal) {
        return dir.resolve(principal + ".properties");
    }

    /** The client settings of {@code principal}, as its file holds them. */
    public ClientProperties client(String principal) {
        return ClientProperties.load(clientFile(principal), "--kafka-config");
    }

    /** The registry server's TLS and users file ({@code --security} of the registry). */
    public Path registrySecurityFile() {
        return dir.resolve(REGISTRY_SECURITY_FILE);
    }

    /** Every generated password: what must never appear in a log or an output file. */
    public Collection<String> secrets() {
        List<String> all = new ArrayList<>();
        secrets.stringPropertyNames().forEach(k -> all.add(secrets.getProperty(k)));
        return all;
    }

    /** The broker's settings for a {@code SASL_SSL} listener named {@code SASL_SSL}. */
    Map<String, String> brokerProperties() {
        Map<String, String> p = new LinkedHashMap<>();
        p.put("sasl.enabled.mechanisms", SCRAM_MECHANISM);
        p.put("sasl.mechanism.inter.broker.protocol", SCRAM_MECHANISM);
        p.put(
                "listener.name.sasl_ssl.scram-sha-512.sasl.jaas.config",
                jaas(ADMIN, secrets.getProperty("kafka." + ADMIN)));
        p.put("ssl.keystore.location", dir.resolve(SERVER_KEYSTORE).toString());
        p.put("ssl.keystore.type", "PKCS12");
        p.put("ssl.keystore.password", secrets.getProperty("store"));
        p.put("ssl.truststore.location", dir.resolve(TRUSTSTORE).toString());
        p.put("ssl.truststore.type", "PKCS12");
        p.put("ssl.truststore.password", secrets.getProperty("store"));
        // Clients may present a certificate (mutual TLS); SCRAM authenticates them either way.
        p.put("ssl.client.auth", "none");
        p.put("authorizer.class.name", "org.apache.kafka.metadata.authorizer.StandardAuthorizer");
        p.put("allow.everyone.if.no.acl.found", "false");
        // ANONYMOUS: the broker's own requests to its controller, over the PLAINTEXT controller
        // listener on loopback (docs/DECISIONS.md, "Security").
        p.put("super.users", "User:" + ADMIN + ";User:ANONYMOUS");
        return p;
    }

    /**
     * The arguments of {@code kafka-storage format} that create every principal's SCRAM credentials
     * in the new cluster's bootstrap metadata.
     */
    List<String> scramFormatArguments() {
        List<String> args = new ArrayList<>();
        for (String p : PRINCIPALS) {
            args.add("--add-scram");
            args.add(
                    SCRAM_MECHANISM
                            + "=[name="
                            + p
                            + ",password="
                            + secrets.getProperty("kafka." + p)
                            + "]");
        }
        return args;
    }

    /**
     * Grants every principal its rights on {@code topics} (as the admin, through {@code admin}).
     * Idempotent.
     */
    public void createAcls(Admin admin, TopicNames topics, JobIdentity job) {
        try {
            admin.createAcls(acls(topics, job)).all().get(30, TimeUnit.SECONDS);
        } catch (Exception e) {
            throw new IllegalStateException("cannot create the ACLs: " + e, e);
        }
    }

    /** The ACLs of {@link #createAcls}: least privilege per principal. */
    public static List<AclBinding> acls(TopicNames topics, JobIdentity job) {
        List<AclBinding> acls = new ArrayList<>();
        String transactions = topics.name(Topic.TRANSACTIONS);
        allow(acls, FEATURE_JOB, ResourceType.TOPIC, transactions, AclOperation.READ);
        for (Topic out :
                List.of(
                        Topic.FEATURES,
                        Topic.SCORES,
                        Topic.LATE,
                        Topic.DEAD_LETTERS,
                        Topic.TRANSACTION_SCORES)) {
            allow(acls, FEATURE_JOB, ResourceType.TOPIC, topics.name(out), AclOperation.WRITE);
        }
        allow(acls, FEATURE_JOB, ResourceType.GROUP, job.groupId(), AclOperation.READ);
        acls.add(
                new AclBinding(
                        new ResourcePattern(
                                ResourceType.TRANSACTIONAL_ID,
                                job.transactionalIdPrefix(),
                                PatternType.PREFIXED),
                        entry(FEATURE_JOB, AclOperation.WRITE)));
        allow(acls, PRODUCER, ResourceType.TOPIC, transactions, AclOperation.WRITE);
        allow(acls, READER, ResourceType.TOPIC, topics.name(Topic.SCORES), AclOperation.READ);
        allow(
                acls,
                READER,
                ResourceType.TOPIC,
                topics.name(Topic.TRANSACTION_SCORES),
                AclOperation.READ);
        allow(acls, READER, ResourceType.GROUP, READER_GROUP, AclOperation.READ);
        // The job reads the model registry; ./fraud model reads all of it and appends to it.
        String models = topics.name(Topic.MODEL_RELEASES);
        allow(acls, FEATURE_JOB, ResourceType.TOPIC, models, AclOperation.READ);
        allow(acls, MODEL_PUBLISHER, ResourceType.TOPIC, models, AclOperation.READ);
        allow(acls, MODEL_PUBLISHER, ResourceType.TOPIC, models, AclOperation.WRITE);
        return acls;
    }

    private static void allow(
            List<AclBinding> acls,
            String principal,
            ResourceType type,
            String name,
            AclOperation operation) {
        acls.add(
                new AclBinding(
                        new ResourcePattern(type, name, PatternType.LITERAL),
                        entry(principal, operation)));
    }

    private static AccessControlEntry entry(String principal, AclOperation operation) {
        return new AccessControlEntry("User:" + principal, "*", operation, AclPermissionType.ALLOW);
    }

    private void writeFiles() throws IOException {
        String store = secrets.getProperty("store");
        String truststore = dir.resolve(TRUSTSTORE).toString();
        for (String principal : PRINCIPALS) {
            Map<String, String> p = new LinkedHashMap<>();
            p.put("security.protocol", "SASL_SSL");
            p.put("sasl.mechanism", SCRAM_MECHANISM);
            p.put("sasl.jaas.config", jaas(principal, secrets.getProperty("kafka." + principal)));
            p.put("ssl.truststore.location", truststore);
            p.put("ssl.truststore.type", "PKCS12");
            p.put("ssl.truststore.password", store);
            p.put("basic.auth.credentials.source", "USER_INFO");
            p.put(
                    "basic.auth.user.info",
                    principal + ":" + secrets.getProperty("registry." + principal));
            p.put("schema.registry.ssl.truststore.location", truststore);
            p.put("schema.registry.ssl.truststore.type", "PKCS12");
            p.put("schema.registry.ssl.truststore.password", store);
            if (principal.equals(READER)) {
                p.put("group.id", READER_GROUP); // the one group it may read in
            }
            writePrivate(
                    clientFile(principal),
                    p,
                    "Kafka and schema registry client settings of principal "
                            + principal
                            + " (./fraud ... --kafka-config FILE)");
        }
        Map<String, String> registry = new TreeMap<>();
        registry.put("ssl.keystore.location", dir.resolve(SERVER_KEYSTORE).toString());
        registry.put("ssl.keystore.type", "PKCS12");
        registry.put("ssl.keystore.password", store);
        for (String principal : PRINCIPALS) {
            registry.put("user." + principal, secrets.getProperty("registry." + principal));
        }
        writePrivate(registrySecurityFile(), registry, "the local schema registry's TLS and users");
    }

    static String jaas(String user, String password) {
        return "org.apache.kafka.common.security.scram.ScramLoginModule required username=\""
                + user
                + "\" password=\""
                + password
                + "\";";
    }

    private static String password() {
        byte[] bytes = new byte[18];
        RANDOM.nextBytes(bytes);
        // URL-safe, no padding: no character that needs quoting in JAAS, properties or argfiles.
        return Base64.getUrlEncoder().withoutPadding().encodeToString(bytes).replace('-', 'x');
    }

    private static final SecureRandom RANDOM = new SecureRandom();

    private static void writePrivate(Path file, Map<String, String> entries, String comment)
            throws IOException {
        Properties p = new Properties();
        p.putAll(entries);
        writePrivate(file, p, comment);
    }

    private static void writePrivate(Path file, Properties p, String comment) throws IOException {
        Path tmp = file.resolveSibling(file.getFileName() + ".tmp");
        Files.deleteIfExists(tmp);
        Files.createFile(tmp);
        ownerOnly(tmp, "rw-------");
        try (OutputStream out = Files.newOutputStream(tmp)) {
            p.store(out, comment + "; generated, keep private");
        }
        Files.move(
                tmp,
                file,
                java.nio.file.StandardCopyOption.REPLACE_EXISTING,
                java.nio.file.StandardCopyOption.ATOMIC_MOVE);
    }

    private static void ownerOnly(Path path, String permissions) throws IOException {
        try {
            Files.setPosixFilePermissions(path, PosixFilePermissions.fromString(permissions));
        } catch (UnsupportedOperationException notPosix) {
            // Windows: the user's profile directory is private already
        }
    }

    /**
     * The CA and the server certificate, made by the JDK's keytool in a JVM of its own (its class
     * is internal to the JDK: the JVM is started with the export it needs), the store password on
     * its standard input, never on a command line.
     */
    public static final class Certificates {

        static final String MAIN = Certificates.class.getName();

        static void generate(Path dir, String storePassword) throws IOException {
            List<String> command =
                    List.of(
                            Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                            "-Xmx64m",
                            "-XX:TieredStopAtLevel=1",
                            "-XX:+UseSerialGC",
                            "--add-exports",
                            "java.base/sun.security.tools.keytool=ALL-UNNAMED",
                            "-cp",
                            System.getProperty("java.class.path"),
                            MAIN,
                            dir.toString());
            Process process = new ProcessBuilder(command).redirectErrorStream(true).start();
            try (OutputStream in = process.getOutputStream()) {
                in.write((storePassword + "\n").getBytes(StandardCharsets.UTF_8));
            }
            String output = new String(process.getInputStream().readAllBytes());
            try {
                if (!process.waitFor(60, TimeUnit.SECONDS) || process.exitValue() != 0) {
                    process.destroyForcibly();
                    throw new IllegalStateException(
                            "generating the CA and certificates in " + dir + " failed:\n" + output);
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                process.destroyForcibly();
                throw new IllegalStateException("interrupted while generating certificates", e);
            }
        }

        /** {@code Certificates DIR}, the store password on standard input. */
        public static void main(String[] args) throws Exception {
            String d = args[0];
            String p =
                    new java.io.BufferedReader(
                                    new java.io.InputStreamReader(
                                            System.in, StandardCharsets.UTF_8))
                            .readLine();
            String ca = d + "/ca.p12";
            String server = d + "/" + SERVER_KEYSTORE;
            keytool(
                    "-genkeypair",
                    "-alias",
                    "ca",
                    "-dname",
                    "CN=fraudpipe local CA",
                    "-keyalg",
                    "EC",
                    "-groupname",
                    "secp256r1",
                    "-validity",
                    "365",
                    "-ext",
                    "bc:c",
                    "-keystore",
                    ca,
                    "-storetype",
                    "PKCS12",
                    "-storepass",
                    p,
                    "-keypass",
                    p);
            keytool(
                    "-genkeypair",
                    "-alias",
                    "localhost",
                    "-dname",
                    "CN=localhost",
                    "-keyalg",
                    "EC",
                    "-groupname",
                    "secp256r1",
                    "-validity",
                    "365",
                    "-keystore",
                    server,
                    "-storetype",
                    "PKCS12",
                    "-storepass",
                    p,
                    "-keypass",
                    p);
            keytool(
                    "-certreq",
                    "-alias",
                    "localhost",
                    "-keystore",
                    server,
                    "-storepass",
                    p,
                    "-file",
                    d + "/server.csr");
            keytool(
                    "-gencert",
                    "-alias",
                    "ca",
                    "-keystore",
                    ca,
                    "-storepass",
                    p,
                    "-infile",
                    d + "/server.csr",
                    "-outfile",
                    d + "/server.crt",
                    "-rfc",
                    "-validity",
                    "365",
                    "-ext",
                    "SAN=dns:localhost,ip:127.0.0.1",
                    "-ext",
                    "EKU=serverAuth,clientAuth");
            keytool(
                    "-exportcert",
                    "-alias",
                    "ca",
                    "-keystore",
                    ca,
                    "-storepass",
                    p,
                    "-rfc",
                    "-file",
                    d + "/ca.pem");
            keytool(
                    "-importcert",
                    "-alias",
                    "ca",
                    "-file",
                    d + "/ca.pem",
                    "-keystore",
                    server,
                    "-storepass",
                    p,
                    "-noprompt");
            keytool(
                    "-importcert",
                    "-alias",
                    "localhost",
                    "-file",
                    d + "/server.crt",
                    "-keystore",
                    server,
                    "-storepass",
                    p,
                    "-noprompt");
            keytool(
                    "-importcert",
                    "-alias",
                    "ca",
                    "-file",
                    d + "/ca.pem",
                    "-keystore",
                    d + "/" + TRUSTSTORE,
                    "-storetype",
                    "PKCS12",
                    "-storepass",
                    p,
                    "-noprompt");
            Files.deleteIfExists(Path.of(d, "server.csr"));
            for (String f : List.of("ca.p12", SERVER_KEYSTORE, TRUSTSTORE)) {
                ownerOnly(Path.of(d, f), "rw-------");
            }
        }

        /** keytool's own entry point: exits the JVM on a failure (the parent reports it). */
        private static void keytool(String... args) throws Exception {
            Class.forName("sun.security.tools.keytool.Main")
                    .getMethod("main", String[].class)
                    .invoke(null, (Object) args);
        }
    }
}
