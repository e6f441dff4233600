package org.fraudpipe.schemas;

import java.util.Collections;
import java.util.EnumMap;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;
import java.util.regex.Pattern;
import org.fraudpipe.schemas.registry.CompatibilityLevel;

/**
 * The actual topic name of each {@link Topic} in one deployment: the default names unless
 * configuration renames some. Immutable.
 *
 * <p>Invariant: names are valid Kafka topic names and pairwise distinct (two logical topics never
 * share a physical one).
 */
public final class TopicNames {

    private static final Pattern LEGAL = Pattern.compile("[a-zA-Z0-9._-]{1,249}");

    private final Map<Topic, String> names;

    private TopicNames(Map<Topic, String> names) {
        this.names = Collections.unmodifiableMap(names);
    }

    /** Every topic under its default name. */
    public static TopicNames defaults() {
        return withOverrides(Map.of());
    }

    /**
     * Default names with some replaced.
     *
     * @throws IllegalArgumentException naming the topic when a name is illegal or used twice
     */
    public static TopicNames withOverrides(Map<Topic, String> overrides) {
        Map<Topic, String> names = new EnumMap<>(Topic.class);
        for (Topic topic : Topic.values()) {
            String name = overrides.getOrDefault(topic, topic.defaultName());
            Objects.requireNonNull(name, topic + " topic name");
            if (!LEGAL.matcher(name).matches() || name.equals(".") || name.equals("..")) {
                throw new IllegalArgumentException(
                        "illegal Kafka topic name for "
                                + optionName(topic)
                                + ": '"
                                + name
                                + "' (use 1-249 of a-z A-Z 0-9 . _ -)");
            }
            for (Map.Entry<Topic, String> other : names.entrySet()) {
                if (other.getValue().equals(name)) {
                    throw new IllegalArgumentException(
                            optionName(topic)
                                    + " and "
                                    + optionName(other.getKey())
                                    + " are both '"
                                    + name
                                    + "': every topic needs its own name");
                }
            }
            names.put(topic, name);
        }
        return new TopicNames(names);
    }

    /** The configuration option that renames {@code topic}, e.g. {@code topic.dead-letters}. */
    public static String optionName(Topic topic) {
        return "topic." + topic.name().toLowerCase(java.util.Locale.ROOT).replace('_', '-');
    }

    public String name(Topic topic) {
        return names.get(topic);
    }

    public Map<Topic, String> asMap() {
        return names;
    }

    /**
     * Every registry subject of these topics ({@link Topic#subjects}), in topic order, with the
     * compatibility level it should have ({@link Topic#compatibilityLevel()}): what a deployment
     * sets in its registry, e.g. {@code levels.forEach(registry::setCompatibilityLevel)}.
     */
    public Map<String, CompatibilityLevel> subjectCompatibility() {
        Map<String, CompatibilityLevel> levels = new LinkedHashMap<>();
        names.forEach(
                (topic, name) -> {
                    for (String subject : topic.subjects(name)) {
                        levels.put(subject, topic.compatibilityLevel());
                    }
                });
        return Collections.unmodifiableMap(levels);
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof TopicNames other && names.equals(other.names);
    }

    @Override
    public int hashCode() {
        return names.hashCode();
    }

    @Override
    public String toString() {
        return names.toString();
    }
}
