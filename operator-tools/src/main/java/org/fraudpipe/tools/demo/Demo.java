package org.fraudpipe.tools.demo;

import java.io.IOException;
import java.io.PrintStream;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.time.LocalDate;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.EnumSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.OptionalLong;
import java.util.TreeSet;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.stream.Stream;
import org.apache.flink.api.common.JobExecutionResult;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.HeartbeatManagerOptions;
import org.apache.flink.configuration.MetricOptions;
import org.apache.flink.configuration.PipelineOptions;
import org.apache.flink.configuration.RestOptions;
import org.apache.flink.core.execution.JobClient;
import org.apache.flink.core.execution.SavepointFormatType;
import org.fraudpipe.job.KafkaFeatureJob;
import org.fraudpipe.job.cli.LocalSplit;
import org.fraudpipe.job.config.Durations;
import org.fraudpipe.job.config.JobConfig;
import org.fraudpipe.job.position.DrainGate;
import org.fraudpipe.job.position.ReadPositions;
import org.fraudpipe.job.topology.JobEnvironment;
import org.fraudpipe.local.BrokerRuntime;
import org.fraudpipe.local.LocalKafka;
import org.fraudpipe.local.LocalObjectStore;
import org.fraudpipe.local.LocalSecurity;
import org.fraudpipe.parity.ParityRun;
import org.fraudpipe.parity.cli.ParityCommand;
import org.fraudpipe.schemas.archive.ArchiveStream;
import org.fraudpipe.sim.SimulatedRecord;
import org.fraudpipe.sim.SimulationConfig;
import org.fraudpipe.sim.SimulationStats;
import org.fraudpipe.sim.TransactionPublisher;
import org.fraudpipe.sim.TransactionSimulator;
import org.fraudpipe.tools.advise.AdviceFiles;
import org.fraudpipe.tools.advise.AdviseCommand;
import picocli.CommandLine;

/**
 * One run of the demo: Kafka and the registry, the job, the traffic with live progress, then
 * (unless {@code --keep-running}) stop with a savepoint and drain, Kafka off, parity over the
 * archive.
 *
 * <p>Nothing is left behind: the broker and registry JVMs are tied to this JVM (they exit when it
 * ends, even on {@code kill -9}), the MiniCluster lives in it, and a shutdown hook (Ctrl-C, {@code
 * kill}) cancels the job and stops the broker and the registry before the JVM exits. The main path
 * does the same in its {@code finally}; whichever comes first does it, once.
 */
final class Demo {

    /** The demo's parity mismatch limit (docs/PARITY.md "Defaults": production's is 0.01). */
    static final String DEMO_MAX_MISMATCH_RATE = "0.05";

    /**
     * The demo's limit on the share of scored transactions whose decision the ideal features change
     * (production's default is 0.001). The demo's traffic holds 1 % of records hours late on
     * purpose, each missing from the scores of its user's next transactions in the trailing window,
     * and a run scores only one to a few thousand transactions: at 0.001 two flips there would fail
     * the demo, a matter of chance rather than of a policy that no longer fits.
     */
    static final String DEMO_MAX_TRANSACTION_FLIPPED_RATE = "0.01";

    /** The traffic the demo published, as simulated, in the run directory (for the advice). */
    static final String TRAFFIC_FILE = "traffic.jsonl";

    private static final Duration JOB_START_TIMEOUT = Duration.ofMinutes(2);
    private static final Duration STOP_TIMEOUT = Duration.ofMinutes(5);

    /** How long the readers may take to read what was published before the drain. */
    private static final Duration READERS_TIMEOUT = Duration.ofMinutes(2);

    private static final Duration CANCEL_TIMEOUT = Duration.ofSeconds(30);
    private static final Duration DEFAULT_WATERMARK_INTERVAL =
            PipelineOptions.AUTO_WATERMARK_INTERVAL.defaultValue();
    private static final Duration MIN_WATERMARK_INTERVAL = Duration.ofMillis(10);

    private final DemoSettings settings;
    private final PrintStream out;
    private final boolean tty;

    // Shared with the shutdown hook and the progress thread; guarded by `this`.
    private LocalKafka kafka;
    private JobClient job;
    private DecisionJobProcess decisions;

    /** The object store of {@code --object-store}, once it runs. */
    private LocalObjectStore.State objectStore;

    private Thread trafficThread;
    private ScheduledExecutorService ticker;
    private boolean stopped;
    private int drawnLines;
    private volatile boolean interrupted;
    private volatile Thread hookThread;

    Demo(DemoSettings settings, PrintStream out, boolean tty) {
        this.settings = settings;
        this.out = out;
        this.tty = tty;
    }

    /** A step failed: the message says which and what to look at. */
    static final class DemoFailure extends Exception {
        DemoFailure(String message, Throwable cause) {
            super(message, cause);
        }
    }

    /**
     * Runs the demo; returns the exit code ({@link DemoCommand}). If the JVM is shutting down
     * (Ctrl-C) it never returns: the shutdown hook stops everything and reports, then the JVM
     * halts.
     */
    int run() throws DemoFailure {
        Instant began = Instant.now();
        Thread hook = new Thread(this::onShutdown, "fraud-demo-shutdown");
        hookThread = hook;
        Runtime.getRuntime().addShutdownHook(hook);
        int exit;
        try {
            exit = steps(began);
        } catch (DemoFailure | RuntimeException e) {
            if (interrupted) {
                awaitHalt(hook); // what failed was cut off by the shutdown: nothing to report
            }
            throw e;
        } finally {
            if (!interrupted) {
                stopAll();
                try {
                    Runtime.getRuntime().removeShutdownHook(hook);
                } catch (IllegalStateException shuttingDown) {
                    // the hook runs (or ran) anyway
                }
            }
        }
        if (interrupted) {
            awaitHalt(hook);
        }
        return exit;
    }

    /** Blocks the main path while the shutdown hook finishes; the JVM then halts. */
    private static void awaitHalt(Thread hook) {
        while (true) {
            try {
                hook.join();
                Thread.sleep(Long.MAX_VALUE);
            } catch (InterruptedException e) {
                // keep waiting: the JVM is going down
            }
        }
    }

    private int steps(Instant began) throws DemoFailure {
        SimulationConfig simulation = settings.simulation(began);
        try {
            Files.createDirectories(settings.runDir());
        } catch (IOException e) {
            throw new UncheckedIOException("cannot create " + settings.runDir(), e);
        }
        header(simulation);

        say("Starting Kafka (KRaft, one node) and the schema registry, tied to this process...");
        long t0 = System.nanoTime();
        LocalKafka k =
                attempt(
                        "Kafka or the schema registry did not start (see "
                                + settings.kafkaDir()
                                + ")",
                        () ->
                                LocalKafka.start(
                                        kafkaSettings(), BrokerRuntime.fromSystemProperty()));
        synchronized (this) {
            kafka = k;
        }
        say(
                String.format(
                        Locale.ROOT,
                        "  Kafka %s (pid %d), schema registry %s (pid %d); topics %s, %d"
                                + " partitions each; ready in %s",
                        k.bootstrapServers(),
                        k.brokerPid(),
                        k.schemaRegistryUrl(),
                        k.registryPid(),
                        String.join(", ", k.createdTopics()),
                        DemoSettings.PARTITIONS,
                        since(t0)));

        k.security()
                .ifPresent(
                        security -> {
                            say(
                                    "  secured: SASL_SSL (SCRAM-SHA-512, TLS with a CA made for"
                                            + " this run), ACLs, registry over HTTPS with basic"
                                            + " auth; client files (--kafka-config):");
                            for (String principal : LocalSecurity.PRINCIPALS) {
                                say(
                                        String.format(
                                                Locale.ROOT,
                                                "    %-12s %s",
                                                principal,
                                                security.clientFile(principal)));
                            }
                        });
        startObjectStore();
        Map<String, String> options =
                settings.jobOptions(
                        k.bootstrapServers(),
                        k.schemaRegistryUrl(),
                        k.security()
                                .map(s -> s.clientFile(LocalSecurity.FEATURE_JOB))
                                .orElse(null));
        JobConfig config = JobConfig.of(options);
        int port = settings.webPort() == 0 ? freePort() : settings.webPort();
        say(
                "Starting the two jobs (docs/DEPLOY.md, Two jobs): the decision job (scores at"
                        + " arrival) in a JVM of its own, the window job in a local Flink"
                        + " MiniCluster in this one...");
        long t1 = System.nanoTime();
        DecisionJobProcess d =
                attempt(
                        "the decision job's JVM did not start",
                        () ->
                                DecisionJobProcess.start(
                                        decisionOptions(options, config),
                                        freePort(),
                                        settings.speedup(),
                                        settings.decisionControlDir(),
                                        settings.decisionLogFile(),
                                        objectStoreEnvironment()));
        synchronized (this) {
            decisions = d;
        }
        String notReniced = LocalSplit.reniceThisJvm(LocalSplit.WINDOWS_NICE);
        if (notReniced != null) {
            say("  the window job runs at the decision job's CPU priority (" + notReniced + ")");
        }
        JobClient client =
                attempt(
                        "the window job did not start",
                        () ->
                                KafkaFeatureJob.prepare(
                                                windowConfig(options),
                                                flinkSettings(port, settings.speedup()))
                                        .executeAsync());
        synchronized (this) {
            job = client;
        }
        FlinkRest rest = new FlinkRest(URI.create("http://localhost:" + port + "/"));
        awaitRunning(client, rest);
        awaitRunning(d);
        say(
                "  window job "
                        + client.getJobID()
                        + " running, every task started; ready in "
                        + since(t1));
        say(
                rest.servesWebUi()
                        ? "  Flink web UI: " + rest.base()
                        : "  Flink REST API: "
                                + rest.base()
                                + " (the web UI is not on the classpath)");
        say(
                String.format(
                        Locale.ROOT,
                        "  decision job %s running in its own JVM (pid %d; heap state,"
                                + " checkpoints every %s), every task started; its Flink: %s, its"
                                + " log: %s",
                        d.jobId(),
                        d.pid(),
                        LocalSplit.DECISION_CHECKPOINT_INTERVAL,
                        d.rest().base(),
                        settings.decisionLogFile()));

        DemoTraffic traffic =
                new DemoTraffic(
                        simulation,
                        k.bootstrapServers(),
                        k.schemaRegistryUrl(),
                        k.client(LocalSecurity.PRODUCER),
                        settings.speedup());
        Thread t = new Thread(traffic, "fraud-demo-traffic");
        t.setDaemon(true);
        synchronized (this) {
            trafficThread = t;
        }
        say(
                "Publishing "
                        + Durations.format(settings.simulatedSpan())
                        + " of traffic in "
                        + Durations.format(settings.duration())
                        + "...");
        say(Progress.LEGEND);
        t.start();
        startProgress(client, d, rest, traffic, Instant.now());
        startChallenger(k);
        awaitTraffic(t, client, d);
        if (traffic.failure() != null) {
            throw new DemoFailure("publishing failed: " + traffic.failure(), traffic.failure());
        }
        published(traffic);

        if (settings.keepRunning()) {
            return keepRunning(client, d, rest, k);
        }

        awaitReaders(client, d, traffic);
        say(
                "Stopping both jobs with a savepoint each and draining: the watermark jumps to the"
                        + " end of time, every open window fires its final result, the Kafka"
                        + " sinks and the archive commit on those savepoints...");
        Stopped end = stopWithSavepoints(client, d);
        stopProgress();
        Map<String, Object> accumulators = end.accumulators();
        Progress.Counters counters = Progress.Counters.of(accumulators);
        say(
                Progress.line(
                        "final",
                        traffic.sent(),
                        counters,
                        -1,
                        OptionalLong.of(Long.MAX_VALUE),
                        Long.MIN_VALUE,
                        settings.speedup()));
        say(Progress.transactionSummary(counters));
        say(
                "  both jobs finished; savepoints "
                        + end.windowSavepoint()
                        + " (window job), "
                        + end.decisionSavepoint()
                        + " (decision job)");

        long brokerPid = k.brokerPid();
        long registryPid = k.registryPid();
        stopKafka();
        say(
                String.format(
                        Locale.ROOT,
                        "Kafka broker (pid %d) and schema registry (pid %d) stopped",
                        brokerPid,
                        registryPid));

        int parity = parity(simulation, config);
        long storePid = stopObjectStore();

        deleteQuietly(settings.kafkaDir());
        deleteQuietly(settings.checkpointDir());
        deleteQuietly(settings.decisionControlDir());
        List<Long> alive = alive(brokerPid, registryPid, d.pid(), storePid);
        say(
                String.format(
                        Locale.ROOT,
                        "Demo finished in %s. %s Kept in %s: %s, parity/ (report and"
                                + " advice), traffic.jsonl, demo.log, decisions.log.",
                        Progress.human(Duration.between(began, Instant.now()).toMillis()),
                        alive.isEmpty()
                                ? "Nothing left running (broker, registry, the decision job's"
                                        + " JVM and Flink stopped)."
                                : "STILL RUNNING: pids " + alive + "!",
                        settings.runDir(),
                        settings.objectStore()
                                ? "s3/ (the object store's data: the archive and savepoints"
                                        + " under objects/)"
                                : "archive/, savepoints/"));
        return parity;
    }

    private void header(SimulationConfig simulation) {
        say(
                "fraudpipe demo: Kafka, schema registry, the two jobs (windows, decisions),"
                        + " simulated traffic, parity.");
        say(
                "  run directory  "
                        + settings.runDir()
                        + " (logs: demo.log, decisions.log for the decision job, kafka/)");
        say(
                String.format(
                        Locale.ROOT,
                        "  traffic        %d users, ~%s transactions per user and day, seed %d;"
                                + " event time %s .. %s (the last %s), published in %s at %sx,"
                                + " paced by arrival time",
                        settings.users(),
                        number(settings.txPerUserDay()),
                        settings.seed(),
                        simulation.start(),
                        simulation.end(),
                        Durations.format(settings.simulatedSpan()),
                        Durations.format(settings.duration()),
                        number(settings.speedup())));
        say(
                String.format(
                        Locale.ROOT,
                        "  anomalies      fraud %s%%, hours-late arrivals %s%%, producer retries"
                                + " %s%%, future-dated %s%%, malformed %s%%",
                        number(DemoSettings.FRAUD_SHARE * 100),
                        number(DemoSettings.HOURS_LATE_SHARE * 100),
                        number(DemoSettings.DUPLICATE_RATE * 100),
                        number(DemoSettings.FUTURE_RATE * 100),
                        number(DemoSettings.MALFORMED_RATE * 100)));
        say(
                String.format(
                        Locale.ROOT,
                        "  window job     window %s%s, allowed lateness %s (about %d live windows"
                                + " per user), out-of-orderness %s, state backend %s, parallelism"
                                + " %d, checkpoints every %s (exactly-once)",
                        Durations.format(settings.windowSize()),
                        settings.windowSize().equals(Duration.ofMinutes(10))
                                ? ""
                                : " (the job's default is 10m; small windows close, re-fire and"
                                        + " drop records sooner)",
                        Durations.format(settings.allowedLateness()),
                        settings.allowedLateness().toMillis() / settings.windowSize().toMillis()
                                + 1,
                        Durations.format(settings.outOfOrderness()),
                        settings.stateBackend(),
                        settings.parallelism(),
                        Durations.format(settings.checkpointInterval())));
        // The job's own defaults for what the demo does not set (servers: placeholders).
        JobConfig defaults =
                JobConfig.of(settings.jobOptions("localhost:9092", "http://localhost:8081"));
        say(
                String.format(
                        Locale.ROOT,
                        "  decision job   every transaction scored with its trailing %s, state"
                                + " backend hashmap, parallelism %d, checkpoints every %s,"
                                + " transaction scores %s (a JVM of its own, as ./fraud job"
                                + " runs it locally)",
                        Durations.format(defaults.trailingWindow()),
                        settings.parallelism(),
                        LocalSplit.DECISION_CHECKPOINT_INTERVAL,
                        defaults.transactionScoresDelivery()
                                .name()
                                .toLowerCase(Locale.ROOT)
                                .replace('_', '-')));
    }

    /**
     * Flink settings of the demo's MiniCluster on top of the job's own.
     *
     * <p>The periodic watermark interval is scaled down by the speedup (200 ms, Flink's default,
     * divided by it; at least 10 ms): at 60x, 200 ms of wall time would be 12 s of event time, so
     * the watermark would trail the traffic by far more than {@code --out-of-orderness} and hardly
     * any record could ever arrive late. Scaled, the job judges lateness as it would at real time.
     */
    static Configuration flinkSettings(int restPort, double speedup) {
        Configuration c = new Configuration();
        c.set(PipelineOptions.AUTO_WATERMARK_INTERVAL, watermarkInterval(speedup));
        c.set(RestOptions.ADDRESS, "localhost");
        c.set(RestOptions.BIND_ADDRESS, "localhost");
        c.set(RestOptions.PORT, restPort);
        c.set(RestOptions.BIND_PORT, Integer.toString(restPort));
        // Progress once a second: metrics (watermarks) and accumulators (counters, which travel
        // with the TaskManager's heartbeats) refresh every second instead of every ten.
        c.set(MetricOptions.METRIC_FETCHER_UPDATE_INTERVAL, Duration.ofMillis(500));
        c.set(HeartbeatManagerOptions.HEARTBEAT_INTERVAL, Duration.ofSeconds(1));
        return c;
    }

    static Duration watermarkInterval(double speedup) {
        long millis = Math.round(DEFAULT_WATERMARK_INTERVAL.toMillis() / Math.max(1, speedup));
        return Duration.ofMillis(Math.max(MIN_WATERMARK_INTERVAL.toMillis(), millis));
    }

    private void awaitRunning(JobClient client, FlinkRest rest) throws DemoFailure {
        CompletableFuture<JobExecutionResult> end = client.getJobExecutionResult();
        awaitTasksRunning(
                "the window job",
                () -> rest.allTasksRunning(client.getJobID()),
                () ->
                        end.isDone()
                                ? "the window job ended while starting: "
                                        + outcome(end)
                                        + " (see demo.log)"
                                : null,
                "demo.log");
    }

    /** What the two jobs left when they stopped: their savepoints, their final accumulators. */
    private record Stopped(
            String windowSavepoint, String decisionSavepoint, Map<String, Object> accumulators) {}

    /**
     * Stops both jobs at once with a drain and a savepoint each; returns when both have finished.
     */
    private Stopped stopWithSavepoints(JobClient client, DecisionJobProcess d) throws DemoFailure {
        CompletableFuture<DecisionJobMain.Result> decisionsStopped =
                CompletableFuture.supplyAsync(
                        () -> {
                            try {
                                return d.stopWithSavepoint(settings.savepointUri(), STOP_TIMEOUT);
                            } catch (Exception e) {
                                throw new CompletionException(e);
                            }
                        });
        String savepoint =
                attempt(
                        "stop-with-savepoint of the window job failed",
                        () ->
                                client.stopWithSavepoint(
                                                true,
                                                settings.savepointUri(),
                                                SavepointFormatType.CANONICAL)
                                        .get(STOP_TIMEOUT.toSeconds(), TimeUnit.SECONDS));
        JobExecutionResult result =
                attempt(
                        "the window job did not finish after its savepoint",
                        () ->
                                client.getJobExecutionResult()
                                        .get(STOP_TIMEOUT.toSeconds(), TimeUnit.SECONDS));
        DecisionJobMain.Result decided =
                attempt(
                        "stop-with-savepoint of the decision job failed (see "
                                + settings.decisionLogFile()
                                + ")",
                        () -> decisionsStopped.get(STOP_TIMEOUT.toSeconds(), TimeUnit.SECONDS));
        return new Stopped(
                savepoint,
                decided.savepoint(),
                merged(result.getAllAccumulatorResults(), decided.accumulators()));
    }

    /** Waits until the decision job was submitted and all its tasks run. */
    private void awaitRunning(DecisionJobProcess d) throws DemoFailure {
        awaitTasksRunning(
                "the decision job",
                () -> d.submitted() && d.rest().allTasksRunning(d.jobId()),
                () -> d.ended().isDone() ? decisionJobEnded("while starting", d) : null,
                settings.decisionLogFile().toString());
    }

    /**
     * Polls until {@code running} says every task of {@code job} runs; fails with what {@code
     * ended} says once it says something (the job ended), or after {@link #JOB_START_TIMEOUT}.
     */
    private void awaitTasksRunning(
            String job,
            Step<Boolean> running,
            java.util.function.Supplier<String> ended,
            String log)
            throws DemoFailure {
        long deadline = System.nanoTime() + JOB_START_TIMEOUT.toNanos();
        while (!attempt(job + "'s state is unreadable", running)) {
            String why = ended.get();
            if (why != null) {
                throw new DemoFailure(why, null);
            }
            if (System.nanoTime() > deadline) {
                throw new DemoFailure(
                        job
                                + "'s tasks were not all running after "
                                + Durations.format(JOB_START_TIMEOUT)
                                + " (see "
                                + log
                                + ")",
                        null);
            }
            pause(200);
        }
    }

    /** Both jobs' accumulators now, as one job's ({@link #merged}); throws when unavailable. */
    private static Map<String, Object> accumulatorsNow(JobClient client, DecisionJobProcess d)
            throws Exception {
        return merged(
                client.getAccumulators().get(2, TimeUnit.SECONDS),
                d.accumulators(Duration.ofSeconds(2)));
    }

    private String decisionJobEnded(String when, DecisionJobProcess d) {
        return String.format(
                Locale.ROOT,
                "the decision job's JVM (pid %d) ended %s, exit code %d (see %s and %s.out)",
                d.pid(),
                when,
                d.ended().join().exitValue(),
                settings.decisionLogFile(),
                settings.decisionLogFile().getFileName());
    }

    /** The window job's configuration: the demo's options, the window path only. */
    private static JobConfig windowConfig(Map<String, String> options) {
        Map<String, String> o = new java.util.LinkedHashMap<>(options);
        o.putAll(LocalSplit.windowOverrides());
        return JobConfig.of(o);
    }

    /** The decision job's options: the demo's, with the decision job's own ({@link LocalSplit}). */
    private static Map<String, String> decisionOptions(
            Map<String, String> options, JobConfig config) {
        Map<String, String> o = new java.util.LinkedHashMap<>(options);
        o.putAll(LocalSplit.decisionOverrides(config));
        JobConfig.of(o); // checked here, where a bad value is reported
        return o;
    }

    /**
     * The two jobs' accumulators as one job's: they have no name in common (the window path's
     * counters, the decision path's, each reader's positions).
     */
    static Map<String, Object> merged(Map<String, Object> windows, Map<String, Object> decisions) {
        Map<String, Object> m = new java.util.HashMap<>(windows);
        m.putAll(decisions);
        return m;
    }

    /** Waits for the traffic thread; fails if a job ends meanwhile (it never should). */
    private void awaitTraffic(Thread t, JobClient client, DecisionJobProcess d) throws DemoFailure {
        CompletableFuture<JobExecutionResult> end = client.getJobExecutionResult();
        while (t.isAlive()) {
            if (end.isDone()) {
                t.interrupt();
                throw new DemoFailure(
                        "the window job ended while traffic was published: "
                                + outcome(end)
                                + " (see demo.log)",
                        null);
            }
            if (d.ended().isDone()) {
                t.interrupt();
                throw new DemoFailure(decisionJobEnded("while traffic was published", d), null);
            }
            try {
                t.join(250);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new DemoFailure("interrupted", e);
            }
        }
    }

    /**
     * Before the drain: waits until both readers of the transactions topic (the window path's and
     * the per-transaction path's) have read everything Kafka acknowledged. A drain ends each
     * reader's stream where it stands, so a reader still behind (a window-close burst holds the
     * window path's source back) would leave records that the other path served out of its outputs
     * and the archive. If they do not catch up in time, says who is behind and drains anyway: the
     * parity check then names those records (NOT_YET_ARCHIVED, NOT_YET_SCORED).
     */
    private void awaitReaders(JobClient client, DecisionJobProcess d, DemoTraffic traffic)
            throws DemoFailure {
        TransactionPublisher.Result r = traffic.result();
        if (r == null) {
            return;
        }
        java.util.function.Supplier<ReadPositions> positions =
                () -> {
                    try {
                        return ReadPositions.ofAccumulators(accumulatorsNow(client, d));
                    } catch (InterruptedException e) {
                        Thread.currentThread().interrupt();
                        return ReadPositions.NONE;
                    } catch (Exception unavailable) {
                        return ReadPositions.NONE;
                    }
                };
        try {
            Duration waited =
                    DrainGate.await(
                            positions,
                            r.endOffsets(),
                            EnumSet.allOf(ReadPositions.Reader.class),
                            READERS_TIMEOUT);
            say(
                    String.format(
                            Locale.ROOT,
                            "  both readers (windows, decisions) have read every record published,"
                                    + " up to offsets %s; waited %s",
                            r.endOffsets(),
                            Progress.human(waited.toMillis())));
        } catch (DrainGate.NotCaughtUp e) {
            say("  WARNING: " + e.getMessage());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new DemoFailure("interrupted while waiting for the readers", e);
        }
    }

    private void published(DemoTraffic traffic) {
        TransactionPublisher.Result r = traffic.result();
        SimulationStats s = traffic.stats();
        say(
                String.format(
                        Locale.ROOT,
                        "Published %d records (%d malformed, %d future-dated, %d retries of a"
                                + " record, %d arriving hours late); Kafka acknowledged %d, failed"
                                + " %d",
                        traffic.sent(),
                        s.malformed(),
                        s.futureDated(),
                        s.duplicates(),
                        s.hoursLate(),
                        r == null ? 0 : r.acknowledged(),
                        r == null ? 0 : r.failed()));
    }

    /** The local runtime of the run: plaintext, or secured for the demo's job identity. */
    private LocalKafka.Settings kafkaSettings() {
        LocalKafka.Settings plain =
                LocalKafka.Settings.tiedToThisJvm(settings.kafkaDir(), DemoSettings.PARTITIONS);
        return settings.secure()
                ? plain.secured(
                        new LocalSecurity.JobIdentity(DemoSettings.JOB_ID, DemoSettings.JOB_ID))
                : plain;
    }

    private int keepRunning(JobClient client, DecisionJobProcess d, FlinkRest rest, LocalKafka k)
            throws DemoFailure {
        say("--keep-running: both jobs, Kafka and the schema registry keep running.");
        say("  Flink:     " + rest.base() + " (window job " + client.getJobID() + ")");
        say(
                "             "
                        + d.rest().base()
                        + " (decision job "
                        + d.jobId()
                        + ", JVM pid "
                        + d.pid()
                        + ")");
        say(
                "  Kafka:     --bootstrap-servers "
                        + k.bootstrapServers()
                        + " --schema-registry-url "
                        + k.schemaRegistryUrl());
        say(
                "  more traffic (event time must not run ahead of the wall clock):\n"
                        + "    ./fraud simulate --bootstrap-servers "
                        + k.bootstrapServers()
                        + " --schema-registry-url "
                        + k.schemaRegistryUrl()
                        + k.security()
                                .map(s -> " --kafka-config " + s.clientFile(LocalSecurity.PRODUCER))
                                .orElse("")
                        + " --users 50 --duration 10m --start \"$(date -u -d '-10 min'"
                        + " +%FT%TZ)\" --speedup 10");
        say(
                "  Both jobs live in this process and its child: stop everything with Ctrl-C here"
                        + " (both jobs are cancelled, Kafka and the registry stop; no parity run).");
        try {
            CompletableFuture.anyOf(client.getJobExecutionResult(), d.ended()).get();
            if (d.ended().isDone()) {
                throw new DemoFailure(decisionJobEnded("by itself", d), null);
            }
            throw new DemoFailure("the window job ended by itself (see demo.log)", null);
        } catch (ExecutionException e) {
            throw new DemoFailure("the window job failed: " + e.getCause() + " (see demo.log)", e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new DemoFailure("interrupted", e);
        }
    }

    /** Runs {@code ./fraud parity} over the archived days of the simulation, in this JVM. */
    private int parity(SimulationConfig simulation, JobConfig config) throws DemoFailure {
        List<LocalDate> days = archivedDays(simulation);
        if (days.isEmpty()) {
            throw new DemoFailure(
                    "the job archived no transactions and features under "
                            + settings.archiveDir()
                            + ": nothing to check",
                    null);
        }
        advise(simulation, config);
        List<String> args =
                new ArrayList<>(
                        List.of(
                                "--from",
                                days.get(0).toString(),
                                "--to",
                                days.get(days.size() - 1).toString(),
                                "--archive",
                                settings.archiveUri(),
                                "--report",
                                settings.reportDir().toString(),
                                "--window-size",
                                Durations.format(config.windowSize()),
                                "--future-tolerance",
                                Durations.format(config.futureTolerance()),
                                // The demo's traffic is anomaly-rich on purpose (1 % of records
                                // hours late): a short run explains a few percent of its windows
                                // as late, above the production default of 1 %.
                                "--max-mismatch-rate",
                                DEMO_MAX_MISMATCH_RATE,
                                // Scores at arrival: the job's trailing window and thresholds.
                                "--trailing-window",
                                Durations.format(config.trailingWindow()),
                                "--transaction-review-threshold",
                                Double.toString(config.transactionReviewThreshold()),
                                "--transaction-block-threshold",
                                Double.toString(config.transactionBlockThreshold()),
                                "--max-transaction-flipped-rate",
                                DEMO_MAX_TRANSACTION_FLIPPED_RATE,
                                "--parallelism",
                                Integer.toString(config.parallelism())));
        Path labels = settings.runDir().resolve(LABELS_FILE);
        if (Files.exists(labels)) {
            args.addAll(List.of("--labels", labels.toString()));
        }
        say("Running the parity check: ./fraud parity " + String.join(" ", args));
        StringWriter stdout = new StringWriter();
        StringWriter stderr = new StringWriter();
        CommandLine parity = ParityCommand.commandLine();
        parity.setOut(new PrintWriter(stdout, true));
        parity.setErr(new PrintWriter(stderr, true));
        int code = parity.execute(args.toArray(String[]::new));
        String summary = stdout.toString().strip();
        if (!summary.isEmpty()) {
            say("  " + summary);
        }
        if (!stderr.toString().isBlank()) {
            say("  " + stderr.toString().strip());
        }
        say(
                "  parity exit code "
                        + code
                        + (code == ParityCommand.EXIT_PASS
                                ? " (within thresholds)"
                                : code == ParityCommand.EXIT_SKEW
                                        ? " (skew over a threshold: see the report)"
                                        : " (bad input: the check could not run)"));
        say("  report: " + ParityRun.htmlReport(settings.reportDir()) + " (and report.json)");
        sayShadowComparison();
        return switch (code) {
            case ParityCommand.EXIT_PASS -> DemoCommand.EXIT_PASS;
            case ParityCommand.EXIT_SKEW -> DemoCommand.EXIT_SKEW;
            default -> DemoCommand.EXIT_FAILED;
        };
    }

    /**
     * Runs {@code ./fraud advise} in this JVM over the traffic the demo published, as simulated
     * ({@code traffic.jsonl} in the run directory: the records sent, with their simulated arrival
     * times), into the parity report's directory: before parity, so that {@code report.html} links
     * {@code advice.html}. Not over the archive: the demo publishes at {@code --speedup} times real
     * time, so the archive's arrival times (the broker's clock) are compressed that many times
     * against event time, and every delay and idleness would be wrong. Its exit code (1: no pair
     * meets the default targets) leaves the demo's alone; a failure is reported, not fatal.
     */
    private void advise(SimulationConfig simulation, JobConfig config) {
        Path traffic = settings.runDir().resolve(TRAFFIC_FILE);
        try {
            writeTraffic(simulation, traffic);
        } catch (IOException e) {
            say("  advice skipped: cannot write " + traffic + ": " + e.getMessage());
            return;
        }
        List<String> args =
                List.of(
                        "--transactions",
                        traffic.toString(),
                        "--window-size",
                        Durations.format(config.windowSize()),
                        "--future-tolerance",
                        Durations.format(config.futureTolerance()),
                        "--out-of-orderness",
                        Durations.format(config.outOfOrderness()),
                        "--allowed-lateness",
                        Durations.format(config.allowedLateness()),
                        "--out",
                        settings.reportDir().toString());
        say(
                "Advising on the watermark bound and allowed lateness from the traffic published:"
                        + " ./fraud advise "
                        + String.join(" ", args));
        StringWriter stdout = new StringWriter();
        StringWriter stderr = new StringWriter();
        CommandLine advise = AdviseCommand.commandLine();
        advise.setOut(new PrintWriter(stdout, true));
        advise.setErr(new PrintWriter(stderr, true));
        int code = advise.execute(args.toArray(String[]::new));
        stdout.toString().lines().findFirst().ifPresent(headline -> say("  " + headline));
        if (!stderr.toString().isBlank()) {
            say("  " + stderr.toString().strip());
        }
        if (code == AdviseCommand.EXIT_ADVICE || code == AdviseCommand.EXIT_NO_PAIR) {
            say(
                    "  advice: "
                            + settings.reportDir().resolve(AdviceFiles.HTML)
                            + " (and advice.json; the parity report links it)");
        }
    }

    /**
     * The records the demo published: those of the simulation that arrive before its end; and
     * beside them ({@link #LABELS_FILE}) the simulator's fraud label of each transaction id, what
     * the parity check prices skew and the challenger with.
     */
    private static void writeTraffic(SimulationConfig simulation, Path file) throws IOException {
        long end = simulation.end().toEpochMilli();
        try (java.io.Writer out =
                        Files.newBufferedWriter(file, java.nio.charset.StandardCharsets.UTF_8);
                java.io.Writer labels =
                        Files.newBufferedWriter(
                                file.resolveSibling(LABELS_FILE),
                                java.nio.charset.StandardCharsets.UTF_8)) {
            TransactionSimulator simulator = new TransactionSimulator(simulation);
            while (simulator.hasNext()) {
                SimulatedRecord r = simulator.next();
                if (r.arrivalTime().toEpochMilli() >= end) {
                    break;
                }
                out.write(r.jsonLine());
                out.write('\n');
                if (!r.retryCopy()) {
                    labels.write(org.fraudpipe.sim.LabelJson.toJsonLine(r.label()));
                    labels.write('\n');
                }
            }
        }
    }

    /** The fraud labels of the traffic published, in the run directory. */
    static final String LABELS_FILE = "traffic.labels.jsonl";

    /**
     * The UTC days, within the simulation, with archived transactions and features: the period of
     * the parity check.
     */
    private List<LocalDate> archivedDays(SimulationConfig simulation) {
        LocalDate first = LocalDate.ofInstant(simulation.start(), ZoneOffset.UTC);
        LocalDate last = LocalDate.ofInstant(simulation.end(), ZoneOffset.UTC);
        TreeSet<LocalDate> days = new TreeSet<>(dates(ArchiveStream.TRANSACTIONS));
        days.retainAll(dates(ArchiveStream.FEATURES));
        days.removeIf(d -> d.isBefore(first) || d.isAfter(last));
        return new ArrayList<>(days);
    }

    private List<LocalDate> dates(ArchiveStream stream) {
        Path dir = settings.archiveDir().resolve(stream.directory());
        if (!Files.isDirectory(dir)) {
            return List.of();
        }
        try (Stream<Path> children = Files.list(dir)) {
            return children.map(p -> p.getFileName().toString())
                    .filter(n -> n.startsWith("date="))
                    .map(n -> LocalDate.parse(n.substring("date=".length())))
                    .toList();
        } catch (IOException e) {
            throw new UncheckedIOException("cannot list " + dir, e);
        }
    }

    private void startProgress(
            JobClient client,
            DecisionJobProcess d,
            FlinkRest rest,
            DemoTraffic traffic,
            Instant publishing) {
        Progress progress = new Progress();
        ScheduledExecutorService t =
                Executors.newSingleThreadScheduledExecutor(
                        r -> {
                            Thread thread = new Thread(r, "fraud-demo-progress");
                            thread.setDaemon(true);
                            return thread;
                        });
        synchronized (this) {
            ticker = t;
        }
        t.scheduleAtFixedRate(
                () -> {
                    Map<String, Object> accumulators;
                    try {
                        accumulators = accumulatorsNow(client, d);
                    } catch (Exception notNow) {
                        return; // finishing or restarting: the next tick tries again
                    }
                    Progress.Counters c = Progress.Counters.of(accumulators);
                    double rate = progress.rate(System.nanoTime(), c.in());
                    status(
                            Progress.line(
                                    Progress.elapsed(Duration.between(publishing, Instant.now())),
                                    traffic.sent(),
                                    c,
                                    rate,
                                    rest.windowWatermark(client.getJobID()),
                                    traffic.clock(),
                                    settings.speedup()));
                },
                1,
                1,
                TimeUnit.SECONDS);
    }

    /**
     * Half-way through the traffic, publishes the shipped challengers and shadows the champions
     * with them ({@link DemoChallenger}), in a thread of its own; a failure is said, not fatal (the
     * demo's jobs and checks do not depend on it).
     */
    private void startChallenger(LocalKafka k) {
        List<String> connection =
                new ArrayList<>(
                        List.of(
                                "--bootstrap-servers",
                                k.bootstrapServers(),
                                "--schema-registry-url",
                                k.schemaRegistryUrl()));
        k.security()
                .ifPresent(
                        s ->
                                connection.addAll(
                                        List.of(
                                                "--kafka-config",
                                                s.clientFile(LocalSecurity.MODEL_PUBLISHER)
                                                        .toString())));
        Thread halfWay =
                new Thread(
                        () -> {
                            try {
                                Thread.sleep(settings.duration().toMillis() / 2);
                            } catch (InterruptedException e) {
                                return;
                            }
                            say(
                                    "Half-way: shipping next week's models as challengers (./fraud"
                                            + " model publish, then shadow): scored beside the"
                                            + " champions from +"
                                            + DemoChallenger.LEAD
                                            + ", never deciding; the parity report compares them");
                            try {
                                challengers =
                                        DemoChallenger.publishAndShadow(
                                                settings.runDir().resolve("challenger"),
                                                connection,
                                                this::say);
                            } catch (Exception e) {
                                say("  the challengers were not shipped: " + e.getMessage());
                            }
                        },
                        "fraud-demo-challenger");
        halfWay.setDaemon(true);
        halfWay.start();
    }

    private volatile List<String> challengers = List.of();

    /**
     * The champion-against-challenger rows of the parity report (transactions and windows), one
     * line each: how the challengers shipped half-way compare.
     */
    private void sayShadowComparison() {
        Path json = settings.reportDir().resolve(org.fraudpipe.parity.report.ReportFiles.JSON);
        if (challengers.isEmpty() || !Files.exists(json)) {
            return;
        }
        try {
            com.fasterxml.jackson.databind.JsonNode report =
                    org.fraudpipe.parity.report.ReportJson.read(Files.readString(json));
            sayShadowRows("transactions", report.path("transactions").path("scoreSkew"));
            sayShadowRows("windows", report.path("scoreSkew"));
        } catch (IOException | RuntimeException e) {
            say("  (the report's comparison could not be read: " + e.getMessage() + ")");
        }
    }

    private void sayShadowRows(String what, com.fasterxml.jackson.databind.JsonNode skew) {
        com.fasterxml.jackson.databind.JsonNode rows = skew.path("shadow");
        if (rows.isEmpty()) {
            say(
                    "  champion against challenger, "
                            + what
                            + ": none scored by both"
                            + (what.equals("windows")
                                    ? " (a pane switches with its window's start in event time:"
                                            + " the demo's windows all started before the"
                                            + " challenger's effective time)"
                                    : ""));
            return;
        }
        for (com.fasterxml.jackson.databind.JsonNode r : rows) {
            say(
                    String.format(
                            Locale.ROOT,
                            "  champion %s against challenger %s, %s: %d scored by both, mean"
                                    + " |difference| %.4f (max %.4f), %d decisions would flip %s%s",
                            r.path("champion").asText(),
                            r.path("challenger").asText(),
                            what,
                            r.path("scored").asLong(),
                            r.path("meanAbsDelta").asDouble(),
                            r.path("maxAbsDelta").asDouble(),
                            r.path("flippedDecisions").asLong(),
                            r.path("flips").toString(),
                            r.path("labelledFraudulent").asLong() == 0
                                    ? ""
                                    : String.format(
                                            Locale.ROOT,
                                            "; of %d frauds the champion allowed %d, the"
                                                    + " challenger would have allowed %d",
                                            r.path("labelledFraudulent").asLong(),
                                            r.path("fraudsAllowedByChampion").asLong(),
                                            r.path("fraudsAllowedByChallenger").asLong())));
        }
    }

    private void stopProgress() {
        ScheduledExecutorService t;
        synchronized (this) {
            t = ticker;
            ticker = null;
        }
        if (t != null) {
            t.shutdownNow();
            try {
                t.awaitTermination(5, TimeUnit.SECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
    }

    private void stopKafka() {
        LocalKafka k;
        synchronized (this) {
            k = kafka;
            kafka = null;
        }
        if (k != null) {
            k.close();
        }
    }

    /** Ctrl-C or kill: stop everything the demo started, and say so. */
    private void onShutdown() {
        synchronized (this) {
            if (stopped) {
                return;
            }
        }
        interrupted = true;
        say("");
        say("Interrupted: cancelling both jobs, stopping Kafka and the schema registry...");
        long[] pids = pids();
        stopAll();
        List<Long> alive = alive(pids);
        say(
                alive.isEmpty()
                        ? "Stopped; nothing left running. Run directory: " + settings.runDir()
                        : "Could not stop pids " + alive + ": kill them by hand");
    }

    private synchronized long[] pids() {
        return new long[] {
            kafka == null ? -1 : kafka.brokerPid(),
            kafka == null ? -1 : kafka.registryPid(),
            decisions == null ? -1 : decisions.pid(),
            objectStore == null ? -1 : objectStore.pid()
        };
    }

    /** Stops whatever still runs: progress, traffic, both jobs (cancel), Kafka. Once. */
    private void stopAll() {
        Thread traffic;
        JobClient client;
        DecisionJobProcess d;
        synchronized (this) {
            if (stopped) {
                return;
            }
            stopped = true;
            traffic = trafficThread;
            client = job;
            d = decisions;
        }
        stopProgress();
        if (traffic != null) {
            traffic.interrupt();
        }
        CompletableFuture<Void> decisionsCancelled =
                d == null
                        ? CompletableFuture.completedFuture(null)
                        : CompletableFuture.runAsync(() -> d.cancel(CANCEL_TIMEOUT));
        if (client != null) {
            CompletableFuture<JobExecutionResult> end = client.getJobExecutionResult();
            if (!end.isDone()) {
                try {
                    client.cancel().get(CANCEL_TIMEOUT.toSeconds(), TimeUnit.SECONDS);
                    end.get(CANCEL_TIMEOUT.toSeconds(), TimeUnit.SECONDS);
                } catch (Exception cancelledOrGone) {
                    // the job ends (cancelled) or its MiniCluster is gone with this JVM
                }
            }
        }
        decisionsCancelled.join(); // the decision job's JVM has exited: nothing left of it
        try {
            stopKafka();
        } catch (RuntimeException e) {
            say("could not stop Kafka or the schema registry: " + e.getMessage());
        }
        try {
            stopObjectStore();
        } catch (RuntimeException e) {
            say("could not stop the object store: " + e.getMessage());
        }
    }

    /**
     * With {@code --object-store}: starts the local object store (tied to this JVM) and sets up
     * this JVM's Flink file systems to reach it ({@code s3p://}, {@code s3a://}), as {@code
     * FLINK_CONF_DIR} does for {@code ./fraud job}.
     */
    private void startObjectStore() throws DemoFailure {
        if (!settings.objectStore()) {
            return;
        }
        say(
                "Starting the object store (S3Proxy, as ./fraud s3) for the checkpoints, savepoints"
                        + " and the archive...");
        long t = System.nanoTime();
        LocalObjectStore.State state =
                attempt(
                        "the object store did not start (see "
                                + settings.objectStoreDir().resolve(LocalObjectStore.LOG_FILE)
                                + ")",
                        () ->
                                LocalObjectStore.start(
                                        new LocalObjectStore.Settings(
                                                settings.objectStoreDir(),
                                                0,
                                                LocalObjectStore.DEFAULT_BUCKET,
                                                true,
                                                Duration.ofSeconds(60)),
                                        LocalObjectStore.homeFromSystemProperty()));
        synchronized (this) {
            objectStore = state;
        }
        JobEnvironment.initializeFileSystems(objectStoreEnvironment().get(FLINK_CONF_DIR));
        say(
                String.format(
                        Locale.ROOT,
                        "  object store %s (pid %d): checkpoints %s, savepoints %s, archive %s;"
                                + " ready in %s",
                        state.endpoint(),
                        state.pid(),
                        settings.checkpointUri(),
                        settings.savepointUri(),
                        settings.archiveUri(),
                        since(t)));
    }

    /** What the decision job's JVM needs to reach the object store (nothing without one). */
    private Map<String, String> objectStoreEnvironment() {
        return settings.objectStore()
                ? Map.of(
                        FLINK_CONF_DIR,
                        LocalObjectStore.flinkConfDir(settings.objectStoreDir()).toString())
                : Map.of();
    }

    private static final String FLINK_CONF_DIR = "FLINK_CONF_DIR";

    /** Stops the object store if it runs; its pid, or -1. */
    private long stopObjectStore() {
        LocalObjectStore.State state;
        synchronized (this) {
            state = objectStore;
            objectStore = null;
        }
        if (state == null) {
            return -1;
        }
        LocalObjectStore.stop(settings.objectStoreDir(), Duration.ofSeconds(5));
        return state.pid();
    }

    private static List<Long> alive(long... pids) {
        List<Long> alive = new ArrayList<>();
        for (long pid : pids) {
            if (pid > 0 && ProcessHandle.of(pid).map(ProcessHandle::isAlive).orElse(false)) {
                alive.add(pid);
            }
        }
        return alive;
    }

    /**
     * A message line (below the progress block, which the next update draws afresh). Once the JVM
     * shuts down (Ctrl-C) only the shutdown hook speaks: whatever the main path would say then is
     * an effect of the shutdown.
     */
    private synchronized void say(String message) {
        if (interrupted && Thread.currentThread() != hookThread) {
            return;
        }
        drawnLines = 0;
        out.println(message);
        out.flush();
    }

    /**
     * A progress update: on a terminal the previous block is redrawn in place (three short lines);
     * otherwise one line per update.
     */
    private synchronized void status(String line) {
        if (stopped) {
            return;
        }
        if (!tty) {
            out.println(line);
            out.flush();
            return;
        }
        String[] fields = line.split(" \\| ");
        List<String> block =
                List.of(
                        String.join("   ", List.of(fields).subList(0, 4)),
                        "      " + String.join("   ", List.of(fields).subList(4, 9)),
                        "      " + fields[9]);
        StringBuilder b = new StringBuilder();
        if (drawnLines > 0) {
            b.append("\033[").append(drawnLines).append('A');
        }
        for (String l : block) {
            b.append('\r').append(l).append("\033[K\n");
        }
        out.print(b);
        out.flush();
        drawnLines = block.size();
    }

    private static String since(long nanoTime) {
        return String.format(Locale.ROOT, "%.1f s", (System.nanoTime() - nanoTime) / 1e9);
    }

    private static String outcome(CompletableFuture<JobExecutionResult> end) {
        try {
            end.getNow(null);
            return "finished";
        } catch (Exception e) {
            Throwable t = e;
            while (t.getCause() != null && t.getCause() != t) {
                t = t.getCause();
            }
            return t.toString();
        }
    }

    /** A step that may fail, and what to say if it does. */
    private interface Step<T> {
        T run() throws Exception;
    }

    private <T> T attempt(String what, Step<T> step) throws DemoFailure {
        try {
            return step.run();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new DemoFailure(what + ": interrupted", e);
        } catch (ExecutionException e) {
            throw new DemoFailure(what + ": " + root(e), e);
        } catch (TimeoutException e) {
            throw new DemoFailure(what + ": timed out", e);
        } catch (Exception e) {
            throw new DemoFailure(what + ": " + e.getMessage(), e);
        }
    }

    private static String root(Throwable e) {
        Throwable t = e;
        while (t.getCause() != null && t.getCause() != t) {
            t = t.getCause();
        }
        return t.toString();
    }

    static int freePort() {
        try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            return s.getLocalPort();
        } catch (IOException e) {
            throw new UncheckedIOException("no free local port", e);
        }
    }

    private static void pause(long millis) throws DemoFailure {
        try {
            Thread.sleep(millis);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new DemoFailure("interrupted", e);
        }
    }

    private static String number(double d) {
        return d == Math.rint(d)
                ? Long.toString((long) d)
                : String.format(Locale.ROOT, "%s", d).replaceAll("0+$", "");
    }

    private static void deleteQuietly(Path dir) {
        if (!Files.exists(dir)) {
            return;
        }
        try (Stream<Path> all = Files.walk(dir)) {
            all.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
        } catch (IOException | UncheckedIOException e) {
            // kept: only disk space is at stake
        }
    }
}
