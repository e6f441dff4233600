package org.fraudpipe.tools.rehearsal;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.time.Instant;
import java.time.LocalDate;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.function.BooleanSupplier;
import java.util.stream.Stream;
import org.apache.flink.api.common.JobID;
import org.fraudpipe.job.cli.LocalSplit;
import org.fraudpipe.job.config.JobConfig;
import org.fraudpipe.job.config.JobOption;
import org.fraudpipe.job.position.DrainGate;
import org.fraudpipe.job.position.ReadPositions;
import org.fraudpipe.local.BrokerRuntime;
import org.fraudpipe.local.LocalKafka;
import org.fraudpipe.local.LocalKafkaBroker;
import org.fraudpipe.local.LocalObjectStore;
import org.fraudpipe.local.LocalSecurity;
import org.fraudpipe.parity.cli.ParityCommand;
import org.fraudpipe.sim.SimulationConfig;
import org.fraudpipe.sim.SimulationStats;
import org.fraudpipe.sim.TransactionPublisher;
import org.fraudpipe.tools.demo.DemoSettings;
import org.fraudpipe.tools.demo.DemoTraffic;
import org.fraudpipe.tools.demo.FlinkRest;
import org.fraudpipe.tools.soak.SoakChecker;
import org.fraudpipe.tools.soak.SoakStorage;

/**
 * One production rehearsal ({@code ./fraud rehearsal}, {@code deploy/rehearsal.sh}): the pipeline
 * as a bank's platform team would first run it, every part a separate process and real.
 *
 * <ol>
 *   <li>a local S3 server (checkpoints and savepoints on {@code s3p://}, the archive on {@code
 *       s3a://}), the secured broker (SASL_SSL, SCRAM, ACLs) and the HTTPS registry with basic
 *       auth;
 *   <li>a Flink session cluster of a JobManager and two TaskManager processes, the two jobs of the
 *       product submitted with {@code flink run} (the window job and the decision job), the Kafka
 *       secrets given as DEPLOY says ({@code --kafka-config}, a file; none on a command line);
 *   <li>the simulator's hostile traffic (late, hours-late, duplicate, future-dated, malformed);
 *   <li>the TaskManager running most tasks killed ({@code SIGKILL}) and started again, as a
 *       supervisor would: both jobs must come back from their last {@code s3p://} checkpoint;
 *   <li>each job stopped with a savepoint to {@code s3p://} and restored from it at another
 *       parallelism, while traffic still flows;
 *   <li>after the traffic: both jobs drained, then judged from outside: the soak's checker (every
 *       valid arrival answered and never changed, revisions increasing, dead letters, quarantine
 *       and archive exact, read as {@code read_committed}) and {@code ./fraud parity} over the
 *       {@code s3a://} archive with the served values read from the topics ({@code --served-from
 *       kafka}): what {@code read_committed} readers hold equals what the job's rules recompute
 *       from the archived input;
 *   <li>no password or key in the console, the cluster's logs, Flink's REST answers, the archive or
 *       the savepoints.
 * </ol>
 *
 * Everything it started is stopped at the end, also on a failure or an interrupt.
 */
final class RehearsalRun {

    static final int PASS = 0;
    static final int FAIL = 1;
    static final int FAILED = 3;

    private static final Duration START_TIMEOUT = Duration.ofMinutes(3);
    private static final Duration RECOVERY_TIMEOUT = Duration.ofMinutes(4);
    private static final Duration READERS_TIMEOUT = Duration.ofMinutes(4);
    private static final Duration POLL = Duration.ofMillis(200);
    private static final int SLOTS_PER_TASK_MANAGER = 3;

    /** What the rehearsal is asked to do. */
    record Settings(
            Path dir,
            int users,
            Duration duration,
            double speedup,
            long seed,
            int taskManagers,
            int parallelism,
            int restoreParallelism,
            Path home) {}

    private final Settings settings;
    private final PrintStream out;
    private final Map<String, Object> figures = new LinkedHashMap<>();
    private final List<String> failures = new ArrayList<>();
    private final StringBuilder console = new StringBuilder();
    private SimulationConfig simulation;

    RehearsalRun(Settings settings, PrintStream out) {
        this.settings = settings;
        this.out = out;
    }

    int run() throws Exception {
        Path runDir = settings.dir().toAbsolutePath();
        Files.createDirectories(runDir);
        DemoSettings traffic =
                new DemoSettings(
                        settings.users(),
                        settings.duration(),
                        settings.speedup(),
                        300,
                        settings.seed(),
                        Duration.ofMinutes(1),
                        Duration.ofMinutes(30),
                        Duration.ofSeconds(2),
                        "rocksdb",
                        settings.parallelism(),
                        Duration.ofSeconds(5),
                        0,
                        runDir,
                        false,
                        true,
                        true);
        Instant began = Instant.now();
        say("Production rehearsal in " + runDir);
        Path storeDir = runDir.resolve("s3");
        say("Starting the object store (S3Proxy, a JVM of its own)...");
        try (SoakStorage storage = SoakStorage.objectStore(storeDir)) {
            say("  checkpoints " + storage.checkpointUri() + ", archive " + storage.archiveUri());
            say("Starting the secured broker and the HTTPS schema registry...");
            try (LocalKafka kafka =
                    LocalKafka.start(
                            LocalKafka.Settings.tiedToThisJvm(
                                            runDir.resolve("kafka"), DemoSettings.PARTITIONS)
                                    .secured(
                                            new LocalSecurity.JobIdentity(
                                                    DemoSettings.JOB_ID, DemoSettings.JOB_ID)),
                            BrokerRuntime.fromSystemProperty())) {
                LocalSecurity security = kafka.security().orElseThrow();
                say(
                        "  "
                                + kafka.bootstrapServers()
                                + " (SASL_SSL, SCRAM-SHA-512, ACLs), "
                                + kafka.schemaRegistryUrl()
                                + " (basic auth)");
                Path extraConf = clusterConfiguration(runDir, storeDir);
                int[] ports = LocalKafkaBroker.freePorts(2);
                say(
                        "Starting the Flink session cluster: a JobManager and "
                                + settings.taskManagers()
                                + " TaskManager processes of "
                                + SLOTS_PER_TASK_MANAGER
                                + " slots...");
                try (SessionCluster cluster =
                        SessionCluster.start(
                                settings.home().resolve("deploy/flink-session/flink-session.sh"),
                                runDir.resolve("flink"),
                                settings.taskManagers(),
                                SLOTS_PER_TASK_MANAGER,
                                extraConf,
                                LocalObjectStore.pluginsDir(
                                        LocalObjectStore.homeFromSystemProperty()),
                                ports[0],
                                ports[1])) {
                    say("  REST " + cluster.rest() + ", logs " + cluster.logDir());
                    rehearse(traffic, storage, kafka, security, cluster);
                    scanForSecrets(security, storeDir, cluster, runDir);
                }
            }
        } finally {
            figures.put("seconds", Duration.between(began, Instant.now()).toSeconds());
            figures.put("failures", failures);
            Files.writeString(
                    runDir.resolve("rehearsal.json"),
                    new ObjectMapper()
                            .enable(SerializationFeature.INDENT_OUTPUT)
                            .writeValueAsString(figures));
            Files.writeString(runDir.resolve("console.txt"), console.toString());
        }
        say(
                failures.isEmpty()
                        ? "REHEARSAL PASSED in " + figures.get("seconds") + " s"
                        : "REHEARSAL FAILED: " + String.join("; ", failures));
        say("Figures: " + runDir.resolve("rehearsal.json"));
        return failures.isEmpty() ? PASS : FAIL;
    }

    private void rehearse(
            DemoSettings traffic,
            SoakStorage storage,
            LocalKafka kafka,
            LocalSecurity security,
            SessionCluster cluster)
            throws Exception {
        FlinkRest rest = new FlinkRest(cluster.rest());
        Path jar = jobJar();
        Map<String, String> options =
                traffic.jobOptions(
                        kafka.bootstrapServers(),
                        kafka.schemaRegistryUrl(),
                        security.clientFile(LocalSecurity.FEATURE_JOB));
        Map<String, String> windowOptions = new LinkedHashMap<>(options);
        windowOptions.putAll(LocalSplit.windowOverrides());
        Map<String, String> decisionOptions = new LinkedHashMap<>(options);
        decisionOptions.putAll(LocalSplit.decisionOverrides(JobConfig.of(options)));
        JobConfig config = JobConfig.of(windowOptions);

        say("Submitting both jobs with flink run (" + jar.getFileName() + ")...");
        JobID windows = cluster.submit(jar, arguments(windowOptions));
        JobID decisions = cluster.submit(jar, arguments(decisionOptions));
        say("  window job " + windows + ", decision job " + decisions);
        awaitRunning(rest, windows, "the window job");
        awaitRunning(rest, decisions, "the decision job");

        simulation = traffic.simulation(Instant.now());
        DemoTraffic publisher =
                new DemoTraffic(
                        simulation,
                        kafka.bootstrapServers(),
                        kafka.schemaRegistryUrl(),
                        security.client(LocalSecurity.PRODUCER),
                        traffic.speedup());
        Thread trafficThread = new Thread(publisher, "rehearsal-traffic");
        trafficThread.setDaemon(true);
        say(
                "Publishing "
                        + traffic.duration().toSeconds()
                        + " s of traffic as the producer principal ("
                        + traffic.users()
                        + " users; late, hours-late, duplicate, future-dated and malformed"
                        + " records)...");
        trafficThread.start();
        try {
            // A checkpoint of each job that holds traffic, before the crash.
            await(
                    "a checkpoint of each job after traffic started",
                    START_TIMEOUT,
                    () ->
                            completed(rest, windows) >= 2
                                    && completed(rest, decisions) >= 1
                                    && publisher.sent() > 0);

            crashATaskManager(rest, cluster, windows, decisions);
            JobID[] rescaled = rescale(rest, cluster, traffic, jar, windowOptions, decisionOptions);

            trafficThread.join();
            if (publisher.failure() != null) {
                throw new IllegalStateException("publishing failed", publisher.failure());
            }
            published(publisher);
            awaitReaders(rest, rescaled[0], rescaled[1], publisher.result());
            say("Stopping both jobs with a drain and a final savepoint each...");
            figures.put(
                    "finalSavepoints",
                    List.of(
                            cluster.stopWithSavepoint(rescaled[0], traffic.savepointUri(), true),
                            cluster.stopWithSavepoint(rescaled[1], traffic.savepointUri(), true)));
        } finally {
            trafficThread.interrupt();
        }
        judge(traffic, storage, kafka, security, config);
    }

    /** Kills the TaskManager running most tasks, starts it again, waits for both jobs. */
    private void crashATaskManager(
            FlinkRest rest, SessionCluster cluster, JobID windows, JobID decisions)
            throws Exception {
        int victim = busiestTaskManager(rest);
        long before = System.currentTimeMillis();
        say(
                "Killing taskmanager-"
                        + victim
                        + " (SIGKILL; it runs the most tasks) and starting it again, as a"
                        + " supervisor would...");
        cluster.kill("taskmanager-" + victim);
        cluster.startTaskManager(victim);
        Map<String, Object> recovery = new LinkedHashMap<>();
        recovery.put("taskManager", "taskmanager-" + victim);
        for (JobID job : List.of(windows, decisions)) {
            String name = job.equals(windows) ? "windows" : "decisions";
            await(
                    name + " job running again from a checkpoint",
                    RECOVERY_TIMEOUT,
                    () ->
                            rest.allTasksRunning(job)
                                    && rest.checkpoints(job)
                                            .filter(c -> c.restoredAt() >= before)
                                            .isPresent());
            long millis = System.currentTimeMillis() - before;
            FlinkRest.CheckpointStats c = rest.checkpoints(job).orElseThrow();
            String path = c.restoredPath().orElse("?");
            say(
                    String.format(
                            Locale.ROOT,
                            "  the %s job runs again %.1f s after the kill, restored from %s",
                            name,
                            millis / 1000.0,
                            path));
            if (!path.startsWith("s3p://") || c.restoredSavepoint()) {
                failures.add("the " + name + " job did not restore an s3p:// checkpoint: " + path);
            }
            recovery.put(name + "Seconds", millis / 1000.0);
            recovery.put(name + "RestoredFrom", path);
        }
        figures.put("taskManagerKill", recovery);
    }

    /**
     * Stops each job with a savepoint and starts it from it at the other parallelism: the new ids
     * (windows, decisions).
     */
    private JobID[] rescale(
            FlinkRest rest,
            SessionCluster cluster,
            DemoSettings traffic,
            Path jar,
            Map<String, String> windowOptions,
            Map<String, String> decisionOptions)
            throws Exception {
        List<Map<String, Object>> rescales = new ArrayList<>();
        JobID[] jobs = new JobID[2];
        int i = 0;
        for (Map<String, String> options : List.of(windowOptions, decisionOptions)) {
            String name = i == 0 ? "windows" : "decisions";
            JobID running = runningJob(rest, name);
            long t0 = System.currentTimeMillis();
            String savepoint = cluster.stopWithSavepoint(running, traffic.savepointUri(), false);
            long bytes = sizeOf(traffic, savepoint);
            Map<String, String> restored = new LinkedHashMap<>(options);
            restored.put(
                    JobOption.PARALLELISM.key(), Integer.toString(settings.restoreParallelism()));
            JobID job = cluster.submit(savepoint, jar, arguments(restored));
            awaitRunning(rest, job, "the " + name + " job restored from " + savepoint);
            long millis = System.currentTimeMillis() - t0;
            say(
                    String.format(
                            Locale.ROOT,
                            "  the %s job: savepoint %s (%,d bytes), restored at parallelism %d"
                                    + " -> %d, running again after %.1f s",
                            name,
                            savepoint,
                            bytes,
                            settings.parallelism(),
                            settings.restoreParallelism(),
                            millis / 1000.0));
            rescales.add(
                    Map.of(
                            "job",
                            name,
                            "savepoint",
                            savepoint,
                            "bytes",
                            bytes,
                            "from",
                            settings.parallelism(),
                            "to",
                            settings.restoreParallelism(),
                            "seconds",
                            millis / 1000.0));
            jobs[i++] = job;
        }
        figures.put("savepointRestores", rescales);
        return jobs;
    }

    private void judge(
            DemoSettings traffic,
            SoakStorage storage,
            LocalKafka kafka,
            LocalSecurity security,
            JobConfig config)
            throws IOException {
        say("Checking from outside, as the admin principal (read_committed)...");
        SoakChecker.Verdict verdict =
                new SoakChecker(
                                kafka.bootstrapServers(),
                                kafka.schemaRegistryUrl(),
                                security.client(LocalSecurity.ADMIN),
                                storage.archiveFiles(),
                                config.futureTolerance())
                        .check();
        figures.put("checker", verdict.counts());
        say("  " + verdict.counts());
        for (SoakChecker.Finding f : verdict.findings()) {
            failures.add(f.kind() + " x" + f.count() + " " + f.examples());
            say("  FINDING " + f.kind() + " x" + f.count() + ": " + f.examples());
        }
        int parity = parity(traffic, storage, kafka, security);
        figures.put("parityExit", parity);
        if (parity != 0) {
            failures.add("parity exited " + parity + " (report in " + traffic.reportDir() + ")");
        }
    }

    /** {@code ./fraud parity} over the s3a:// archive, served values from the topics. */
    private int parity(
            DemoSettings traffic, SoakStorage storage, LocalKafka kafka, LocalSecurity security) {
        LocalDate first = LocalDate.ofInstant(simulation.start(), ZoneOffset.UTC);
        List<String> args =
                List.of(
                        "--from",
                        first.toString(),
                        "--to",
                        LocalDate.now(ZoneOffset.UTC).toString(),
                        "--archive",
                        storage.archiveUri(),
                        "--report",
                        traffic.reportDir().toString(),
                        "--window-size",
                        "1m",
                        "--trailing-window",
                        "1m",
                        "--max-mismatch-rate",
                        "0.05",
                        "--max-transaction-flipped-rate",
                        "0.01",
                        "--served-from",
                        "kafka",
                        "--bootstrap-servers",
                        kafka.bootstrapServers(),
                        "--schema-registry-url",
                        kafka.schemaRegistryUrl(),
                        "--kafka-config",
                        security.clientFile(LocalSecurity.ADMIN).toString(),
                        "--parallelism",
                        "2");
        say("Running ./fraud parity " + String.join(" ", args));
        return ParityCommand.runHere(args, line -> say("  " + line));
    }

    /**
     * No generated password, nor the store's secret key, in what an operator or an attacker with
     * read access to logs, outputs or the REST API would see: this run's console, the cluster's
     * logs and command outputs, Flink's REST answers, the archive, checkpoints and savepoints. Not
     * scanned: the files that hold them by design (the client properties files, the broker's and
     * the cluster's configuration) and the JobManager's blob store, which holds the job graph and
     * with it the Kafka client settings (DEPLOY, "Secured Kafka and registry").
     */
    private void scanForSecrets(
            LocalSecurity security, Path storeDir, SessionCluster cluster, Path runDir)
            throws IOException {
        List<String> secrets = new ArrayList<>(security.secrets());
        secrets.add(LocalObjectStore.credentials(storeDir).secretKey());
        FlinkRest rest = new FlinkRest(cluster.rest());
        StringBuilder seen = new StringBuilder(console);
        for (String path : List.of("/jobmanager/config", "/taskmanagers", "/jobs/overview")) {
            rest.body(path).ifPresent(seen::append);
        }
        rest.body("/jobs/overview")
                .ifPresent(
                        body -> {
                            try {
                                for (JsonNode j : new ObjectMapper().readTree(body).path("jobs")) {
                                    rest.body("/jobs/" + j.path("jid").asText() + "/config")
                                            .ifPresent(seen::append);
                                }
                            } catch (IOException e) {
                                failures.add("Flink's REST API answered no job list: " + e);
                            }
                        });
        long files = 0;
        List<String> leaks = new ArrayList<>();
        for (Path root :
                List.of(
                        cluster.logDir(),
                        cluster.log(),
                        LocalObjectStore.objectFiles(storeDir, LocalObjectStore.DEFAULT_BUCKET))) {
            if (!Files.exists(root)) {
                continue;
            }
            try (Stream<Path> all = Files.walk(root)) {
                for (Path f : all.filter(Files::isRegularFile).toList()) {
                    files++;
                    String content = new String(Files.readAllBytes(f), StandardCharsets.ISO_8859_1);
                    for (String s : secrets) {
                        if (content.contains(s)) {
                            leaks.add(runDir.relativize(f).toString());
                        }
                    }
                }
            }
        }
        for (String s : secrets) {
            if (seen.indexOf(s) >= 0) {
                leaks.add("the console or Flink's REST API");
            }
        }
        figures.put("secretScan", Map.of("secrets", secrets.size(), "files", files));
        say(
                String.format(
                        Locale.ROOT,
                        "Secrets: none of %d passwords and keys in the console, Flink's REST"
                                + " answers or %,d files (logs, archive, checkpoints, savepoints)%s",
                        secrets.size(),
                        files,
                        leaks.isEmpty() ? "" : ": LEAKED in " + leaks));
        if (!leaks.isEmpty()) {
            failures.add("a secret shows in " + leaks);
        }
    }

    private void awaitReaders(
            FlinkRest rest, JobID windows, JobID decisions, TransactionPublisher.Result published)
            throws Exception {
        Duration waited =
                DrainGate.await(
                        () -> {
                            Map<String, Object> all =
                                    new LinkedHashMap<>(rest.accumulators(windows));
                            all.putAll(rest.accumulators(decisions));
                            return ReadPositions.ofAccumulators(all);
                        },
                        published.endOffsets(),
                        EnumSet.allOf(ReadPositions.Reader.class),
                        READERS_TIMEOUT);
        say("  both jobs have read every record published; waited " + waited.toMillis() + " ms");
    }

    private void published(DemoTraffic publisher) {
        TransactionPublisher.Result r = publisher.result();
        SimulationStats s = publisher.stats();
        Map<String, Object> p = new LinkedHashMap<>();
        p.put("sent", publisher.sent());
        p.put("acknowledged", r.acknowledged());
        p.put("failed", r.failed());
        p.put("malformed", s.malformed());
        p.put("futureDated", s.futureDated());
        p.put("duplicates", s.duplicates());
        p.put("hoursLate", s.hoursLate());
        figures.put("published", p);
        say("Published " + p);
        if (r.failed() > 0) {
            failures.add(r.failed() + " records were not acknowledged by Kafka");
        }
    }

    /** The TaskManager with the fewest free slots (the most tasks): its number N. */
    private static int busiestTaskManager(FlinkRest rest) throws IOException {
        JsonNode tms =
                new ObjectMapper()
                        .readTree(rest.body("/taskmanagers").orElseThrow())
                        .path("taskmanagers");
        int best = -1;
        int bestFree = Integer.MAX_VALUE;
        for (JsonNode tm : tms) {
            String id = tm.path("id").asText(); // taskmanager-N-<start second>
            int free = tm.path("freeSlots").asInt();
            if (id.startsWith("taskmanager-") && free < bestFree) {
                bestFree = free;
                best = Integer.parseInt(id.split("-")[1]);
            }
        }
        if (best < 0) {
            throw new IOException("no TaskManager of this session in /taskmanagers: " + tms);
        }
        return best;
    }

    /** The one running job whose name ends with the path's name ("windows", "decisions"). */
    private static JobID runningJob(FlinkRest rest, String path) throws IOException {
        for (JsonNode j :
                new ObjectMapper()
                        .readTree(rest.body("/jobs/overview").orElseThrow())
                        .path("jobs")) {
            if ("RUNNING".equals(j.path("state").asText())
                    && j.path("name").asText().endsWith("(" + path + ")")) {
                return JobID.fromHexString(j.path("jid").asText());
            }
        }
        throw new IOException("no running " + path + " job in /jobs/overview");
    }

    private static long completed(FlinkRest rest, JobID job) {
        return rest.checkpoints(job).map(FlinkRest.CheckpointStats::completed).orElse(0L);
    }

    private void awaitRunning(FlinkRest rest, JobID job, String what) throws Exception {
        await(what + " running", START_TIMEOUT, () -> rest.allTasksRunning(job));
    }

    private static void await(String what, Duration timeout, BooleanSupplier condition)
            throws Exception {
        long deadline = System.nanoTime() + timeout.toNanos();
        while (!condition.getAsBoolean()) {
            if (System.nanoTime() > deadline) {
                throw new IllegalStateException(
                        "not within " + timeout.toSeconds() + " s: " + what);
            }
            Thread.sleep(POLL.toMillis());
        }
    }

    /** The bytes of a savepoint's objects (each a file of the store). */
    private static long sizeOf(DemoSettings traffic, String savepoint) throws IOException {
        String name = savepoint.substring(savepoint.lastIndexOf('/') + 1);
        Path dir = traffic.savepointDir().resolve(name);
        if (!Files.isDirectory(dir)) {
            return -1;
        }
        try (Stream<Path> files = Files.walk(dir)) {
            return files.filter(Files::isRegularFile)
                    .mapToLong(
                            f -> {
                                try {
                                    return Files.size(f);
                                } catch (IOException e) {
                                    return 0;
                                }
                            })
                    .sum();
        }
    }

    /**
     * Flink's configuration for the cluster beyond the script's: the object store's settings
     * ({@code ./fraud s3 start} writes them) and slots spread over both TaskManagers. Holds the
     * store's key: owner-only.
     */
    private static Path clusterConfiguration(Path runDir, Path storeDir) throws IOException {
        Path file = runDir.resolve("flink-extra.yaml");
        Files.deleteIfExists(file);
        Files.createFile(
                file,
                PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rw-------")));
        Files.writeString(
                file,
                Files.readString(LocalObjectStore.flinkConfDir(storeDir).resolve("config.yaml"))
                        + "# Each job's tasks over both TaskManagers: a crash hits both jobs.\n"
                        + "cluster.evenly-spread-out-slots: true\n");
        return file;
    }

    private Path jobJar() throws IOException {
        Path dist = settings.home().resolve("dist/target");
        if (!Files.isDirectory(dist)) {
            throw new IOException(
                    "the cluster jars are not built ("
                            + dist
                            + " is missing): build them with mvn -B -DskipTests package -pl dist"
                            + " -am, as deploy/rehearsal.sh does");
        }
        try (Stream<Path> jars = Files.list(dist)) {
            Optional<Path> jar =
                    jars.filter(
                                    p -> {
                                        String n = p.getFileName().toString();
                                        return n.startsWith("feature-job-")
                                                && n.endsWith("-job.jar");
                                    })
                            .findFirst();
            return jar.orElseThrow(
                    () ->
                            new IOException(
                                    "no feature-job-*-job.jar in "
                                            + dist
                                            + ": build it with mvn -B -DskipTests package -pl"
                                            + " dist -am, as deploy/rehearsal.sh does"));
        }
    }

    private static List<String> arguments(Map<String, String> options) {
        List<String> args = new ArrayList<>();
        options.forEach(
                (k, v) -> {
                    args.add("--" + k);
                    args.add(v);
                });
        return args;
    }

    private synchronized void say(String line) {
        out.println(line);
        out.flush();
        console.append(line).append('\n');
    }
}
