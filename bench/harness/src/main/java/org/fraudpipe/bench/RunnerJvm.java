package org.fraudpipe.bench;

import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.fraudpipe.bench.probe.ParentWatch;
import org.fraudpipe.job.cli.ProgressLine;

/**
 * Starts one system under benchmark in a JVM of its own and waits for it: the job ({@code
 * OursRunner}, on this harness's classpath, which is the job's plus the harness), the Flink SQL
 * peer or the Kafka Streams peer (each on its own module's classpath). Every runner JVM gets the
 * same heap, is tied to this JVM ({@link ParentWatch}), logs to its run directory and writes its
 * result file there; the harness adds the wall time, the broker's CPU time during the run and the
 * load average before and after.
 */
final class RunnerJvm {

    /** Which program a run starts. */
    enum Kind {
        OURS("org.fraudpipe.bench.ours.OursRunner", true),
        FLINK_SQL("org.fraudpipe.bench.sql.SqlFeatureJob", true),
        KAFKA_STREAMS("org.fraudpipe.bench.kstreams.KafkaStreamsFeatureApp", false);

        final String mainClass;
        final boolean flink;

        Kind(String mainClass, boolean flink) {
            this.mainClass = mainClass;
            this.flink = flink;
        }
    }

    private final Path home;
    private final Path logConfig;
    private final String heap;
    private final boolean jfr;

    RunnerJvm(Path home, Path logConfig, String heap, boolean jfr) {
        this.home = home;
        this.logConfig = logConfig;
        this.heap = heap;
        this.jfr = jfr;
    }

    /**
     * Runs {@code kind} with {@code args} in {@code runDir} and returns its result file plus the
     * harness's measurements.
     */
    Map<String, Object> run(
            Kind kind, List<String> args, Path runDir, Duration timeout, BenchKafka kafka)
            throws IOException, InterruptedException {
        return run(kind, args, List.of(), runDir, timeout, kafka);
    }

    /** {@link #run} with extra JVM options (a variant's). */
    Map<String, Object> run(
            Kind kind,
            List<String> args,
            List<String> jvmOptions,
            Path runDir,
            Duration timeout,
            BenchKafka kafka)
            throws IOException, InterruptedException {
        Files.createDirectories(runDir);
        Path resultFile = runDir.resolve("result.json");
        List<String> command = new ArrayList<>();
        command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
        if (kind.flink) {
            command.add("@" + home.resolve(".mvn/flink-jvm.options"));
        }
        command.add("-Xms" + heap);
        command.add("-Xmx" + heap);
        command.add("-D" + ParentWatch.PROPERTY + "=" + ProcessHandle.current().pid());
        command.add("-Dlog4j2.configurationFile=" + logConfig);
        command.add("-Dbench.log.file=" + runDir.resolve("runner.log"));
        command.add("-Dfraud.home=" + home);
        if (jfr) {
            command.add(
                    "-XX:StartFlightRecording=filename="
                            + runDir.resolve("run.jfr")
                            + ",settings=profile,dumponexit=true");
        }
        command.addAll(jvmOptions);
        command.add("-cp");
        command.add(classpath(kind));
        command.add(kind.mainClass);
        command.addAll(args);
        command.add("--result-file");
        command.add(resultFile.toString());
        Files.writeString(
                runDir.resolve("command.txt"),
                String.join(" ", command) + "\n",
                StandardCharsets.UTF_8);

        double[] loadBefore = Machine.loadAverage();
        double brokerCpuBefore = kafka.brokerCpuSeconds();
        long began = System.nanoTime();
        Process process =
                new ProcessBuilder(command)
                        .redirectErrorStream(true)
                        .redirectOutput(runDir.resolve("stdout.log").toFile())
                        .start();
        Thread killer = new Thread(() -> destroy(process.toHandle()));
        Runtime.getRuntime().addShutdownHook(killer);
        boolean exited;
        try (ProgressLine progress = ProgressLine.forCommand("bench")) {
            if (progress.isOn()) {
                showProgress(progress, kind, args, runDir, kafka);
            }
            exited = process.waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS);
            if (!exited) {
                destroy(process.toHandle());
            }
        } finally {
            try {
                Runtime.getRuntime().removeShutdownHook(killer);
            } catch (IllegalStateException shuttingDown) {
                // the hook runs anyway
            }
        }
        double wall = (System.nanoTime() - began) / 1e9;
        Map<String, Object> result = new LinkedHashMap<>();
        if (Files.exists(resultFile)) {
            @SuppressWarnings("unchecked")
            Map<String, Object> fromRunner =
                    new ObjectMapper().readValue(resultFile.toFile(), Map.class);
            result.putAll(fromRunner);
        }
        result.put("exitCode", exited ? process.exitValue() : null);
        result.put("harnessTimedOut", !exited);
        result.put("runnerWallSeconds", wall);
        result.put("brokerCpuSecondsDuringRun", kafka.brokerCpuSeconds() - brokerCpuBefore);
        result.put("loadAverageBefore", toList(loadBefore));
        result.put("loadAverageAfter", toList(Machine.loadAverage()));
        result.put("runDirectory", runDir.toString());
        if (!exited || process.exitValue() != 0 || !Files.exists(resultFile)) {
            throw new IllegalStateException(
                    kind
                            + " run failed (exit "
                            + (exited ? process.exitValue() : "none, killed after " + timeout)
                            + "); see "
                            + runDir.resolve("stdout.log")
                            + " and "
                            + runDir.resolve("runner.log")
                            + ":\n"
                            + tail(runDir.resolve("stdout.log"), 30));
        }
        return result;
    }

    /**
     * On a terminal: the run, how far its system has read the input (its consumer group's committed
     * offsets) of the records expected, the rate and the time left.
     */
    private static void showProgress(
            ProgressLine progress, Kind kind, List<String> args, Path runDir, BenchKafka kafka) {
        String group = argument(args, "--group-id", "--application-id");
        String topic = argument(args, "--topic.transactions", "--input-topic");
        String expected = argument(args, "--expect-records");
        long total = expected == null ? ProgressLine.UNKNOWN : Long.parseLong(expected);
        progress.stage(
                runDir.getFileName() + " (" + kind.name().toLowerCase(java.util.Locale.ROOT) + ")",
                () -> {
                    if (group == null || topic == null) {
                        return ProgressLine.UNKNOWN;
                    }
                    try {
                        return kafka.committedOffsets(group, topic);
                    } catch (InterruptedException e) {
                        Thread.currentThread().interrupt();
                        return ProgressLine.UNKNOWN;
                    } catch (Exception notYet) {
                        return ProgressLine.UNKNOWN;
                    }
                },
                () -> total);
    }

    /** The value after the first of {@code names} in {@code args}, or null. */
    static String argument(List<String> args, String... names) {
        for (int i = 0; i + 1 < args.size(); i++) {
            for (String name : names) {
                if (args.get(i).equals(name)) {
                    return args.get(i + 1);
                }
            }
        }
        return null;
    }

    private String classpath(Kind kind) {
        return switch (kind) {
            // The harness module's own classes and runtime classpath (what ./fraud bench runs
            // with), whatever launched the harness (a test runner's class path has more).
            case OURS -> moduleClasspath("bench/harness");
            case FLINK_SQL -> moduleClasspath("bench/flink-sql");
            case KAFKA_STREAMS -> moduleClasspath("bench/kafka-streams");
        };
    }

    private String moduleClasspath(String module) {
        Path target = home.resolve(module).resolve("target");
        Path file = target.resolve("runtime.classpath");
        if (!Files.isRegularFile(file)) {
            throw new IllegalStateException(
                    module
                            + " is not built ("
                            + file
                            + " missing): run ./fraud bench (which builds), or `mvn -o -DskipTests"
                            + " package`");
        }
        try {
            return target.resolve("classes")
                    + java.io.File.pathSeparator
                    + Files.readString(file, StandardCharsets.UTF_8).trim();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static void destroy(ProcessHandle p) {
        if (!p.isAlive()) {
            return;
        }
        p.descendants().forEach(ProcessHandle::destroy);
        p.destroy();
        try {
            p.onExit().get(30, TimeUnit.SECONDS);
        } catch (Exception e) {
            p.descendants().forEach(ProcessHandle::destroyForcibly);
            p.destroyForcibly();
        }
    }

    private static List<Double> toList(double[] v) {
        List<Double> l = new ArrayList<>();
        for (double d : v) {
            l.add(d);
        }
        return l;
    }

    static String tail(Path file, int lines) {
        try {
            List<String> all = Files.readAllLines(file, StandardCharsets.UTF_8);
            return String.join("\n", all.subList(Math.max(0, all.size() - lines), all.size()));
        } catch (IOException e) {
            return "(cannot read " + file + ")";
        }
    }
}
