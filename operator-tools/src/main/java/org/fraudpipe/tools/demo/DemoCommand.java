package org.fraudpipe.tools.demo;

import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.Callable;
import org.fraudpipe.job.cli.CommandLines;
import org.fraudpipe.job.cli.DurationConverter;
import org.fraudpipe.job.config.JobConfig;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/**
 * {@code ./fraud demo}: the whole pipeline in one command (see the package comment). Exit codes:
 * {@value #EXIT_PASS} the demo ran and parity is within thresholds, {@value #EXIT_SKEW} it ran and
 * parity found skew over a threshold (the report says where), {@value #EXIT_USAGE} bad usage,
 * {@value #EXIT_FAILED} the demo failed (a component did not start, the job failed, parity could
 * not run); on Ctrl-C the JVM's own (130).
 */
@Command(
        name = "demo",
        mixinStandardHelpOptions = true,
        sortOptions = false,
        usageHelpAutoWidth = true,
        description = {
            "The whole pipeline on this machine, in one command: starts a Kafka broker (KRaft) and a"
                    + " schema registry, runs the two jobs as on a cluster (the window job in a"
                    + " local Flink MiniCluster: RocksDB, checkpoints, exactly-once sinks,"
                    + " archive; the decision job, scores at arrival, in a JVM of its own with"
                    + " heap state), publishes simulated traffic paced by arrival time, and shows"
                    + " the jobs' counters once a second.",
            "After --duration it stops both jobs with a savepoint each and drains them (every"
                    + " window fires its final result), stops Kafka, runs the parity check over"
                    + " the archive and prints its summary line and report. Nothing is left"
                    + " running, on Ctrl-C too.",
            "The traffic is the last (duration x speedup) of event time before now, so event times"
                    + " never run ahead of the wall clock.",
            "About three minutes with the defaults; the first ./fraud command also builds the"
                    + " project (README, Quick start).",
            "Exit codes: 0 parity within thresholds, 1 parity over a threshold, 2 bad usage, 3 the"
                    + " demo failed; 130 on Ctrl-C, 143 on kill (SIGTERM): both stop everything"
                    + " (both jobs are cancelled, no parity run).",
        },
        footer = {
            "",
            "Examples:",
            "  ./fraud demo",
            "  ./fraud demo --users 50 --duration 30s --speedup 120",
            "  ./fraud demo --allowed-lateness 0s    # every late record is too late",
            "  ./fraud demo --keep-running           # explore; Ctrl-C stops everything",
        })
public final class DemoCommand implements Callable<Integer> {

    public static final int EXIT_PASS = 0;
    public static final int EXIT_SKEW = 1;
    public static final int EXIT_USAGE = 2;
    public static final int EXIT_FAILED = 3;

    /** System property of the demo's log file, read by {@code log4j2-demo.xml}. */
    public static final String LOG_FILE_PROPERTY = "fraud.demo.log";

    @Spec CommandSpec spec;

    @Option(
            names = "--users",
            paramLabel = "N",
            defaultValue = "200",
            description = "Card holders to simulate (default: ${DEFAULT-VALUE}).")
    int users;

    @Option(
            names = "--duration",
            paramLabel = "DURATION",
            defaultValue = "2m",
            converter = DurationConverter.class,
            description =
                    "Wall-clock time of publishing traffic, before the job is stopped and checked"
                            + " (default: ${DEFAULT-VALUE}).")
    Duration duration;

    @Option(
            names = "--speedup",
            paramLabel = "X",
            defaultValue = "60",
            description =
                    "Traffic is published X times faster than real time: --duration x X of event"
                            + " time (default: ${DEFAULT-VALUE}, one hour per minute).")
    double speedup;

    @Option(
            names = "--tx-per-user-day",
            paramLabel = "R",
            defaultValue = "300",
            description = "Mean transactions per user and day (default: ${DEFAULT-VALUE}).")
    double txPerUserDay;

    @Option(
            names = "--seed",
            paramLabel = "S",
            defaultValue = "1",
            description = "Seed of the simulation (default: ${DEFAULT-VALUE}).")
    long seed;

    @Option(
            names = "--window-size",
            paramLabel = "DURATION",
            defaultValue = "1m",
            converter = DurationConverter.class,
            description =
                    "The job's window size (default: ${DEFAULT-VALUE}; the job's own default is"
                            + " 10m: small windows close, re-fire and drop records sooner).")
    Duration windowSize;

    @Option(
            names = "--allowed-lateness",
            paramLabel = "DURATION",
            defaultValue = "30m",
            converter = DurationConverter.class,
            description =
                    "The job's allowed lateness (default: ${DEFAULT-VALUE}: about a third of the"
                            + " records arriving 10 min..6 h late re-fire their window, the rest"
                            + " are too late).")
    Duration allowedLateness;

    @Option(
            names = "--out-of-orderness",
            paramLabel = "DURATION",
            defaultValue = "2s",
            converter = DurationConverter.class,
            description = "The job's watermark bound (default: ${DEFAULT-VALUE}).")
    Duration outOfOrderness;

    @Option(
            names = "--state-backend",
            paramLabel = "NAME",
            defaultValue = "rocksdb",
            description = "rocksdb or hashmap (default: ${DEFAULT-VALUE}).")
    String stateBackend;

    @Option(
            names = "--parallelism",
            paramLabel = "N",
            defaultValue = "2",
            description = "The job's parallelism (default: ${DEFAULT-VALUE}).")
    int parallelism;

    @Option(
            names = "--checkpoint-interval",
            paramLabel = "DURATION",
            defaultValue = "5s",
            converter = DurationConverter.class,
            description =
                    "The job's checkpoint interval: output is committed (visible to read_committed"
                            + " readers, archived) at each checkpoint (default: ${DEFAULT-VALUE}).")
    Duration checkpointInterval;

    @Option(
            names = "--web-port",
            paramLabel = "PORT",
            defaultValue = "0",
            description =
                    "Port of the Flink web UI / REST API on localhost; 0 picks a free one"
                            + " (default: ${DEFAULT-VALUE}).")
    int webPort;

    @Option(
            names = "--dir",
            paramLabel = "DIR",
            description =
                    "Run directory, by default .fraud/demo/<UTC time> under the project: Kafka"
                            + " data, checkpoints, savepoint, archive, parity report, log.")
    Path dir;

    @Option(
            names = "--keep-running",
            description =
                    "After --duration, stop publishing but leave both jobs, Kafka and the registry"
                            + " running to explore (no parity run); Ctrl-C stops everything.")
    boolean keepRunning;

    @Option(
            names = "--secure",
            description =
                    "Run it all secured: Kafka's SASL_SSL listener (TLS with a CA made for the run,"
                            + " SCRAM-SHA-512 users) with ACLs, the registry over HTTPS with basic"
                            + " auth; both jobs run as principal feature-job, the traffic as"
                            + " producer (their client files are printed).")
    boolean secure;

    @Option(
            names = "--object-store",
            description =
                    "Keep the checkpoints and savepoints (s3p://) and the archive (s3a://) on a"
                            + " local S3-compatible object store started for the run (./fraud s3),"
                            + " as a cluster keeps them; parity reads the archive from there.")
    boolean objectStore;

    /** The configured command line, as the launcher runs it. */
    public static CommandLine commandLine() {
        // Usage errors are reported by ./fraud's own handler (CommandLines), like every command's.
        return CommandLines.install(
                new CommandLine(new DemoCommand()).setExitCodeExceptionMapper(e -> EXIT_FAILED));
    }

    @Override
    public Integer call() {
        DemoSettings settings;
        try {
            settings =
                    new DemoSettings(
                            users,
                            duration,
                            speedup,
                            txPerUserDay,
                            seed,
                            windowSize,
                            allowedLateness,
                            outOfOrderness,
                            stateBackend,
                            parallelism,
                            checkpointInterval,
                            webPort,
                            runDir(),
                            keepRunning,
                            secure,
                            objectStore);
            // The job's own validation, before anything starts (its messages name the option).
            JobConfig.of(settings.jobOptions("localhost:9092", "http://localhost:8081"));
            settings.simulation(java.time.Instant.now());
        } catch (IllegalArgumentException e) {
            // A usage error like picocli's own: one line and where the options are (exit 2).
            throw new CommandLine.ParameterException(spec.commandLine(), e.getMessage(), e);
        }
        // Before anything logs: Flink, Kafka clients and parity log into the run directory.
        RunDirectory.logInto(settings.logFile());
        try {
            return new Demo(settings, System.out, System.console() != null).run();
        } catch (Demo.DemoFailure e) {
            System.out.flush();
            System.err.println("demo failed: " + e.getMessage());
            return EXIT_FAILED;
        }
    }

    private Path runDir() {
        return RunDirectory.of(dir, "demo");
    }
}
