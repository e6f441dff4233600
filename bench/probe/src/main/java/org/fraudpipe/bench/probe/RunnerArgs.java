package org.fraudpipe.bench.probe;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;

/**
 * The command line of a benchmark runner JVM: {@code --name value} pairs, as the harness writes
 * them, plus writing the run's result file. Small on purpose: it lives on every peer's classpath,
 * which has no CLI library.
 */
public final class RunnerArgs {

    private final Map<String, String> values;
    private final Set<String> read = new TreeSet<>();

    private RunnerArgs(Map<String, String> values) {
        this.values = values;
    }

    /**
     * Parses {@code --name value} pairs; a name given again overrides (the harness appends a
     * variant's options to a system's).
     *
     * @throws IllegalArgumentException on a lone value
     */
    public static RunnerArgs parse(String[] args) {
        Map<String, String> values = new LinkedHashMap<>();
        for (int i = 0; i < args.length; i += 2) {
            if (!args[i].startsWith("--") || i + 1 >= args.length) {
                throw new IllegalArgumentException(
                        "expected --name value pairs, got '" + args[i] + "' at position " + i);
            }
            values.put(args[i].substring(2), args[i + 1]);
        }
        return new RunnerArgs(values);
    }

    /** The value of {@code --name}; fails naming it when absent. */
    public String required(String name) {
        read.add(name);
        String v = values.get(name);
        if (v == null) {
            throw new IllegalArgumentException("--" + name + " is required");
        }
        return v;
    }

    /** The value of {@code --name}, or {@code fallback}. */
    public String get(String name, String fallback) {
        read.add(name);
        return values.getOrDefault(name, fallback);
    }

    public long longValue(String name) {
        return Long.parseLong(required(name));
    }

    public int intValue(String name, int fallback) {
        return Integer.parseInt(get(name, Integer.toString(fallback)));
    }

    /** A duration written as {@code 250ms}, {@code 10s}, {@code 2m}, {@code 1h} or ISO-8601. */
    public Duration duration(String name, String fallback) {
        return parseDuration(name, get(name, fallback));
    }

    /** The options not asked for so far, by name (without dashes), in command-line order. */
    public Map<String, String> unread() {
        Map<String, String> rest = new LinkedHashMap<>(values);
        rest.keySet().removeAll(read);
        return rest;
    }

    /** Fails if a given option was never asked for (a typo in the harness). */
    public void requireAllRead(Collection<String> alsoAllowed) {
        Set<String> unknown = new TreeSet<>(values.keySet());
        unknown.removeAll(read);
        unknown.removeAll(alsoAllowed);
        if (!unknown.isEmpty()) {
            throw new IllegalArgumentException("unknown runner options: " + unknown);
        }
    }

    public static Duration parseDuration(String name, String v) {
        String s = v.trim().toLowerCase(Locale.ROOT);
        try {
            if (s.startsWith("p")) {
                return Duration.parse(s.toUpperCase(Locale.ROOT));
            }
            for (Map.Entry<String, Long> unit :
                    List.of(
                            Map.entry("ms", 1L),
                            Map.entry("s", 1000L),
                            Map.entry("m", 60_000L),
                            Map.entry("h", 3_600_000L),
                            Map.entry("d", 86_400_000L))) {
                if (s.endsWith(unit.getKey())
                        && Character.isDigit(s.charAt(s.length() - unit.getKey().length() - 1))) {
                    long n = Long.parseLong(s.substring(0, s.length() - unit.getKey().length()));
                    return Duration.ofMillis(n * unit.getValue());
                }
            }
        } catch (RuntimeException e) {
            // fall through to the message below
        }
        throw new IllegalArgumentException(
                "--" + name + " '" + v + "' is not a duration like 250ms, 10s, 2m, 1h");
    }

    /** Writes {@code result} as a JSON object to {@code file} (atomically: temp file + rename). */
    public static void writeResult(Path file, Map<String, Object> result) {
        try {
            Files.createDirectories(file.toAbsolutePath().getParent());
            Path tmp = file.resolveSibling(file.getFileName() + ".tmp");
            Files.writeString(tmp, Json.write(result) + "\n", StandardCharsets.UTF_8);
            Files.move(
                    tmp,
                    file,
                    java.nio.file.StandardCopyOption.REPLACE_EXISTING,
                    java.nio.file.StandardCopyOption.ATOMIC_MOVE);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot write " + file, e);
        }
    }
}
