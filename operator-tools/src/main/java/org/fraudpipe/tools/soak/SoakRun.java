package org.fraudpipe.tools.soak;

import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.time.LocalDate;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.fraudpipe.job.config.Durations;
import org.fraudpipe.job.config.JobOption;
import org.fraudpipe.job.position.DrainGate;
import org.fraudpipe.job.position.ReadPositions;
import org.fraudpipe.local.LocalKafkaBroker;
import org.fraudpipe.parity.cli.ParityCommand;
import org.fraudpipe.schemas.Topic;
import org.fraudpipe.schemas.avro.Transaction;
import org.fraudpipe.schemas.security.ClientProperties;
import org.fraudpipe.schemas.wire.TopicSerdes;
import org.fraudpipe.sim.SimulatedRecord;
import org.fraudpipe.sim.SimulationConfig;
import org.fraudpipe.sim.TransactionPublisher;
import org.fraudpipe.sim.TransactionSimulator;
import org.fraudpipe.tools.demo.DemoSettings;

/**
 * One fault campaign ({@code ./fraud soak}): the broker, registry and faulty link ({@link
 * SoakCluster}), the job in a JVM of its own ({@link SoakJob}, both paths, exactly-once window
 * topics, the archive on), the simulator's hostile traffic published live, the {@link Nemesis} for
 * the duration, then healed, drained, checked from outside ({@link SoakChecker}), judged by {@code
 * ./fraud parity} over the archive, and reported ({@link SoakReport}).
 */
final class SoakRun {

    private static final Duration JOB_START_TIMEOUT = Duration.ofMinutes(3);
    private static final Duration SAVEPOINT_TIMEOUT = Duration.ofMinutes(1);
    private static final Duration READERS_TIMEOUT = Duration.ofMinutes(3);

    private final SoakSettings settings;
    private final PrintStream out;
    private final DemoSettings traffic;
    private final Path runDir;
    private final List<String> notes = new ArrayList<>();
    private SoakCluster cluster;
    private SoakStorage storage;
    private volatile SoakJob job;
    private int parallelism;
    private int jobStarts;
    private final List<Path> blocked = new ArrayList<>();

    SoakRun(SoakSettings settings, PrintStream out) {
        this.settings = settings;
        this.out = out;
        this.runDir = settings.dir();
        this.parallelism = settings.parallelism();
        this.traffic =
                new DemoSettings(
                        settings.users(),
                        settings.duration(),
                        settings.speedup(),
                        settings.txPerUserDay(),
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
                        false,
                        false);
    }

    /** Runs the campaign; returns the exit code (0 a clean verdict, 1 findings). */
    int run() throws Exception {
        Files.createDirectories(runDir);
        Instant began = Instant.now();
        say(
                "fraudpipe soak: "
                        + Durations.format(settings.duration())
                        + " of hostile traffic ("
                        + settings.users()
                        + " users, "
                        + Durations.format(traffic.simulatedSpan())
                        + " of event time) under faults every "
                        + Durations.format(settings.faultEvery())
                        + " on average ("
                        + settings.kinds()
                        + "), seed "
                        + settings.seed()
                        + "; run directory "
                        + runDir);
        try {
            storage =
                    settings.objectStore()
                            ? SoakStorage.objectStore(runDir.resolve("s3"))
                            : SoakStorage.localFiles(traffic);
            if (settings.objectStore()) {
                say(
                        "  object store: checkpoints "
                                + storage.checkpointUri()
                                + ", savepoints "
                                + storage.savepointUri()
                                + ", archive "
                                + storage.archiveUri());
            }
            cluster = SoakCluster.start(runDir.resolve("kafka"), 3);
            say(
                    "  broker "
                            + cluster.directBootstrap()
                            + " (the job through the faulty link "
                            + cluster.jobBootstrap()
                            + "), registry "
                            + cluster.registryUrl());
            startJob(null);
            try (ScoreWatcher watcher =
                    new ScoreWatcher(cluster.directBootstrap(), cluster.registryUrl())) {
                watcher.start();
                Publisher publisher = new Publisher(traffic.simulation(Instant.now()));
                Thread publishing = new Thread(publisher, "soak-traffic");
                publishing.setDaemon(true);
                publishing.start();
                Instant faultsUntil =
                        Instant.now().plus(settings.duration()).minus(settings.quietEnd());
                Nemesis nemesis =
                        new Nemesis(
                                settings.seed(),
                                settings.kinds(),
                                settings.faultEvery(),
                                new Target(),
                                m -> say("  fault: " + m));
                List<Nemesis.Fault> faults = nemesis.run(faultsUntil);
                if (nemesis.skipped() > 0) {
                    notes.add(
                            nemesis.skipped()
                                    + " job fault(s) drawn while another one ran, not injected");
                }
                publishing.join();
                if (publisher.failure != null) {
                    throw new IllegalStateException(
                            "publishing failed: " + publisher.failure, publisher.failure);
                }
                ensureJobRunning();
                awaitReaders(publisher.result);
                say("Draining the job (a savepoint with every window's final result)...");
                job.savepoint(storage.savepointUri(), true, SAVEPOINT_TIMEOUT.multipliedBy(3));
                watcher.close();
                say("Checking from outside the job...");
                SoakChecker.Verdict verdict =
                        new SoakChecker(
                                        cluster.directBootstrap(),
                                        cluster.registryUrl(),
                                        ClientProperties.none(),
                                        storage.archiveFiles(),
                                        Duration.ofMinutes(5))
                                .check();
                int parity = parity(publisher.simulation);
                SoakReport report =
                        SoakReport.of(
                                settings,
                                began,
                                Instant.now(),
                                publisher.sent,
                                faults,
                                watcher,
                                verdict,
                                parity,
                                jobStarts,
                                notes);
                report.write(runDir.resolve("soak.json"));
                for (String line : report.summary()) {
                    say(line);
                }
                return report.passed() ? 0 : 1;
            }
        } finally {
            SoakJob j = job;
            if (j != null) {
                j.cancel(Duration.ofSeconds(30));
            }
            if (cluster != null) {
                cluster.close();
            }
            if (storage != null) {
                storage.close();
            }
        }
    }

    private Map<String, String> jobOptions() {
        Map<String, String> o =
                new LinkedHashMap<>(
                        traffic.jobOptions(cluster.jobBootstrap(), cluster.registryUrl()));
        o.put(JobOption.PARALLELISM.key(), Integer.toString(parallelism));
        o.put(JobOption.PATHS.key(), "both");
        o.put(JobOption.CHECKPOINT_DIR.key(), storage.checkpointUri());
        o.put(JobOption.ARCHIVE_DIR.key(), storage.archiveUri());
        return o;
    }

    /**
     * Starts the job (from {@code restore} if not null) and waits until it runs; while the broker
     * or the registry is down its start-up checks refuse, so it is tried again, as a supervisor
     * would, until it runs or the time is up.
     */
    private void startJob(String restore) throws Exception {
        long deadline = System.nanoTime() + JOB_START_TIMEOUT.toNanos();
        Path log = runDir.resolve("job.log");
        while (true) {
            SoakJob started =
                    SoakJob.start(
                            jobOptions(),
                            restore,
                            LocalKafkaBroker.freePorts(1)[0],
                            runDir.resolve(".job"),
                            log,
                            storage.jobEnvironment());
            jobStarts++;
            try {
                started.awaitRunning(JOB_START_TIMEOUT, log);
                job = started;
                restoredFrom = restore;
                return;
            } catch (IllegalStateException e) {
                started.cancel(Duration.ofSeconds(10));
                if (System.nanoTime() > deadline) {
                    throw new IllegalStateException(
                            "the job did not start again: " + e.getMessage(), e);
                }
                Thread.sleep(2_000);
            }
        }
    }

    /** After the faults: the job running, restarted from its newest checkpoint if it is not. */
    private void ensureJobRunning() throws Exception {
        if (job == null || !job.isAlive()) {
            notes.add("the job was not running after the faults: restarted from its checkpoint");
            startJob(latestCheckpoint());
        }
    }

    /**
     * Where a job that ended without a savepoint is restored from, as Flink's own recovery would:
     * the newest completed checkpoint of that job (its own directory under the checkpoint root),
     * else what that job was itself started from. Never a checkpoint of an earlier job: after a
     * restore from a savepoint, those are older than the savepoint, and restoring one would rewind
     * the exactly-once outputs and the archive past what was committed since.
     */
    private String latestCheckpoint() throws IOException {
        SoakJob current = job;
        Optional<org.apache.flink.api.common.JobID> id =
                current == null ? Optional.empty() : current.jobId();
        if (id.isPresent()) {
            Optional<Path> own =
                    SoakJob.latestCheckpoint(
                            storage.checkpointFiles().resolve(id.get().toString()));
            if (own.isPresent()) {
                return storage.uriOf(own.get());
            }
        }
        return restoredFrom;
    }

    /** What the running job was started from (a savepoint or checkpoint), or null. */
    private volatile String restoredFrom;

    /** Waits until both of the job's readers have read every record published. */
    private void awaitReaders(TransactionPublisher.Result published) throws Exception {
        Duration waited =
                DrainGate.await(
                        () -> {
                            try {
                                return ReadPositions.ofAccumulators(
                                        job.accumulators(Duration.ofSeconds(10)));
                            } catch (InterruptedException e) {
                                Thread.currentThread().interrupt();
                                return ReadPositions.NONE;
                            } catch (Exception unavailable) {
                                return ReadPositions.NONE;
                            }
                        },
                        published.endOffsets(),
                        EnumSet.allOf(ReadPositions.Reader.class),
                        READERS_TIMEOUT);
        say("  both readers have read every record published; waited " + waited.toMillis() + " ms");
    }

    /** {@code ./fraud parity} over the archive, in this JVM; its exit code. */
    private int parity(SimulationConfig simulation) {
        LocalDate first = LocalDate.ofInstant(simulation.start(), ZoneOffset.UTC);
        LocalDate last = LocalDate.ofInstant(Instant.now(), ZoneOffset.UTC);
        List<String> args =
                List.of(
                        "--from",
                        first.toString(),
                        "--to",
                        last.toString(),
                        "--archive",
                        storage.archiveUri(),
                        "--report",
                        runDir.resolve("parity").toString(),
                        "--window-size",
                        Durations.format(traffic.windowSize()),
                        "--max-mismatch-rate",
                        "0.05",
                        "--trailing-window",
                        Durations.format(traffic.windowSize()),
                        "--max-transaction-flipped-rate",
                        "0.01",
                        "--parallelism",
                        "2");
        say("Running the parity check: ./fraud parity " + String.join(" ", args));
        return ParityCommand.runHere(args, line -> say("  " + line));
    }

    private synchronized void say(String line) {
        out.println(line);
        out.flush();
    }

    /** The simulator's records published live, paced by arrival time (as the demo publishes). */
    private final class Publisher implements Runnable {
        final SimulationConfig simulation;
        volatile long sent;
        volatile TransactionPublisher.Result result;
        volatile Exception failure;

        Publisher(SimulationConfig simulation) {
            this.simulation = simulation;
        }

        @Override
        public void run() {
            long end = simulation.end().toEpochMilli();
            try (TransactionPublisher publisher =
                    new TransactionPublisher(
                            new KafkaProducer<>(
                                    TransactionPublisher.producerProperties(
                                            cluster.directBootstrap())),
                            Topic.TRANSACTIONS.defaultName(),
                            TopicSerdes.forRegistry(cluster.registryUrl())
                                    .valueSerializer(Topic.TRANSACTIONS, Transaction.class),
                            settings.speedup())) {
                TransactionSimulator simulator = new TransactionSimulator(simulation);
                while (simulator.hasNext()) {
                    SimulatedRecord r = simulator.next();
                    if (r.arrivalTime().toEpochMilli() >= end) {
                        break;
                    }
                    publisher.send(item(r));
                    sent++;
                }
                result = publisher.finish();
            } catch (Exception e) {
                failure = e;
            }
        }
    }

    /**
     * A simulated record as published. A future-dated transaction (its client's clock ahead) is
     * dated ahead of the wall clock by its skew: the simulator dates it ahead of its simulated
     * arrival, which at a speedup lies hours behind the broker's clock that the job judges by, so
     * as simulated it would pass as an ordinary transaction dated in the past and move the
     * watermark hours ahead of the traffic.
     */
    private static TransactionPublisher.Item item(SimulatedRecord r) {
        if (r.isMalformed() || !r.label().futureDated()) {
            return r.toPublishItem();
        }
        Transaction t = r.transaction();
        long skew = t.getEventTime().toEpochMilli() - r.arrivalTime().toEpochMilli();
        return TransactionPublisher.Item.valid(
                Transaction.newBuilder(t)
                        .setEventTime(Instant.now().plusMillis(Math.max(skew, 3_600_000)))
                        .build(),
                r.arrivalTime());
    }

    /** What the nemesis acts on. */
    private final class Target implements Nemesis.Target {

        @Override
        public String killJob() throws Exception {
            job.kill();
            String restore = latestCheckpoint();
            startJob(restore);
            return "pid killed, restored from " + (restore == null ? "nothing" : name(restore));
        }

        @Override
        public String savepointAndRestore(boolean rescale) throws Exception {
            String from;
            String how;
            try {
                from = job.savepoint(storage.savepointUri(), false, SAVEPOINT_TIMEOUT);
                how = "savepoint " + name(from);
            } catch (Exception e) {
                // A savepoint that cannot complete (the network stalled, storage refusing): the
                // job is killed and restored from its newest checkpoint instead.
                job.kill();
                from = latestCheckpoint();
                how = "savepoint failed (" + e.getMessage() + "), killed, checkpoint " + name(from);
            }
            if (rescale) {
                parallelism = parallelism == 1 ? 2 : 1;
            }
            startJob(from);
            return how + ", restored at parallelism " + parallelism;
        }

        @Override
        public void stopBroker() {
            cluster.stopBroker();
        }

        @Override
        public void startBroker() {
            cluster.startBroker();
        }

        @Override
        public void stopRegistry() {
            cluster.stopRegistry();
        }

        @Override
        public void startRegistry() {
            cluster.startRegistry();
        }

        @Override
        public void link(FaultyLink.Mode mode, long delayMillis) {
            cluster.link().set(mode, delayMillis);
        }

        @Override
        public synchronized String blockCheckpoints() throws IOException {
            Optional<Path> newest = SoakJob.latestCheckpoint(storage.checkpointFiles());
            if (newest.isEmpty()) {
                return "(no checkpoint yet: nothing blocked)";
            }
            Path jobDir = newest.get().getParent();
            long n = Long.parseLong(newest.get().getFileName().toString().substring(4));
            for (long i = n + 1; i <= n + 100; i++) {
                Path p = jobDir.resolve("chk-" + i);
                if (!Files.exists(p)) {
                    Files.writeString(p, "blocked by the soak");
                    blocked.add(p);
                }
            }
            return "chk-" + (n + 1) + "..chk-" + (n + 100) + " of " + jobDir.getFileName();
        }

        @Override
        public void stopStorage() {
            storage.stop();
        }

        @Override
        public void startStorage() {
            storage.start();
        }

        @Override
        public synchronized void unblockCheckpoints() throws IOException {
            for (Path p : blocked) {
                if (Files.isRegularFile(p)) {
                    Files.delete(p);
                }
            }
            blocked.clear();
        }

        private static String name(String path) {
            return path == null
                    ? "none"
                    : Path.of(java.net.URI.create(path).getPath()).getFileName().toString();
        }
    }
}
