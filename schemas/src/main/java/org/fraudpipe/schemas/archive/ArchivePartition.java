package org.fraudpipe.schemas.archive;

import java.time.Instant;
import java.time.LocalDate;
import java.time.ZoneOffset;
import java.time.ZonedDateTime;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * One hour partition of an archive stream, in UTC: the relative directory {@code
 * date=YYYY-MM-DD/hour=HH} (Hive-style, so query engines can read the archive as a partitioned
 * table).
 *
 * @param date the UTC date
 * @param hour the UTC hour, 0 to 23
 */
public record ArchivePartition(LocalDate date, int hour) implements Comparable<ArchivePartition> {

    private static final Pattern PATH =
            Pattern.compile("date=(\\d{4}-\\d{2}-\\d{2})/hour=(\\d{2})");

    public ArchivePartition {
        Objects.requireNonNull(date, "date");
        if (hour < 0 || hour > 23) {
            throw new IllegalArgumentException("hour must be 0..23, got " + hour);
        }
    }

    /** The partition holding the instant {@code epochMillis}. */
    public static ArchivePartition of(long epochMillis) {
        ZonedDateTime t = Instant.ofEpochMilli(epochMillis).atZone(ZoneOffset.UTC);
        return new ArchivePartition(t.toLocalDate(), t.getHour());
    }

    /** Parses {@code date=YYYY-MM-DD/hour=HH} (as returned by {@link #path()}). */
    public static ArchivePartition parse(String path) {
        Matcher m = PATH.matcher(path);
        if (!m.matches()) {
            throw new IllegalArgumentException(
                    "not an archive partition (date=YYYY-MM-DD/hour=HH): " + path);
        }
        return new ArchivePartition(LocalDate.parse(m.group(1)), Integer.parseInt(m.group(2)));
    }

    /**
     * The partitions whose hours overlap {@code [fromMillis, toMillis)}, in time order; empty if
     * the interval is empty.
     */
    public static List<ArchivePartition> covering(long fromMillis, long toMillis) {
        List<ArchivePartition> out = new ArrayList<>();
        long hour = ChronoUnit.HOURS.getDuration().toMillis();
        for (long t = Math.floorDiv(fromMillis, hour) * hour; t < toMillis; t += hour) {
            out.add(of(t));
        }
        return out;
    }

    /** The directory relative to a stream's directory: {@code date=YYYY-MM-DD/hour=HH}. */
    public String path() {
        return "date=" + date + "/hour=" + (hour < 10 ? "0" : "") + hour;
    }

    /** The first instant of the partition. */
    public Instant start() {
        return date.atStartOfDay(ZoneOffset.UTC).plusHours(hour).toInstant();
    }

    /** The first instant after the partition. */
    public Instant end() {
        return start().plus(1, ChronoUnit.HOURS);
    }

    @Override
    public int compareTo(ArchivePartition o) {
        int c = date.compareTo(o.date);
        return c != 0 ? c : Integer.compare(hour, o.hour);
    }

    @Override
    public String toString() {
        return path();
    }
}
