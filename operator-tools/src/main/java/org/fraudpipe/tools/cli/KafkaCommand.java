package org.fraudpipe.tools.cli;

import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.Callable;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.fraudpipe.job.cli.DurationConverter;
import org.fraudpipe.local.BrokerRuntime;
import org.fraudpipe.local.BrokerState;
import org.fraudpipe.local.LocalKafka;
import org.fraudpipe.local.LocalKafkaBroker;
import org.fraudpipe.local.LocalSchemaRegistry;
import org.fraudpipe.local.LocalSecurity;
import org.fraudpipe.schemas.security.ClientProperties;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;

/** {@code ./fraud kafka start|stop|status}: the local Kafka broker as a background service. */
@Command(
        name = "kafka",
        mixinStandardHelpOptions = true,
        description = {
            "Runs a real Apache Kafka broker (KRaft, one node, localhost only) as a background JVM from"
                    + " Maven Central jars, and creates the project's topics; next to it, a local"
                    + " schema registry (Confluent REST API) in a small JVM of its own.",
            "State, log segments, registered schemas and both logs live in the data directory."
        },
        subcommands = {
            KafkaCommand.Start.class,
            KafkaCommand.Stop.class,
            KafkaCommand.Status.class
        })
public final class KafkaCommand implements Runnable {

    @picocli.CommandLine.Spec picocli.CommandLine.Model.CommandSpec spec;

    @Override
    public void run() {
        spec.commandLine().usage(System.out);
    }

    /** The data directory option shared by the subcommands. */
    static final class DataDir {
        @Option(
                names = "--data-dir",
                paramLabel = "DIR",
                description =
                        "Broker data directory (default: .fraud/kafka under the project root).")
        Path dataDir;

        Path resolve() {
            if (dataDir != null) {
                return dataDir.toAbsolutePath();
            }
            String home = System.getProperty("fraud.home", ".");
            return Path.of(home, ".fraud", "kafka").toAbsolutePath().normalize();
        }
    }

    @Command(
            name = "start",
            mixinStandardHelpOptions = true,
            description =
                    "Starts the broker and the schema registry in the background (each unless it"
                            + " already runs), waits until they answer and creates the topics"
                            + " (features and scores compacted). Prints bootstrap.servers and"
                            + " schema.registry.url.")
    static final class Start implements Callable<Integer> {
        @Spec CommandSpec spec;

        @Mixin DataDir dataDir;

        @Option(
                names = "--port",
                paramLabel = "PORT",
                defaultValue = "9092",
                description =
                        "Client listener port on localhost; 0 picks a free one (default: ${DEFAULT-VALUE}).")
        int port;

        @Option(
                names = "--controller-port",
                paramLabel = "PORT",
                defaultValue = "9093",
                description =
                        "KRaft controller port on localhost; 0 picks a free one (default: ${DEFAULT-VALUE}).")
        int controllerPort;

        @Option(
                names = "--registry-port",
                paramLabel = "PORT",
                defaultValue = "8081",
                description =
                        "Schema registry port on localhost; 0 picks a free one (default: ${DEFAULT-VALUE}).")
        int registryPort;

        @Option(
                names = "--partitions",
                paramLabel = "N",
                defaultValue = "3",
                description =
                        "Partitions of each project topic created (default: ${DEFAULT-VALUE}).")
        int partitions;

        @Option(
                names = "--timeout",
                paramLabel = "DURATION",
                defaultValue = "90s",
                converter = DurationConverter.class,
                description =
                        "How long to wait for the broker to answer (default: ${DEFAULT-VALUE}).")
        Duration timeout;

        @Option(
                names = "--max-heap",
                paramLabel = "SIZE",
                defaultValue = "512m",
                description = "The broker JVM's -Xmx (default: ${DEFAULT-VALUE}).")
        String maxHeap;

        @Option(
                names = "--secure",
                description =
                        "Secured: the broker's client listener is SASL_SSL (SCRAM-SHA-512 over TLS,"
                                + " with a CA and certificate made in DATA_DIR/security at the"
                                + " first start) with ACLs for the principals admin, feature-job,"
                                + " producer and reader; the registry serves HTTPS with basic"
                                + " auth. Prints each principal's client properties file (for"
                                + " --kafka-config). A data directory is either secured or not.")
        boolean secure;

        @Override
        public Integer call() {
            if (partitions < 1) {
                throw new ParameterException(
                        spec.commandLine(), "--partitions must be at least 1, was " + partitions);
            }
            Path dir = dataDir.resolve();
            LocalSecurity security = null;
            if (secure) {
                LocalKafkaBroker.requireSameMode(dir, true);
                security = LocalSecurity.prepare(dir);
            }
            Optional<BrokerState> running = LocalKafkaBroker.running(dir);
            String bootstrap;
            LocalKafkaBroker started = null;
            if (running.isPresent()) {
                bootstrap = running.get().bootstrapServers();
                System.out.printf(
                        "Kafka broker already running: %s (pid %d), data dir %s%n",
                        bootstrap, running.get().pid(), dir);
            } else {
                LocalKafka.StartedBroker fresh =
                        LocalKafka.startBroker(
                                new LocalKafkaBroker.Settings(
                                                dir, port, controllerPort, false, timeout, maxHeap)
                                        .withSecurity(security),
                                BrokerRuntime.fromSystemProperty(),
                                partitions);
                started = fresh.broker();
                bootstrap = started.bootstrapServers();
                List<String> created = fresh.createdTopics();
                System.out.printf(
                        "Kafka broker running: %s (pid %d)%n  data dir %s%n  log      %s%n  topics"
                                + " created: %s%n",
                        bootstrap,
                        started.pid(),
                        dir,
                        dir.resolve(LocalKafkaBroker.LOG_FILE),
                        created.isEmpty() ? "none (all existed)" : String.join(", ", created));
            }
            Optional<LocalSchemaRegistry.State> registry = LocalSchemaRegistry.running(dir);
            if (registry.isPresent()) {
                System.out.printf(
                        "Schema registry already running: %s (pid %d)%n",
                        registry.get().url(), registry.get().pid());
            } else {
                try {
                    registry =
                            Optional.of(
                                    LocalSchemaRegistry.start(
                                            new LocalSchemaRegistry.Settings(
                                                            dir, registryPort, false, timeout)
                                                    .withSecurity(security)));
                } catch (RuntimeException e) {
                    if (started != null) {
                        started.close();
                    }
                    throw e;
                }
                System.out.printf(
                        "Schema registry running: %s (pid %d)%n  schemas  %s%n  log      %s%n",
                        registry.get().url(),
                        registry.get().pid(),
                        dir.resolve(LocalSchemaRegistry.JOURNAL_FILE),
                        dir.resolve(LocalSchemaRegistry.LOG_FILE));
            }
            System.out.printf(
                    "Connect with:%n  bootstrap.servers=%s%n  schema.registry.url=%s%n"
                            + "  (options: --bootstrap-servers %s --schema-registry-url %s)%n"
                            + "Stop both with: ./fraud kafka stop%s%n",
                    bootstrap,
                    registry.get().url(),
                    bootstrap,
                    registry.get().url(),
                    dataDir.dataDir == null ? "" : " --data-dir " + dir);
            if (security != null) {
                System.out.printf(
                        "Secured: SASL_SSL (SCRAM-SHA-512, TLS; CA %s), ACLs, registry over HTTPS"
                                + " with basic auth. Client settings per principal (give one to"
                                + " any command as --kafka-config FILE; keep them private):%n",
                        security.dir().resolve("ca.pem"));
                for (String principal : LocalSecurity.PRINCIPALS) {
                    System.out.printf("  %-12s %s%n", principal, security.clientFile(principal));
                }
            }
            return 0;
        }
    }

    @Command(
            name = "stop",
            mixinStandardHelpOptions = true,
            description =
                    "Stops the schema registry and the broker (controlled shutdown; killed if it"
                            + " takes longer than the grace period). Data and registered schemas"
                            + " are kept for the next start.")
    static final class Stop implements Callable<Integer> {
        @Mixin DataDir dataDir;

        @Option(
                names = "--grace",
                paramLabel = "DURATION",
                defaultValue = "30s",
                converter = DurationConverter.class,
                description = "Time allowed for a clean shutdown (default: ${DEFAULT-VALUE}).")
        Duration grace;

        @Override
        public Integer call() {
            Path dir = dataDir.resolve();
            Optional<LocalSchemaRegistry.State> registry = LocalSchemaRegistry.running(dir);
            if (LocalSchemaRegistry.stop(dir, grace)) {
                System.out.printf(
                        "Schema registry stopped (pid %d)%n",
                        registry.map(LocalSchemaRegistry.State::pid).orElse(-1L));
            } else {
                System.out.printf("No schema registry running from %s%n", dir);
            }
            Optional<BrokerState> state = LocalKafkaBroker.running(dir);
            if (LocalKafkaBroker.stop(dir, grace)) {
                System.out.printf(
                        "Kafka broker stopped (pid %d)%n", state.map(BrokerState::pid).orElse(-1L));
            } else {
                System.out.printf("No Kafka broker running from %s%n", dir);
            }
            return 0;
        }
    }

    @Command(
            name = "status",
            mixinStandardHelpOptions = true,
            description =
                    "Says whether the broker and the schema registry run and answer, and lists the"
                            + " topics. Exit code 0 if both run and answer, 1 if not.")
    static final class Status implements Callable<Integer> {
        @Mixin DataDir dataDir;

        @Override
        public Integer call() {
            Path dir = dataDir.resolve();
            boolean brokerOk = brokerStatus(dir);
            Optional<LocalSchemaRegistry.State> registry = LocalSchemaRegistry.running(dir);
            if (registry.isEmpty()) {
                System.out.printf("Schema registry: not running%n");
                return 1;
            }
            LocalSchemaRegistry.State r = registry.get();
            boolean registryOk =
                    LocalSchemaRegistry.answers(
                            r.url(),
                            r.secure()
                                    ? LocalSecurity.prepare(dir).client(LocalSecurity.ADMIN)
                                    : ClientProperties.none());
            System.out.printf(
                    "Schema registry: %s, %s (pid %d), up %s%n  schemas  %s%n",
                    registryOk
                            ? "running"
                            : "running but not answering (see "
                                    + dir.resolve(LocalSchemaRegistry.LOG_FILE)
                                    + ")",
                    r.url(),
                    r.pid(),
                    humanDuration(Duration.between(r.startedAt(), Instant.now())),
                    dir.resolve(LocalSchemaRegistry.JOURNAL_FILE));
            return brokerOk && registryOk ? 0 : 1;
        }

        private static boolean brokerStatus(Path dir) {
            Optional<BrokerState> state = LocalKafkaBroker.running(dir);
            if (state.isEmpty()) {
                System.out.printf("Kafka broker: not running (data dir %s)%n", dir);
                return false;
            }
            BrokerState s = state.get();
            System.out.printf(
                    "Kafka broker: running, %s (pid %d), up %s%n  data dir %s%n",
                    s.bootstrapServers(),
                    s.pid(),
                    humanDuration(Duration.between(s.startedAt(), Instant.now())),
                    dir);
            try (Admin admin =
                    LocalKafka.admin(s.bootstrapServers(), s.client(LocalSecurity.ADMIN))) {
                Set<String> topics =
                        new TreeSet<>(admin.listTopics().names().get(10, TimeUnit.SECONDS));
                System.out.printf("  topics   %s%n", String.join(", ", topics));
                return true;
            } catch (Exception e) {
                System.out.printf(
                        "  but it does not answer: %s%n  see %s%n",
                        e, dir.resolve(LocalKafkaBroker.LOG_FILE));
                return false;
            }
        }
    }

    static String humanDuration(Duration d) {
        long s = d.toSeconds();
        return s >= 3600
                ? String.format("%dh%02dm", s / 3600, (s % 3600) / 60)
                : s >= 60 ? String.format("%dm%02ds", s / 60, s % 60) : s + "s";
    }
}
