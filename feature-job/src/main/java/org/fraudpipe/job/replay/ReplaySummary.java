package org.fraudpipe.job.replay;

import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import org.fraudpipe.job.config.Durations;
import org.fraudpipe.schemas.avro.Decision;

/**
 * What a replay did, for its console summary and for tests. The counts are exact: the ingest
 * router's accumulators ({@code in = valid + dead letters + quarantined}) and the lines of the
 * output files.
 *
 * @param inputLines lines of the input file (every line is one record, whatever its fate)
 * @param valid records that reached the windows (duplicates and too-late ones included)
 * @param deadLetters lines in {@code dead-letters.jsonl} (unreadable or invalid)
 * @param quarantined future-dated records in {@code late.jsonl}
 * @param tooLate too-late records in {@code late.jsonl}
 * @param featurePanes lines in {@code features.jsonl}
 * @param latePanes of those, panes with timing LATE (fired by records within the allowed lateness)
 * @param decisions lines in {@code scores.jsonl} by decision (one score per pane)
 * @param scoredTransactions distinct transaction ids in {@code transaction-scores.jsonl}
 * @param transactionDecisions lines in {@code transaction-scores.jsonl} by decision (one per valid
 *     record: a retry is answered again)
 * @param historyIncomplete lines of those scored with {@code historyComplete} false
 * @param files the output files written
 * @param elapsed wall-clock time of the run (console only; never in the files)
 */
public record ReplaySummary(
        Path input,
        long inputLines,
        long valid,
        long deadLetters,
        long quarantined,
        long tooLate,
        long featurePanes,
        long latePanes,
        Map<Decision, Long> decisions,
        long scoredTransactions,
        Map<Decision, Long> transactionDecisions,
        long historyIncomplete,
        List<Path> files,
        Duration elapsed) {

    /** The console summary, several lines, ending with a line break. */
    public String format(ReplayConfig config) {
        StringBuilder b = new StringBuilder();
        b.append(
                String.format(
                        Locale.ROOT,
                        "replayed %s in %.1f s (window-size=%s, allowed-lateness=%s,"
                                + " out-of-orderness=%s, future-tolerance=%s, parallelism=%d,"
                                + " state-backend=%s)\n",
                        input,
                        elapsed.toMillis() / 1000.0,
                        Durations.format(config.windows().windowSize()),
                        Durations.format(config.windows().allowedLateness()),
                        Durations.format(config.outOfOrderness()),
                        Durations.format(config.futureTolerance()),
                        config.parallelism(),
                        config.stateBackend().name().toLowerCase(Locale.ROOT)));
        row(b, "input lines", inputLines, "");
        row(b, "valid", valid, "reached the windows (duplicates included)");
        row(b, "dead letters", deadLetters, "unreadable or invalid lines");
        row(b, "quarantined", quarantined, "future-dated");
        row(b, "too late", tooLate, "after window end + allowed lateness");
        row(
                b,
                "feature panes",
                featurePanes,
                "of which " + latePanes + " LATE (fired by records within the allowed lateness)");
        row(
                b,
                "scores",
                decisions.values().stream().mapToLong(Long::longValue).sum(),
                "ALLOW "
                        + decisions.getOrDefault(Decision.ALLOW, 0L)
                        + ", REVIEW "
                        + decisions.getOrDefault(Decision.REVIEW, 0L)
                        + ", BLOCK "
                        + decisions.getOrDefault(Decision.BLOCK, 0L));
        long answers = transactionDecisions.values().stream().mapToLong(Long::longValue).sum();
        row(
                b,
                "tx scores",
                answers,
                "at arrival, trailing-window="
                        + Durations.format(config.transactions().trailingWindow())
                        + ": "
                        + scoredTransactions
                        + " ids ("
                        + (answers - scoredTransactions)
                        + " retries answered again), ALLOW "
                        + transactionDecisions.getOrDefault(Decision.ALLOW, 0L)
                        + ", REVIEW "
                        + transactionDecisions.getOrDefault(Decision.REVIEW, 0L)
                        + ", BLOCK "
                        + transactionDecisions.getOrDefault(Decision.BLOCK, 0L)
                        + "; "
                        + historyIncomplete
                        + " with part of their trailing window evicted (arrived more than"
                        + " allowed-lateness behind the watermark)");
        b.append("  wrote\n");
        for (Path f : files) {
            b.append("    ").append(f).append('\n');
        }
        if (config.archive() != null) {
            b.append("  archived to\n    ").append(config.archive()).append('\n');
        }
        return b.toString();
    }

    private static void row(StringBuilder b, String name, long value, String note) {
        b.append(
                String.format(
                        Locale.ROOT,
                        "  %-15s %9d%s\n",
                        name,
                        value,
                        note.isEmpty() ? "" : "  " + note));
    }
}
