package org.fraudpipe.tools.rehearsal;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.Callable;
import org.fraudpipe.job.cli.CommandLines;
import org.fraudpipe.job.cli.DurationConverter;
import org.fraudpipe.tools.demo.RunDirectory;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * {@code ./fraud rehearsal} ({@code deploy/rehearsal.sh}): the production rehearsal ({@link
 * RehearsalRun}). Exit codes: 0 passed, 1 a check failed (the console and rehearsal.json say
 * which), 2 bad usage, 3 it could not run (a part did not start; the message says which).
 */
@Command(
        name = "rehearsal",
        mixinStandardHelpOptions = true,
        description = {
            "The production rehearsal: a local S3 server, the secured broker (SASL_SSL, SCRAM,"
                    + " ACLs) and the HTTPS registry, a Flink session cluster of a JobManager and"
                    + " two TaskManager processes (deploy/flink-session), and both jobs submitted"
                    + " with flink run, checkpoints and savepoints on s3p://, the archive on"
                    + " s3a://. Under the simulator's hostile traffic it kills the busiest"
                    + " TaskManager and starts it again, stops each job with a savepoint and"
                    + " restores it at another parallelism; after the traffic it drains both jobs,"
                    + " checks every answer and window from outside (read_committed), runs"
                    + " ./fraud parity over the s3a:// archive against the topics, and scans the"
                    + " logs, outputs and REST answers for every password and key.",
            "Writes console.txt, rehearsal.json (figures) and the parity report into the run"
                    + " directory; leaves nothing running."
        })
public final class RehearsalCommand implements Callable<Integer> {

    @Option(
            names = "--duration",
            paramLabel = "DURATION",
            defaultValue = "4m",
            converter = DurationConverter.class,
            description =
                    "How long traffic is published; the crash and both rescales happen within it"
                            + " (default: ${DEFAULT-VALUE}).")
    Duration duration;

    @Option(
            names = "--users",
            paramLabel = "N",
            defaultValue = "200",
            description = "Card holders simulated (default: ${DEFAULT-VALUE}).")
    int users;

    @Option(
            names = "--speedup",
            paramLabel = "X",
            defaultValue = "30",
            description =
                    "Event time runs this much faster than real time (default: ${DEFAULT-VALUE}).")
    double speedup;

    @Option(
            names = "--seed",
            paramLabel = "S",
            defaultValue = "1",
            description = "Seed of the traffic (default: ${DEFAULT-VALUE}).")
    long seed;

    @Option(
            names = "--taskmanagers",
            paramLabel = "N",
            defaultValue = "2",
            description = "TaskManager processes (default: ${DEFAULT-VALUE}).")
    int taskManagers;

    @Option(
            names = "--parallelism",
            paramLabel = "N",
            defaultValue = "2",
            description = "Both jobs' parallelism at the start (default: ${DEFAULT-VALUE}).")
    int parallelism;

    @Option(
            names = "--restore-parallelism",
            paramLabel = "N",
            defaultValue = "3",
            description =
                    "Their parallelism once restored from their savepoints (default:"
                            + " ${DEFAULT-VALUE}).")
    int restoreParallelism;

    @Option(
            names = "--dir",
            paramLabel = "DIR",
            description = "The run directory (default: .fraud/rehearsal/<time>).")
    Path dir;

    /** The configured command line, as the launcher runs it. */
    public static CommandLine commandLine() {
        return CommandLines.install(new CommandLine(new RehearsalCommand()));
    }

    @Override
    public Integer call() throws Exception {
        if (taskManagers < 1 || parallelism < 1 || restoreParallelism < 1) {
            throw new IllegalArgumentException(
                    "--taskmanagers, --parallelism and --restore-parallelism must be at least 1");
        }
        if (parallelism == restoreParallelism) {
            throw new IllegalArgumentException(
                    "--restore-parallelism must differ from --parallelism (the rehearsal rescales)");
        }
        int slots = taskManagers * 3;
        if (2 * Math.max(parallelism, restoreParallelism) > slots) {
            throw new IllegalArgumentException(
                    String.format(
                            "two jobs at parallelism %d need %d slots; %d TaskManagers have %d:"
                                    + " lower --restore-parallelism or add --taskmanagers",
                            Math.max(parallelism, restoreParallelism),
                            2 * Math.max(parallelism, restoreParallelism),
                            taskManagers,
                            slots));
        }
        Path runDir = runDir();
        Path home = Path.of(System.getProperty("fraud.home", ".")).toAbsolutePath().normalize();
        Files.createDirectories(runDir);
        // The run's log file, as the demo's and the soak's: the terminal shows the rehearsal's
        // own lines.
        RunDirectory.logInto(runDir.resolve("rehearsal.log"));
        RehearsalRun.Settings settings =
                new RehearsalRun.Settings(
                        runDir,
                        users,
                        duration,
                        speedup,
                        seed,
                        taskManagers,
                        parallelism,
                        restoreParallelism,
                        home);
        try {
            return new RehearsalRun(settings, System.out).run();
        } catch (Exception e) {
            System.out.flush();
            System.err.println("rehearsal: could not run: " + e.getMessage());
            if (System.getenv("FRAUD_TRACE") != null) {
                e.printStackTrace(System.err);
            }
            System.err.println("rehearsal: logs in " + runDir);
            return RehearsalRun.FAILED;
        }
    }

    private Path runDir() {
        return RunDirectory.of(dir, "rehearsal");
    }
}
