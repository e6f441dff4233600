package org.fraudpipe.tools.soak;

import java.nio.file.Path;
import java.time.Duration;
import java.util.EnumSet;
import java.util.Locale;
import java.util.Set;
import java.util.concurrent.Callable;
import org.fraudpipe.job.cli.CommandLines;
import org.fraudpipe.job.cli.DurationConverter;
import org.fraudpipe.tools.demo.RunDirectory;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * {@code ./fraud soak}: a fault campaign ({@link SoakRun}). Exit codes: 0 the verdict is PASS (no
 * finding, parity passed), 1 FAIL, 2 bad usage, 3 the campaign could not run.
 */
@Command(
        name = "soak",
        mixinStandardHelpOptions = true,
        description = {
            "A fault campaign: the job (both paths, exactly-once window topics, the archive on)"
                    + " under the simulator's hostile traffic while a nemesis injects faults on a"
                    + " seeded random schedule (the job's JVM killed or stopped and restored, the"
                    + " broker restarted, the registry down, the network stalled, cut or slow,"
                    + " checkpoint storage refusing), then healed, drained and checked from"
                    + " outside: no answer lost or changed, no revision regressed, dead letters and"
                    + " quarantine exact, the archive complete, ./fraud parity passing.",
            "Writes soak.json (faults, recovery times, latency during faults, findings) and the"
                    + " parity report into the run directory."
        })
public final class SoakCommand implements Callable<Integer> {

    public static final int EXIT_PASS = 0;
    public static final int EXIT_FAIL = 1;
    public static final int EXIT_FAILED = 3;

    @Option(
            names = "--duration",
            paramLabel = "DURATION",
            defaultValue = "20m",
            converter = DurationConverter.class,
            description =
                    "How long traffic flows and faults are injected (default: ${DEFAULT-VALUE}).")
    Duration duration;

    @Option(
            names = "--fault-every",
            paramLabel = "DURATION",
            defaultValue = "10s",
            converter = DurationConverter.class,
            description =
                    "Mean time between two faults' starts, exponentially distributed (default:"
                            + " ${DEFAULT-VALUE}: about 100 faults in 20 minutes).")
    Duration faultEvery;

    @Option(
            names = "--faults",
            paramLabel = "KIND",
            split = ",",
            description =
                    "The kinds of fault drawn from (default: all): job-kill, savepoint-restore,"
                            + " broker-restart, registry-down, network-stall, network-cut,"
                            + " slow-acks, checkpoint-storage, and with --object-store"
                            + " storage-down.")
    Set<String> faults;

    @Option(
            names = "--users",
            paramLabel = "N",
            defaultValue = "500",
            description =
                    "Card holders simulated (default: ${DEFAULT-VALUE}: 25 to 100 transactions a"
                            + " second, following the simulator's daily rhythm).")
    int users;

    @Option(
            names = "--tx-per-user-day",
            paramLabel = "N",
            defaultValue = "300",
            description = "Their transactions per day of event time (default: ${DEFAULT-VALUE}).")
    double txPerUserDay;

    @Option(
            names = "--speedup",
            paramLabel = "X",
            defaultValue = "60",
            description =
                    "Event time runs this much faster than real time (default: ${DEFAULT-VALUE}).")
    double speedup;

    @Option(
            names = "--seed",
            paramLabel = "S",
            defaultValue = "1",
            description =
                    "Seed of the traffic and of the fault schedule (default: ${DEFAULT-VALUE}).")
    long seed;

    @Option(
            names = "--quiet-end",
            paramLabel = "DURATION",
            defaultValue = "20s",
            converter = DurationConverter.class,
            description =
                    "The last part of the duration without new faults: the recovery from the"
                            + " last ones is seen while traffic still flows (default:"
                            + " ${DEFAULT-VALUE}).")
    Duration quietEnd;

    @Option(
            names = "--parallelism",
            paramLabel = "N",
            defaultValue = "2",
            description =
                    "The job's parallelism at the start; a rescaling restore flips it between 1 and"
                            + " 2 (default: ${DEFAULT-VALUE}).")
    int parallelism;

    @Option(
            names = "--object-store",
            description =
                    "Checkpoints and savepoints (s3p://) and the archive (s3a://) on a local"
                            + " S3-compatible object store, as on a cluster, instead of local"
                            + " files; adds the fault storage-down (the store stopped for a"
                            + " while).")
    boolean objectStore;

    @Option(
            names = "--dir",
            paramLabel = "DIR",
            description = "The run directory (default: .fraud/soak/<time>).")
    Path dir;

    /** The configured command line, as the launcher runs it. */
    public static CommandLine commandLine() {
        return CommandLines.install(new CommandLine(new SoakCommand()));
    }

    @Override
    public Integer call() throws Exception {
        SoakSettings settings;
        try {
            settings =
                    new SoakSettings(
                            duration,
                            users,
                            txPerUserDay,
                            speedup,
                            seed,
                            faultEvery,
                            kinds(),
                            quietEnd,
                            parallelism,
                            objectStore,
                            runDir());
        } catch (IllegalArgumentException e) {
            throw new CommandLine.ParameterException(new CommandLine(this), e.getMessage(), e);
        }
        java.nio.file.Files.createDirectories(settings.dir());
        // Logging into the run directory, as the demo's: the terminal shows the campaign's own
        // lines.
        RunDirectory.logInto(settings.dir().resolve("soak.log"));
        try {
            return new SoakRun(settings, System.out).run();
        } catch (Exception e) {
            System.out.flush();
            System.err.println("soak failed: " + e.getMessage());
            e.printStackTrace(System.err);
            return EXIT_FAILED;
        }
    }

    private Set<FaultKind> kinds() {
        if (faults == null || faults.isEmpty()) {
            Set<FaultKind> all = EnumSet.allOf(FaultKind.class);
            if (!objectStore) {
                all.remove(FaultKind.STORAGE_DOWN);
            }
            return all;
        }
        Set<FaultKind> kinds = EnumSet.noneOf(FaultKind.class);
        for (String f : faults) {
            try {
                kinds.add(FaultKind.valueOf(f.trim().toUpperCase(Locale.ROOT).replace('-', '_')));
            } catch (IllegalArgumentException e) {
                throw new IllegalArgumentException("--faults: no fault kind '" + f + "'");
            }
        }
        return kinds;
    }

    private Path runDir() {
        return RunDirectory.of(dir, "soak");
    }
}
