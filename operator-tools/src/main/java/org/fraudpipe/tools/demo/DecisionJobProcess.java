package org.fraudpipe.tools.demo;

import java.io.IOException;
import java.io.ObjectInputStream;
import java.io.OutputStreamWriter;
import java.io.Writer;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.apache.flink.api.common.JobID;
import org.apache.flink.client.deployment.StandaloneClusterId;
import org.apache.flink.client.program.rest.RestClusterClient;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.RestOptions;
import org.fraudpipe.job.cli.LocalSplit;

/**
 * The demo's decision job in a JVM of its own ({@link DecisionJobMain}), as {@code ./fraud job
 * --split} runs it: started with this JVM's Java, classpath and options and the decision JVM's own
 * ({@link LocalSplit#decisionJvm}), its log in its own file, tied to this JVM. Read through its
 * MiniCluster's REST API (accumulators, task states), stopped and cancelled through its standard
 * input.
 *
 * <p>Invariant: the process never outlives this JVM (it halts when this one is gone, and {@link
 * #cancel} ends it by force when it does not end by itself).
 */
final class DecisionJobProcess {

    private final Process process;
    private final Path control;
    private final FlinkRest rest;
    private final Writer commands;
    private JobID jobId;
    private RestClusterClient<StandaloneClusterId> client;

    private DecisionJobProcess(Process process, Path control, int restPort) {
        this.process = process;
        this.control = control;
        this.rest = new FlinkRest(URI.create("http://localhost:" + restPort + "/"));
        this.commands = new OutputStreamWriter(process.getOutputStream(), StandardCharsets.UTF_8);
    }

    /**
     * Starts the decision job with {@code jobOptions} (by job option key); its control files in
     * {@code control}, its log and its output in {@code logFile} (and {@code logFile}.out).
     */
    static DecisionJobProcess start(
            Map<String, String> jobOptions,
            int restPort,
            double speedup,
            Path control,
            Path logFile,
            Map<String, String> environment)
            throws IOException {
        Files.createDirectories(control);
        List<String> arguments =
                new ArrayList<>(
                        List.of(
                                Integer.toString(restPort),
                                Double.toString(speedup),
                                control.toString()));
        jobOptions.forEach(
                (k, v) -> {
                    arguments.add("--" + k);
                    arguments.add(v);
                });
        Path out = logFile.resolveSibling(logFile.getFileName() + ".out");
        ProcessBuilder builder =
                LocalSplit.decisionJvm(
                        DecisionJobMain.class.getName(),
                        List.of("-D" + DemoCommand.LOG_FILE_PROPERTY + "=" + logFile),
                        arguments);
        builder.environment().putAll(environment);
        Process p = builder.redirectErrorStream(true).redirectOutput(out.toFile()).start();
        return new DecisionJobProcess(p, control, restPort);
    }

    long pid() {
        return process.pid();
    }

    FlinkRest rest() {
        return rest;
    }

    /** Completes when the JVM has exited. */
    CompletableFuture<Process> ended() {
        return process.onExit();
    }

    /** Whether the job was submitted (its id is known); reads the id the first time it is. */
    synchronized boolean submitted() throws Exception {
        if (jobId == null) {
            Path file = control.resolve(DecisionJobMain.JOB_ID_FILE);
            if (!Files.exists(file)) {
                return false;
            }
            jobId = JobID.fromHexString(Files.readString(file).strip());
            Configuration c = new Configuration();
            c.set(RestOptions.ADDRESS, rest.base().getHost());
            c.set(RestOptions.PORT, rest.base().getPort());
            client = new RestClusterClient<>(c, StandaloneClusterId.getInstance());
        }
        return true;
    }

    synchronized JobID jobId() {
        return jobId;
    }

    /**
     * The job's accumulators now (blocks at most {@code timeout}); throws when they cannot be had
     * (not submitted yet, or stopping): a caller skips its reading rather than see zeros.
     */
    Map<String, Object> accumulators(Duration timeout) throws Exception {
        RestClusterClient<StandaloneClusterId> c;
        JobID id;
        synchronized (this) {
            c = client;
            id = jobId;
        }
        if (c == null) {
            throw new IllegalStateException("the decision job is not reachable now");
        }
        return c.getAccumulators(id).get(timeout.toMillis(), TimeUnit.MILLISECONDS);
    }

    /**
     * Stops the job with a drain and a savepoint into {@code savepointDir}; returns the savepoint
     * and the job's final accumulators once the JVM has exited.
     */
    DecisionJobMain.Result stopWithSavepoint(String savepointDir, Duration timeout)
            throws Exception {
        send(DecisionJobMain.STOP + savepointDir);
        if (!process.waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS)) {
            throw new IllegalStateException("the decision job did not stop within " + timeout);
        }
        Path result = control.resolve(DecisionJobMain.RESULT_FILE);
        if (process.exitValue() != 0 || !Files.exists(result)) {
            throw new IllegalStateException(
                    "the decision job's JVM failed while stopping (exit "
                            + process.exitValue()
                            + ")");
        }
        closeClient();
        try (ObjectInputStream in = new ObjectInputStream(Files.newInputStream(result))) {
            return (DecisionJobMain.Result) in.readObject();
        }
    }

    /** Cancels the job and waits for its JVM; ends it by force after {@code timeout}. */
    void cancel(Duration timeout) {
        try {
            send(DecisionJobMain.CANCEL);
            if (!process.waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS)) {
                process.destroyForcibly().waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS);
            }
        } catch (IOException gone) {
            process.destroyForcibly(); // its input is closed: it is exiting, or must
        } catch (InterruptedException e) {
            process.destroyForcibly();
            Thread.currentThread().interrupt();
        }
        closeClient();
    }

    private synchronized void send(String command) throws IOException {
        commands.write(command + "\n");
        commands.flush();
    }

    private synchronized void closeClient() {
        if (client != null) {
            client.close();
            client = null;
        }
    }
}
