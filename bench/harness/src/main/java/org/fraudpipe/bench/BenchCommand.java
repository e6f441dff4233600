package org.fraudpipe.bench;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import java.io.IOException;
import java.io.InputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.Callable;
import org.fraudpipe.bench.FinalFeatures.WindowId;
import org.fraudpipe.bench.RunnerJvm.Kind;
import org.fraudpipe.job.cli.CommandLines;
import org.fraudpipe.job.cli.DurationConverter;
import org.fraudpipe.job.topology.Uids;
import org.fraudpipe.schemas.Topic;
import org.fraudpipe.schemas.avro.FeatureRecord;
import org.fraudpipe.schemas.avro.LateReason;
import org.fraudpipe.schemas.avro.LateRecord;
import org.fraudpipe.schemas.avro.ScoreRecord;
import org.fraudpipe.schemas.avro.Transaction;
import org.fraudpipe.schemas.wire.ConfluentAvroCodec;
import org.fraudpipe.schemas.wire.TopicSerdes;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * {@code ./fraud bench}: the performance suite of issue #8, in one run on one machine.
 *
 * <ol>
 *   <li><b>throughput</b>: one input topic of N simulated events, generated once; then each system
 *       in a JVM of its own over it, from the earliest offset to its own output topics, all
 *       exactly-once: the job with RocksDB (archive off, and on), with the hashmap backend, the
 *       Flink SQL peer and the Kafka Streams peer. Sustained events/s and events per CPU-second;
 *       the peers' final features compared with the job's, every difference with a cause.
 *   <li><b>burst</b>: K users with a transaction in one window, then the watermark passes its end:
 *       time from the firing to the last score written, for each K.
 *   <li><b>state</b>: bytes of window state per active key for several allowed latenesses, against
 *       {@code lateness / window + 1} live windows per key.
 *   <li><b>jmh</b>: the micro-benchmarks (feature aggregation, Avro serde, the scorer).
 *   <li><b>live</b> (alias latency): traffic published in real time at fixed rates, event time =
 *       the wall clock; the job with both paths (window results and scores at arrival) and the
 *       Flink SQL peer (group window and per-transaction OVER query), each at each rate: CPU per
 *       event, per-transaction and window-result latency, whether the rate was kept and the system
 *       kept up, per-transaction features compared ({@link LiveSuite}).
 * </ol>
 *
 * <p>Results: {@code <work-dir>/<timestamp>/results.json} (and {@code --out}), a summary on stdout.
 * Everything it starts (broker, registry, runner JVMs) ends with it.
 */
@Command(
        name = "./fraud bench",
        mixinStandardHelpOptions = true,
        sortOptions = false,
        description = {
            "Runs the performance suite: the feature job against Flink SQL and Kafka Streams on the"
                    + " same generated input (throughput, CPU, result equality), the window-close"
                    + " burst, state cost per key, the JMH micro-benchmarks, and live-paced runs at"
                    + " fixed rates (latency of scores at arrival and of window results).",
            "Starts its own Kafka broker and schema registry on free ports; stops everything at the"
                    + " end. Takes minutes to an hour: never part of `mvn verify`.",
        })
public final class BenchCommand implements Callable<Integer> {

    static final List<String> ALL_SYSTEMS =
            List.of(
                    "ours-rocksdb",
                    "ours-rocksdb-archive",
                    "ours-hashmap",
                    "ours-rocksdb-per-tx",
                    "flink-sql",
                    "flink-sql-hashmap",
                    "flink-sql-tvf",
                    "kafka-streams");

    static final List<String> SUITES = List.of("throughput", "burst", "state", "jmh", "live");

    @Option(
            names = "--suites",
            paramLabel = "SUITE[,SUITE...]",
            split = ",",
            defaultValue = "throughput,burst,state",
            description =
                    "Which parts to run: throughput, burst, state, jmh, live (alias latency: the"
                            + " live-paced runs, --live-* options) (default: ${DEFAULT-VALUE}).")
    List<String> suites;

    @Option(
            names = "--systems",
            paramLabel = "SYSTEM[,SYSTEM...]",
            split = ",",
            defaultValue = "ours-rocksdb,ours-rocksdb-archive,ours-hashmap,flink-sql,kafka-streams",
            description =
                    "Systems of the throughput suite, in run order; the first ours-* is the"
                            + " reference of the comparison. Known: "
                            + "ours-rocksdb, ours-rocksdb-archive, ours-hashmap, ours-rocksdb-per-tx"
                            + " (scores at arrival on too; one source for both paths), flink-sql, flink-sql-hashmap,"
                            + " flink-sql-tvf (window TVF: no lateness, a reference row),"
                            + " kafka-streams (default: ${DEFAULT-VALUE}).")
    List<String> systems;

    @Option(
            names = "--variant",
            paramLabel = "NAME=BASE|--opt|value...",
            description =
                    "A variant of a system for before/after comparisons in one run, usable in"
                            + " --systems: NAME runs like BASE with these runner options appended"
                            + " (they override; '--jvm|OPTION' adds a JVM option instead), e.g."
                            + " 'ours-noreuse=ours-rocksdb|--flink-conf|pipeline.object-reuse=false'"
                            + " or 'kafka-streams-100ms=kafka-streams|--commit-interval|100ms'."
                            + " Repeatable.")
    List<String> variantSpecs = new ArrayList<>();

    @Option(
            names = "--warm-up-runs",
            paramLabel = "N",
            defaultValue = "1",
            description =
                    "Discarded runs of the first system before the measured throughput runs"
                            + " (default: ${DEFAULT-VALUE}): the broker's JIT and the page cache"
                            + " warm up, which otherwise favours whichever system runs last"
                            + " (same-system runs got up to 30 %% faster through a session).")
    int warmUpRuns;

    @Option(
            names = "--events",
            paramLabel = "N",
            defaultValue = "2000000",
            description = "Input events of the throughput suite (default: ${DEFAULT-VALUE}).")
    long events;

    @Option(
            names = "--users",
            paramLabel = "N",
            defaultValue = "50000",
            description = "Simulated card holders (default: ${DEFAULT-VALUE}).")
    int users;

    @Option(
            names = "--span",
            paramLabel = "DURATION",
            defaultValue = "1d",
            converter = DurationConverter.class,
            description = "Event-time span of the simulated traffic (default: ${DEFAULT-VALUE}).")
    Duration span;

    @Option(
            names = "--seed",
            paramLabel = "S",
            defaultValue = "8",
            description = "Seed of the generated data (default: ${DEFAULT-VALUE}).")
    long seed;

    @Option(
            names = "--partitions",
            paramLabel = "N",
            defaultValue = "2",
            description = "Partitions of every topic (default: ${DEFAULT-VALUE}).")
    int partitions;

    @Option(
            names = "--parallelism",
            paramLabel = "N",
            defaultValue = "2",
            description =
                    "Flink parallelism and Kafka Streams threads of every system (default:"
                            + " ${DEFAULT-VALUE}).")
    int parallelism;

    @Option(
            names = "--checkpoint-interval",
            paramLabel = "DURATION",
            defaultValue = "10s",
            converter = DurationConverter.class,
            description =
                    "Flink checkpoint interval, and Kafka Streams' commit interval (default:"
                            + " ${DEFAULT-VALUE}, the job's).")
    Duration checkpointInterval;

    @Option(
            names = "--burst-users",
            paramLabel = "N[,N...]",
            split = ",",
            defaultValue = "10000,100000",
            description = "Active users of each burst run (default: ${DEFAULT-VALUE}).")
    List<Integer> burstUsers;

    @Option(
            names = "--burst-warm-up-windows",
            paramLabel = "N",
            defaultValue = "4",
            description =
                    "Windows every burst user has a transaction in before the measured one, each"
                            + " fired and dropped before it: the firing path is JIT-compiled, as in"
                            + " a running job (default: ${DEFAULT-VALUE}).")
    int burstWarmUpWindows;

    @Option(
            names = "--burst-runs",
            paramLabel = "N",
            defaultValue = "3",
            description =
                    "Runs of the job over each burst input; the median is the figure (default:"
                            + " ${DEFAULT-VALUE}; an odd number).")
    int burstRuns;

    @Option(
            names = "--state-users",
            paramLabel = "N",
            defaultValue = "20000",
            description = "Active users of the state runs (default: ${DEFAULT-VALUE}).")
    int stateUsers;

    @Option(
            names = "--state-lateness",
            paramLabel = "N[,N...]",
            split = ",",
            defaultValue = "0,1,3,6",
            description =
                    "Allowed lateness of each state run, in windows (default: ${DEFAULT-VALUE}).")
    List<Integer> stateLateness;

    @Option(
            names = "--state-tx-per-window",
            paramLabel = "N",
            defaultValue = "2",
            description =
                    "Transactions per user and window in the state runs (default: ${DEFAULT-VALUE}).")
    int stateTxPerWindow;

    @Option(
            names = "--live-rates",
            paramLabel = "N[,N...]",
            split = ",",
            defaultValue = "1000,2000,5000,10000,20000,30000",
            description =
                    "Events per second of the live runs, one run per rate and system (default:"
                            + " ${DEFAULT-VALUE}: issue #16's 1k, 5k, 20k and issue #20's 2k, 10k,"
                            + " 30k).")
    List<Long> liveRates;

    @Option(
            names = "--live-systems",
            paramLabel = "SYSTEM[,SYSTEM...]",
            split = ",",
            defaultValue = "ours,flink-sql",
            description =
                    "Systems of the live runs: ours (RocksDB, exactly-once window path with"
                            + " scoring, scores at arrival at-least-once), flink-sql (group window"
                            + " with lateness, exactly-once; per-transaction OVER query,"
                            + " at-least-once) (default: ${DEFAULT-VALUE}).")
    List<String> liveSystems;

    @Option(
            names = "--live-window-size",
            paramLabel = "DURATION",
            defaultValue = "1m",
            converter = DurationConverter.class,
            description =
                    "Window size and trailing window of the live runs (default: ${DEFAULT-VALUE};"
                            + " the job's is 10m, whose windows would need 10+ minutes per run to"
                            + " close: see docs/BENCHMARKS.md for what a smaller one changes).")
    Duration liveWindow;

    @Option(
            names = "--live-allowed-lateness",
            paramLabel = "DURATION",
            defaultValue = "2m",
            converter = DurationConverter.class,
            description =
                    "Allowed lateness of the live runs (default: ${DEFAULT-VALUE}, the job's).")
    Duration liveLateness;

    @Option(
            names = "--live-warm-up",
            paramLabel = "DURATION",
            defaultValue = "60s",
            converter = DurationConverter.class,
            description =
                    "Traffic published at the rate before the measured interval, discarded"
                            + " (default: ${DEFAULT-VALUE}).")
    Duration liveWarmUp;

    @Option(
            names = "--live-duration",
            paramLabel = "DURATION",
            defaultValue = "120s",
            converter = DurationConverter.class,
            description = "The measured interval of each live run (default: ${DEFAULT-VALUE}).")
    Duration liveDuration;

    @Option(
            names = "--live-user-gap",
            paramLabel = "DURATION",
            defaultValue = "1m",
            converter = DurationConverter.class,
            description =
                    "Mean time between two transactions of a user: users = rate x this (at least"
                            + " 1000; default: ${DEFAULT-VALUE}, one per user and window of 1m).")
    Duration liveUserGap;

    @Option(
            names = "--live-late-share",
            paramLabel = "SHARE",
            defaultValue = "0.001",
            description =
                    "Share of live events arriving late, out-of-orderness + 1 s to allowed"
                            + " lateness + window behind their time (default: ${DEFAULT-VALUE}).")
    double liveLateShare;

    @Option(
            names = "--live-retry-share",
            paramLabel = "SHARE",
            defaultValue = "0.005",
            description =
                    "Share of live events sent twice, 0.2-3 s apart (producer retries; default:"
                            + " ${DEFAULT-VALUE}).")
    double liveRetryShare;

    @Option(
            names = "--live-drain-timeout",
            paramLabel = "DURATION",
            defaultValue = "2m",
            converter = DurationConverter.class,
            description =
                    "After publishing, how long a live run waits for the system to read the rest"
                            + " before stopping it (default: ${DEFAULT-VALUE}).")
    Duration liveDrainTimeout;

    @Option(
            names = "--live-compare-sample",
            paramLabel = "N",
            defaultValue = "200000",
            description =
                    "About how many transactions per rate the per-transaction features of ours and"
                            + " flink-sql are compared on (whole users; default: ${DEFAULT-VALUE}).")
    long liveCompareSample;

    @Option(
            names = "--live-ours-arg",
            paramLabel = "ARG",
            description =
                    "An argument added to the job's command line in the live runs, repeatable, in"
                            + " order (a job option and its value: --live-ours-arg="
                            + "--transaction-buffer-timeout --live-ours-arg=100ms).")
    List<String> liveOursArgs = new ArrayList<>();

    @Option(
            names = "--runner-heap",
            paramLabel = "SIZE",
            defaultValue = "2g",
            description = "-Xms/-Xmx of every system's JVM (default: ${DEFAULT-VALUE}).")
    String runnerHeap;

    @Option(
            names = "--broker-heap",
            paramLabel = "SIZE",
            defaultValue = "1g",
            description = "-Xmx of the broker JVM (default: ${DEFAULT-VALUE}).")
    String brokerHeap;

    @Option(
            names = "--jfr",
            description = "Record a JFR profile (settings=profile) of every run (run.jfr).")
    boolean jfr;

    @Option(
            names = "--jmh-options",
            paramLabel = "OPTIONS",
            defaultValue = "-wi 2 -i 3 -f 1 -w 5s -r 5s",
            description = "JMH options (default: ${DEFAULT-VALUE}).")
    String jmhOptions;

    @Option(
            names = "--run-timeout",
            paramLabel = "DURATION",
            defaultValue = "45m",
            converter = DurationConverter.class,
            description = "Longest one system's run may take (default: ${DEFAULT-VALUE}).")
    Duration runTimeout;

    @Option(
            names = "--work-dir",
            paramLabel = "DIR",
            defaultValue = "target/bench",
            description =
                    "Where runs keep data, logs and results (relative: under the project root;"
                            + " default: ${DEFAULT-VALUE}).")
    Path workDir;

    @Option(
            names = "--out",
            paramLabel = "FILE",
            description =
                    "Also write the results JSON here (e.g. docs/bench-results.json; relative:"
                            + " under the project root).")
    Path out;

    @CommandLine.Spec CommandLine.Model.CommandSpec spec;

    // The job's event-time settings (its defaults), the same for every system.
    private final Duration window = Duration.ofMinutes(10);
    private final Duration allowedLateness = Duration.ofMinutes(2);
    private final Duration outOfOrderness = Duration.ofSeconds(5);

    private Path home;
    private Path runRoot;
    private RunnerJvm runners;
    private final PrintStream log = System.out;

    public static void main(String[] args) {
        System.exit(commandLine().execute(args));
    }

    /** The command line of {@code ./fraud bench}, with ./fraud's usage errors and footers. */
    static CommandLine commandLine() {
        return CommandLines.install(new CommandLine(new BenchCommand()));
    }

    /** A named variant: a base system plus runner options. */
    record Variant(String base, List<String> args) {}

    private final Map<String, Variant> variants = new LinkedHashMap<>();

    private String base(String system) {
        Variant v = variants.get(system);
        return v == null ? system : v.base();
    }

    private List<String> variantArgs(String system) {
        Variant v = variants.get(system);
        return v == null ? List.of() : v.args();
    }

    private boolean isOurs(String system) {
        return base(system).startsWith("ours");
    }

    @Override
    public Integer call() throws Exception {
        for (String v : variantSpecs) {
            int eq = v.indexOf('=');
            String[] parts = v.substring(eq + 1).split("\\|");
            if (eq <= 0 || !ALL_SYSTEMS.contains(parts[0]) || parts.length % 2 != 1) {
                throw new CommandLine.ParameterException(
                        spec.commandLine(),
                        "--variant wants NAME=BASE|--opt|value..., BASE one of "
                                + ALL_SYSTEMS
                                + "; got '"
                                + v
                                + "'");
            }
            variants.put(
                    v.substring(0, eq),
                    new Variant(parts[0], List.of(parts).subList(1, parts.length)));
        }
        Set<String> named = new HashSet<>();
        for (String s : systems) {
            if (!ALL_SYSTEMS.contains(s) && !variants.containsKey(s)) {
                throw new CommandLine.ParameterException(
                        spec.commandLine(), "--systems: unknown system '" + s + "'");
            }
            // A second run under the same name would share the first one's directory, consumer
            // group and Kafka Streams state, read nothing and wait for --run-timeout.
            if (!named.add(s)) {
                throw new CommandLine.ParameterException(
                        spec.commandLine(),
                        "--systems: '"
                                + s
                                + "' is named twice; to run a system again, name a variant of it:"
                                + " --variant '"
                                + s
                                + "-2="
                                + (variants.containsKey(s) ? variants.get(s).base() : s)
                                + "'");
            }
        }
        if (burstRuns < 1 || burstRuns % 2 == 0 || burstWarmUpWindows < 1 || warmUpRuns < 0) {
            throw new CommandLine.ParameterException(
                    spec.commandLine(),
                    "--burst-runs must be odd and positive, --burst-warm-up-windows positive,"
                            + " --warm-up-runs not negative");
        }
        suites = suites.stream().map(s -> s.equals("latency") ? "live" : s).toList();
        for (String s : suites) {
            if (!SUITES.contains(s)) {
                throw new CommandLine.ParameterException(
                        spec.commandLine(), "--suites: unknown suite '" + s + "'");
            }
        }
        if (suites.contains("live")) {
            for (String s : liveSystems) {
                if (!LiveSuite.SYSTEMS.contains(s)) {
                    throw new CommandLine.ParameterException(
                            spec.commandLine(),
                            "--live-systems: unknown system '"
                                    + s
                                    + "' (known: "
                                    + LiveSuite.SYSTEMS
                                    + ")");
                }
            }
            if (liveRates.stream().anyMatch(r -> r < 1 || r > 1_000_000)
                    || liveWindow.toMillis() % 1000 != 0
                    || liveWindow.isZero()
                    || liveWarmUp.toMillis() % 1000 != 0
                    || liveDuration.toSeconds() < 1
                    || liveDuration.toMillis() % 1000 != 0
                    || liveCompareSample < 1
                    || liveLateShare < 0
                    || liveLateShare > 1
                    || liveRetryShare < 0
                    || liveRetryShare > 1) {
                throw new CommandLine.ParameterException(
                        spec.commandLine(),
                        "live runs want rates of 1 to 1,000,000 per second, whole seconds for"
                                + " --live-window-size, --live-warm-up and --live-duration (at least"
                                + " 1s), shares in [0, 1] and a positive --live-compare-sample");
            }
        }
        home = Path.of(System.getProperty("fraud.home", ".")).toAbsolutePath().normalize();
        String stamp =
                DateTimeFormatter.ofPattern("yyyyMMdd-HHmmss")
                        .withZone(ZoneOffset.UTC)
                        .format(Instant.now());
        runRoot = home.resolve(workDir).resolve(stamp);
        Files.createDirectories(runRoot);
        Path logConfig = runRoot.resolve("log4j2-bench.xml");
        try (InputStream in = BenchCommand.class.getResourceAsStream("/log4j2-bench.xml")) {
            Files.copy(in, logConfig, StandardCopyOption.REPLACE_EXISTING);
        }
        runners = new RunnerJvm(home, logConfig, runnerHeap, jfr);

        Map<String, Object> results = new LinkedHashMap<>();
        results.put("issue", 8);
        results.put(
                "command",
                "./fraud bench "
                        + String.join(" ", spec.commandLine().getParseResult().originalArgs()));
        results.put("machine", Machine.describe(home));
        results.put("loadAverageAtStart", Machine.loadAverage());
        Map<String, Object> settings = new LinkedHashMap<>();
        settings.put("windowSize", window.toString());
        settings.put("allowedLateness", allowedLateness.toString());
        settings.put("outOfOrderness", outOfOrderness.toString());
        settings.put("kafkaStreamsGrace", allowedLateness.plus(outOfOrderness).toString());
        settings.put("partitions", partitions);
        settings.put("parallelism", parallelism);
        settings.put("checkpointOrCommitInterval", checkpointInterval.toString());
        settings.put(
                "guarantee",
                "exactly-once (Flink checkpoints + transactional Kafka sinks;"
                        + " Kafka Streams exactly_once_v2)");
        settings.put("runnerHeap", runnerHeap);
        results.put("settings", settings);
        log.printf("bench: results and logs in %s%n", runRoot);

        if (suites.contains("throughput")
                || suites.contains("burst")
                || suites.contains("state")
                || suites.contains("live")) {
            log.println("bench: starting Kafka and the schema registry...");
            try (BenchKafka kafka = BenchKafka.start(runRoot.resolve("kafka"), brokerHeap)) {
                log.printf(
                        "bench: broker %s (pid %d), registry %s%n",
                        kafka.bootstrapServers(), kafka.brokerPid(), kafka.registryUrl());
                if (suites.contains("throughput")) {
                    results.put("throughput", throughput(kafka));
                    write(results);
                }
                if (suites.contains("burst")) {
                    results.put("burst", burst(kafka));
                    write(results);
                }
                if (suites.contains("state")) {
                    results.put("state", state(kafka));
                    write(results);
                }
                if (suites.contains("live")) {
                    results.put(
                            "live",
                            new LiveSuite(
                                            this,
                                            new LiveSuite.Settings(
                                                    liveRates,
                                                    liveSystems,
                                                    liveWindow,
                                                    liveLateness,
                                                    outOfOrderness,
                                                    liveWarmUp,
                                                    liveDuration,
                                                    liveUserGap,
                                                    liveLateShare,
                                                    liveRetryShare,
                                                    liveDrainTimeout,
                                                    liveCompareSample,
                                                    seed,
                                                    partitions,
                                                    parallelism,
                                                    checkpointInterval,
                                                    Duration.ofMinutes(10),
                                                    List.copyOf(liveOursArgs)),
                                            runners,
                                            runRoot,
                                            log)
                                    .run(kafka));
                    write(results);
                }
            }
        }
        if (suites.contains("jmh")) {
            results.put("jmh", new JmhSuite(home, runRoot.resolve("jmh"), jmhOptions).run(log));
        }
        results.put("loadAverageAtEnd", Machine.loadAverage());
        write(results);
        log.printf("bench: done; results in %s%n", runRoot.resolve("results.json"));
        return 0;
    }

    private void write(Map<String, Object> results) throws IOException {
        ObjectMapper mapper = new ObjectMapper().enable(SerializationFeature.INDENT_OUTPUT);
        String json = mapper.writeValueAsString(results) + "\n";
        Files.writeString(runRoot.resolve("results.json"), json, StandardCharsets.UTF_8);
        if (out != null) {
            Path target = home.resolve(out);
            Files.createDirectories(target.toAbsolutePath().getParent());
            Files.writeString(target, json, StandardCharsets.UTF_8);
        }
    }

    // ---- throughput and equality ------------------------------------------------------------

    private Map<String, Object> throughput(BenchKafka kafka) throws Exception {
        String input = "bench.transactions";
        kafka.createTopics(Map.of(input, Topic.TRANSACTIONS), partitions);
        log.printf(
                "bench: generating %,d events (%,d users over %s) into %s...%n",
                events, users, span, input);
        Datasets.Dataset data =
                Datasets.simulation(
                        kafka,
                        input,
                        partitions,
                        events,
                        users,
                        span,
                        seed,
                        window,
                        allowedLateness);
        log.printf(
                "bench: published %,d records in %.1f s%n", data.records(), data.publishSeconds());
        Map<String, Object> section = new LinkedHashMap<>();
        section.put("input", describe(data));
        Map<String, Object> runs = new LinkedHashMap<>();
        section.put("runs", runs);

        Map<String, String> users = new HashMap<>();
        FinalFeatures reference = null;
        String referenceName = null;
        Map<WindowId, Integer> referenceTooLate = new HashMap<>();
        Map<String, Comparison> comparisons = new LinkedHashMap<>();
        List<Map<String, Object>> warmUps = new ArrayList<>();
        for (int i = 1; i <= warmUpRuns; i++) {
            // A variant of its own, so its output topics and directory are its own.
            String name = "warm-up-" + i;
            variants.put(name, new Variant(base(systems.get(0)), variantArgs(systems.get(0))));
            log.printf("bench: %s (%s, discarded) over %s...%n", name, systems.get(0), input);
            Map<String, Object> run = runSystem(kafka, name, input, data, runRoot.resolve(name));
            warmUps.add(
                    Map.of(
                            "system", systems.get(0),
                            "eventsPerSecond", run.get("eventsPerSecond"),
                            "eventsPerCpuSecond", run.get("eventsPerCpuSecond")));
        }
        section.put("discardedWarmUpRuns", warmUps);
        for (String system : systems) {
            log.printf("bench: %s over %s...%n", system, input);
            Map<String, Object> run =
                    runSystem(kafka, system, input, data, runRoot.resolve(system));
            runs.put(system, run);
            log.printf(
                    Locale.ROOT,
                    "bench: %s: %,.0f events/s, %,.0f events per CPU-second (%.2f cores busy);%s%n",
                    system,
                    number(run.get("eventsPerSecond")),
                    number(run.get("eventsPerCpuSecond")),
                    number(run.get("cpuCoresBusy")),
                    run.get("secondHalfEventsPerSecond") == null
                            ? " no second half (too few one-second samples)"
                            : String.format(
                                    Locale.ROOT,
                                    " second half %,.0f events/s, %,.0f per CPU-second",
                                    number(run.get("secondHalfEventsPerSecond")),
                                    number(run.get("secondHalfEventsPerCpuSecond"))));
            boolean ours = isOurs(system);
            FinalFeatures features =
                    new FinalFeatures(
                            ours
                                    ? FinalFeatures.Rule.HIGHEST_REVISION
                                    : FinalFeatures.Rule.LAST_RECORD,
                            users);
            String featuresTopic = system + ".features";
            ConfluentAvroCodec<FeatureRecord> codec =
                    TopicSerdes.forRegistry(kafka.registryUrl())
                            .valueCodec(Topic.FEATURES, featuresTopic, FeatureRecord.class);
            kafka.readCommitted(featuresTopic, r -> features.accept(codec.decode(r.value())));
            Map<String, Object> outputs = new LinkedHashMap<>();
            outputs.put("featureRecords", features.records());
            outputs.put("windows", features.windows());
            if (ours) {
                outputs.put("scoreRecords", kafka.readCommitted(system + ".scores", r -> {}));
                Map<WindowId, Integer> tooLate = referenceTooLate;
                boolean isReference = reference == null;
                ConfluentAvroCodec<LateRecord> lateCodec =
                        TopicSerdes.forRegistry(kafka.registryUrl())
                                .valueCodec(Topic.LATE, system + ".late", LateRecord.class);
                long[] late = new long[1];
                kafka.readCommitted(
                        system + ".late",
                        r -> {
                            late[0]++;
                            LateRecord l = lateCodec.decode(r.value());
                            if (isReference && l.getReason() == LateReason.TOO_LATE) {
                                tooLate.merge(
                                        new WindowId(
                                                l.getTransaction().getUserId(),
                                                l.getWindowStart().toEpochMilli()),
                                        1,
                                        Integer::sum);
                            }
                        });
                outputs.put("lateRecords", late[0]);
                outputs.put("deadLetters", kafka.readCommitted(system + ".dead-letters", r -> {}));
            }
            run.put("outputs", outputs);
            if (reference == null && ours) {
                reference = features;
                referenceName = system;
            } else if (reference != null) {
                comparisons.put(system, Comparison.of(reference.values(), features.values()));
            }
        }
        if (reference == null) {
            log.println("bench: no ours-* system ran: nothing to compare");
            return section;
        }
        // One pass over the input explains the differences of every comparison.
        Set<WindowId> differing = new LinkedHashSet<>();
        comparisons.values().forEach(c -> differing.addAll(c.differingWindows()));
        ConfluentAvroCodec<Transaction> txCodec =
                TopicSerdes.forRegistry(kafka.registryUrl())
                        .valueCodec(Topic.TRANSACTIONS, input, Transaction.class);
        InputIndex index =
                InputIndex.build(kafka, input, txCodec::decode, differing, window.toMillis());
        Map<String, Object> equality = new LinkedHashMap<>();
        equality.put("reference", referenceName);
        equality.put("lateThresholdMillis", allowedLateness.plus(outOfOrderness).toMillis());
        for (Map.Entry<String, Comparison> c : comparisons.entrySet()) {
            // The window TVF has no lateness: a record arriving once its partition's event time
            // is the out-of-orderness past its window's end is dropped there, counted by the job.
            long threshold =
                    base(c.getKey()).equals("flink-sql-tvf")
                            ? outOfOrderness.toMillis()
                            : allowedLateness.plus(outOfOrderness).toMillis();
            Map<String, Object> report =
                    c.getValue().lateThreshold(threshold).report(index, referenceTooLate);
            report.put("lateThresholdMillis", threshold);
            equality.put(c.getKey(), report);
            log.printf(
                    "bench: %s vs %s: %d of %d windows equal, %d differ %s%n",
                    c.getKey(),
                    referenceName,
                    report.get("equalWindows"),
                    report.get("referenceWindows"),
                    report.get("differentWindows"),
                    report.get("differentByCause"));
        }
        section.put("equality", equality);
        section.put("ratios", ratios(runs));
        return section;
    }

    /** Ours / peer for events/s and events per CPU-second, for every pair ran. */
    private Map<String, Object> ratios(Map<String, Object> runs) {
        Map<String, Object> r = new LinkedHashMap<>();
        for (String ours : runs.keySet()) {
            if (!isOurs(ours)) {
                continue;
            }
            for (String peer : runs.keySet()) {
                if (isOurs(peer)) {
                    continue;
                }
                @SuppressWarnings("unchecked")
                Map<String, Object> o = (Map<String, Object>) runs.get(ours);
                @SuppressWarnings("unchecked")
                Map<String, Object> p = (Map<String, Object>) runs.get(peer);
                Map<String, Object> pair = new LinkedHashMap<>();
                for (String figure :
                        List.of(
                                "eventsPerSecond",
                                "eventsPerCpuSecond",
                                "secondHalfEventsPerSecond",
                                "secondHalfEventsPerCpuSecond")) {
                    pair.put(figure, number(o.get(figure)) / number(p.get(figure)));
                }
                r.put(ours + " / " + peer, pair);
            }
        }
        return r;
    }

    private Map<String, Object> runSystem(
            BenchKafka kafka, String system, String input, Datasets.Dataset data, Path runDir)
            throws Exception {
        List<String> args = new ArrayList<>();
        Kind kind;
        String base = base(system);
        switch (base) {
            case "ours-rocksdb", "ours-rocksdb-archive", "ours-hashmap", "ours-rocksdb-per-tx" -> {
                kind = Kind.OURS;
                createOursTopics(kafka, system);
                args.addAll(
                        oursArgs(
                                kafka,
                                system,
                                input,
                                data.records(),
                                runDir,
                                base.equals("ours-hashmap") ? "hashmap" : "rocksdb",
                                base.equals("ours-rocksdb-archive")
                                        ? runDir.resolve("archive").toUri().toString()
                                        : "none"));
                if (base.equals("ours-rocksdb-per-tx")) {
                    // One source for both paths: the probe counts the records of the one source
                    // (the run ends when it has seen them all), so a second source's remaining
                    // work would fall outside the measured interval. The live suite runs the
                    // job's default, a source of its own for scores at arrival.
                    args.addAll(
                            List.of("--per-transaction", "true", "--transaction-source", "shared"));
                }
            }
            case "flink-sql", "flink-sql-hashmap", "flink-sql-tvf" -> {
                kind = Kind.FLINK_SQL;
                kafka.createTopics(Map.of(system + ".features", Topic.FEATURES), partitions);
                args.addAll(
                        List.of(
                                "--bootstrap-servers",
                                kafka.bootstrapServers(),
                                "--schema-registry-url",
                                kafka.registryUrl(),
                                "--input-topic",
                                input,
                                "--output-topic",
                                system + ".features",
                                "--group-id",
                                "bench-" + system,
                                "--transactional-id-prefix",
                                "bench-" + system,
                                "--checkpoint-dir",
                                runDir.resolve("checkpoints").toUri().toString(),
                                "--savepoint-dir",
                                runDir.resolve("savepoints").toUri().toString(),
                                "--expect-records",
                                Long.toString(data.records()),
                                "--state-backend",
                                base.equals("flink-sql-hashmap") ? "hashmap" : "rocksdb",
                                "--window-query",
                                base.equals("flink-sql-tvf") ? "tvf" : "legacy",
                                "--parallelism",
                                Integer.toString(parallelism),
                                "--checkpoint-interval",
                                checkpointInterval.toMillis() + "ms",
                                "--timeout",
                                runTimeout.toMillis() + "ms"));
            }
            case "kafka-streams" -> {
                kind = Kind.KAFKA_STREAMS;
                kafka.createTopics(Map.of(system + ".features", Topic.FEATURES), partitions);
                args.addAll(
                        List.of(
                                "--bootstrap-servers",
                                kafka.bootstrapServers(),
                                "--schema-registry-url",
                                kafka.registryUrl(),
                                "--input-topic",
                                input,
                                "--output-topic",
                                system + ".features",
                                "--application-id",
                                "bench-" + system + "-" + input,
                                "--state-dir",
                                runDir.resolve("state").toString(),
                                "--expect-records",
                                Long.toString(data.records()),
                                "--threads",
                                Integer.toString(parallelism),
                                "--commit-interval",
                                checkpointInterval.toMillis() + "ms",
                                "--timeout",
                                runTimeout.toMillis() + "ms"));
            }
            default -> throw new IllegalArgumentException(system);
        }
        List<String> jvmOptions = new ArrayList<>();
        List<String> extra = variantArgs(system);
        for (int i = 0; i < extra.size(); i += 2) {
            if (extra.get(i).equals("--jvm")) {
                jvmOptions.add(extra.get(i + 1));
            } else {
                args.add(extra.get(i));
                args.add(extra.get(i + 1));
            }
        }
        return runners.run(kind, args, jvmOptions, runDir, runTimeout.plusMinutes(5), kafka);
    }

    /**
     * The job's output topics of a run named {@code prefix}: every topic of the job (its start-up
     * check wants them all, whether the run writes the per-transaction scores or not).
     */
    void createOursTopics(BenchKafka kafka, String prefix) {
        Map<String, Topic> topics = new LinkedHashMap<>();
        topics.put(prefix + ".features", Topic.FEATURES);
        topics.put(prefix + ".scores", Topic.SCORES);
        topics.put(prefix + ".late", Topic.LATE);
        topics.put(prefix + ".dead-letters", Topic.DEAD_LETTERS);
        topics.put(prefix + ".transaction-scores", Topic.TRANSACTION_SCORES);
        topics.put(prefix + ".model-releases", Topic.MODEL_RELEASES);
        kafka.createTopics(topics, partitions);
    }

    /** The job's options for a run: production defaults, the run's topics and directories. */
    List<String> oursArgs(
            BenchKafka kafka,
            String prefix,
            String input,
            long expected,
            Path runDir,
            String backend,
            String archive) {
        return new ArrayList<>(
                List.of(
                        "--expect-records",
                        Long.toString(expected),
                        "--savepoint-dir",
                        runDir.resolve("savepoints").toString(),
                        "--timeout",
                        runTimeout.toMillis() + "ms",
                        "--bootstrap-servers",
                        kafka.bootstrapServers(),
                        "--schema-registry-url",
                        kafka.registryUrl(),
                        "--topic.transactions",
                        input,
                        "--topic.features",
                        prefix + ".features",
                        "--topic.scores",
                        prefix + ".scores",
                        "--topic.late",
                        prefix + ".late",
                        "--topic.dead-letters",
                        prefix + ".dead-letters",
                        "--topic.transaction-scores",
                        prefix + ".transaction-scores",
                        "--topic.model-releases",
                        prefix + ".model-releases",
                        "--group-id",
                        "bench-" + prefix,
                        "--transactional-id-prefix",
                        "bench-" + prefix,
                        "--starting-offsets",
                        "earliest",
                        "--checkpoint-dir",
                        runDir.resolve("checkpoints").toUri().toString(),
                        "--checkpoint-interval",
                        checkpointInterval.toMillis() + "ms",
                        "--parallelism",
                        Integer.toString(parallelism),
                        "--state-backend",
                        backend,
                        "--archive-dir",
                        archive));
    }

    // ---- window-close burst -------------------------------------------------------------------

    private Map<String, Object> burst(BenchKafka kafka) throws Exception {
        Map<String, Object> section = new LinkedHashMap<>();
        section.put(
                "method",
                "K users each have one transaction in each of "
                        + burstWarmUpWindows
                        + " warm-up windows and one in W, then one flush record per partition"
                        + " moves the watermark past W's end. The job (RocksDB, exactly-once,"
                        + " scoring on, archive off) reads it all; each warm-up window fires while"
                        + " the next one's records arrive (the firing path is JIT-compiled), W"
                        + " fires at the flush. Firing time = earliest"
                        + " emittedAt of W's panes (the window operator's clock when the watermark"
                        + " reached it); last score written = latest Kafka record timestamp of W's"
                        + " scores (the sink writer's send time; visible to read_committed readers"
                        + " at the next checkpoint). Also from the arrival of the flush record at"
                        + " the source (the probe's wall clock).");
        for (int k : burstUsers) {
            String name = "burst-" + k;
            String input = "bench." + name + ".transactions";
            kafka.createTopics(Map.of(input, Topic.TRANSACTIONS), partitions);
            log.printf(
                    "bench: burst: publishing %,d users x %d windows into %s...%n",
                    k, burstWarmUpWindows + 1, input);
            Datasets.Dataset data =
                    Datasets.burst(
                            kafka,
                            input,
                            partitions,
                            k,
                            burstWarmUpWindows,
                            seed,
                            window,
                            outOfOrderness);
            long w = ((Number) data.description().get("windowStart")).longValue();
            List<Map<String, Object>> repeats = new ArrayList<>();
            List<Double> seconds = new ArrayList<>();
            for (int r = 1; r <= burstRuns; r++) {
                String runName = name + "-run-" + r;
                createOursTopics(kafka, runName);
                Path runDir = runRoot.resolve(runName);
                List<String> args =
                        oursArgs(kafka, runName, input, data.records(), runDir, "rocksdb", "none");
                args.addAll(List.of("--settle", "3s"));
                log.printf(
                        "bench: burst: the job over %s (run %d of %d)...%n", input, r, burstRuns);
                Map<String, Object> run =
                        runners.run(Kind.OURS, args, runDir, runTimeout.plusMinutes(5), kafka);
                Map<String, Object> figures = burstFigures(kafka, runName, w, run);
                figures.put("run", run);
                repeats.add(figures);
                double s = number(figures.get("firingToLastScoreWrittenSeconds"));
                seconds.add(s);
                log.printf(
                        Locale.ROOT,
                        "bench: burst %,d users: firing to last score written %.3f s (%d scores)%n",
                        k,
                        s,
                        figures.get("scoresOfWindow"));
            }
            List<Double> sorted = new ArrayList<>(seconds);
            Collections.sort(sorted);
            Map<String, Object> result = new LinkedHashMap<>();
            result.put("users", k);
            result.put("input", describe(data));
            // The median of the runs: one run varies with JIT, compaction and checkpoint timing.
            result.put("firingToLastScoreWrittenSecondsMedian", sorted.get(sorted.size() / 2));
            result.put("firingToLastScoreWrittenSecondsMin", sorted.get(0));
            result.put("firingToLastScoreWrittenSecondsMax", sorted.get(sorted.size() - 1));
            result.put("firingToLastScoreWrittenSecondsByRun", seconds);
            result.put("runs", repeats);
            section.put(Integer.toString(k), result);
        }
        return section;
    }

    private Map<String, Object> burstFigures(
            BenchKafka kafka, String name, long windowStart, Map<String, Object> run) {
        TopicSerdes serdes = TopicSerdes.forRegistry(kafka.registryUrl());
        ConfluentAvroCodec<FeatureRecord> fc =
                serdes.valueCodec(Topic.FEATURES, name + ".features", FeatureRecord.class);
        ConfluentAvroCodec<ScoreRecord> sc =
                serdes.valueCodec(Topic.SCORES, name + ".scores", ScoreRecord.class);
        long[] panes = {0, Long.MAX_VALUE, Long.MIN_VALUE}; // count, min emittedAt, max emittedAt
        kafka.readCommitted(
                name + ".features",
                r -> {
                    FeatureRecord f = fc.decode(r.value());
                    if (f.getWindowStart().toEpochMilli() == windowStart
                            && !f.getUserId().startsWith("~")) {
                        panes[0]++;
                        panes[1] = Math.min(panes[1], f.getEmittedAt().toEpochMilli());
                        panes[2] = Math.max(panes[2], f.getEmittedAt().toEpochMilli());
                    }
                });
        long[] scores = {0, Long.MIN_VALUE, Long.MIN_VALUE}; // count, max record ts, max scoredAt
        kafka.readCommitted(
                name + ".scores",
                r -> {
                    ScoreRecord s = sc.decode(r.value());
                    if (s.getWindowStart().toEpochMilli() == windowStart
                            && !s.getUserId().startsWith("~")) {
                        scores[0]++;
                        scores[1] = Math.max(scores[1], r.timestamp());
                        scores[2] = Math.max(scores[2], s.getScoredAt().toEpochMilli());
                    }
                });
        Map<String, Object> f = new LinkedHashMap<>();
        f.put("panesOfWindow", panes[0]);
        f.put("scoresOfWindow", scores[0]);
        f.put("firingWallMillis", panes[1]);
        f.put("lastPaneEmittedWallMillis", panes[2]);
        f.put("lastScoreWrittenWallMillis", scores[1]);
        f.put("lastScoredAtWallMillis", scores[2]);
        f.put("firingToLastPaneSeconds", (panes[2] - panes[1]) / 1e3);
        f.put("firingToLastScoredSeconds", (scores[2] - panes[1]) / 1e3);
        f.put("firingToLastScoreWrittenSeconds", (scores[1] - panes[1]) / 1e3);
        Object marker = run.get("flushMarkerWallMillis");
        if (marker instanceof Number m) {
            f.put("flushArrivalWallMillis", m.longValue());
            f.put("flushArrivalToFiringSeconds", (panes[1] - m.longValue()) / 1e3);
            f.put("flushArrivalToLastScoreWrittenSeconds", (scores[1] - m.longValue()) / 1e3);
        }
        return f;
    }

    // ---- state cost ---------------------------------------------------------------------------

    private Map<String, Object> state(BenchKafka kafka) throws Exception {
        Map<String, Object> section = new LinkedHashMap<>();
        int windows = stateLateness.stream().mapToInt(Integer::intValue).max().orElse(0) + 3;
        String input = "bench.state.transactions";
        kafka.createTopics(Map.of(input, Topic.TRANSACTIONS), partitions);
        log.printf(
                "bench: state: publishing %,d users x %d windows x %d transactions into %s...%n",
                stateUsers, windows, stateTxPerWindow, input);
        Datasets.Dataset data =
                Datasets.state(kafka, input, stateUsers, windows, stateTxPerWindow, seed, window);
        section.put(
                "method",
                "Every user has "
                        + stateTxPerWindow
                        + " transactions in each of "
                        + windows
                        + " consecutive windows (the last a second before the last window's end),"
                        + " no flush. The job (RocksDB, exactly-once, archive off) reads it all;"
                        + " then a native savepoint (RocksDB files) and a canonical one (Flink's"
                        + " format) are taken with the last windows alive. State of the window"
                        + " operator (uid "
                        + Uids.FEATURE_WINDOW
                        + ": accumulators, pane state, timers) divided by the users.");
        section.put("input", describe(data));
        long lastEvent = ((Number) data.description().get("lastEventTime")).longValue();
        long watermark = lastEvent - outOfOrderness.toMillis() - 1;
        Map<String, Object> runs = new LinkedHashMap<>();
        for (int k : stateLateness) {
            Duration lateness = window.multipliedBy(k);
            String name = "state-lateness-" + k;
            createOursTopics(kafka, name);
            Path runDir = runRoot.resolve(name);
            List<String> args =
                    oursArgs(kafka, name, input, data.records(), runDir, "rocksdb", "none");
            args.addAll(
                    List.of(
                            "--allowed-lateness",
                            lateness.toMillis() + "ms",
                            "--native-savepoint-dir",
                            runDir.resolve("native-savepoints").toString(),
                            "--settle",
                            "3s"));
            log.printf("bench: state: the job with allowed lateness %s...%n", lateness);
            Map<String, Object> run =
                    runners.run(Kind.OURS, args, runDir, runTimeout.plusMinutes(5), kafka);
            long live =
                    liveWindows(data.firstEventTime().toEpochMilli(), windows, lateness, watermark);
            Map<String, Object> r = new LinkedHashMap<>();
            r.put("allowedLateness", lateness.toString());
            r.put("rule", "lateness / window + 1 = " + (k + 1));
            r.put("liveWindowsPerKeyAtSavepoint", live);
            r.put("activeKeys", stateUsers);
            long canonical = operatorBytes(run.get("canonicalOperatorStateBytes"));
            long nativeBytes = operatorBytes(run.get("nativeOperatorStateBytes"));
            r.put("windowOperatorCanonicalBytes", canonical);
            r.put("canonicalBytesPerKey", canonical / (double) stateUsers);
            r.put("canonicalBytesPerKeyAndWindow", canonical / (double) stateUsers / live);
            r.put("windowOperatorNativeBytes", nativeBytes);
            r.put("nativeBytesPerKey", nativeBytes / (double) stateUsers);
            r.put("nativeBytesPerKeyAndWindow", nativeBytes / (double) stateUsers / live);
            r.put("run", run);
            runs.put(Integer.toString(k), r);
            log.printf(
                    Locale.ROOT,
                    "bench: state, lateness %s: %d live windows/key, %.0f B/key canonical, %.0f B/key"
                            + " RocksDB%n",
                    lateness,
                    live,
                    canonical / (double) stateUsers,
                    nativeBytes / (double) stateUsers);
        }
        section.put("runs", runs);
        return section;
    }

    /** Windows of the dataset still alive at {@code watermark}: end - 1 + lateness > watermark. */
    private long liveWindows(long first, int windows, Duration lateness, long watermark) {
        long live = 0;
        for (int i = 0; i < windows; i++) {
            long end = first + (i + 1) * window.toMillis();
            if (end - 1 + lateness.toMillis() > watermark) {
                live++;
            }
        }
        return live;
    }

    @SuppressWarnings("unchecked")
    private static long operatorBytes(Object sizes) {
        if (sizes instanceof Map<?, ?> m && m.get(Uids.FEATURE_WINDOW) instanceof Number n) {
            return n.longValue();
        }
        return -1;
    }

    // ---- helpers ------------------------------------------------------------------------------

    private static Map<String, Object> describe(Datasets.Dataset d) {
        Map<String, Object> m = new LinkedHashMap<>(d.description());
        m.put("topic", d.topic());
        m.put("records", d.records());
        m.put("flushRecords", d.flushRecords());
        m.put("firstEventTime", d.firstEventTime().toString());
        m.put("endEventTime", d.endEventTime().toString());
        m.put("flushEventTime", d.flushEventTime() == null ? null : d.flushEventTime().toString());
        m.put("publishSeconds", d.publishSeconds());
        return m;
    }

    static double number(Object o) {
        return o instanceof Number n ? n.doubleValue() : Double.NaN;
    }
}
