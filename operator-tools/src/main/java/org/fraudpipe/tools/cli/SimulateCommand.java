package org.fraudpipe.tools.cli;

import java.io.BufferedReader;
import java.io.BufferedWriter;
import java.io.IOException;
import java.io.OutputStreamWriter;
import java.io.PrintWriter;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.time.format.DateTimeParseException;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.Properties;
import java.util.concurrent.Callable;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.Producer;
import org.apache.kafka.common.serialization.Serializer;
import org.fraudpipe.job.cli.DurationConverter;
import org.fraudpipe.schemas.Topic;
import org.fraudpipe.schemas.TransactionValidator;
import org.fraudpipe.schemas.avro.Transaction;
import org.fraudpipe.schemas.json.ReplayFormatException;
import org.fraudpipe.schemas.json.ReplayRecord;
import org.fraudpipe.schemas.json.TransactionJson;
import org.fraudpipe.schemas.security.ClientProperties;
import org.fraudpipe.schemas.wire.TopicSerdes;
import org.fraudpipe.sim.LabelJson;
import org.fraudpipe.sim.SimulatedRecord;
import org.fraudpipe.sim.SimulationConfig;
import org.fraudpipe.sim.SimulationStats;
import org.fraudpipe.sim.TransactionPublisher;
import org.fraudpipe.sim.TransactionSimulator;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;

/**
 * {@code ./fraud simulate}: generates labelled card-transaction traffic ({@link
 * TransactionSimulator}) into a replay file and a labels file, and/or publishes it (or an existing
 * replay file) to the transactions topic ({@link TransactionPublisher}).
 *
 * <p>Files are byte-identical for the same options: the generator reads no clock, and lines end
 * with {@code \n} on every platform. Exit codes: 0 done, 1 failure while running (I/O, Kafka), 2
 * bad usage (every message names the option).
 */
@Command(
        name = "simulate",
        mixinStandardHelpOptions = true,
        sortOptions = false,
        usageHelpAutoWidth = true,
        description = {
            "Generate realistic card-transaction traffic with labelled fraud bursts, late and"
                    + " duplicate arrivals, future-dated and (optionally) malformed records.",
            "Writes JSON Lines in arrival order (the replay format) plus a labels file, and/or"
                    + " publishes to Kafka. The same options and seed give byte-identical files.",
        },
        footer = {
            "",
            "Examples:",
            "  ./fraud simulate --users 1000 --duration 1d --seed 7 --out tx.jsonl",
            "  ./fraud simulate --duration 2h --bootstrap-servers localhost:9092 --speedup 60",
            "  ./fraud simulate --file tx.jsonl --bootstrap-servers localhost:9092",
            "",
            "Labels: one line per transaction id with userId, eventTime, fraud, pattern, burstId and"
                    + " the flags duplicate, futureDated, hoursLate, malformed (+ malformedKind)."
                    + " A window is fraudulent iff it contains a fraud transaction (see"
                    + " docs/SIMULATOR.md).",
        })
public class SimulateCommand implements Callable<Integer> {

    @Spec CommandSpec spec;

    @Option(
            names = "--users",
            paramLabel = "N",
            defaultValue = "1000",
            description = "Card holders to simulate (default: ${DEFAULT-VALUE}).")
    int users;

    @Option(
            names = "--duration",
            paramLabel = "DURATION",
            defaultValue = "1h",
            converter = DurationConverter.class,
            description =
                    "Event-time span of the traffic: "
                            + org.fraudpipe.job.config.Durations.ACCEPTED
                            + " (default: ${DEFAULT-VALUE}).")
    Duration duration;

    @Option(
            names = "--seed",
            paramLabel = "S",
            defaultValue = "1",
            description = "Seed of every random choice (default: ${DEFAULT-VALUE}).")
    long seed;

    @Option(
            names = "--start",
            paramLabel = "INSTANT",
            defaultValue = "2026-11-28T00:00:00Z",
            converter = InstantConverter.class,
            description =
                    "Event time where the traffic starts, ISO-8601 UTC (default: ${DEFAULT-VALUE}).")
    Instant start;

    @Option(
            names = "--out",
            paramLabel = "FILE",
            description = "Write the transactions here (JSON Lines, arrival order).")
    Path out;

    @Option(
            names = "--labels",
            paramLabel = "FILE",
            description = "Write the labels here (default: <out>.labels.jsonl).")
    Path labels;

    @Option(
            names = "--tx-per-user-day",
            paramLabel = "R",
            defaultValue = "20",
            description =
                    "Mean legitimate transactions per user and day; users vary around it"
                            + " (default: ${DEFAULT-VALUE}).")
    double txPerUserDay;

    @Option(
            names = "--fraud-share",
            paramLabel = "F",
            defaultValue = "0.01",
            description =
                    "Expected share of fraudulent transaction ids, 0..0.5 (default: ${DEFAULT-VALUE}).")
    double fraudShare;

    @Option(
            names = "--duplicate-rate",
            paramLabel = "P",
            defaultValue = "0.005",
            description =
                    "Probability that a valid transaction is sent twice (producer retry)"
                            + " (default: ${DEFAULT-VALUE}).")
    double duplicateRate;

    @Option(
            names = "--future-rate",
            paramLabel = "P",
            defaultValue = "0.0005",
            description =
                    "Probability of a future-dated record, eventTime 1..8 h after arrival"
                            + " (default: ${DEFAULT-VALUE}).")
    double futureRate;

    @Option(
            names = "--hours-late-share",
            paramLabel = "P",
            defaultValue = "0.003",
            description =
                    "Share of records arriving 10 min..6 h late (offline mobile clients)"
                            + " (default: ${DEFAULT-VALUE}).")
    double hoursLateShare;

    @Option(
            names = "--malformed-rate",
            paramLabel = "P",
            defaultValue = "0",
            description =
                    "Probability that a record is replaced by a malformed line (bad JSON, missing"
                            + " field, negative amount, empty userId); marked malformed in the"
                            + " labels (default: ${DEFAULT-VALUE}).")
    double malformedRate;

    @Option(
            names = "--bootstrap-servers",
            paramLabel = "HOST:PORT",
            description = "Also publish to this Kafka cluster.")
    String bootstrapServers;

    @Option(
            names = "--topic",
            paramLabel = "NAME",
            description = "Topic to publish to (default: ${DEFAULT-VALUE}).")
    String topic = Topic.TRANSACTIONS.defaultName();

    @Option(
            names = "--speedup",
            paramLabel = "X",
            defaultValue = "0",
            description =
                    "Publish paced by arrival time, X times faster than real time; 0 = as fast as"
                            + " possible (default: ${DEFAULT-VALUE}).")
    double speedup;

    @Option(
            names = "--schema-registry-url",
            paramLabel = "URL",
            defaultValue = "http://localhost:8081",
            description =
                    "Schema registry of the Avro value serializer (default: ${DEFAULT-VALUE}).")
    String schemaRegistryUrl;

    @Option(
            names = "--kafka-config",
            paramLabel = "FILE",
            description =
                    "Client properties file (as Kafka's tools' --command-config): its entries go to"
                            + " the Kafka producer (security.protocol, sasl.*, ssl.*), its"
                            + " schema.registry.ssl.* and basic.auth.* entries to the registry"
                            + " client.")
    Path kafkaConfig;

    @Option(
            names = "--file",
            paramLabel = "FILE",
            description =
                    "Publish this existing replay file instead of generating (needs"
                            + " --bootstrap-servers). Lines that are not valid transactions are"
                            + " sent as raw bytes.")
    Path file;

    /** Options that shape generated traffic, meaningless with {@code --file}. */
    private static final List<String> GENERATION_OPTIONS =
            List.of(
                    "--users",
                    "--duration",
                    "--seed",
                    "--start",
                    "--out",
                    "--labels",
                    "--tx-per-user-day",
                    "--fraud-share",
                    "--duplicate-rate",
                    "--future-rate",
                    "--hours-late-share",
                    "--malformed-rate");

    /**
     * The value serializer of valid transactions: Confluent-framed Avro registered in {@code
     * registryUrl}. Called once, before anything is written or sent.
     */
    protected Serializer<Transaction> transactionSerializer(String registryUrl) {
        return TopicSerdes.forRegistry(client().registryConfig(registryUrl))
                .valueSerializer(Topic.TRANSACTIONS, Transaction.class);
    }

    /** The client settings of {@code --kafka-config} (none without it). */
    private ClientProperties client() {
        try {
            return ClientProperties.loadOrNone(kafkaConfig, "--kafka-config");
        } catch (IllegalArgumentException e) {
            throw usage(e.getMessage());
        }
    }

    /**
     * The Kafka producer for the given settings ({@link TransactionPublisher#producerProperties}).
     */
    protected Producer<byte[], byte[]> createProducer(Properties properties) {
        return new KafkaProducer<>(properties);
    }

    @Override
    public Integer call() throws IOException, InterruptedException {
        if (!(speedup >= 0) || Double.isInfinite(speedup)) {
            throw usage(
                    "--speedup must be 0 (as fast as possible) or a positive number, got "
                            + speedup);
        }
        if (topic == null || topic.isBlank()) {
            throw usage("--topic must not be empty");
        }
        if (file != null) {
            return publishFile();
        }
        if (out == null && bootstrapServers == null) {
            throw usage(
                    "nothing to do: give --out FILE to write a file and/or --bootstrap-servers"
                            + " HOST:PORT to publish");
        }
        SimulationConfig config;
        try {
            config =
                    SimulationConfig.builder()
                            .users(users)
                            .start(start)
                            .duration(duration)
                            .seed(seed)
                            .txPerUserDay(txPerUserDay)
                            .fraudShare(fraudShare)
                            .duplicateRate(duplicateRate)
                            .futureRate(futureRate)
                            .hoursLateShare(hoursLateShare)
                            .malformedRate(malformedRate)
                            .build();
        } catch (IllegalArgumentException e) {
            throw usage(e.getMessage());
        }
        Path labelsPath =
                labels != null
                        ? labels
                        : out == null
                                ? null
                                : out.resolveSibling(out.getFileName() + ".labels.jsonl");
        if (out != null
                && labelsPath != null
                && out.toAbsolutePath()
                        .normalize()
                        .equals(labelsPath.toAbsolutePath().normalize())) {
            throw usage("--labels must be another file than --out (both are " + out + ")");
        }
        return generate(config, labelsPath);
    }

    private int generate(SimulationConfig config, Path labelsPath)
            throws IOException, InterruptedException {
        PrintWriter stdout = spec.commandLine().getOut();
        TransactionPublisher publisher = bootstrapServers == null ? null : openPublisher();
        long began = System.nanoTime();
        SimulationStats stats = new SimulationStats();
        TransactionPublisher.Result published = null;
        try (Writer txOut = openWriter(out);
                Writer labelOut = openWriter(labelsPath);
                TransactionPublisher p = publisher) {
            TransactionSimulator simulator = new TransactionSimulator(config);
            while (simulator.hasNext()) {
                SimulatedRecord r = simulator.next();
                stats.accept(r);
                if (txOut != null) {
                    txOut.write(r.jsonLine());
                    txOut.write('\n');
                }
                if (labelOut != null && !r.retryCopy()) {
                    labelOut.write(LabelJson.toJsonLine(r.label()));
                    labelOut.write('\n');
                }
                if (p != null) {
                    p.send(r.toPublishItem());
                }
            }
            if (p != null) {
                published = p.finish();
            }
        }
        double seconds = (System.nanoTime() - began) / 1e9;
        stdout.printf(
                Locale.ROOT,
                "simulated %d users over %s from %s, seed %d, in %.1f s%n",
                config.users(),
                config.duration(),
                config.start(),
                config.seed(),
                seconds);
        if (out != null) {
            stdout.printf(
                    Locale.ROOT,
                    "  wrote          %s (%d lines), labels %s (%d lines)%n",
                    out,
                    stats.records(),
                    labelsPath,
                    stats.ids());
        } else if (labelsPath != null) {
            stdout.printf(Locale.ROOT, "  wrote labels   %s (%d lines)%n", labelsPath, stats.ids());
        }
        stdout.println(stats.summary(config.users()));
        stdout.flush();
        return published == null ? 0 : report(published);
    }

    private int publishFile() throws IOException, InterruptedException {
        CommandLine.ParseResult parsed = spec.commandLine().getParseResult();
        for (String option : GENERATION_OPTIONS) {
            if (parsed.hasMatchedOption(option)) {
                throw usage(
                        option
                                + " does not apply with --file (which publishes an existing file"
                                + " as it is)");
            }
        }
        if (bootstrapServers == null) {
            throw usage("--file publishes to Kafka: give --bootstrap-servers HOST:PORT");
        }
        if (!Files.isReadable(file)) {
            throw usage("--file " + file + " does not exist or is not readable");
        }
        TransactionPublisher.Result result;
        long rawLines = 0;
        String firstProblem = null;
        try (TransactionPublisher publisher = openPublisher();
                BufferedReader in = Files.newBufferedReader(file, StandardCharsets.UTF_8)) {
            String line;
            long n = 0;
            Instant lastArrival = null;
            while ((line = in.readLine()) != null) {
                n++;
                TransactionPublisher.Item item;
                try {
                    ReplayRecord r = TransactionJson.parseLine(file.toString(), line, n);
                    lastArrival = r.arrivalOrEventTime();
                    Optional<String> violation = TransactionValidator.problem(r.transaction());
                    item =
                            violation.isEmpty()
                                    ? TransactionPublisher.Item.valid(r.transaction(), lastArrival)
                                    : raw(line, lastArrival);
                    if (violation.isPresent() && firstProblem == null) {
                        firstProblem = file + ":" + n + ": invalid transaction: " + violation.get();
                    }
                } catch (ReplayFormatException e) {
                    item = raw(line, lastArrival);
                    if (firstProblem == null) {
                        firstProblem = e.getMessage();
                    }
                }
                if (item.raw() != null) {
                    rawLines++;
                }
                publisher.send(item);
            }
            result = publisher.finish();
        }
        PrintWriter stdout = spec.commandLine().getOut();
        stdout.printf(Locale.ROOT, "read %s%n", file);
        if (rawLines > 0) {
            stdout.printf(
                    Locale.ROOT,
                    "  %d lines are not valid transactions and were sent as raw bytes (first: %s)%n",
                    rawLines,
                    firstProblem);
        }
        stdout.flush();
        return report(result);
    }

    private static TransactionPublisher.Item raw(String line, Instant arrival) {
        // An unreadable line has no arrival time of its own: it goes right after the previous
        // record.
        return TransactionPublisher.Item.raw(line.getBytes(StandardCharsets.UTF_8), arrival);
    }

    private TransactionPublisher openPublisher() {
        Serializer<Transaction> serializer = transactionSerializer(schemaRegistryUrl);
        return new TransactionPublisher(
                createProducer(TransactionPublisher.producerProperties(bootstrapServers, client())),
                topic,
                serializer,
                speedup);
    }

    private int report(TransactionPublisher.Result r) {
        PrintWriter stdout = spec.commandLine().getOut();
        stdout.printf(
                Locale.ROOT,
                "  published      %d records to topic %s at %s (%d Avro, %d raw); acknowledged %d,"
                        + " failed %d%n",
                r.sent(),
                topic,
                bootstrapServers,
                r.serialized(),
                r.raw(),
                r.acknowledged(),
                r.failed());
        stdout.flush();
        if (r.failed() > 0) {
            spec.commandLine()
                    .getErr()
                    .printf(
                            "%d records were not acknowledged by Kafka; first error: %s%n",
                            r.failed(), r.firstError());
            return 1;
        }
        return 0;
    }

    private static Writer openWriter(Path path) throws IOException {
        if (path == null) {
            return null;
        }
        Path parent = path.toAbsolutePath().getParent();
        if (parent != null) {
            Files.createDirectories(parent);
        }
        return new BufferedWriter(
                new OutputStreamWriter(Files.newOutputStream(path), StandardCharsets.UTF_8),
                1 << 16);
    }

    private ParameterException usage(String message) {
        return new ParameterException(spec.commandLine(), message);
    }

    /** {@code --start}: an ISO-8601 UTC instant with at most millisecond precision. */
    static final class InstantConverter implements CommandLine.ITypeConverter<Instant> {
        @Override
        public Instant convert(String value) {
            try {
                Instant instant = Instant.parse(value.strip());
                if (instant.getNano() % 1_000_000 != 0) {
                    throw new CommandLine.TypeConversionException(
                            "'" + value + "' has sub-millisecond precision");
                }
                return instant;
            } catch (DateTimeParseException e) {
                throw new CommandLine.TypeConversionException(
                        "'" + value + "' is not an ISO-8601 UTC instant like 2026-11-28T00:00:00Z");
            }
        }
    }
}
