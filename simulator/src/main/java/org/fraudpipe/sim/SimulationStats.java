package org.fraudpipe.sim;

import java.util.Arrays;
import java.util.EnumMap;
import java.util.HashSet;
import java.util.Locale;
import java.util.Map;
import java.util.Set;

/**
 * Counts and arrival-delay distribution of a simulated stream, for the summary a human reads to
 * check the traffic. Feed it every record in order with {@link #accept}.
 *
 * <p>Counting rules: {@code records} counts lines (both copies of a duplicate); {@code ids}, {@code
 * fraud}, {@code futureDated}, {@code malformed} and {@code hoursLate} count transaction ids
 * (labels); {@code duplicates} counts retry copies. The delay percentiles are over every record
 * that has a meaningful delay: not future-dated (their delay is negative) and not malformed.
 */
public final class SimulationStats {
    private long records;
    private long ids;
    private long fraud;
    private long duplicates;
    private long futureDated;
    private long malformed;
    private long hoursLate;
    private final Set<String> users = new HashSet<>(); // only its size is read
    private final Set<String> bursts = new HashSet<>(); // only membership is read
    private final Map<FraudPattern, Long> burstsByPattern = new EnumMap<>(FraudPattern.class);
    private final Map<MalformedKind, Long> malformedByKind = new EnumMap<>(MalformedKind.class);
    private long[] delays = new long[1024];
    private int delayCount;
    private boolean sorted;

    /** Adds one record of the stream. */
    public void accept(SimulatedRecord record) {
        records++;
        Label label = record.label();
        if (record.retryCopy()) {
            duplicates++;
        } else {
            ids++;
            users.add(label.userId());
            if (label.fraud()) {
                fraud++;
                if (bursts.add(label.burstId())) {
                    burstsByPattern.merge(label.pattern(), 1L, Long::sum);
                }
            }
            if (label.futureDated()) {
                futureDated++;
            }
            if (label.malformed()) {
                malformed++;
                malformedByKind.merge(label.malformedKind(), 1L, Long::sum);
            }
            if (label.hoursLate()) {
                hoursLate++;
            }
        }
        if (!label.futureDated() && !label.malformed()) {
            if (delayCount == delays.length) {
                delays = Arrays.copyOf(delays, delays.length * 2);
            }
            delays[delayCount++] =
                    record.arrivalTime().toEpochMilli()
                            - record.transaction().getEventTime().toEpochMilli();
            sorted = false;
        }
    }

    public long records() {
        return records;
    }

    public long ids() {
        return ids;
    }

    public long fraud() {
        return fraud;
    }

    public long duplicates() {
        return duplicates;
    }

    public long futureDated() {
        return futureDated;
    }

    public long malformed() {
        return malformed;
    }

    public long hoursLate() {
        return hoursLate;
    }

    public int usersWithTraffic() {
        return users.size();
    }

    /** Distinct fraud bursts per pattern. */
    public Map<FraudPattern, Long> burstsByPattern() {
        return new EnumMap<>(burstsByPattern);
    }

    /** Number of records in the delay distribution. */
    public int delaySamples() {
        return delayCount;
    }

    /**
     * The nearest-rank percentile of the arrival delay in ms ({@code p} in (0, 1]); -1 without
     * samples.
     */
    public long delayPercentileMillis(double p) {
        if (delayCount == 0) {
            return -1;
        }
        if (!sorted) {
            Arrays.sort(delays, 0, delayCount);
            sorted = true;
        }
        int rank = (int) Math.ceil(p * delayCount);
        return delays[Math.max(0, Math.min(delayCount - 1, rank - 1))];
    }

    /** Multi-line human summary (no trailing line break). */
    public String summary(int configuredUsers) {
        StringBuilder s = new StringBuilder();
        line(s, "records", records + " lines");
        line(s, "transactions", ids + " distinct ids (" + (ids - malformed) + " valid)");
        line(s, "users", configuredUsers + " (" + users.size() + " with traffic)");
        StringBuilder burstText = new StringBuilder();
        for (Map.Entry<FraudPattern, Long> e : burstsByPattern.entrySet()) {
            burstText.append(burstText.length() == 0 ? "" : ", ");
            burstText.append(e.getKey()).append(' ').append(e.getValue());
        }
        line(
                s,
                "fraud",
                fraud
                        + " ids, share "
                        + percent(fraud, ids)
                        + " (bursts: "
                        + (burstText.length() == 0 ? "none" : burstText)
                        + ")");
        line(
                s,
                "duplicates",
                duplicates + " retry copies (" + percent(duplicates, ids) + " of ids)");
        line(s, "future-dated", futureDated + " (" + percent(futureDated, ids) + ")");
        StringBuilder kinds = new StringBuilder();
        for (Map.Entry<MalformedKind, Long> e : malformedByKind.entrySet()) {
            kinds.append(kinds.length() == 0 ? " (" : ", ");
            kinds.append(e.getKey()).append(' ').append(e.getValue());
        }
        if (kinds.length() > 0) {
            kinds.append(')');
        }
        line(s, "malformed", malformed + " (" + percent(malformed, ids) + ")" + kinds);
        line(s, "hours-late", hoursLate + " (" + percent(hoursLate, ids) + ", delay >= 10 min)");
        line(
                s,
                "arrival delay",
                "p50 "
                        + human(delayPercentileMillis(0.50))
                        + "  p95 "
                        + human(delayPercentileMillis(0.95))
                        + "  p99 "
                        + human(delayPercentileMillis(0.99))
                        + "  p99.9 "
                        + human(delayPercentileMillis(0.999))
                        + "  max "
                        + human(delayPercentileMillis(1.0))
                        + "  (over "
                        + delayCount
                        + " records, not future-dated, not malformed)");
        s.setLength(s.length() - 1);
        return s.toString();
    }

    private static void line(StringBuilder s, String name, String value) {
        s.append(String.format(Locale.ROOT, "  %-14s %s", name, value)).append('\n');
    }

    private static String percent(long part, long whole) {
        return whole == 0 ? "0%" : String.format(Locale.ROOT, "%.3f%%", 100.0 * part / whole);
    }

    /** A delay for humans: ms below a second, then s, min, h. */
    public static String human(long millis) {
        if (millis < 0) {
            return "n/a";
        }
        if (millis < 1_000) {
            return millis + " ms";
        }
        if (millis < 60_000) {
            return String.format(Locale.ROOT, "%.2f s", millis / 1e3);
        }
        if (millis < 3_600_000) {
            return String.format(Locale.ROOT, "%.1f min", millis / 60e3);
        }
        return String.format(Locale.ROOT, "%.2f h", millis / 3_600e3);
    }
}
