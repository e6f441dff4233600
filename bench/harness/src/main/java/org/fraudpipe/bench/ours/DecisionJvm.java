package org.fraudpipe.bench.ours;

import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.fraudpipe.bench.probe.ParentWatch;
import org.fraudpipe.bench.probe.RunProbe;

/**
 * The decision job's JVM of a split benchmark run ({@link DecisionRunner}), started and stopped by
 * {@link OursRunner}: the same Java, classpath and JVM options as this one (its own log file and
 * flight recording), tied to this JVM's life ({@link ParentWatch}), and its CPU time counted with
 * this JVM's by the probe ({@link RunProbe#alsoCount}).
 */
final class DecisionJvm {

    private final Process process;
    private final Path dir;

    private DecisionJvm(Process process, Path dir) {
        this.process = process;
        this.dir = dir;
    }

    /**
     * Starts the decision job with {@code jobOptions} and the Flink {@code overrides}, in {@code
     * runDir}/decisions, with this JVM's options and then {@code jvmOptions}, and waits until it
     * was submitted.
     */
    static DecisionJvm start(
            Map<String, String> jobOptions,
            Map<String, String> overrides,
            Path runDir,
            Path savepointDir,
            String measureFile,
            Duration timeout,
            List<String> jvmOptions)
            throws IOException, InterruptedException {
        Path dir = runDir.resolve("decisions");
        Files.createDirectories(dir);
        List<String> command = new ArrayList<>();
        command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
        for (String option : ManagementFactory.getRuntimeMXBean().getInputArguments()) {
            if (option.startsWith("-D" + ParentWatch.PROPERTY + "=")) {
                continue;
            } else if (option.startsWith("-Dbench.log.file=")) {
                command.add("-Dbench.log.file=" + dir.resolve("runner.log"));
            } else if (option.startsWith("-XX:StartFlightRecording")) {
                command.add(
                        option.replaceFirst(
                                "filename=[^,]*", "filename=" + dir.resolve("run.jfr")));
            } else {
                command.add(option);
            }
        }
        command.add("-D" + ParentWatch.PROPERTY + "=" + ProcessHandle.current().pid());
        command.addAll(jvmOptions); // after this JVM's: the last of two settings wins
        command.add("-cp");
        command.add(System.getProperty("java.class.path"));
        command.add(DecisionRunner.class.getName());
        jobOptions.forEach(
                (k, v) -> {
                    command.add("--" + k);
                    command.add(v);
                });
        StringBuilder conf = new StringBuilder();
        overrides.forEach((k, v) -> conf.append(k).append('=').append(v).append(';'));
        command.addAll(
                List.of(
                        "--flink-conf",
                        conf.toString(),
                        "--result-file",
                        dir.resolve("result.json").toString(),
                        "--ready-file",
                        dir.resolve("ready").toString(),
                        "--stop-file",
                        dir.resolve("stop").toString(),
                        "--measure-file",
                        measureFile == null ? dir.resolve("never").toString() : measureFile,
                        "--savepoint-dir",
                        savepointDir.toString(),
                        "--timeout",
                        timeout.toMillis() + "ms"));
        Files.writeString(dir.resolve("command.txt"), String.join(" ", command) + "\n");
        Process process =
                new ProcessBuilder(command)
                        .redirectErrorStream(true)
                        .redirectOutput(dir.resolve("stdout.log").toFile())
                        .start();
        RunProbe.alsoCount(process.toHandle());
        DecisionJvm jvm = new DecisionJvm(process, dir);
        long deadline = System.nanoTime() + TimeUnit.MINUTES.toNanos(3);
        while (!Files.exists(dir.resolve("ready"))) {
            if (!process.isAlive() || System.nanoTime() > deadline) {
                process.destroyForcibly();
                throw new IllegalStateException(
                        "the decision job's JVM did not start; see " + dir.resolve("stdout.log"));
            }
            Thread.sleep(50);
        }
        return jvm;
    }

    /** Stops the decision job (with a savepoint) and returns its result. */
    Map<String, Object> stop(Duration timeout) throws IOException, InterruptedException {
        Files.writeString(dir.resolve("stop"), "stop");
        if (!process.waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS)) {
            process.destroyForcibly();
            throw new IllegalStateException(
                    "the decision job's JVM did not stop within "
                            + timeout
                            + "; see "
                            + dir.resolve("stdout.log"));
        }
        if (process.exitValue() != 0 || !Files.exists(dir.resolve("result.json"))) {
            throw new IllegalStateException(
                    "the decision job's JVM failed (exit "
                            + process.exitValue()
                            + "); see "
                            + dir.resolve("stdout.log"));
        }
        @SuppressWarnings("unchecked")
        Map<String, Object> result =
                new ObjectMapper().readValue(dir.resolve("result.json").toFile(), Map.class);
        return result;
    }
}
