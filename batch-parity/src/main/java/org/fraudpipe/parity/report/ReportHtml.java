package org.fraudpipe.parity.report;

import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * {@code report.html}: the report for people, one self-contained page (inline CSS and SVG, no
 * script, nothing fetched), so it can be opened from a file share or attached to a ticket.
 * Sections: verdict and violations, windows by cause, mismatch rate by hour, lateness of too-late
 * records, score-delta histogram and flipped decisions, the worst unexplained windows, examples per
 * cause; then scores at arrival: transactions by cause, what was read, lateness of the records that
 * arrived after transactions they belonged to, score skew with fraud labels, the worst differing
 * transactions with the records that explain them, examples per cause. Deterministic like {@link
 * ReportJson}.
 */
public final class ReportHtml {

    private static final int CHART_WIDTH = 760;
    private static final int CHART_HEIGHT = 160;

    private ReportHtml() {}

    public static String render(ParityReport r) {
        return render(r, null);
    }

    /**
     * The report, linking the lateness advice of the same run when {@code adviceLink} (a path
     * relative to the report) is not null.
     */
    public static String render(ParityReport r, String adviceLink) {
        StringBuilder h = new StringBuilder(16_384);
        h.append("<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\n");
        h.append("<title>Parity ").append(esc(r.status())).append(' ');
        h.append(esc(String.valueOf(r.run().get("period")))).append("</title>\n");
        h.append(
                "<style>body{font-family:sans-serif;margin:2em;max-width:64em}"
                        + "table{border-collapse:collapse;margin:.5em 0}"
                        + "td,th{border:1px solid #ccc;padding:.2em .5em;text-align:right}"
                        + "th{background:#f3f3f3}td.l,th.l{text-align:left}"
                        + ".PASS{color:#176f2c}.FAIL{color:#b3261e}"
                        + "svg text{font-size:10px;font-family:sans-serif}</style>\n");
        h.append("</head><body>\n");
        h.append("<h1>Training-serving parity: <span class=\"")
                .append(esc(r.status()))
                .append("\">")
                .append(esc(r.status()))
                .append("</span></h1>\n");
        h.append("<p>Exit code ").append(r.exitCode()).append(".</p>\n");
        if (adviceLink != null) {
            h.append("<p>Lateness advice for this run (the watermark bound and allowed lateness")
                    .append(" chosen from its traffic, with their price): <a href=\"")
                    .append(esc(adviceLink))
                    .append("\">")
                    .append(esc(adviceLink))
                    .append("</a></p>\n");
        }
        if (!r.violations().isEmpty()) {
            h.append("<ul>");
            r.violations()
                    .forEach(v -> h.append("<li class=\"FAIL\">").append(esc(v)).append("</li>"));
            h.append("</ul>\n");
        }

        h.append("<h2>Run</h2>\n<table>");
        r.run().forEach((k, v) -> row(h, k, String.valueOf(v)));
        h.append("</table>\n");

        ParityReport.WindowCounts w = r.windows();
        h.append("<h2>Windows</h2>\n<table>");
        row(h, "judged", w.judged());
        row(h, "match", w.matched());
        row(h, "explained", w.explained());
        row(h, "unexplained (alarms)", w.alarms());
        row(h, "mismatch rate", String.format(Locale.ROOT, "%.6f", w.mismatchRate()));
        h.append("</table>\n<table><tr><th class=\"l\">cause</th><th>windows</th></tr>");
        r.byCause().forEach((c, n) -> row(h, c, n));
        h.append("</table>\n");
        ParityReport.RecordCounts rc = r.records();
        h.append("<table>");
        row(h, "archived transactions", rc.archivedTransactions());
        row(h, "served panes", rc.servedPanes());
        row(h, "too late (late stream)", rc.tooLate());
        row(h, "quarantined (late stream)", rc.quarantined());
        row(h, "dead-lettered but archived", rc.deadLetteredArchived());
        row(h, "late labels contradicted by the archive", rc.contradictedLabels());
        row(h, "too-late labels not checkable (partition possibly idle)", rc.uncheckedLabels());
        h.append("</table>\n");

        h.append("<h2>Mismatch rate by hour</h2>\n");
        h.append(
                "<p>Per hour of window start: share of windows whose served value differs from the"
                        + " ideal (grey: explained, red: unexplained).</p>\n");
        hourChart(h, r.byHour());

        h.append("<h2>Lateness of too-late records</h2>\n");
        h.append("<p>Watermark minus event time when the record was set aside.</p>\n");
        barChart(h, r.lateness(), "#5b7db1");

        ParityReport.ScoreSkew k = r.scoreSkew();
        h.append("<h2>Score-level skew</h2>\n<table>");
        row(h, "model version", k.modelVersion());
        row(h, "windows compared", k.compared());
        row(h, "served by another model version", k.otherModelVersion());
        row(h, "never scored in the stream", k.neverScored());
        row(h, "mean |ideal - served|", String.format(Locale.ROOT, "%.6f", k.meanAbsDelta()));
        row(h, "max |ideal - served|", String.format(Locale.ROOT, "%.6f", k.maxAbsDelta()));
        row(h, "flipped decisions", k.flippedDecisions());
        k.flips().forEach((f, n) -> row(h, "flip " + f, n));
        k.neverScoredDecisions().forEach((d, n) -> row(h, "never scored, ideal " + d, n));
        h.append("</table>\n<p>Ideal minus served score:</p>\n");
        barChart(h, k.histogram(), "#8a5bb1");
        releases(h, "h3", k.byRelease(), k.shadow(), false);

        h.append("<h2>Worst unexplained windows</h2>\n");
        findings(h, r.worstUnexplained());
        h.append("<h2>Examples by cause</h2>\n");
        if (r.examples().isEmpty()) {
            h.append("<p>Every window matches.</p>\n");
        }
        for (Map.Entry<String, List<WindowFinding>> e : r.examples().entrySet()) {
            h.append("<h3>").append(esc(e.getKey())).append("</h3>\n");
            findings(h, e.getValue());
        }
        transactions(h, r.transactions());
        h.append("</body></html>\n");
        return h.toString();
    }

    /** The per-transaction section (scores at arrival). */
    private static void transactions(StringBuilder h, TransactionSection t) {
        h.append("<h2>Scores at arrival (per transaction)</h2>\n");
        if (t == null || !t.checked()) {
            h.append("<p>Not checked: ")
                    .append(esc(t == null ? "" : t.notChecked()))
                    .append(".</p>\n");
            return;
        }
        h.append(
                "<p>Every transaction scored in the period, recomputed twice with the job's own"
                        + " feature code: <em>as of arrival</em> (its user's transactions received"
                        + " before it, with the state bound the job applied), which the served"
                        + " features must equal, and <em>ideal</em> (every archived transaction of"
                        + " its trailing window, however late it arrived).</p>\n");
        TransactionSection.Counts c = t.transactions();
        h.append("<table>");
        row(h, "judged", c.judged());
        row(h, "match", c.matched());
        row(h, "explained", c.explained());
        row(h, "alarms", c.alarms());
        row(h, "compared (served and ideal)", c.compared());
        row(h, "served features differ from ideal", c.differing());
        row(h, "share differing", String.format(Locale.ROOT, "%.6f", c.differingRate()));
        h.append("</table>\n<table><tr><th class=\"l\">cause</th><th>transactions</th></tr>");
        t.byCause().forEach((cause, n) -> row(h, cause, n));
        h.append("</table>\n");
        TransactionSection.Records rc = t.records();
        h.append("<table>");
        row(h, "users", rc.users());
        row(h, "arrivals to answer (retries included)", rc.arrivals());
        row(h, "answers archived", rc.answers());
        row(h, "retries", rc.retries());
        row(h, "quarantined on arrival (no answer due)", rc.quarantinedInPeriod());
        row(h, "answers with historyComplete=false", rc.historyIncomplete());
        row(h, "of which the watermark could not be bounded", rc.historyIncompleteUnproven());
        row(h, "records evicted by the state bound (per answer)", rc.evictedRecords());
        row(
                h,
                "records that arrived after a transaction they belonged to",
                rc.arrivedLaterRecords());
        row(h, "users on several partitions", rc.usersOnSeveralPartitions());
        rc.usersOnSeveralPartitionsExamples().forEach(u -> row(h, "on several partitions", u));
        h.append("</table>\n");

        h.append(
                "<h3>Lateness of the records that arrived after transactions they belonged"
                        + " to</h3>\n");
        h.append(
                "<p>Arrival minus event time of each ARRIVED_LATER record (each record once).</p>\n");
        barChart(h, t.arrivedLaterDelay(), "#5b7db1");

        TransactionSection.Skew k = t.scoreSkew();
        h.append("<h3>Score-level skew of the decision path</h3>\n<table>");
        row(h, "model version", k.modelVersion());
        row(h, "transactions compared", k.compared());
        row(h, "never scored in the stream", k.neverScored());
        row(h, "mean |ideal - served|", String.format(Locale.ROOT, "%.6f", k.meanAbsDelta()));
        row(h, "max |ideal - served|", String.format(Locale.ROOT, "%.6f", k.maxAbsDelta()));
        row(h, "flipped decisions", k.flippedDecisions());
        row(h, "flipped rate", String.format(Locale.ROOT, "%.6f", k.flippedRate()));
        k.flips().forEach((f, n) -> row(h, "flip " + f, n));
        k.neverScoredDecisions().forEach((d, n) -> row(h, "never scored, ideal " + d, n));
        TransactionSection.Labels l = k.labels();
        if (l.given()) {
            row(h, "labelled (of compared)", l.labelled());
            row(h, "fraudulent", l.fraudulent());
            row(h, "frauds the served answer allowed", l.fraudsAllowed());
            row(h, "frauds the lateness let through (ideal: not ALLOW)", l.fraudsLetThrough());
            l.fraudFlips().forEach((f, n) -> row(h, "fraud flip " + f, n));
            l.legitimateFlips().forEach((f, n) -> row(h, "legitimate flip " + f, n));
        } else {
            row(h, "fraud labels", "none given (--labels)");
        }
        h.append("</table>\n<p>Ideal minus served score:</p>\n");
        barChart(h, k.histogram(), "#8a5bb1");
        releases(h, "h4", k.byRelease(), k.shadow(), k.labels().given());

        h.append("<h3>Worst differing transactions</h3>\n");
        transactionFindings(h, t.worst());
        h.append("<h3>Examples by cause</h3>\n");
        if (t.examples().isEmpty()) {
            h.append("<p>Every transaction matches.</p>\n");
        }
        for (Map.Entry<String, List<TransactionFinding>> e : t.examples().entrySet()) {
            h.append("<h4>").append(esc(e.getKey())).append("</h4>\n");
            transactionFindings(h, e.getValue());
        }
    }

    private static void transactionFindings(StringBuilder h, List<TransactionFinding> list) {
        if (list.isEmpty()) {
            h.append("<p>None.</p>\n");
            return;
        }
        h.append(
                "<table><tr><th class=\"l\">user / transaction</th><th class=\"l\">event"
                        + " time</th><th class=\"l\">causes</th><th class=\"l\">differing</th>"
                        + "<th class=\"l\">served / as of arrival / ideal</th>"
                        + "<th>score served / ideal</th><th class=\"l\">named records (arrival"
                        + " minus event time; after the transaction)</th>"
                        + "<th class=\"l\">note</th></tr>\n");
        for (TransactionFinding f : list) {
            h.append("<tr>");
            cell(h, f.userId() + " / " + f.transactionId());
            cell(h, f.eventTime().toString());
            cell(
                    h,
                    String.join(", ", f.causes())
                            + (f.fraud() == null ? "" : f.fraud() ? " (fraud)" : ""));
            cell(h, String.join(", ", f.differingFeatures()));
            cell(
                    h,
                    (f.served() == null ? "-" : f.served().toString())
                            + " / "
                            + (f.asOfArrival() == null ? "-" : f.asOfArrival().toString())
                            + " / "
                            + (f.ideal() == null ? "-" : f.ideal().toString()));
            h.append("<td>")
                    .append(score(f.servedScore(), f.servedDecision()))
                    .append(" / ")
                    .append(score(f.idealScore(), f.idealDecision()))
                    .append("</td>");
            StringBuilder named = new StringBuilder();
            for (org.fraudpipe.parity.transaction.NamedRecord n : f.named()) {
                named.append(named.length() == 0 ? "" : "; ")
                        .append(n.cause())
                        .append(' ')
                        .append(n.transactionId())
                        .append(" at ")
                        .append(n.position())
                        .append(" (")
                        .append(Human.millis(n.delayMillis()))
                        .append("; ")
                        .append(Human.millis(n.afterScoredMillis()))
                        .append(")");
            }
            if (f.namedCount() > f.named().size()) {
                named.append("; and ").append(f.namedCount() - f.named().size()).append(" more");
            }
            cell(h, named.toString());
            cell(h, f.note());
            h.append("</tr>\n");
        }
        h.append("</table>\n");
    }

    /** Durations for people: {@code 250 ms}, {@code 12.5 s}, {@code 3.2 min}, {@code 5.1 h}. */
    static final class Human {
        private Human() {}

        static String millis(long ms) {
            long a = Math.abs(ms);
            String sign = ms < 0 ? "-" : "";
            if (a < 1_000) {
                return sign + a + " ms";
            }
            if (a < 60_000) {
                return sign + String.format(Locale.ROOT, "%.1f s", a / 1e3);
            }
            if (a < 3_600_000) {
                return sign + String.format(Locale.ROOT, "%.1f min", a / 6e4);
            }
            return sign + String.format(Locale.ROOT, "%.1f h", a / 3.6e6);
        }
    }

    private static void findings(StringBuilder h, List<WindowFinding> list) {
        if (list.isEmpty()) {
            h.append("<p>None.</p>\n");
            return;
        }
        h.append(
                "<table><tr><th class=\"l\">user</th><th class=\"l\">window start</th>"
                        + "<th class=\"l\">causes</th><th class=\"l\">differing</th>"
                        + "<th class=\"l\">ideal</th><th class=\"l\">served (revision)</th>"
                        + "<th>score served / ideal</th><th class=\"l\">note</th></tr>\n");
        for (WindowFinding f : list) {
            h.append("<tr>");
            cell(h, f.userId());
            cell(h, f.windowStart().toString());
            cell(h, String.join(", ", f.causes()));
            cell(h, String.join(", ", f.differingFeatures()));
            cell(h, f.ideal() == null ? "-" : f.ideal().toString());
            cell(h, f.served() == null ? "-" : f.served() + " (" + f.servedRevision() + ")");
            h.append("<td>")
                    .append(score(f.servedScore(), f.servedDecision()))
                    .append(" / ")
                    .append(score(f.idealScore(), f.idealDecision()))
                    .append("</td>");
            cell(h, f.note());
            h.append("</tr>\n");
        }
        h.append("</table>\n");
    }

    private static String score(Double score, String decision) {
        return score == null
                ? "-"
                : String.format(Locale.ROOT, "%.4f", score) + " " + esc(String.valueOf(decision));
    }

    private static void hourChart(StringBuilder h, List<ParityReport.HourRow> hours) {
        if (hours.isEmpty()) {
            h.append("<p>No windows.</p>\n");
            return;
        }
        int n = hours.size();
        double bw = (double) (CHART_WIDTH - 40) / n;
        svgOpen(h);
        for (int i = 0; i < n; i++) {
            ParityReport.HourRow row = hours.get(i);
            double x = 30 + i * bw;
            double rate = row.windows() == 0 ? 0 : (double) row.mismatched() / row.windows();
            double alarmRate = row.windows() == 0 ? 0 : (double) row.alarms() / row.windows();
            bar(h, x, bw, rate, "#aaa", row.hour() + ": " + row.mismatched() + "/" + row.windows());
            bar(h, x, bw, alarmRate, "#b3261e", row.hour() + ": " + row.alarms() + " unexplained");
            if (n <= 48 || i % (n / 24 + 1) == 0) {
                h.append(
                        String.format(
                                Locale.ROOT,
                                "<text x=\"%.1f\" y=\"%d\">%s</text>",
                                x,
                                CHART_HEIGHT + 12,
                                esc(row.hour().toString().substring(11, 13))));
            }
        }
        axis(h, "100%");
        h.append("</svg>\n");
    }

    private static void barChart(StringBuilder h, List<Histogram.Bucket> buckets, String color) {
        long max = buckets.stream().mapToLong(Histogram.Bucket::count).max().orElse(0);
        if (max == 0) {
            h.append("<p>No values.</p>\n");
            return;
        }
        double bw = (double) (CHART_WIDTH - 40) / buckets.size();
        svgOpen(h);
        for (int i = 0; i < buckets.size(); i++) {
            Histogram.Bucket b = buckets.get(i);
            double x = 30 + i * bw;
            bar(h, x, bw, (double) b.count() / max, color, b.label() + ": " + b.count());
            h.append(
                    String.format(
                            Locale.ROOT,
                            "<text x=\"%.1f\" y=\"%d\">%s</text>",
                            x,
                            CHART_HEIGHT + 12,
                            esc(b.label())));
            h.append(
                    String.format(
                            Locale.ROOT,
                            "<text x=\"%.1f\" y=\"%.1f\">%d</text>",
                            x + 2,
                            CHART_HEIGHT - (double) b.count() / max * CHART_HEIGHT - 2,
                            b.count()));
        }
        axis(h, String.valueOf(max));
        h.append("</svg>\n");
    }

    private static void svgOpen(StringBuilder h) {
        h.append(
                String.format(
                        Locale.ROOT,
                        "<svg width=\"%d\" height=\"%d\" role=\"img\">",
                        CHART_WIDTH,
                        CHART_HEIGHT + 20));
    }

    private static void axis(StringBuilder h, String top) {
        h.append(
                String.format(
                        Locale.ROOT,
                        "<line x1=\"28\" y1=\"0\" x2=\"28\" y2=\"%d\" stroke=\"#333\"/>"
                                + "<line x1=\"28\" y1=\"%d\" x2=\"%d\" y2=\"%d\" stroke=\"#333\"/>"
                                + "<text x=\"0\" y=\"10\">%s</text>",
                        CHART_HEIGHT,
                        CHART_HEIGHT,
                        CHART_WIDTH,
                        CHART_HEIGHT,
                        esc(top)));
    }

    private static void bar(
            StringBuilder h, double x, double w, double fraction, String color, String title) {
        double height = fraction * CHART_HEIGHT;
        h.append(
                String.format(
                        Locale.ROOT,
                        "<rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\" fill=\"%s\">"
                                + "<title>%s</title></rect>",
                        x,
                        CHART_HEIGHT - height,
                        Math.max(1, w - 2),
                        height,
                        color,
                        esc(title)));
    }

    /**
     * The model releases that served (the skew priced per release) and each champion against its
     * challenger (shadow scoring).
     */
    private static void releases(
            StringBuilder h,
            String heading,
            List<ReleaseFigures.ReleaseRow> releases,
            List<ReleaseFigures.ShadowRow> shadows,
            boolean labels) {
        String open = "<" + heading + ">";
        String close = "</" + heading + ">\n";
        h.append(open).append("By model release").append(close);
        h.append(
                "<table><tr><th class=\"l\">release</th><th>served</th><th>compared</th>"
                        + "<th>mean |ideal - served|</th><th>max</th><th>flipped</th></tr>");
        for (ReleaseFigures.ReleaseRow r : releases) {
            h.append("<tr>");
            cell(h, r.release());
            h.append(
                    String.format(
                            Locale.ROOT,
                            "<td>%d</td><td>%d</td><td>%.6f</td><td>%.6f</td><td>%d</td></tr>",
                            r.served(),
                            r.compared(),
                            r.meanAbsDelta(),
                            r.maxAbsDelta(),
                            r.flippedDecisions()));
        }
        h.append("</table>\n");
        if (shadows.isEmpty()) {
            return;
        }
        h.append(open).append("Champion against challenger (shadow scoring)").append(close);
        h.append(
                "<table><tr><th class=\"l\">champion</th><th class=\"l\">challenger</th>"
                        + "<th>scored by both</th><th>mean |challenger - champion|</th><th>max</th>"
                        + "<th>would flip</th><th class=\"l\">flips</th>"
                        + (labels
                                ? "<th>frauds</th><th>allowed by champion</th>"
                                        + "<th>allowed by challenger</th>"
                                : "")
                        + "</tr>");
        for (ReleaseFigures.ShadowRow s : shadows) {
            h.append("<tr>");
            cell(h, s.champion());
            cell(h, s.challenger());
            h.append(
                    String.format(
                            Locale.ROOT,
                            "<td>%d</td><td>%.6f</td><td>%.6f</td><td>%d</td>",
                            s.scored(),
                            s.meanAbsDelta(),
                            s.maxAbsDelta(),
                            s.flippedDecisions()));
            cell(h, s.flips().toString());
            if (labels) {
                h.append(
                        String.format(
                                Locale.ROOT,
                                "<td>%d</td><td>%d</td><td>%d</td>",
                                s.labelledFraudulent(),
                                s.fraudsAllowedByChampion(),
                                s.fraudsAllowedByChallenger()));
            }
            h.append("</tr>");
        }
        h.append("</table>\n");
    }

    private static void row(StringBuilder h, String key, Object value) {
        h.append("<tr><th class=\"l\">")
                .append(esc(key))
                .append("</th><td>")
                .append(esc(String.valueOf(value)))
                .append("</td></tr>");
    }

    private static void cell(StringBuilder h, String text) {
        h.append("<td class=\"l\">").append(esc(text == null ? "" : text)).append("</td>");
    }

    static String esc(String s) {
        StringBuilder out = new StringBuilder(s.length());
        for (char c : s.toCharArray()) {
            switch (c) {
                case '<' -> out.append("&lt;");
                case '>' -> out.append("&gt;");
                case '&' -> out.append("&amp;");
                case '"' -> out.append("&quot;");
                case '\'' -> out.append("&#39;");
                default -> out.append(c);
            }
        }
        return out.toString();
    }
}
