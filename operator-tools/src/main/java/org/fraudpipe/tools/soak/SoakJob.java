package org.fraudpipe.tools.soak;

import java.io.IOException;
import java.io.OutputStreamWriter;
import java.io.Writer;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.stream.Stream;
import org.apache.flink.api.common.JobID;
import org.fraudpipe.job.cli.LocalSplit;
import org.fraudpipe.tools.demo.FlinkRest;

/**
 * One life of the job under the soak ({@link SoakJobMain} in a JVM of its own): started, possibly
 * from a savepoint or a retained checkpoint, and ended by a savepoint, a cancel or a kill.
 *
 * <p>Invariant: the process never outlives the soak's JVM (it halts when the soak's is gone).
 */
final class SoakJob {

    private final Process process;
    private final Path control;
    private final FlinkRest rest;
    private final Writer commands;
    private JobID jobId;

    private SoakJob(Process process, Path control, int restPort) {
        this.process = process;
        this.control = control;
        this.rest = new FlinkRest(URI.create("http://localhost:" + restPort + "/"));
        this.commands = new OutputStreamWriter(process.getOutputStream(), StandardCharsets.UTF_8);
    }

    /**
     * Starts the job with {@code options}; from {@code restore} (a savepoint or retained checkpoint
     * path) if not null. Its control files go to a fresh {@code control} directory, its output to
     * {@code log}.
     */
    static SoakJob start(
            Map<String, String> options,
            String restore,
            int restPort,
            Path control,
            Path log,
            Map<String, String> environment)
            throws IOException {
        Files.createDirectories(control);
        try (Stream<Path> old = Files.list(control)) {
            for (Path p : old.toList()) {
                Files.delete(p);
            }
        }
        List<String> arguments =
                new ArrayList<>(
                        List.of(
                                control.toString(),
                                Integer.toString(restPort),
                                restore == null ? SoakJobMain.NO_RESTORE : restore));
        options.forEach(
                (k, v) -> {
                    arguments.add("--" + k);
                    arguments.add(v);
                });
        ProcessBuilder builder =
                LocalSplit.decisionJvm(SoakJobMain.class.getName(), List.of(), arguments);
        builder.environment().putAll(environment);
        Process p =
                builder.redirectErrorStream(true)
                        .redirectOutput(java.lang.ProcessBuilder.Redirect.appendTo(log.toFile()))
                        .start();
        return new SoakJob(p, control, restPort);
    }

    long pid() {
        return process.pid();
    }

    boolean isAlive() {
        return process.isAlive();
    }

    /** The job's id, once it is submitted. */
    Optional<JobID> jobId() throws IOException {
        if (jobId == null) {
            Path file = control.resolve(SoakJobMain.JOB_ID_FILE);
            if (!Files.exists(file)) {
                return Optional.empty();
            }
            jobId = JobID.fromHexString(Files.readString(file).strip());
        }
        return Optional.of(jobId);
    }

    /**
     * The job's accumulators now, through its MiniCluster's REST API (blocks at most {@code
     * timeout}); throws when they cannot be had.
     */
    Map<String, Object> accumulators(Duration timeout) throws Exception {
        Optional<JobID> id = jobId();
        if (id.isEmpty()) {
            throw new IllegalStateException("the job is not submitted yet");
        }
        org.apache.flink.configuration.Configuration c =
                new org.apache.flink.configuration.Configuration();
        c.set(org.apache.flink.configuration.RestOptions.ADDRESS, rest.base().getHost());
        c.set(org.apache.flink.configuration.RestOptions.PORT, rest.base().getPort());
        try (org.apache.flink.client.program.rest.RestClusterClient<
                        org.apache.flink.client.deployment.StandaloneClusterId>
                client =
                        new org.apache.flink.client.program.rest.RestClusterClient<>(
                                c,
                                org.apache.flink.client.deployment.StandaloneClusterId
                                        .getInstance())) {
            return client.getAccumulators(id.get())
                    .get(timeout.toMillis(), java.util.concurrent.TimeUnit.MILLISECONDS);
        }
    }

    /** Waits until every task runs; throws naming the job's log if it ended or timed out. */
    void awaitRunning(Duration timeout, Path log) throws Exception {
        long deadline = System.nanoTime() + timeout.toNanos();
        while (System.nanoTime() < deadline) {
            if (!process.isAlive()) {
                throw new IllegalStateException(
                        "the job's JVM ended (exit " + process.exitValue() + "); see " + log);
            }
            Optional<JobID> id = jobId();
            if (id.isPresent() && rest.allTasksRunning(id.get())) {
                return;
            }
            Thread.sleep(100);
        }
        throw new IllegalStateException(
                "the job's tasks were not all running within " + timeout + "; see " + log);
    }

    /** Kills the JVM as a crash would ({@code SIGKILL}), and waits until it is gone. */
    void kill() throws Exception {
        process.destroyForcibly();
        process.onExit().get();
    }

    /**
     * Stops the job with a savepoint into {@code dir} (with {@code drain}, every window fires its
     * final result first); returns the savepoint's path once the JVM exited.
     */
    String savepoint(String dir, boolean drain, Duration timeout) throws Exception {
        send((drain ? SoakJobMain.DRAIN : SoakJobMain.SAVEPOINT) + dir);
        long deadline = System.nanoTime() + timeout.toNanos();
        Path file = control.resolve(SoakJobMain.SAVEPOINT_FILE);
        while (System.nanoTime() < deadline) {
            if (Files.exists(file)) {
                process.onExit().get();
                return Files.readString(file).strip();
            }
            if (!process.isAlive()) {
                throw new IllegalStateException(
                        "the job's JVM ended without a savepoint (exit "
                                + process.exitValue()
                                + ")");
            }
            Thread.sleep(100);
        }
        throw new IllegalStateException("no savepoint within " + timeout);
    }

    /** Cancels the job; kills the JVM if it does not end within {@code grace}. */
    void cancel(Duration grace) throws Exception {
        if (!process.isAlive()) {
            return;
        }
        try {
            send(SoakJobMain.CANCEL);
        } catch (IOException gone) {
            // the JVM is going anyway
        }
        if (!process.waitFor(grace.toMillis(), java.util.concurrent.TimeUnit.MILLISECONDS)) {
            kill();
        }
    }

    private void send(String command) throws IOException {
        commands.write(command + "\n");
        commands.flush();
    }

    /**
     * The newest completed checkpoint retained under {@code checkpointRoot} (a {@code chk-<n>}
     * directory holding {@code _metadata}, of any job), if any: where a job killed hard is restored
     * from.
     */
    static Optional<Path> latestCheckpoint(Path checkpointRoot) throws IOException {
        if (!Files.isDirectory(checkpointRoot)) {
            return Optional.empty();
        }
        try (Stream<Path> all = Files.walk(checkpointRoot, 2)) {
            return all.filter(p -> p.getFileName().toString().startsWith("chk-"))
                    .filter(p -> Files.isRegularFile(p.resolve("_metadata")))
                    .max(
                            Comparator.comparingLong(
                                    (Path p) -> p.resolve("_metadata").toFile().lastModified()));
        }
    }
}
