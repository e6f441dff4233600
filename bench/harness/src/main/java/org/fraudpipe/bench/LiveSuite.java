package org.fraudpipe.bench;

import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.fraudpipe.bench.RunnerJvm.Kind;
import org.fraudpipe.bench.probe.RunProbe;
import org.fraudpipe.schemas.Topic;
import org.fraudpipe.schemas.avro.FeatureRecord;
import org.fraudpipe.schemas.avro.ScoreRecord;
import org.fraudpipe.schemas.avro.Timing;
import org.fraudpipe.schemas.avro.TransactionScore;
import org.fraudpipe.schemas.wire.ConfluentAvroCodec;
import org.fraudpipe.schemas.wire.TopicSerdes;

/**
 * The live-paced suite ({@code ./fraud bench --suites live}; issue #16 phase 2, issue #20): each
 * system at each fixed rate, publishing in real time, event time = the wall clock, the windows
 * closing as in production. Per rate and system a JVM of its own runs the system (the job with
 * RocksDB, the exactly-once window path with scoring and the per-transaction path; the Flink SQL
 * peer with its group window query and its per-transaction OVER query), while the harness publishes
 * the traffic at the rate ({@link LivePublisher}) and reads the outputs as a consumer would ({@link
 * LiveReader}). First a warm-up (discarded), then the measured interval; then the run stops.
 *
 * <p>Figures per run: the system JVM's CPU per event over the measured interval (the probe's
 * samples: the same process CPU time as the throughput suite's; the broker apart), per-transaction
 * latency (Kafka append time of the transaction to the answer handed to the sink, and to a
 * consumer's receipt; for the job also its own latency accumulator over the interval), window
 * result latency (window end to a read_committed consumer's receipt of the window's first result),
 * whether the publisher kept the rate, and whether the system kept up (how far its reading trailed
 * the publisher, how long after the last record it read it). Per rate with both systems: the
 * per-transaction features compared, transaction by transaction, on a sample of users ({@link
 * LiveComparison}).
 */
final class LiveSuite {

    /**
     * A system that never trailed the publisher by more than this during the measured interval and
     * read the last record within this long of its publication kept up.
     */
    static final double KEPT_UP_SECONDS = 2.0;

    /** Issue #16's latency target: p99 under 50 ms at 5k transactions/s, at-least-once. */
    static final long TARGET_RATE = 5000;

    static final long TARGET_P99_MILLIS = 50;

    /** The decision job's checkpoint interval in the split candidate ({@code ours-split}). */
    static final Duration DECISION_CHECKPOINT_INTERVAL = Duration.ofSeconds(30);

    /**
     * The nice value of the window job's threads in {@code ours-split-nice}: the kernel then gives
     * the decision job's JVM the cores first, as a cluster gives it CPU shares or cores of its own.
     */
    static final int SPLIT_WINDOWS_NICE = 10;

    static final List<String> SYSTEMS =
            List.of("ours", "ours-tuned", "ours-split", "ours-split-nice", "flink-sql");

    /** The suite's settings (options of {@code ./fraud bench}). */
    record Settings(
            List<Long> rates,
            List<String> systems,
            Duration window,
            Duration allowedLateness,
            Duration outOfOrderness,
            Duration warmUp,
            Duration measured,
            Duration userGap,
            double lateShare,
            double retryShare,
            Duration drainTimeout,
            long compareSample,
            long seed,
            int partitions,
            int parallelism,
            Duration checkpointInterval,
            Duration runTimeout,
            List<String> oursArgs) {

        /** Late events trail their schedule by this much at least: behind the watermark. */
        Duration lateMin() {
            return outOfOrderness.plusSeconds(1);
        }

        /** And at most this much: some beyond the allowed lateness (too late for the windows). */
        Duration lateMax() {
            return allowedLateness.plus(window);
        }

        long users(long rate) {
            return Math.max(1000, rate * userGap.toMillis() / 1000);
        }

        Map<String, Object> describe() {
            Map<String, Object> m = new LinkedHashMap<>();
            m.put("rates", rates);
            m.put("systems", systems);
            m.put("windowSize", window.toString());
            m.put("trailingWindow", window.toString());
            m.put("allowedLateness", allowedLateness.toString());
            m.put("outOfOrderness", outOfOrderness.toString());
            m.put("warmUp", warmUp.toString());
            m.put("measured", measured.toString());
            m.put("usersPerRate", "rate x " + userGap + " (at least 1000)");
            m.put("lateShare", lateShare);
            m.put("lateDelay", List.of(lateMin().toString(), lateMax().toString()));
            m.put("retryShare", retryShare);
            m.put("drainTimeout", drainTimeout.toString());
            m.put("compareSample", compareSample);
            m.put("seed", seed);
            m.put("partitions", partitions);
            m.put("parallelism", parallelism);
            m.put("checkpointInterval", checkpointInterval.toString());
            m.put("oursExtraArgs", oursArgs);
            m.put("keptUpWithinSeconds", KEPT_UP_SECONDS);
            return m;
        }
    }

    /** What one system's run at one rate gave the comparison. */
    private record Outcome(Map<String, Object> figures, LiveAnswers.Transactions answers) {}

    private final BenchCommand command;
    private final Settings s;
    private final RunnerJvm runners;
    private final Path runRoot;
    private final PrintStream log;

    LiveSuite(
            BenchCommand command,
            Settings settings,
            RunnerJvm runners,
            Path runRoot,
            PrintStream log) {
        this.command = command;
        this.s = settings;
        this.runners = runners;
        this.runRoot = runRoot;
        this.log = log;
    }

    static String method() {
        return "Each system in a JVM of its own at each rate, the harness publishing in real time"
                + " (event time = the scheduled instant minus a 0-200 ms client delay; a share of"
                + " events late by lateDelay, a share sent twice 0.2-3 s apart), users ="
                + " rate x userGap chosen uniformly. Warm-up (discarded), then the measured interval."
                + " CPU: the system JVM's process CPU time over the measured interval from the"
                + " probe's once-a-second samples, per event read (the broker apart)."
                + " Per-transaction latency: from the transaction's Kafka append time (LogAppendTime"
                + " input) to scoredAt (the answer handed to the sink: the job's metric's"
                + " definition) and to the harness consumer's receipt (at-least-once topic:"
                + " visible at once), measured, not-retried events; for the job also its own"
                + " latency accumulator over the interval. Window-result latency: window end to a"
                + " read_committed consumer's receipt of the window's first result, windows ending"
                + " in the measured interval, user windows with a late event left out. Kept up:"
                + " the system never trailed the publisher by more than keptUpWithinSeconds (of"
                + " records at the rate) during the measured interval and read the last record"
                + " within keptUpWithinSeconds of its publication.";
    }

    Map<String, Object> run(BenchKafka kafka) throws Exception {
        Map<String, Object> section = new LinkedHashMap<>();
        section.put("issues", List.of(16, 20));
        section.put("method", method());
        section.put("settings", s.describe());
        Map<String, Object> rates = new LinkedHashMap<>();
        section.put("rates", rates);
        List<Map<String, Object>> summary = new ArrayList<>();
        section.put("summary", summary);
        int r = 0;
        for (long rate : s.rates()) {
            List<String> order = new ArrayList<>(s.systems());
            if (r++ % 2 == 1) {
                java.util.Collections.reverse(order); // alternate who runs first
            }
            Map<String, Object> perRate = new LinkedHashMap<>();
            rates.put(Long.toString(rate), perRate);
            long users = s.users(rate);
            long total = rate * (s.warmUp().toSeconds() + s.measured().toSeconds());
            long measureFrom = rate * s.warmUp().toSeconds();
            LiveTraffic traffic =
                    new LiveTraffic(
                            s.seed(),
                            rate,
                            users,
                            0,
                            s.lateShare(),
                            s.lateMin().toMillis(),
                            s.lateMax().toMillis(),
                            s.retryShare());
            long copies = traffic.retriedAmong(total);
            long sampleModulus = Math.max(1, (total + s.compareSample() - 1) / s.compareSample());
            Map<String, Object> input = new LinkedHashMap<>();
            input.put("intendedRate", rate);
            input.put("users", users);
            input.put("events", total);
            input.put("measuredEvents", total - measureFrom);
            input.put("retryCopies", copies);
            input.put("readinessRecords", s.partitions());
            input.put("runOrder", order);
            perRate.put("input", input);
            Map<String, Object> runs = new LinkedHashMap<>();
            perRate.put("runs", runs);
            Map<String, Outcome> outcomes = new LinkedHashMap<>();
            for (String system : order) {
                log.printf(
                        Locale.ROOT,
                        "bench: live %s at %,d events/s (%,d users, %s warm-up + %s measured)...%n",
                        system,
                        rate,
                        users,
                        s.warmUp(),
                        s.measured());
                Outcome o =
                        runOne(
                                kafka,
                                system,
                                rate,
                                traffic,
                                total,
                                measureFrom,
                                copies,
                                sampleModulus);
                outcomes.put(system, o);
                runs.put(system, o.figures());
                summary.add(summaryRow(rate, system, o.figures()));
                log.println("bench: " + oneLine(rate, system, o.figures()));
            }
            if (outcomes.containsKey("ours") && outcomes.containsKey("flink-sql")) {
                long compareBefore = total - rate * (s.outOfOrderness().toSeconds() + 2);
                // Every event of the sampled users (a late one arriving after the last compared
                // one can still be in its trailing window), only the earlier ones compared.
                List<LiveComparison.Input> inputs = new ArrayList<>();
                for (long i = 0; i < total; i++) {
                    long user = traffic.user(i);
                    if (user % sampleModulus == 0) {
                        inputs.add(
                                new LiveComparison.Input(
                                        i,
                                        user,
                                        traffic.event(i)
                                                .transaction()
                                                .getEventTime()
                                                .toEpochMilli(),
                                        traffic.late(i),
                                        traffic.scheduledWallMillis(i)));
                    }
                }
                Map<String, Object> eq =
                        LiveComparison.compare(
                                outcomes.get("ours").answers().sampled,
                                outcomes.get("flink-sql").answers().sampled,
                                inputs,
                                compareBefore,
                                s.window().toMillis());
                eq.put("reference", "ours");
                eq.put("peer", "flink-sql");
                eq.put("sampledUsers", "user number % " + sampleModulus + " == 0");
                eq.put("eventsBefore", compareBefore);
                perRate.put("transactionEquality", eq);
                log.printf(
                        "bench: live %,d/s, per-transaction features, ours vs flink-sql: %d of %d"
                                + " equal, %s%n",
                        rate, eq.get("equal"), eq.get("compared"), eq.get("byCause"));
            }
            if (rate == TARGET_RATE && outcomes.containsKey("ours")) {
                perRate.put("latencyTarget", target(outcomes.get("ours").figures()));
            }
        }
        return section;
    }

    @SuppressWarnings("unchecked")
    static Map<String, Object> target(Map<String, Object> ours) {
        Map<String, Object> t = new LinkedHashMap<>();
        t.put(
                "target",
                "p99 under "
                        + TARGET_P99_MILLIS
                        + " ms at "
                        + TARGET_RATE
                        + " transactions/s, at-least-once");
        Map<String, Object> tx = (Map<String, Object>) ours.get("transactions");
        Map<String, Object> job = (Map<String, Object>) ours.get("jobMetricMeasured");
        long sink = p99(((Map<String, Object>) tx.get("appendToSink")));
        long consumer = p99(((Map<String, Object>) tx.get("appendToConsumer")));
        long metric = job == null ? -1 : p99(job);
        t.put("p99AppendToSinkMillis", sink);
        t.put("p99AppendToConsumerMillis", consumer);
        t.put("p99JobMetricMillis", metric);
        t.put("keptUp", ours.get("keptUp"));
        t.put(
                "met",
                Boolean.TRUE.equals(ours.get("keptUp"))
                        && sink >= 0
                        && sink < TARGET_P99_MILLIS
                        && consumer >= 0
                        && consumer < TARGET_P99_MILLIS
                        && (metric < 0 || metric < TARGET_P99_MILLIS));
        return t;
    }

    private static long p99(Map<String, Object> summary) {
        return summary.get("p99Millis") instanceof Number n ? n.longValue() : -1;
    }

    private Outcome runOne(
            BenchKafka kafka,
            String system,
            long rate,
            LiveTraffic traffic0,
            long total,
            long measureFrom,
            long copies,
            long sampleModulus)
            throws Exception {
        String name = "live-" + rate + "-" + system;
        Path runDir = runRoot.resolve(name);
        Files.createDirectories(runDir);
        Path liveFile = runDir.resolve("probe.live");
        Path stopFile = runDir.resolve("stop");
        Path measureFile = runDir.resolve("measure");
        String input = "bench." + name + ".transactions";
        kafka.createTopics(Map.of(input, Topic.TRANSACTIONS), s.partitions());
        long expected = total + copies + s.partitions();
        String txTopic = name + ".transaction-scores";
        String windowTopic;
        Kind kind;
        List<String> args = new ArrayList<>();
        Duration timeout =
                s.runTimeout().plus(s.warmUp()).plus(s.measured()).plus(s.drainTimeout());
        if (system.startsWith("ours")) {
            kind = Kind.OURS;
            command.createOursTopics(kafka, name); // with name.transaction-scores
            windowTopic = name + ".scores";
            args.addAll(command.oursArgs(kafka, name, input, expected, runDir, "rocksdb", "none"));
            args.addAll(
                    List.of(
                            "--timeout",
                            timeout.toMillis() + "ms",
                            "--per-transaction",
                            "true",
                            "--window-size",
                            s.window().toMillis() + "ms",
                            "--allowed-lateness",
                            s.allowedLateness().toMillis() + "ms",
                            "--out-of-orderness",
                            s.outOfOrderness().toMillis() + "ms",
                            "--live-file",
                            liveFile.toString(),
                            "--stop-file",
                            stopFile.toString(),
                            "--measure-file",
                            measureFile.toString()));
            if (system.equals("ours-tuned")) {
                // One job, tuned (issue #29's second candidate): unaligned checkpoints, so a
                // barrier overtakes the records queued behind a window-close burst instead of
                // waiting for them on the per-transaction path's inputs.
                args.addAll(
                        List.of("--flink-conf", "execution.checkpointing.unaligned.enabled=true"));
            }
            if (system.startsWith("ours-split")) {
                // The decision job of its own (issue #29), in a JVM of its own: heap state, its
                // own checkpoints; with -nice, the window job's JVM yields the cores to it.
                args.addAll(
                        List.of(
                                "--split",
                                "true",
                                "--decisions",
                                "state-backend=hashmap;checkpoint-interval="
                                        + DECISION_CHECKPOINT_INTERVAL.toMillis()
                                        + "ms",
                                "--windows-nice",
                                system.equals("ours-split-nice")
                                        ? Integer.toString(SPLIT_WINDOWS_NICE)
                                        : "0"));
            }
            args.addAll(s.oursArgs()); // after the suite's: a job option given twice, the last wins
        } else if (system.equals("flink-sql")) {
            kind = Kind.FLINK_SQL;
            windowTopic = name + ".features";
            kafka.createTopics(
                    Map.of(windowTopic, Topic.FEATURES, txTopic, Topic.TRANSACTION_SCORES),
                    s.partitions());
            args.addAll(
                    List.of(
                            "--bootstrap-servers",
                            kafka.bootstrapServers(),
                            "--schema-registry-url",
                            kafka.registryUrl(),
                            "--input-topic",
                            input,
                            "--output-topic",
                            windowTopic,
                            "--transaction-topic",
                            txTopic,
                            "--window-query",
                            "legacy",
                            "--group-id",
                            "bench-" + name,
                            "--transactional-id-prefix",
                            "bench-" + name,
                            "--checkpoint-dir",
                            runDir.resolve("checkpoints").toUri().toString(),
                            "--savepoint-dir",
                            runDir.resolve("savepoints").toUri().toString(),
                            "--expect-records",
                            Long.toString(expected),
                            "--state-backend",
                            "rocksdb",
                            "--parallelism",
                            Integer.toString(s.parallelism()),
                            "--checkpoint-interval",
                            s.checkpointInterval().toMillis() + "ms",
                            "--window-size",
                            s.window().toMillis() + "ms",
                            "--trailing-window",
                            s.window().toMillis() + "ms",
                            "--allowed-lateness",
                            s.allowedLateness().toMillis() + "ms",
                            "--out-of-orderness",
                            s.outOfOrderness().toMillis() + "ms",
                            "--timeout",
                            timeout.toMillis() + "ms",
                            "--live-file",
                            liveFile.toString(),
                            "--stop-file",
                            stopFile.toString()));
        } else {
            throw new IllegalArgumentException("live suite: unknown system " + system);
        }

        TopicSerdes serdes = TopicSerdes.forRegistry(kafka.registryUrl());
        ConfluentAvroCodec<TransactionScore> txCodec =
                serdes.valueCodec(Topic.TRANSACTION_SCORES, txTopic, TransactionScore.class);
        ExecutorService executor =
                Executors.newSingleThreadExecutor(
                        task -> {
                            Thread t = new Thread(task, "bench-live-runner");
                            t.setDaemon(true);
                            return t;
                        });
        Future<Map<String, Object>> runner =
                executor.submit(
                        () ->
                                runners.run(
                                        kind,
                                        args,
                                        List.of(),
                                        runDir,
                                        timeout.plusMinutes(5),
                                        kafka));
        try (LivePublisher publisher = new LivePublisher(kafka, input, s.partitions())) {
            awaitSamples(runner, liveFile, 0, Duration.ofMinutes(5), "the system to start");
            publisher.sendPings();
            awaitSamples(
                    runner,
                    liveFile,
                    s.partitions(),
                    Duration.ofMinutes(5),
                    "the system to read its readiness records");

            long startNanos = System.nanoTime() + 200_000_000L;
            long startWall = System.currentTimeMillis() + 200;
            LiveTraffic traffic = traffic0.startingAt(startWall);
            LivePacer pacer = new LivePacer(rate, total, startNanos);
            long windowMillis = s.window().toMillis();
            Set<String> lateWindows = new HashSet<>();
            for (long i = 0; i < total; i++) {
                if (traffic.late(i)) {
                    var tx = traffic.event(i).transaction();
                    long t = tx.getEventTime().toEpochMilli();
                    lateWindows.add(
                            LiveAnswers.Windows.key(
                                    tx.getUserId(), Math.floorDiv(t, windowMillis) * windowMillis));
                }
            }
            LiveAnswers.Transactions answers =
                    new LiveAnswers.Transactions(traffic, measureFrom, total, sampleModulus);
            LiveAnswers.Windows windows =
                    new LiveAnswers.Windows(
                            traffic.scheduledWallMillis(measureFrom),
                            traffic.scheduledWallMillis(total - 1)
                                    - s.outOfOrderness().toMillis()
                                    - 1000,
                            lateWindows);
            LiveReader txReader =
                    new LiveReader(
                            kafka, txTopic, LiveAnswers.transactionHandler(answers, txCodec));
            LiveReader windowReader = windowReader(kafka, system, windowTopic, windows, serdes);
            double[] brokerCpu = new double[2];
            try {
                LivePublisher.Result published =
                        publisher.run(
                                traffic,
                                pacer,
                                measureFrom,
                                () -> {
                                    brokerCpu[0] = kafka.brokerCpuSeconds();
                                    touch(measureFile);
                                });
                brokerCpu[1] = kafka.brokerCpuSeconds();
                long lastSendWall = published.lastSendWallMillis();
                // Drain: the system reads what is left, or the harness stops it.
                boolean drained =
                        awaitCount(liveFile, published.records(), s.drainTimeout(), runner);
                if (!drained) {
                    log.printf(
                            "bench: live %s at %,d/s: not drained within %s, stopping it%n",
                            system, rate, s.drainTimeout());
                    touch(stopFile);
                }
                Map<String, Object> run =
                        runner.get(timeout.plusMinutes(10).toMillis(), TimeUnit.MILLISECONDS);
                txReader.finish(Duration.ofMinutes(2));
                windowReader.finish(Duration.ofMinutes(2));
                Map<String, Object> figures =
                        figures(
                                system,
                                rate,
                                published,
                                RunProbe.readLiveFile(liveFile),
                                run,
                                brokerCpu,
                                answers,
                                windows,
                                total - measureFrom - countRetried(traffic, measureFrom, total),
                                lastSendWall,
                                // the seconds that held a checkpoint or a burst, set apart
                                stallSeconds(
                                        run,
                                        published.measureStartWallMillis(),
                                        published.lastScheduledSendWallMillis(),
                                        s.window(),
                                        s.outOfOrderness()));
                return new Outcome(figures, answers);
            } finally {
                txReader.close();
                windowReader.close();
            }
        } catch (ExecutionException e) {
            throw new IllegalStateException(
                    "live run " + name + " failed: " + e.getCause().getMessage(), e.getCause());
        } finally {
            touch(stopFile);
            executor.shutdownNow();
        }
    }

    private static long countRetried(LiveTraffic traffic, long from, long to) {
        long n = 0;
        for (long i = from; i < to; i++) {
            if (traffic.retried(i)) {
                n++;
            }
        }
        return n;
    }

    private LiveReader windowReader(
            BenchKafka kafka,
            String system,
            String topic,
            LiveAnswers.Windows windows,
            TopicSerdes serdes) {
        if (system.startsWith("ours")) {
            ConfluentAvroCodec<ScoreRecord> codec =
                    serdes.valueCodec(Topic.SCORES, topic, ScoreRecord.class);
            return new LiveReader(
                    kafka,
                    topic,
                    (r, receipt) -> {
                        ScoreRecord sr = codec.decode(r.value());
                        windows.accept(
                                sr.getUserId(),
                                sr.getWindowStart().toEpochMilli(),
                                sr.getWindowEnd().toEpochMilli(),
                                sr.getTiming() == Timing.ON_TIME ? sr.getRevision() : -1,
                                receipt);
                    });
        }
        ConfluentAvroCodec<FeatureRecord> codec =
                serdes.valueCodec(Topic.FEATURES, topic, FeatureRecord.class);
        return new LiveReader(
                kafka,
                topic,
                (r, receipt) -> {
                    FeatureRecord f = codec.decode(r.value());
                    windows.accept(
                            f.getUserId(),
                            f.getWindowStart().toEpochMilli(),
                            f.getWindowEnd().toEpochMilli(),
                            f.getRevision(),
                            receipt);
                });
    }

    /** The run's figures, from the publisher, the probe's samples, the runner and the readers. */
    static Map<String, Object> figures(
            String system,
            long rate,
            LivePublisher.Result published,
            List<long[]> samples,
            Map<String, Object> run,
            double[] brokerCpu,
            LiveAnswers.Transactions answers,
            LiveAnswers.Windows windows,
            long expectedMeasured,
            long lastSendWall) {
        return figures(
                system,
                rate,
                published,
                samples,
                run,
                brokerCpu,
                answers,
                windows,
                expectedMeasured,
                lastSendWall,
                Map.of());
    }

    /**
     * As above, with the seconds that held a checkpoint or a window-close burst ({@link
     * #stallSeconds}) marked in the per-transaction report.
     */
    static Map<String, Object> figures(
            String system,
            long rate,
            LivePublisher.Result published,
            List<long[]> samples,
            Map<String, Object> run,
            double[] brokerCpu,
            LiveAnswers.Transactions answers,
            LiveAnswers.Windows windows,
            long expectedMeasured,
            long lastSendWall,
            Map<Long, String> stalls) {
        Map<String, Object> f = new LinkedHashMap<>();
        f.put("system", system);
        f.put("intendedRate", rate);
        long from = published.measureStartWallMillis();
        long to = published.lastScheduledSendWallMillis();

        Map<String, Object> pub = new LinkedHashMap<>();
        long measuredEvents = published.originals() - published.measuredFrom();
        double pubSeconds = (to - from) / 1e3;
        pub.put("intendedEvents", published.originals());
        pub.put("retryCopies", published.copies());
        pub.put("acknowledged", published.acknowledged());
        pub.put("failed", published.failed());
        pub.put("firstError", published.firstError());
        pub.put("measuredEvents", measuredEvents);
        pub.put("measuredSeconds", pubSeconds);
        pub.put("achievedRate", pubSeconds > 0 ? measuredEvents / pubSeconds : null);
        pub.put(
                "achievedShareOfIntended",
                pubSeconds > 0 ? measuredEvents / pubSeconds / rate : null);
        pub.put("behindSchedule", published.behindSchedule().summary());
        f.put("publisher", pub);

        // CPU of the system's JVM over the measured interval, from the probe's samples.
        long[] s0 = null;
        long[] s1 = null;
        for (long[] x : samples) {
            if (s0 == null && x[0] >= from) {
                s0 = x;
            }
            if (x[0] <= to) {
                s1 = x;
            }
        }
        Map<String, Object> cpu = new LinkedHashMap<>();
        if (s0 != null && s1 != null && s1[0] > s0[0] && s1[1] > s0[1]) {
            long events = s1[1] - s0[1];
            double seconds = (s1[0] - s0[0]) / 1e3;
            double cpuSeconds = (s1[2] - s0[2]) / 1e9;
            cpu.put("events", events);
            cpu.put("seconds", seconds);
            cpu.put("eventsPerSecond", events / seconds);
            cpu.put("cpuSeconds", cpuSeconds);
            cpu.put("cpuMicrosPerEvent", cpuSeconds * 1e6 / events);
            cpu.put("cpuCoresBusy", cpuSeconds / seconds);
            f.put("eventsPerCpuSecond", events / cpuSeconds);
        } else {
            cpu.put("note", "too few probe samples in the measured interval");
            f.put("eventsPerCpuSecond", null);
        }
        double brokerSeconds = brokerCpu[1] - brokerCpu[0];
        double wall = (published.lastSendWallMillis() - from) / 1e3;
        cpu.put("brokerCpuSeconds", brokerSeconds);
        cpu.put("brokerCoresBusy", wall > 0 ? brokerSeconds / wall : null);
        f.put("cpu", cpu);

        // Lag: how far the system's reading trailed the publisher during and after the interval.
        long maxLag = 0;
        for (long[] x : samples) {
            if (x[0] < from || x[0] > to) {
                continue;
            }
            maxLag = Math.max(maxLag, publishedBy(published.progress(), x[0]) - x[1]);
        }
        Map<String, Object> lag = new LinkedHashMap<>();
        lag.put("maxRecordsBehindDuringMeasured", maxLag);
        lag.put("maxSecondsBehindDuringMeasured", maxLag / (double) rate);
        long atEnd = -1;
        for (long[] x : samples) {
            if (x[0] >= lastSendWall) {
                atEnd = published.records() - x[1];
                break;
            }
        }
        lag.put("recordsUnreadAtFirstSampleAfterLastSend", atEnd < 0 ? null : atEnd);
        Object lastRead = run.get("lastRecordWallMillis");
        Double drain = lastRead instanceof Number n ? (n.longValue() - lastSendWall) / 1e3 : null;
        lag.put("lastRecordReadAfterItsSendSeconds", drain);
        lag.put("readEveryRecord", Boolean.TRUE.equals(run.get("complete")));
        f.put("lag", lag);
        // Caught up at the end is not enough: a system that trailed by seconds in the middle (and
        // read the backlog later) answered those transactions seconds late.
        boolean keptUp =
                Boolean.TRUE.equals(run.get("complete"))
                        && drain != null
                        && drain <= KEPT_UP_SECONDS
                        && maxLag / (double) rate <= KEPT_UP_SECONDS;
        f.put("keptUp", keptUp);

        f.put("transactions", answers.report(expectedMeasured, stalls));
        if (run.get("jobTransactionLatencyMeasured") != null) {
            f.put("jobMetricMeasured", run.get("jobTransactionLatencyMeasured"));
            f.put("jobMetricWholeRun", run.get("jobTransactionLatencyWholeRun"));
        }
        f.put("windows", windows.report());
        f.put("run", run);
        return f;
    }

    /** Seconds after a window end during which its close burst is counted as a stall. */
    static final int BURST_SECONDS = 3;

    /**
     * The seconds of the measured interval {@code [from, to]} that held a checkpoint (of the job,
     * and of the decision job in a split: from trigger to completion, as their REST histories
     * record them) or a window-close burst (every window ends on a multiple of the window size and
     * fires once the watermark passes it, {@code --out-of-orderness} later: that second and the
     * {@value #BURST_SECONDS} after it), each named by what it held.
     */
    @SuppressWarnings("unchecked")
    static Map<Long, String> stallSeconds(
            Map<String, Object> run, long from, long to, Duration window, Duration outOfOrderness) {
        Map<Long, String> stalls = new java.util.TreeMap<>();
        List<Object> checkpoints = new ArrayList<>();
        if (run.get("checkpoints") instanceof List<?> l) {
            checkpoints.addAll(l);
        }
        if (run.get("decisionJob") instanceof Map<?, ?> d
                && d.get("checkpoints") instanceof List<?> l) {
            checkpoints.addAll(l);
        }
        if (checkpoints.isEmpty()) {
            return stalls; // a system without a checkpoint history (the SQL peer)
        }
        for (Object c : checkpoints) {
            List<Object> cp = (List<Object>) c;
            long trigger = ((Number) cp.get(1)).longValue();
            long duration = Math.max(0, ((Number) cp.get(2)).longValue());
            for (long sec = Math.floorDiv(trigger, 1000L);
                    sec <= Math.floorDiv(trigger + duration, 1000L);
                    sec++) {
                stalls.merge(sec, "checkpoint", (a, b) -> a.equals(b) ? a : "both");
            }
        }
        long w = window.toMillis();
        for (long end = Math.floorDiv(from, w) * w; end <= to; end += w) {
            long fires = Math.floorDiv(end + outOfOrderness.toMillis(), 1000L);
            for (long sec = fires; sec <= fires + BURST_SECONDS; sec++) {
                stalls.merge(sec, "burst", (a, b) -> a.equals(b) ? a : "both");
            }
        }
        stalls.keySet().removeIf(sec -> sec * 1000 < from - 1000 || sec * 1000 > to + 1000);
        return stalls;
    }

    /** Records the publisher had sent by {@code wallMillis} (its last progress sample before). */
    static long publishedBy(List<long[]> progress, long wallMillis) {
        long sent = 0;
        for (long[] p : progress) {
            if (p[0] > wallMillis) {
                break;
            }
            sent = p[1];
        }
        return sent;
    }

    @SuppressWarnings("unchecked")
    private static Map<String, Object> summaryRow(long rate, String system, Map<String, Object> f) {
        Map<String, Object> row = new LinkedHashMap<>();
        row.put("rate", rate);
        row.put("system", system);
        Map<String, Object> cpu = (Map<String, Object>) f.get("cpu");
        row.put("cpuMicrosPerEvent", cpu.get("cpuMicrosPerEvent"));
        row.put("eventsPerCpuSecond", f.get("eventsPerCpuSecond"));
        row.put("cpuCoresBusy", cpu.get("cpuCoresBusy"));
        row.put("achievedRate", ((Map<String, Object>) f.get("publisher")).get("achievedRate"));
        Map<String, Object> tx = (Map<String, Object>) f.get("transactions");
        row.put("txAppendToSink", percentiles((Map<String, Object>) tx.get("appendToSink")));
        row.put(
                "txAppendToConsumer",
                percentiles((Map<String, Object>) tx.get("appendToConsumer")));
        if (f.get("jobMetricMeasured") != null) {
            row.put("txJobMetric", percentiles((Map<String, Object>) f.get("jobMetricMeasured")));
        }
        row.put(
                "windowEndToConsumer",
                percentiles(
                        (Map<String, Object>)
                                ((Map<String, Object>) f.get("windows"))
                                        .get("windowEndToConsumer")));
        row.put("keptUp", f.get("keptUp"));
        return row;
    }

    private static List<Object> percentiles(Map<String, Object> summary) {
        return List.of(
                summary.get("p50Millis"), summary.get("p99Millis"), summary.get("p999Millis"));
    }

    @SuppressWarnings("unchecked")
    private static String oneLine(long rate, String system, Map<String, Object> f) {
        Map<String, Object> row = summaryRow(rate, system, f);
        return String.format(
                Locale.ROOT,
                "live %s at %,d/s: %.1f us CPU per event (%.2f cores), published %.0f/s;"
                        + " per transaction p50/p99/p99.9 to sink %s ms, to consumer %s ms%s;"
                        + " window end to consumer %s ms; kept up: %s",
                system,
                rate,
                BenchCommand.number(row.get("cpuMicrosPerEvent")),
                BenchCommand.number(row.get("cpuCoresBusy")),
                BenchCommand.number(row.get("achievedRate")),
                row.get("txAppendToSink"),
                row.get("txAppendToConsumer"),
                row.get("txJobMetric") == null
                        ? ""
                        : ", job metric " + row.get("txJobMetric") + " ms",
                row.get("windowEndToConsumer"),
                row.get("keptUp"));
    }

    /** Waits until the live file has a sample counting at least {@code records}. */
    private static void awaitSamples(
            Future<?> runner, Path liveFile, long records, Duration timeout, String what)
            throws Exception {
        long deadline = System.nanoTime() + timeout.toNanos();
        while (true) {
            List<long[]> samples = RunProbe.readLiveFile(liveFile);
            if (!samples.isEmpty() && samples.get(samples.size() - 1)[1] >= records) {
                return;
            }
            if (runner.isDone()) {
                runner.get(); // throws what the run failed with
                throw new IllegalStateException("the run ended while waiting for " + what);
            }
            if (System.nanoTime() > deadline) {
                throw new TimeoutException("waited " + timeout + " for " + what);
            }
            Thread.sleep(200);
        }
    }

    /** Whether the system read {@code records} within {@code timeout}. */
    private static boolean awaitCount(
            Path liveFile, long records, Duration timeout, Future<?> runner)
            throws IOException, InterruptedException {
        long deadline = System.nanoTime() + timeout.toNanos();
        while (System.nanoTime() < deadline && !runner.isDone()) {
            List<long[]> samples = RunProbe.readLiveFile(liveFile);
            if (!samples.isEmpty() && samples.get(samples.size() - 1)[1] >= records) {
                return true;
            }
            Thread.sleep(250);
        }
        return runner.isDone();
    }

    private static void touch(Path file) {
        try {
            if (!Files.exists(file)) {
                Files.createFile(file);
            }
        } catch (IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
    }
}
