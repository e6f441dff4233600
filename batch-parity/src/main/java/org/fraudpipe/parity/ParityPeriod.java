package org.fraudpipe.parity;

import java.io.Serializable;
import java.time.Instant;
import java.time.LocalDate;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;
import org.fraudpipe.job.features.WindowAssignment;
import org.fraudpipe.schemas.archive.ArchivePartition;

/**
 * The windows a parity run judges: those whose start lies in {@code [from, to)} (UTC), or every
 * window of the input when unbounded.
 *
 * <p>Edges, explicitly: a window belongs to the period of its start. A window that starts before
 * {@code from} is the previous run's, even if it ends inside the period; a window that starts
 * before {@code to} but ends after it (a window size that does not divide the day) is judged here,
 * with its transactions read from the next day's partitions. So every window is judged by exactly
 * one run of consecutive periods, and {@link #dataEnd} says how far past {@code to} the run reads.
 *
 * @param from inclusive start, or null for unbounded
 * @param to exclusive end, or null for unbounded
 */
public record ParityPeriod(Instant from, Instant to) implements Serializable {

    /** Every window of the input. */
    public static final ParityPeriod UNBOUNDED = new ParityPeriod(null, null);

    public ParityPeriod {
        if ((from == null) != (to == null)) {
            throw new IllegalArgumentException("a period needs both ends or none");
        }
        if (from != null && !from.isBefore(to)) {
            throw new IllegalArgumentException("period is empty: " + from + " .. " + to);
        }
    }

    /** The UTC days {@code [firstDay, lastDay]}, both inclusive. */
    public static ParityPeriod days(LocalDate firstDay, LocalDate lastDay) {
        if (lastDay.isBefore(firstDay)) {
            throw new IllegalArgumentException("--to " + lastDay + " is before --from " + firstDay);
        }
        return new ParityPeriod(
                firstDay.atStartOfDay(ZoneOffset.UTC).toInstant(),
                lastDay.plusDays(1).atStartOfDay(ZoneOffset.UTC).toInstant());
    }

    public boolean isBounded() {
        return from != null;
    }

    /** Whether the window starting at {@code windowStartMillis} is judged by this run. */
    public boolean containsWindowStart(long windowStartMillis) {
        return !isBounded()
                || (windowStartMillis >= from.toEpochMilli()
                        && windowStartMillis < to.toEpochMilli());
    }

    /** The end of the last window judged: where the event-time data of the run ends. */
    public Instant dataEnd(WindowAssignment windows) {
        return Instant.ofEpochMilli(windows.endOf(to.toEpochMilli() - 1));
    }

    /**
     * The hour partitions holding the event-time data of the period's windows: {@code [from,
     * dataEnd)}.
     */
    public List<ArchivePartition> eventTimePartitions(WindowAssignment windows) {
        return ArchivePartition.covering(from.toEpochMilli(), dataEnd(windows).toEpochMilli());
    }

    /** The UTC days of the period (each must be archived). */
    public List<LocalDate> days() {
        List<LocalDate> out = new ArrayList<>();
        LocalDate last = to.minusMillis(1).atZone(ZoneOffset.UTC).toLocalDate();
        for (LocalDate d = from.atZone(ZoneOffset.UTC).toLocalDate();
                !d.isAfter(last);
                d = d.plusDays(1)) {
            out.add(d);
        }
        return out;
    }

    @Override
    public String toString() {
        return isBounded() ? "[" + from + ", " + to + ")" : "every window of the input";
    }
}
