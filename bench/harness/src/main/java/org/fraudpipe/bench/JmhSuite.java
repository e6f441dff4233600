package org.fraudpipe.bench;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The JMH micro-benchmarks, each set in JMH's own forked JVMs: the feature core and the Avro serde
 * ({@code org.fraudpipe.bench.jmh}, on this harness's classpath) and the scorer ({@code
 * OnnxScorerBenchmark}, scoring's test classes, as docs/BENCHMARKS.md runs it).
 */
final class JmhSuite {

    private final Path home;
    private final Path dir;
    private final List<String> options;

    JmhSuite(Path home, Path dir, String options) {
        this.home = home;
        this.dir = dir;
        this.options = Arrays.asList(options.trim().split("\\s+"));
    }

    Map<String, Object> run(PrintStream log) throws IOException, InterruptedException {
        Files.createDirectories(dir);
        Map<String, Object> section = new LinkedHashMap<>();
        section.put("options", String.join(" ", options));
        log.println("bench: jmh: feature core and Avro serde...");
        section.put(
                "featuresAndSerde",
                jmh(
                        System.getProperty("java.class.path"),
                        "org.fraudpipe.bench.jmh.",
                        dir.resolve("features-serde.json")));
        Path scoring = home.resolve("scoring/target");
        String scoringCp =
                scoring.resolve("test-classes")
                        + java.io.File.pathSeparator
                        + scoring.resolve("classes")
                        + java.io.File.pathSeparator
                        + Files.readString(
                                        scoring.resolve("test.classpath"), StandardCharsets.UTF_8)
                                .trim();
        log.println("bench: jmh: scorer...");
        section.put("scorer", jmh(scoringCp, "OnnxScorerBenchmark", dir.resolve("scorer.json")));
        return section;
    }

    private List<Map<String, Object>> jmh(String classpath, String pattern, Path json)
            throws IOException, InterruptedException {
        List<String> cmd = new ArrayList<>();
        cmd.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
        cmd.add("-cp");
        cmd.add(classpath);
        cmd.add("org.openjdk.jmh.Main");
        cmd.add(pattern);
        cmd.addAll(options);
        cmd.addAll(List.of("-rf", "json", "-rff", json.toString()));
        cmd.addAll(List.of("-jvmArgsAppend", "-Dslf4j.internal.verbosity=ERROR"));
        Path logFile = json.resolveSibling(json.getFileName() + ".log");
        Process p =
                new ProcessBuilder(cmd)
                        .redirectErrorStream(true)
                        .redirectOutput(logFile.toFile())
                        .start();
        int exit = p.waitFor();
        if (exit != 0 || !Files.exists(json)) {
            throw new IllegalStateException(
                    "JMH failed (exit " + exit + "):\n" + RunnerJvm.tail(logFile, 30));
        }
        List<Map<String, Object>> results = new ArrayList<>();
        for (JsonNode b : new ObjectMapper().readTree(json.toFile())) {
            Map<String, Object> r = new LinkedHashMap<>();
            String name = b.get("benchmark").asText();
            r.put(
                    "benchmark",
                    name.substring(name.lastIndexOf('.', name.lastIndexOf('.') - 1) + 1));
            if (b.has("params")) {
                Map<String, String> params = new LinkedHashMap<>();
                Iterator<Map.Entry<String, JsonNode>> it = b.get("params").fields();
                it.forEachRemaining(e -> params.put(e.getKey(), e.getValue().asText()));
                r.put("params", params);
            }
            JsonNode m = b.get("primaryMetric");
            r.put("mode", b.get("mode").asText());
            r.put("score", m.get("score").asDouble());
            r.put("scoreError", m.get("scoreError").asDouble());
            List<Double> raw = new ArrayList<>();
            m.get("rawData").forEach(fork -> fork.forEach(v -> raw.add(v.asDouble())));
            r.put("iterations", raw);
            r.put("unit", m.get("scoreUnit").asText());
            results.add(r);
        }
        return results;
    }
}
