package org.fraudpipe.local;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * Where the local broker's JVM comes from: the {@code java} executable and the classpath of module
 * {@code local/kafka-broker} (our {@code LocalBrokerMain} plus Apache Kafka's server jars from
 * Maven Central). The broker never shares a classpath with the job.
 *
 * <p>The runtime is found through the system property {@value #HOME_PROPERTY}, the {@code target}
 * directory of {@code local/kafka-broker} after {@code mvn package}: it holds {@code classes/} and
 * {@code broker.classpath}. {@code ./fraud} and the test build set it.
 */
public record BrokerRuntime(Path javaExecutable, String classpath) {

    public static final String HOME_PROPERTY = "fraud.broker.home";
    static final String MAIN_CLASS = "org.fraudpipe.local.broker.LocalBrokerMain";

    /** The runtime named by {@value #HOME_PROPERTY}; fails with what to do when it is missing. */
    public static BrokerRuntime fromSystemProperty() {
        String home = System.getProperty(HOME_PROPERTY);
        if (home == null || home.isBlank()) {
            throw new IllegalStateException(
                    "system property "
                            + HOME_PROPERTY
                            + " is not set: it must point at local/kafka-broker/target. Run through"
                            + " ./fraud (which sets it), or build with `mvn -pl local/kafka-broker"
                            + " package` and pass -D"
                            + HOME_PROPERTY
                            + "=<repo>/local/kafka-broker/target");
        }
        return fromHome(Path.of(home));
    }

    /** The runtime built into {@code targetDir} (local/kafka-broker/target). */
    public static BrokerRuntime fromHome(Path targetDir) {
        Path classes = targetDir.resolve("classes");
        Path classpathFile = targetDir.resolve("broker.classpath");
        if (!Files.isDirectory(classes) || !Files.isRegularFile(classpathFile)) {
            throw new IllegalStateException(
                    "local broker runtime not built at "
                            + targetDir.toAbsolutePath()
                            + " (expected classes/ and broker.classpath). Build it with `mvn -pl"
                            + " local/kafka-broker package`, or run through ./fraud, which builds it.");
        }
        try {
            String deps = Files.readString(classpathFile, StandardCharsets.UTF_8).trim();
            return new BrokerRuntime(
                    Path.of(System.getProperty("java.home"), "bin", "java"),
                    classes.toAbsolutePath() + java.io.File.pathSeparator + deps);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read " + classpathFile, e);
        }
    }
}
