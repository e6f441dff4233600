package org.fraudpipe.parity.cli;

import java.time.LocalDate;
import java.util.List;
import java.util.function.Function;
import org.fraudpipe.job.cli.DateConverter;
import org.fraudpipe.parity.ParityPeriod;

/**
 * The days of an archive a command reads, as its options {@code --date D} or {@code --from D1 --to
 * D2} (UTC days, inclusive) gave them: one place for their rules, shared by {@code ./fraud parity},
 * {@code ./fraud advise} and {@code ./fraud features --archive}. Null fields were not given.
 */
public record ArchiveDays(LocalDate date, LocalDate from, LocalDate to) {

    /** Whether any of the three options was given. */
    public boolean given() {
        return date != null || from != null || to != null;
    }

    /**
     * Adds to {@code missing} what the options lack: the other half of {@code --from}/{@code --to},
     * or, when {@code archiveGiven}, any day at all.
     */
    public void addMissing(List<String> missing, boolean archiveGiven) {
        if (from != null && to == null) {
            missing.add("--to " + DateConverter.FORM + " (with --from)");
        } else if (to != null && from == null) {
            missing.add("--from " + DateConverter.FORM + " (with --to)");
        } else if (archiveGiven && date == null && from == null) {
            missing.add(
                    "--date " + DateConverter.FORM + " or --from/--to (which days of --archive)");
        }
    }

    /**
     * Throws {@code usage}'s exception if the days contradict each other: {@code --date} with
     * {@code --from}/{@code --to}, or {@code --to} before {@code --from}. Call after {@link
     * #addMissing} found nothing missing.
     */
    public void check(Function<String, ? extends RuntimeException> usage) {
        if (date != null && (from != null || to != null)) {
            throw usage.apply("give either --date or --from/--to, not both");
        }
        if (from != null && to != null && to.isBefore(from)) {
            throw usage.apply("--to " + to + " is before --from " + from);
        }
    }

    /** The period: the day, the days from..to, or unbounded when none was given. */
    public ParityPeriod period() {
        if (date != null) {
            return ParityPeriod.days(date, date);
        }
        return from != null ? ParityPeriod.days(from, to) : ParityPeriod.UNBOUNDED;
    }

    /** The period as reports name it: the day, {@code from..to}, or {@code unbounded}. */
    public String label(String unbounded) {
        if (date != null) {
            return date.toString();
        }
        return from != null ? from + ".." + to : unbounded;
    }
}
