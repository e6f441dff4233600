package org.fraudpipe.job.cli;

import java.time.Duration;
import java.time.format.DateTimeParseException;
import java.util.Locale;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import picocli.CommandLine;

/**
 * Parses durations as operators write them: {@code 250ms}, {@code 5s}, {@code 10m}, {@code 2h},
 * {@code 1d}, or ISO-8601 ({@code PT10M}). A bare number is rejected: the unit is never guessed.
 */
public final class DurationConverter implements CommandLine.ITypeConverter<Duration> {

    private static final Pattern SIMPLE = Pattern.compile("(\\d+)\\s*(ms|s|m|h|d)");

    @Override
    public Duration convert(String value) {
        return parse(value);
    }

    /** Parses {@code value}; the exception says which forms are accepted. */
    public static Duration parse(String value) {
        String v = value.trim().toLowerCase(Locale.ROOT);
        Matcher m = SIMPLE.matcher(v);
        if (m.matches()) {
            long n = Long.parseLong(m.group(1));
            return switch (m.group(2)) {
                case "ms" -> Duration.ofMillis(n);
                case "s" -> Duration.ofSeconds(n);
                case "m" -> Duration.ofMinutes(n);
                case "h" -> Duration.ofHours(n);
                case "d" -> Duration.ofDays(n);
                default -> throw new AssertionError(m.group(2));
            };
        }
        if (v.startsWith("p")) {
            try {
                return Duration.parse(value.trim().toUpperCase(Locale.ROOT));
            } catch (DateTimeParseException e) {
                // fall through to the common message
            }
        }
        throw new CommandLine.TypeConversionException(
                "'"
                        + value
                        + "' is not a duration: use a number with a unit (250ms, 5s, 10m, 2h, 1d)"
                        + " or ISO-8601 (PT10M)");
    }
}
