package org.fraudpipe.tools.rehearsal;

import java.io.IOException;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.apache.flink.api.common.JobID;

/**
 * A Flink standalone session cluster of several processes (one JobManager, {@code taskManagers}
 * TaskManagers), run by {@code deploy/flink-session/flink-session.sh}: what an operator runs,
 * driven from here. Jobs are submitted, stopped and restored with the real Flink CLI ({@code flink
 * run}, {@code flink stop}) through that script; every command's output goes to {@link #log()}.
 *
 * <p>Invariant: {@link #close()} stops every process the session directory recorded, also a
 * TaskManager started again after a kill, whatever happened before.
 */
final class SessionCluster implements AutoCloseable {

    private static final Duration COMMAND_TIMEOUT = Duration.ofMinutes(4);
    private static final Pattern JOB_ID = Pattern.compile("JobID ([0-9a-f]{32})");
    private static final Pattern SAVEPOINT = Pattern.compile("Savepoint completed\\. Path: (\\S+)");

    private final Path script;
    private final Path dir;
    private final Map<String, String> environment;
    private final int restPort;
    private final Path log;

    private SessionCluster(
            Path script, Path dir, Map<String, String> environment, int restPort, Path log) {
        this.script = script;
        this.dir = dir;
        this.environment = environment;
        this.restPort = restPort;
        this.log = log;
    }

    /**
     * Starts the cluster under {@code dir}: {@code taskManagers} TaskManagers of {@code slots}
     * slots each, Flink's configuration extended by {@code extraConf} (the object store's
     * settings), the plugins of {@code pluginsDir} in every process.
     */
    static SessionCluster start(
            Path script,
            Path dir,
            int taskManagers,
            int slots,
            Path extraConf,
            Path pluginsDir,
            int restPort,
            int rpcPort)
            throws IOException {
        Files.createDirectories(dir);
        Map<String, String> env =
                Map.of(
                        "FLINK_SESSION_DIR", dir.toString(),
                        "FLINK_TASKMANAGERS", Integer.toString(taskManagers),
                        "FLINK_SLOTS", Integer.toString(slots),
                        "FLINK_CONF_EXTRA", extraConf.toString(),
                        "FLINK_PLUGINS_DIR", pluginsDir.toString(),
                        "FLINK_REST_PORT", Integer.toString(restPort),
                        "FLINK_RPC_PORT", Integer.toString(rpcPort));
        SessionCluster c =
                new SessionCluster(script, dir, env, restPort, dir.resolve("commands.log"));
        try {
            c.run("start");
        } catch (IOException | RuntimeException e) {
            c.close();
            throw e;
        }
        return c;
    }

    URI rest() {
        return URI.create("http://localhost:" + restPort + "/");
    }

    /** Every command's output: the CLI's, the script's. */
    Path log() {
        return log;
    }

    /** The processes' own logs ({@code jobmanager.log}, {@code taskmanager-N.log}). */
    Path logDir() {
        return dir.resolve("log");
    }

    /** {@code flink run -d JAR ARGS}: the job's id. */
    JobID submit(Path jar, List<String> jobArgs) throws IOException {
        return submit(null, jar, jobArgs);
    }

    /** {@code flink run -d -s SAVEPOINT JAR ARGS} (no savepoint if null): the job's id. */
    JobID submit(String savepoint, Path jar, List<String> jobArgs) throws IOException {
        List<String> cmd = new ArrayList<>(List.of("flink", "run", "-d"));
        if (savepoint != null) {
            cmd.addAll(List.of("-s", savepoint));
        }
        cmd.add(jar.toString());
        cmd.addAll(jobArgs);
        String out = run(cmd.toArray(String[]::new));
        Matcher m = JOB_ID.matcher(out);
        if (!m.find()) {
            throw new IOException("flink run printed no job id (see " + log + ")");
        }
        return JobID.fromHexString(m.group(1));
    }

    /**
     * {@code flink stop [--drain] --savepointPath TARGET JOB}: the savepoint's path once the job
     * has stopped.
     */
    String stopWithSavepoint(JobID job, String target, boolean drain) throws IOException {
        List<String> cmd = new ArrayList<>(List.of("flink", "stop"));
        if (drain) {
            cmd.add("--drain");
        }
        cmd.addAll(List.of("--savepointPath", target, job.toHexString()));
        String out = run(cmd.toArray(String[]::new));
        Matcher m = SAVEPOINT.matcher(out);
        if (!m.find()) {
            throw new IOException("flink stop printed no savepoint path (see " + log + ")");
        }
        return m.group(1);
    }

    /** SIGKILL of one process ({@code taskmanager-N}, {@code jobmanager}): a crash. */
    void kill(String process) throws IOException {
        run("kill", process);
    }

    /** Starts {@code taskmanager-n} again, as a supervisor (systemd, Kubernetes) would. */
    void startTaskManager(int n) throws IOException {
        run("start-taskmanager", Integer.toString(n));
    }

    @Override
    public void close() {
        try {
            run("stop");
        } catch (IOException | RuntimeException e) {
            append("stopping the cluster failed: " + e);
        }
    }

    private String run(String... args) throws IOException {
        List<String> cmd = new ArrayList<>(List.of("bash", script.toString()));
        cmd.addAll(List.of(args));
        append("$ flink-session.sh " + String.join(" ", args));
        ProcessBuilder pb = new ProcessBuilder(cmd).redirectErrorStream(true);
        pb.environment().putAll(environment);
        Process p = pb.start();
        p.getOutputStream().close();
        String out;
        try {
            out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            if (!p.waitFor(COMMAND_TIMEOUT.toMillis(), TimeUnit.MILLISECONDS)) {
                p.destroyForcibly();
                throw new IOException(
                        "flink-session.sh " + args[0] + " did not end in " + COMMAND_TIMEOUT);
            }
        } catch (InterruptedException e) {
            p.destroyForcibly();
            Thread.currentThread().interrupt();
            throw new IOException("interrupted during flink-session.sh " + args[0], e);
        }
        append(out);
        if (p.exitValue() != 0) {
            throw new IOException(
                    "flink-session.sh "
                            + String.join(" ", args)
                            + " failed (exit "
                            + p.exitValue()
                            + "): "
                            + lastLine(out)
                            + " (whole output: "
                            + log
                            + ")");
        }
        return out;
    }

    private static String lastLine(String out) {
        String[] lines = out.strip().split("\n");
        return lines.length == 0 ? "" : lines[lines.length - 1];
    }

    private synchronized void append(String text) {
        try {
            Files.writeString(
                    log,
                    text.endsWith("\n") ? text : text + "\n",
                    StandardCharsets.UTF_8,
                    StandardOpenOption.CREATE,
                    StandardOpenOption.APPEND);
        } catch (IOException ignored) {
            // the log is a convenience; the command's outcome is what counts
        }
    }
}
