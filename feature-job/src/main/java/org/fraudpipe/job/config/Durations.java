package org.fraudpipe.job.config;

import java.time.Duration;
import java.time.format.DateTimeParseException;
import java.util.Locale;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Durations as operators write them: a number with a unit ({@code 500ms}, {@code 30s}, {@code 30m},
 * {@code 2h}, {@code 1d}), several of them ({@code 1h30m}), or ISO-8601 ({@code PT1H}, {@code
 * P1D}). Units are case-insensitive; a day is 24 hours. A bare number is rejected (the unit is
 * never guessed), and so is a negative duration; zero is accepted (the option decides whether it
 * makes sense).
 */
public final class Durations {

    private static final Pattern WHOLE = Pattern.compile("(?:\\d+(?:ms|s|m|h|d))+");
    private static final Pattern PART = Pattern.compile("(\\d+)(ms|s|m|h|d)");

    /** What is accepted, for help texts and error messages. */
    public static final String ACCEPTED =
            "a number with a unit ms, s, m, h or d (e.g. 500ms, 30s, 30m, 2h, 1d, 1h30m)"
                    + " or ISO-8601 (e.g. PT1H)";

    private Durations() {}

    /**
     * Parses a duration as described in the class comment.
     *
     * @throws IllegalArgumentException saying what is wrong and what is accepted
     */
    public static Duration parse(String text) {
        if (text == null || text.isBlank()) {
            throw new IllegalArgumentException("an empty value is not a duration: use " + ACCEPTED);
        }
        String t = text.strip();
        Duration d;
        try {
            if (t.charAt(0) == 'P' || t.charAt(0) == 'p' || t.startsWith("-P")) {
                d = Duration.parse(t);
            } else {
                String lower = t.toLowerCase(Locale.ROOT);
                if (!WHOLE.matcher(lower).matches()) {
                    throw new IllegalArgumentException(notADuration(text));
                }
                d = Duration.ZERO;
                Matcher m = PART.matcher(lower);
                while (m.find()) {
                    long n = Long.parseLong(m.group(1));
                    d =
                            d.plus(
                                    switch (m.group(2)) {
                                        case "ms" -> Duration.ofMillis(n);
                                        case "s" -> Duration.ofSeconds(n);
                                        case "m" -> Duration.ofMinutes(n);
                                        case "h" -> Duration.ofHours(n);
                                        case "d" -> Duration.ofDays(n);
                                        default -> throw new IllegalStateException(m.group(2));
                                    });
                }
            }
        } catch (DateTimeParseException e) {
            throw new IllegalArgumentException(notADuration(text), e);
        } catch (ArithmeticException | NumberFormatException e) {
            throw new IllegalArgumentException("'" + text + "' is too large for a duration", e);
        }
        if (d.isNegative()) {
            throw new IllegalArgumentException(
                    "'" + text + "' is negative; durations must be >= 0");
        }
        return d;
    }

    private static String notADuration(String text) {
        return "'" + text + "' is not a duration: use " + ACCEPTED;
    }

    /** The shortest of the accepted forms that denotes {@code d} exactly, e.g. {@code 10m}. */
    public static String format(Duration d) {
        long ms = d.toMillis();
        if (ms != 0 && ms % 86_400_000 == 0) {
            return ms / 86_400_000 + "d";
        }
        if (ms != 0 && ms % 3_600_000 == 0) {
            return ms / 3_600_000 + "h";
        }
        if (ms != 0 && ms % 60_000 == 0) {
            return ms / 60_000 + "m";
        }
        if (ms % 1000 == 0) {
            return ms / 1000 + "s";
        }
        return ms + "ms";
    }
}
