package org.fraudpipe.tools.model;

import java.io.IOException;
import java.io.PrintWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.concurrent.Callable;
import org.fraudpipe.job.config.Durations;
import org.fraudpipe.schemas.Topic;
import org.fraudpipe.schemas.avro.AssignmentAction;
import org.fraudpipe.schemas.avro.ModelEvent;
import org.fraudpipe.schemas.avro.ModelKind;
import org.fraudpipe.schemas.avro.ModelRole;
import org.fraudpipe.schemas.security.ClientProperties;
import org.fraudpipe.scoring.ReleaseCheck;
import org.fraudpipe.scoring.release.ModelRegistry;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;

/**
 * {@code ./fraud model publish|list|promote|rollback|shadow|withdraw}: the model registry (the
 * {@code model-releases} topic) from the command line. Every subcommand reads the whole registry
 * first and applies {@link ModelRegistry}'s rules before it publishes anything, then reads its own
 * event back and reports what every reader (the job included) makes of it.
 *
 * <p>Exit codes: 0 done; 1 refused (a release that fails {@link ReleaseCheck}, an assignment the
 * registry's rules forbid) or failed (Kafka, the registry); 2 bad usage.
 */
@Command(
        name = "model",
        mixinStandardHelpOptions = true,
        description = {
            "Model releases without a restart: publish a trained model to the model registry (the"
                    + " model-releases topic), list what is there, and assign the champion (whose"
                    + " scores decide) and a challenger (scored beside it, never deciding).",
            "An assignment takes effect --lead after it is published (at least 15 s), by each"
                    + " transaction's Kafka timestamp and each pane's window start, so that a"
                    + " replay scores with the release that served."
        },
        subcommands = {
            ModelCommand.Publish.class,
            ModelCommand.ListReleases.class,
            ModelCommand.Promote.class,
            ModelCommand.Rollback.class,
            ModelCommand.Shadow.class,
            ModelCommand.Withdraw.class
        },
        footer = {
            "",
            "A data scientist's round:",
            "  ./fraud train --features f.jsonl --out models/next",
            "  ./fraud model publish --kind window --model models/next/fraud-model.onnx",
            "  ./fraud model shadow --kind window --version <version>",
            "  ./fraud model promote --kind window --version <version>",
            "  ./fraud model rollback --kind window",
        })
public final class ModelCommand implements Runnable {

    static final int EXIT_REFUSED = 1;

    @Spec CommandSpec spec;

    @Override
    public void run() {
        spec.commandLine().usage(System.out);
    }

    /** The registry's address, shared by every subcommand. */
    static final class Registry {
        @Option(
                names = "--bootstrap-servers",
                paramLabel = "HOST:PORT[,...]",
                defaultValue = "localhost:9092",
                description = "Kafka cluster of the model registry (default: ${DEFAULT-VALUE}).")
        String bootstrapServers;

        @Option(
                names = "--schema-registry-url",
                paramLabel = "URL",
                defaultValue = "http://localhost:8081",
                description =
                        "Schema registry of the registry topic's Avro values (default:"
                                + " ${DEFAULT-VALUE}).")
        String schemaRegistryUrl;

        @Option(
                names = "--kafka-config",
                paramLabel = "FILE",
                description =
                        "Client properties file (as Kafka's tools' --command-config): security"
                                + " settings of the Kafka clients and the registry client.")
        Path kafkaConfig;

        @Option(
                names = "--topic",
                paramLabel = "NAME",
                description = "The model registry topic (default: ${DEFAULT-VALUE}).")
        String topic = Topic.MODEL_RELEASES.defaultName();

        RegistryTopic open(CommandSpec spec) {
            ClientProperties client;
            try {
                client = ClientProperties.loadOrNone(kafkaConfig, "--kafka-config");
            } catch (IllegalArgumentException e) {
                throw new ParameterException(spec.commandLine(), e.getMessage());
            }
            return new RegistryTopic(bootstrapServers, schemaRegistryUrl, client, topic);
        }
    }

    /** What every subcommand has: the registry, the output, the clock. */
    abstract static class Base implements Callable<Integer> {
        @Spec CommandSpec spec;

        @Mixin Registry registry;

        /** Where the command reports (picocli's out, which tests can replace). */
        PrintWriter out;

        /** The publisher's clock. */
        final Clock clock = Clock.systemUTC();

        @Override
        public final Integer call() {
            out = spec.commandLine().getOut();
            try (RegistryTopic topic = registry.open(spec)) {
                ModelRegistry state = new ModelRegistry();
                topic.readAll(state);
                return run(topic, state);
            } catch (IllegalArgumentException refused) {
                out.println("model: refused: " + refused.getMessage());
                return EXIT_REFUSED;
            } finally {
                out.flush();
            }
        }

        abstract int run(RegistryTopic topic, ModelRegistry state);

        /** Publishes and reports the outcome as every reader sees it. */
        int publish(RegistryTopic topic, ModelRegistry state, ModelEvent event) {
            RegistryTopic.Entry entry = topic.publish(event, state);
            String at =
                    " (offset "
                            + entry.offset()
                            + ", appended "
                            + Instant.ofEpochMilli(entry.appendTime())
                            + ")";
            if (entry.outcome() instanceof ModelRegistry.Ignored ignored) {
                out.println(
                        "model: published"
                                + at
                                + " but the registry ignores it: "
                                + ignored.why()
                                + ". Nothing changed.");
                return EXIT_REFUSED;
            }
            out.println("model: " + ((ModelRegistry.Applied) entry.outcome()).what() + at);
            return 0;
        }

        static String user() {
            return System.getProperty("user.name", "unknown");
        }
    }

    /** The kind option. */
    static final class KindOption {
        @Option(
                names = "--kind",
                required = true,
                paramLabel = "window|transaction",
                description =
                        "Which model: window (scores window panes, --model of the job) or"
                                + " transaction (scores at arrival, --transaction-model).")
        ModelKind kind;
    }

    /** The lead and note of an assignment. */
    static final class AssignmentOptions {
        @Option(
                names = "--lead",
                paramLabel = "DURATION",
                defaultValue = "30s",
                description =
                        "How long after now the assignment takes effect, at least 15s (default:"
                                + " ${DEFAULT-VALUE}): every scoring task reads it before then.")
        String lead;

        @Option(
                names = "--note",
                paramLabel = "TEXT",
                defaultValue = "",
                description = "Why, for the registry's history.")
        String note;

        Duration lead(CommandSpec spec) {
            return parseDuration(spec, lead, "--lead");
        }
    }

    @Command(
            name = "publish",
            mixinStandardHelpOptions = true,
            description =
                    "Checks a model file as every scoring task will (it loads, fits the kind's"
                            + " feature layout, reproduces its test vectors, a one-row call within"
                            + " the budget) and publishes it with its model card. It serves"
                            + " nothing until it is promoted or shadowed.")
    static final class Publish extends Base {
        @Mixin KindOption kind;

        @Option(
                names = "--model",
                required = true,
                paramLabel = "FILE",
                description = "The ONNX file written by ./fraud train.")
        Path model;

        @Option(
                names = "--card",
                paramLabel = "FILE",
                description = "Its model card (default: MODEL_CARD.md beside the model, if there).")
        Path card;

        @Option(
                names = "--budget",
                paramLabel = "DURATION",
                defaultValue = "1ms",
                description = "Longest median one-row call accepted (default: ${DEFAULT-VALUE}).")
        String budget;

        @Override
        int run(RegistryTopic topic, ModelRegistry state) {
            Duration limit = parseDuration(spec, budget, "--budget");
            byte[] bytes = read(model, "--model");
            String cardText = null;
            Path cardFile =
                    card != null ? card : model.toAbsolutePath().resolveSibling("MODEL_CARD.md");
            if (card != null || Files.isRegularFile(cardFile)) {
                cardText =
                        new String(
                                read(cardFile, "--card"), java.nio.charset.StandardCharsets.UTF_8);
            }
            ReleaseCheck.Verdict verdict =
                    ReleaseCheck.check(
                            bytes, model.toString(), ModelRegistry.layout(kind.kind), limit);
            if (verdict instanceof ReleaseCheck.Refused refused) {
                out.println("model: refused (" + refused.reason() + "): " + refused.message());
                return EXIT_REFUSED;
            }
            ReleaseCheck.Accepted ok = (ReleaseCheck.Accepted) verdict;
            out.println(
                    String.format(
                            Locale.ROOT,
                            "model: %s %s checked: fits the %s layout (%d columns), %d test vectors"
                                    + " reproduced, one-row call %d us (budget %d us)",
                            kindName(kind.kind),
                            ok.metadata().id(),
                            kindName(kind.kind),
                            ModelRegistry.layout(kind.kind).size(),
                            ok.vectors(),
                            ok.oneRowMicros(),
                            limit.toNanos() / 1000));
            ModelEvent event =
                    state.release(
                            kind.kind,
                            ok.metadata().name(),
                            ok.metadata().version(),
                            bytes,
                            cardText,
                            ok.oneRowMicros(),
                            clock.instant(),
                            user());
            return publish(topic, state, event);
        }

        private byte[] read(Path file, String option) {
            try {
                return Files.readAllBytes(file);
            } catch (IOException e) {
                throw new ParameterException(
                        spec.commandLine(), option + ": cannot read " + file + " (" + e + ")");
            }
        }
    }

    @Command(
            name = "list",
            mixinStandardHelpOptions = true,
            description =
                    "Lists every release in the registry with its role now, and the history of"
                            + " assignments.")
    static final class ListReleases extends Base {
        @Override
        int run(RegistryTopic topic, ModelRegistry state) {
            long now = clock.millis();
            for (ModelKind k : ModelKind.values()) {
                List<ModelRegistry.Release> releases = state.releases(k);
                out.println(kindName(k) + " models: " + releases.size() + " released");
                Optional<ModelRegistry.Release> champion = state.holder(k, ModelRole.CHAMPION, now);
                Optional<ModelRegistry.Release> challenger =
                        state.holder(k, ModelRole.CHALLENGER, now);
                for (ModelRegistry.Release r : releases) {
                    String role =
                            champion.filter(c -> c.sha256().equals(r.sha256())).isPresent()
                                    ? "CHAMPION"
                                    : challenger
                                                    .filter(c -> c.sha256().equals(r.sha256()))
                                                    .isPresent()
                                            ? "CHALLENGER"
                                            : "-";
                    out.println(
                            String.format(
                                    Locale.ROOT,
                                    "  %-24s %-20s %-10s sha256 %s  published %s by %s",
                                    r.version(),
                                    r.modelName(),
                                    role,
                                    r.sha256().substring(0, 12),
                                    Instant.ofEpochMilli(r.appendTime()),
                                    r.publishedBy()));
                }
                if (champion.isEmpty()) {
                    out.println(
                            "  champion now: none (the job serves the model it was started with)");
                }
                for (ModelRole role : ModelRole.values()) {
                    for (ModelRegistry.Assignment a : state.assignments(k, role)) {
                        out.println(
                                String.format(
                                        Locale.ROOT,
                                        "  %s %-10s %-8s %-24s from %s%s",
                                        a.effectiveFrom().toEpochMilli() <= now ? " " : "*",
                                        role,
                                        a.action(),
                                        a.release() == null ? "(none)" : a.release().version(),
                                        a.effectiveFrom(),
                                        a.note().isEmpty() ? "" : "  \"" + a.note() + "\""));
                    }
                }
            }
            out.println("(* = not in effect yet)");
            return 0;
        }
    }

    /** promote, rollback, shadow, withdraw: one assignment each. */
    abstract static class Assign extends Base {
        @Mixin KindOption kind;

        @Mixin AssignmentOptions assignment;

        abstract AssignmentAction action();

        String version() {
            return "";
        }

        @Override
        int run(RegistryTopic topic, ModelRegistry state) {
            ModelEvent event =
                    state.assign(
                            kind.kind,
                            action(),
                            version(),
                            clock.instant(),
                            assignment.lead(spec),
                            assignment.note,
                            user());
            return publish(topic, state, event);
        }
    }

    /** The version option of promote and shadow. */
    static final class VersionOption {
        @Option(
                names = "--version",
                required = true,
                paramLabel = "VERSION",
                description = "The release's model version (./fraud model list).")
        String version;
    }

    @Command(
            name = "promote",
            mixinStandardHelpOptions = true,
            description =
                    "Makes a published release the champion: its scores decide from --lead on.")
    static final class Promote extends Assign {
        @Mixin VersionOption v;

        @Override
        AssignmentAction action() {
            return AssignmentAction.PROMOTE;
        }

        @Override
        String version() {
            return v.version;
        }
    }

    @Command(
            name = "rollback",
            mixinStandardHelpOptions = true,
            description = "Makes the champion before the current one the champion again.")
    static final class Rollback extends Assign {
        @Override
        AssignmentAction action() {
            return AssignmentAction.ROLLBACK;
        }
    }

    @Command(
            name = "shadow",
            mixinStandardHelpOptions = true,
            description =
                    "Makes a published release the challenger: scored beside the champion on every"
                            + " pane and transaction, never deciding.")
    static final class Shadow extends Assign {
        @Mixin VersionOption v;

        @Override
        AssignmentAction action() {
            return AssignmentAction.SHADOW;
        }

        @Override
        String version() {
            return v.version;
        }
    }

    @Command(
            name = "withdraw",
            mixinStandardHelpOptions = true,
            description = "Ends the challenger's shadow scoring.")
    static final class Withdraw extends Assign {
        @Override
        AssignmentAction action() {
            return AssignmentAction.WITHDRAW;
        }
    }

    static Duration parseDuration(CommandSpec spec, String text, String option) {
        try {
            return Durations.parse(text);
        } catch (IllegalArgumentException e) {
            throw new ParameterException(
                    spec.commandLine(), option + ": " + e.getMessage(), e, null, text);
        }
    }

    static String kindName(ModelKind kind) {
        return kind.name().toLowerCase(Locale.ROOT);
    }

    /** The command line, with the house's usage-error handling. */
    public static CommandLine commandLine() {
        CommandLine cl = new CommandLine(new ModelCommand());
        return cl.setCaseInsensitiveEnumValuesAllowed(true);
    }
}
