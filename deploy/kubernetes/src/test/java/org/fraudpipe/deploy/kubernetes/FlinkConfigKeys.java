package org.fraudpipe.deploy.kubernetes;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.lang.reflect.Field;
import java.lang.reflect.Modifier;
import java.net.URISyntaxException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Enumeration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.jar.JarEntry;
import java.util.jar.JarFile;
import org.apache.flink.configuration.ConfigOption;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.FallbackKey;

/**
 * The configuration keys Flink 2.2 knows: every {@code public static ConfigOption} of every {@code
 * *Options} class in the Flink jars on the test class path (flink-core, flink-runtime,
 * flink-streaming-java, flink-clients, flink-statebackend-rocksdb; the project's Flink version),
 * found by reflection, with their deprecated keys. A key of a FlinkDeployment's {@code
 * flinkConfiguration} must be one of them, current (not deprecated), with a value its option
 * parses; or one of {@link #FILE_SYSTEM_KEYS}.
 */
final class FlinkConfigKeys {

    /** One class of each Flink jar whose options are collected. */
    private static final List<String> ANCHORS =
            List.of(
                    "org.apache.flink.configuration.CoreOptions", // flink-core
                    "org.apache.flink.runtime.jobgraph.JobGraph", // flink-runtime
                    "org.apache.flink.streaming.api.environment.StreamExecutionEnvironment",
                    "org.apache.flink.client.cli.CliFrontend", // flink-clients
                    "org.apache.flink.state.rocksdb.RocksDBOptions");

    /**
     * Settings that are not Flink options but go to the S3 file systems (the plugins translate
     * {@code s3.*} to their own {@code presto.s3.*} and {@code fs.s3a.*} keys; {@code fs.s3a.*}
     * reaches the Hadoop one as is): exactly those the project's own object-store runs set
     * (local/runtime's LocalObjectStore and docs/DEPLOY.md, "On S3, as verified here"). The plugins
     * are not on this class path, so these are listed, not derived.
     */
    static final Set<String> FILE_SYSTEM_KEYS =
            Set.of("s3.endpoint", "s3.path.style.access", "fs.s3a.directory.marker.retention");

    private final Map<String, ConfigOption<?>> current = new TreeMap<>();
    private final Map<String, String> deprecated = new TreeMap<>();
    private final Set<String> scannedClasses = new TreeSet<>();

    FlinkConfigKeys() {
        ClassLoader loader = FlinkConfigKeys.class.getClassLoader();
        for (String anchor : ANCHORS) {
            Class<?> c;
            try {
                c = Class.forName(anchor, false, loader);
            } catch (ClassNotFoundException e) {
                throw new IllegalStateException(anchor + " is not on the test class path", e);
            }
            for (String name : optionClasses(c)) {
                collect(name, loader);
            }
        }
    }

    /** How many option classes and keys were found (a sanity check for the test). */
    int classCount() {
        return scannedClasses.size();
    }

    boolean isCurrent(String key) {
        return current.containsKey(key);
    }

    /** The current key of a deprecated one, or null. */
    String replacementOf(String key) {
        return deprecated.get(key);
    }

    /** What is wrong with these flinkConfiguration entries; empty if nothing. */
    List<String> check(Map<String, Object> flinkConfiguration) {
        List<String> problems = new ArrayList<>();
        Map<String, String> values = new LinkedHashMap<>();
        flinkConfiguration.forEach((k, v) -> values.put(k, String.valueOf(v)));
        Configuration conf = Configuration.fromMap(values);
        for (Map.Entry<String, String> e : values.entrySet()) {
            String key = e.getKey();
            if (FILE_SYSTEM_KEYS.contains(key)) {
                continue;
            }
            ConfigOption<?> option = current.get(key);
            if (option == null) {
                String replacement = deprecated.get(key);
                problems.add(
                        replacement != null
                                ? key + " is deprecated in Flink 2.2: use " + replacement
                                : key
                                        + " is not a Flink 2.2 configuration key (nor a file"
                                        + " system key of "
                                        + new TreeSet<>(FILE_SYSTEM_KEYS)
                                        + ")");
                continue;
            }
            try {
                conf.get(option);
            } catch (RuntimeException ex) {
                problems.add(
                        key + ": '" + e.getValue() + "' is not a valid value: " + ex.getMessage());
            }
        }
        return problems;
    }

    private void collect(String className, ClassLoader loader) {
        Class<?> c;
        try {
            c = Class.forName(className, true, loader);
        } catch (ClassNotFoundException | LinkageError | RuntimeException e) {
            return; // a class that needs what is not on this class path: not an options holder
        }
        boolean any = false;
        for (Field f : c.getFields()) {
            if (!Modifier.isStatic(f.getModifiers())
                    || !ConfigOption.class.isAssignableFrom(f.getType())) {
                continue;
            }
            ConfigOption<?> option;
            try {
                option = (ConfigOption<?>) f.get(null);
            } catch (IllegalAccessException e) {
                continue;
            }
            if (option == null) {
                continue;
            }
            any = true;
            if (f.isAnnotationPresent(Deprecated.class)) {
                deprecated.putIfAbsent(
                        option.key(), "(deprecated option, see " + c.getName() + ")");
            } else {
                current.put(option.key(), option);
            }
            for (FallbackKey fallback : option.fallbackKeys()) {
                if (fallback.isDeprecated() && !current.containsKey(fallback.getKey())) {
                    deprecated.put(fallback.getKey(), option.key());
                }
            }
        }
        if (any) {
            scannedClasses.add(className);
        }
    }

    /** The names of the {@code *Options} classes of the jar (or directory) that holds {@code c}. */
    private static List<String> optionClasses(Class<?> c) {
        Path location;
        try {
            location = Path.of(c.getProtectionDomain().getCodeSource().getLocation().toURI());
        } catch (URISyntaxException e) {
            throw new IllegalStateException(e);
        }
        List<String> names = new ArrayList<>();
        try {
            if (Files.isDirectory(location)) {
                try (var files = Files.walk(location)) {
                    files.map(p -> location.relativize(p).toString().replace('\\', '/'))
                            .filter(FlinkConfigKeys::isOptionsClass)
                            .forEach(n -> names.add(className(n)));
                }
            } else {
                try (JarFile jar = new JarFile(location.toFile())) {
                    Enumeration<JarEntry> entries = jar.entries();
                    while (entries.hasMoreElements()) {
                        String n = entries.nextElement().getName();
                        if (isOptionsClass(n)) {
                            names.add(className(n));
                        }
                    }
                }
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return names;
    }

    private static boolean isOptionsClass(String entry) {
        return entry.startsWith("org/apache/flink/")
                && entry.endsWith("Options.class")
                && !entry.contains("$");
    }

    private static String className(String entry) {
        return entry.substring(0, entry.length() - ".class".length()).replace('/', '.');
    }
}
