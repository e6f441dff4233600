package org.fraudpipe.job.cli;

import java.io.IOException;
import java.io.Reader;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import org.fraudpipe.job.config.JobConfig;
import org.fraudpipe.job.config.JobOption;
import org.fraudpipe.schemas.Topic;
import org.fraudpipe.schemas.TopicNames;
import org.fraudpipe.schemas.security.ClientProperties;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Model.OptionSpec;
import picocli.CommandLine.ParseResult;

/**
 * Puts every {@link JobOption} (and every {@code --topic.<name>}) on a command, with its default
 * and description, so {@code --help} is generated from the one list; and reads them back into a
 * {@link JobConfig}. Values come from, in increasing precedence: defaults, {@code --config FILE} (a
 * properties file with the same names, without dashes), the command line.
 */
public final class JobOptions {

    public static final String CONFIG_FILE = "--config";

    /** One Kafka client setting on the command line, {@code KEY=VALUE} (repeatable). */
    public static final String KAFKA_PROPERTY = "--kafka-property";

    private JobOptions() {}

    /** Adds the job's options to {@code spec}. */
    public static void addTo(CommandSpec spec) {
        spec.addOption(
                OptionSpec.builder(CONFIG_FILE)
                        .paramLabel("FILE")
                        .type(Path.class)
                        .description(
                                "Properties file with job options (names without the leading"
                                        + " dashes); command-line options override it.")
                        .build());
        addSome(spec, List.of(JobOption.values()), null, Map.of(), Map.of());
        spec.addOption(
                OptionSpec.builder(KAFKA_PROPERTY)
                        .paramLabel("KEY=VAL")
                        .type(Map.class)
                        .auxiliaryTypes(String.class, String.class)
                        .description(
                                "One Kafka client setting for every client of the job, over"
                                        + " --kafka-config's (repeatable; like kafka.<key>=<value>"
                                        + " in --config). Not for secrets (passwords,"
                                        + " sasl.jaas.config): those belong in the"
                                        + " --kafka-config file.")
                        .build());
        for (Topic topic : Topic.values()) {
            spec.addOption(
                    OptionSpec.builder("--" + TopicNames.optionName(topic))
                            .paramLabel("NAME")
                            .type(String.class)
                            .description(
                                    "Name of the "
                                            + topic.name().toLowerCase(java.util.Locale.ROOT)
                                            + " topic (default: "
                                            + topic.defaultName()
                                            + ").")
                            .build());
        }
    }

    /**
     * Adds some of the job's options to a command that is not the job ({@code ./fraud features}):
     * each under its job name ({@code --window-size} also as {@code alias}, if not null), typed as
     * a string, with the job's description, then {@code notes}' text for it if any, then the job's
     * default (or the command's own, from {@code defaults}). Read them back with {@link #given} and
     * {@link JobConfig#of}, so names, defaults and validation stay the job's.
     */
    public static void addSome(
            CommandSpec spec,
            List<JobOption> options,
            String alias,
            Map<JobOption, String> notes,
            Map<JobOption, String> defaults) {
        for (JobOption option : options) {
            String[] names =
                    option == JobOption.WINDOW_SIZE && alias != null
                            ? new String[] {option.flag(), alias}
                            : new String[] {option.flag()};
            String note = notes.get(option);
            spec.addOption(
                    OptionSpec.builder(names)
                            .paramLabel(option.label().text())
                            .type(String.class)
                            .description(
                                    option.description()
                                            + (note == null ? "" : " " + note)
                                            + " (default: "
                                            + defaults.getOrDefault(
                                                    option, option.defaultDescription())
                                            + ")")
                            .build());
        }
    }

    /**
     * The values of those of {@code options} given on the command line ({@link #addSome}), by job
     * option key.
     */
    public static Map<String, String> given(ParseResult parsed, List<JobOption> options) {
        Map<String, String> values = new LinkedHashMap<>();
        for (OptionSpec option : parsed.matchedOptions()) {
            for (JobOption o : options) {
                if (o.flag().equals(option.longestName())) {
                    values.put(o.key(), option.getValue());
                }
            }
        }
        return values;
    }

    /** The validated configuration given on the command line (and in {@code --config}). */
    public static JobConfig read(ParseResult parsed) {
        return read(parsed, Map.of());
    }

    /**
     * As {@link #read(ParseResult)}, with {@code overrides} (by job option key) over what was
     * given: one job of a split ({@code ./fraud job --split}).
     */
    public static JobConfig read(ParseResult parsed, Map<String, String> overrides) {
        Map<String, String> values = new LinkedHashMap<>();
        Path file = parsed.matchedOptionValue(CONFIG_FILE, null);
        if (file != null) {
            values.putAll(readProperties(file));
        }
        for (OptionSpec option : parsed.matchedOptions()) {
            if (!option.longestName().equals(CONFIG_FILE) && isJobOption(option.longestName())) {
                values.put(option.longestName().substring(2), option.getValue());
            }
        }
        Map<String, String> kafka = parsed.matchedOptionValue(KAFKA_PROPERTY, Map.of());
        kafka.forEach(
                (k, v) -> {
                    if (ClientProperties.isSecret(k)) {
                        throw new IllegalArgumentException(
                                KAFKA_PROPERTY
                                        + " "
                                        + k
                                        + "=...: a secret does not belong on a command line"
                                        + " (process lists, shell history): put it in the "
                                        + JobOption.KAFKA_CONFIG.flag()
                                        + " file, readable by the job's user only");
                    }
                    values.put(JobConfig.KAFKA_PREFIX + k, v);
                });
        values.putAll(overrides);
        return JobConfig.of(values);
    }

    private static boolean isJobOption(String name) {
        for (JobOption o : JobOption.values()) {
            if (o.flag().equals(name)) {
                return true;
            }
        }
        return name.startsWith("--topic.");
    }

    private static Map<String, String> readProperties(Path file) {
        Properties p = new Properties();
        try (Reader r = Files.newBufferedReader(file, StandardCharsets.UTF_8)) {
            p.load(r);
        } catch (IOException e) {
            throw new UncheckedIOException(CONFIG_FILE + " " + file + " cannot be read: " + e, e);
        }
        Map<String, String> values = new LinkedHashMap<>();
        p.stringPropertyNames().forEach(k -> values.put(k, p.getProperty(k)));
        return values;
    }
}
