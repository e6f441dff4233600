package org.fraudpipe.tools.advise;

import java.util.List;
import java.util.Locale;

/**
 * {@code advice.html}: the advice for people, one self-contained page (inline CSS and SVG, no
 * script, nothing fetched), like the parity report. Sections: the recommendation and the job's
 * command line, the input and what is modelled, the delay distribution (a histogram on logarithmic
 * scales, per partition, per hour), the grid as a table, too-late share against state as a chart,
 * and what scores at arrival would miss. Deterministic like {@code advice.json}.
 */
final class AdviceHtml {

    private static final int W = 760;
    private static final int H = 200;
    private static final int LEFT = 60;
    private static final int BOTTOM = 30;

    private AdviceHtml() {}

    static String render(Advice a) {
        StringBuilder h = new StringBuilder(32_768);
        h.append("<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\n");
        h.append("<title>Lateness advice ").append(esc(a.input().period())).append("</title>\n");
        h.append(
                "<style>body{font-family:sans-serif;margin:2em;max-width:96em}"
                        + "table{border-collapse:collapse;margin:.5em 0}"
                        + "td,th{border:1px solid #ccc;padding:.2em .5em;text-align:right}td{white-space:nowrap}td.l{white-space:normal}"
                        + "th{background:#f3f3f3}td.l,th.l{text-align:left}"
                        + "tr.best td{background:#e3f4e6;font-weight:bold}tr.current td{background:#fff6d6}"
                        + "tr.best.current td{background:#e3f4e6}"
                        + ".ok{color:#176f2c}.no{color:#b3261e}"
                        + "pre{background:#f6f6f6;padding:.5em}"
                        + "svg text{font-size:10px;font-family:sans-serif}</style>\n");
        h.append("</head><body>\n");
        Advice.Recommendation r = a.recommendation();
        h.append("<h1>Watermark bound and allowed lateness: <span class=\"")
                .append(r.targetsMet() ? "ok" : "no")
                .append("\">")
                .append(r.targetsMet() ? "recommendation" : "no pair meets the targets")
                .append("</span></h1>\n");
        h.append("<p>Exit code ").append(a.exitCode()).append(". ").append(esc(r.reasons()));
        h.append("</p>\n");
        if (r.command() != null) {
            h.append("<pre>").append(esc(r.command())).append("</pre>\n");
        }
        if (!r.relax().isEmpty()) {
            h.append("<ul>");
            r.relax().forEach(x -> h.append("<li>").append(esc(x)).append("</li>"));
            h.append("</ul>\n");
        }

        Advice.Input in = a.input();
        h.append("<h2>Input</h2>\n<table>");
        row(h, "input", in.kind() + ": " + in.source());
        row(h, "windows counted", in.period());
        row(h, "window size", in.windowSize());
        row(h, "future tolerance", in.futureTolerance());
        row(h, "idleness", in.idleness());
        row(h, "policy from", in.policySource());
        if (in.currentOutOfOrderness() != null) {
            row(
                    h,
                    "the job runs with",
                    "--out-of-orderness "
                            + in.currentOutOfOrderness()
                            + " --allowed-lateness "
                            + in.currentAllowedLateness());
        }
        row(h, "valid transactions read", Human.count(in.records()));
        row(h, "dead letters", Human.count(in.deadLetters()));
        row(h, "quarantined (future-dated)", Human.count(in.quarantined()));
        row(h, "reaching the windows", Human.count(in.windowable()));
        row(h, "of them in the counted windows", Human.count(in.counted()));
        row(h, "users", Human.count(in.users()));
        row(h, "partitions", String.join(", ", in.partitions()));
        row(h, "watermark", in.watermarkModel());
        row(h, "state", in.stateModel());
        h.append("</table>\n");

        Advice.Delays d = a.delays();
        h.append("<h2>Arrival delay</h2>\n");
        h.append(
                "<p>Arrival minus event time of the valid transactions (future-dated ones"
                        + " included: they are the negative delays). Percentiles by nearest"
                        + " rank.</p>\n");
        h.append(
                "<table><tr><th class=\"l\">partition</th><th>records</th><th>p50</th>"
                        + "<th>p90</th><th>p95</th><th>p99</th><th>p99.9</th><th>max</th>"
                        + "<th>negative</th><th>longest gap</th><th>idle gaps</th>"
                        + "<th>held the watermark back (records)</th><th>by up to</th></tr>\n");
        delayRow(h, "all", d.overall(), null);
        for (Advice.PartitionDelays p : d.partitions()) {
            delayRow(h, p.partition(), p.delays(), p);
        }
        h.append("</table>\n");
        h.append(
                "<p>Histogram, both axes logarithmic (bar height: log of the count + 1; the"
                        + " count is on the bar):</p>\n");
        histogram(h, d.histogram());
        names(h, "Idle partitions", d.idlePartitions(), "None went idle.");
        names(h, "Partitions that held the watermark back", d.holdingBack(), "None.");
        h.append("<h3>By hour of arrival (UTC)</h3>\n");
        h.append(
                "<table><tr><th class=\"l\">hour</th><th>records</th><th>p50</th><th>p99</th>"
                        + "<th>max</th><th>10 min or more late</th></tr>\n");
        for (Advice.HourRow row : d.byHour()) {
            h.append("<tr>");
            cell(h, row.hour().toString());
            num(h, Human.count(row.records()));
            num(h, Human.duration(row.p50Millis()));
            num(h, Human.duration(row.p99Millis()));
            num(h, Human.duration(row.maxMillis()));
            num(h, Human.count(row.over10Minutes()));
            h.append("</tr>\n");
        }
        h.append("</table>\n");

        h.append("<h2>The grid</h2>\n");
        h.append(
                        "<p>Each pair replayed over the recorded arrival order with the job's own rules."
                                + " Targets: at most ")
                .append(esc(Human.share(a.targets().maxTooLateShare())))
                .append(" too late, first result within ")
                .append(esc(Human.duration(a.targets().maxFirstResultDelayMillis())))
                .append(
                        " at p99. Green: recommended; yellow: what the job runs with now. State"
                                + " is an estimate (see Input).</p>\n");
        h.append(
                "<table><tr><th>bound</th><th>lateness</th><th>too late</th><th>share</th>"
                        + "<th>re-fires (extra panes)</th><th>windows re-fired</th>"
                        + "<th>first panes LATE</th><th>windows</th><th>first result p50</th>"
                        + "<th>p99</th><th>max</th><th>open at end</th>"
                        + "<th>live windows per user: rule</th><th>at peak</th><th>max</th>"
                        + "<th>peak live windows</th><th>peak state (est.)</th>"
                        + "<th class=\"l\">targets</th></tr>\n");
        for (Advice.Pair p : a.grid()) {
            boolean best =
                    p.outOfOrderness().equals(r.outOfOrderness())
                            && p.allowedLateness().equals(r.allowedLateness());
            String cls = (best ? "best" : "") + (p.current() ? (best ? " " : "") + "current" : "");
            h.append(cls.isEmpty() ? "<tr>" : "<tr class=\"" + cls + "\">");
            num(h, p.outOfOrderness());
            num(h, p.allowedLateness());
            num(h, Human.count(p.tooLate()));
            num(h, Human.share(p.tooLateShare()));
            num(h, Human.count(p.refires()));
            num(h, Human.count(p.windowsRefired()));
            num(h, Human.count(p.windowsFirstFiredLate()));
            num(h, Human.count(p.windows()));
            num(h, Human.duration(p.firstResultDelay().p50Millis()));
            num(h, Human.duration(p.firstResultDelay().p99Millis()));
            num(h, Human.duration(p.firstResultDelay().maxMillis()));
            num(h, Human.count(p.windowsOpenAtEnd()));
            num(h, Long.toString(p.liveWindowsRule()));
            num(h, Human.decimal(p.liveWindowsPerUserAtPeak()));
            num(h, Long.toString(p.maxLiveWindowsOfOneUser()));
            num(h, Human.count(p.peakLiveWindows()));
            num(h, Human.bytes(p.peakStateBytesEstimate()));
            cell(h, p.meetsTargets() ? "met" : String.join("; ", p.misses()));
            h.append("</tr>\n");
        }
        h.append("</table>\n");
        h.append("<h3>Too-late share against state</h3>\n");
        h.append(
                "<p>Each pair (bound/lateness): peak state (estimate, logarithmic) across,"
                        + " too-late share (logarithmic; none on the bottom line) up; the dashed"
                        + " line is the target. Green: recommended.</p>\n");
        tradeOff(h, a);

        Advice.PerTransaction t = a.perTransaction();
        h.append("<h2>Scores at arrival</h2>\n<table>");
        row(h, "trailing window", t.trailingWindow());
        row(h, "transactions (first copies, reaching the windows)", Human.count(t.transactions()));
        row(
                h,
                "scored before a record of their trailing window arrived",
                Human.count(t.scoredBeforeATrailingRecordArrived())
                        + " ("
                        + Human.share(t.share())
                        + ")");
        h.append("</table>\n<p>").append(esc(t.note())).append("</p>\n");
        h.append("</body></html>\n");
        return h.toString();
    }

    private static void delayRow(
            StringBuilder h, String name, Advice.DelayStats s, Advice.PartitionDelays p) {
        h.append("<tr>");
        cell(h, name);
        num(h, Human.count(s.records()));
        num(h, Human.duration(s.p50Millis()));
        num(h, Human.duration(s.p90Millis()));
        num(h, Human.duration(s.p95Millis()));
        num(h, Human.duration(s.p99Millis()));
        num(h, Human.duration(s.p999Millis()));
        num(h, Human.duration(s.maxMillis()));
        num(h, Human.count(s.negative()) + " (" + Human.share(s.negativeShare()) + ")");
        num(h, p == null ? "" : Human.duration(p.longestGapMillis()));
        num(h, p == null ? "" : Human.count(p.idleGaps()));
        num(h, p == null ? "" : Human.count(p.heldBackRecords()));
        num(h, p == null ? "" : Human.duration(p.maxHoldBackMillis()));
        h.append("</tr>\n");
    }

    private static void names(StringBuilder h, String title, List<String> names, String none) {
        h.append("<h3>").append(esc(title)).append("</h3>\n");
        if (names.isEmpty()) {
            h.append("<p>").append(esc(none)).append("</p>\n");
            return;
        }
        h.append("<ul>");
        names.forEach(n -> h.append("<li>").append(esc(n)).append("</li>"));
        h.append("</ul>\n");
    }

    /** The delay histogram: fixed slots for {@code < 0}, {@code 0 .. 1ms} and the overflow. */
    private static void histogram(StringBuilder h, List<Advice.Bucket> buckets) {
        long max = buckets.stream().mapToLong(Advice.Bucket::count).max().orElse(0);
        if (max == 0) {
            h.append("<p>No records.</p>\n");
            return;
        }
        svgOpen(h);
        double slot = 40;
        double logStart = LEFT + 2 * slot;
        double logWidth = W - logStart - slot - 10;
        double logMax = Math.log10(DelayProfile.EDGES[DelayProfile.EDGES.length - 1]);
        double yMax = Math.log10(max + 1.0);
        for (int i = 0; i < buckets.size(); i++) {
            Advice.Bucket b = buckets.get(i);
            double x0;
            double x1;
            if (i == 0) {
                x0 = LEFT;
                x1 = LEFT + slot;
            } else if (i == 1) {
                x0 = LEFT + slot;
                x1 = logStart;
            } else if (b.toMillis() == null) {
                x0 = logStart + logWidth;
                x1 = x0 + slot;
            } else {
                x0 = logStart + Math.log10(b.fromMillis()) / logMax * logWidth;
                x1 = logStart + Math.log10(b.toMillis()) / logMax * logWidth;
            }
            double height = b.count() == 0 ? 0 : Math.log10(b.count() + 1.0) / yMax * H;
            rect(
                    h,
                    x0,
                    H - height,
                    x1 - x0,
                    height,
                    i == 0 ? "#b3261e" : "#5b7db1",
                    b.label() + ": " + b.count());
            if (b.count() > 0) {
                text(h, x0 + 1, H - height - 2, Long.toString(b.count()));
            }
        }
        text(h, LEFT, H + 12, "< 0");
        text(h, LEFT + slot, H + 12, "0");
        String[] ticks = {"1ms", "10ms", "100ms", "1s", "10s", "1m", "10m", "1h", "6h", "1d"};
        long[] at = {1, 10, 100, 1_000, 10_000, 60_000, 600_000, 3_600_000, 21_600_000, 86_400_000};
        for (int i = 0; i < ticks.length; i++) {
            double x = logStart + Math.log10(at[i]) / logMax * logWidth;
            text(h, x, H + 12, ticks[i]);
            h.append(
                    String.format(
                            Locale.ROOT,
                            "<line x1=\"%.1f\" y1=\"%d\" x2=\"%.1f\" y2=\"%d\" stroke=\"#333\"/>",
                            x,
                            H,
                            x,
                            H + 3));
        }
        axes(h, "count (log)");
        h.append("</svg>\n");
    }

    /**
     * Too-late share (log, none on its own line at the bottom) against peak state bytes (log).
     * Pairs that fall on the same spot (typically the bounds of one lateness) share one label.
     */
    private static void tradeOff(StringBuilder h, Advice a) {
        List<Advice.Pair> grid = a.grid();
        if (grid.isEmpty()) {
            h.append("<p>No pairs.</p>\n");
            return;
        }
        double minShare = Double.MAX_VALUE;
        double maxShare = 0;
        long minBytes = Long.MAX_VALUE;
        long maxBytes = 0;
        for (Advice.Pair p : grid) {
            if (p.tooLateShare() > 0) {
                minShare = Math.min(minShare, p.tooLateShare());
            }
            maxShare = Math.max(maxShare, p.tooLateShare());
            minBytes = Math.min(minBytes, Math.max(1, p.peakStateBytesEstimate()));
            maxBytes = Math.max(maxBytes, Math.max(1, p.peakStateBytesEstimate()));
        }
        double target = a.targets().maxTooLateShare();
        if (target > 0) {
            minShare = Math.min(minShare, target);
            maxShare = Math.max(maxShare, target);
        }
        if (minShare == Double.MAX_VALUE) {
            minShare = 1e-4;
            maxShare = 1e-2;
        }
        double yLo = Math.floor(Math.log10(minShare));
        double yHi = Math.max(yLo + 1, Math.ceil(Math.log10(maxShare)));
        double xLo = Math.floor(Math.log10(minBytes));
        double xHi = Math.max(xLo + 1, Math.ceil(Math.log10(maxBytes)));
        double noneY = H - 8;
        double top = 10;
        double bottom = H - 30;
        double plotW = W - LEFT - 90;
        svgOpen(h);
        for (double e = yLo; e <= yHi; e++) {
            double y = bottom - (e - yLo) / (yHi - yLo) * (bottom - top);
            text(h, 2, y + 3, Human.share(Math.pow(10, e)));
        }
        text(h, 2, noneY + 3, "none");
        for (double e = xLo; e <= xHi; e++) {
            double x = LEFT + (e - xLo) / (xHi - xLo) * plotW;
            text(h, x - 10, H + 12, Human.bytes((long) Math.pow(10, e)));
        }
        if (target > 0) {
            double y = bottom - (Math.log10(target) - yLo) / (yHi - yLo) * (bottom - top);
            h.append(
                    String.format(
                            Locale.ROOT,
                            "<line x1=\"%d\" y1=\"%.1f\" x2=\"%d\" y2=\"%.1f\" stroke=\"#b3261e\""
                                    + " stroke-dasharray=\"4 3\"/>",
                            LEFT,
                            y,
                            W - 10,
                            y));
        }
        Advice.Recommendation r = a.recommendation();
        int n = grid.size();
        double[] xs = new double[n];
        double[] ys = new double[n];
        for (int i = 0; i < n; i++) {
            Advice.Pair p = grid.get(i);
            xs[i] =
                    LEFT
                            + (Math.log10(Math.max(1, p.peakStateBytesEstimate())) - xLo)
                                    / (xHi - xLo)
                                    * plotW;
            ys[i] =
                    p.tooLateShare() == 0
                            ? noneY
                            : bottom
                                    - (Math.log10(p.tooLateShare()) - yLo)
                                            / (yHi - yLo)
                                            * (bottom - top);
        }
        // Points first (the recommended one last, on top), then one label per spot.
        int best = -1;
        for (int i = 0; i < n; i++) {
            Advice.Pair p = grid.get(i);
            if (p.outOfOrderness().equals(r.outOfOrderness())
                    && p.allowedLateness().equals(r.allowedLateness())) {
                best = i;
                continue;
            }
            point(h, xs[i], ys[i], 4, p.meetsTargets() ? "#5b7db1" : "#999", p);
        }
        if (best >= 0) {
            point(h, xs[best], ys[best], 6, "#176f2c", grid.get(best));
        }
        boolean[] labelled = new boolean[n];
        double lastLabelX = Double.NaN;
        double lastLabelY = Double.NaN;
        for (int i = 0; i < n; i++) {
            if (labelled[i]) {
                continue;
            }
            java.util.List<String> bounds = new java.util.ArrayList<>();
            java.util.List<String> lateness = new java.util.ArrayList<>();
            for (int j = i; j < n; j++) {
                if (!labelled[j] && Math.abs(xs[j] - xs[i]) < 6 && Math.abs(ys[j] - ys[i]) < 6) {
                    labelled[j] = true;
                    Advice.Pair p = grid.get(j);
                    if (!bounds.contains(p.outOfOrderness())) {
                        bounds.add(p.outOfOrderness());
                    }
                    if (!lateness.contains(p.allowedLateness())) {
                        lateness.add(p.allowedLateness());
                    }
                }
            }
            String label =
                    (bounds.size() == 1
                                    ? bounds.get(0)
                                    : bounds.get(0) + ".." + bounds.get(bounds.size() - 1))
                            + " / "
                            + String.join(", ", lateness);
            double y = ys[i] - 6;
            if (Math.abs(xs[i] - lastLabelX) < 90 && Math.abs(y - lastLabelY) < 12) {
                y = ys[i] + 14; // below its point, clear of the previous label
            }
            lastLabelX = xs[i];
            lastLabelY = y;
            text(h, xs[i] + 7, y, label);
        }
        axes(h, "");
        h.append("</svg>\n");
    }

    private static void point(
            StringBuilder h, double x, double y, int r, String color, Advice.Pair p) {
        h.append(
                String.format(
                        Locale.ROOT,
                        "<circle cx=\"%.1f\" cy=\"%.1f\" r=\"%d\" fill=\"%s\"><title>%s</title>"
                                + "</circle>",
                        x,
                        y,
                        r,
                        color,
                        esc(
                                p.outOfOrderness()
                                        + "/"
                                        + p.allowedLateness()
                                        + ": "
                                        + Human.share(p.tooLateShare())
                                        + " too late, "
                                        + Human.bytes(p.peakStateBytesEstimate()))));
    }

    private static void svgOpen(StringBuilder h) {
        h.append(
                String.format(
                        Locale.ROOT,
                        "<svg width=\"%d\" height=\"%d\" role=\"img\">",
                        W,
                        H + BOTTOM));
    }

    private static void axes(StringBuilder h, String label) {
        h.append(
                String.format(
                        Locale.ROOT,
                        "<line x1=\"%d\" y1=\"0\" x2=\"%d\" y2=\"%d\" stroke=\"#333\"/>"
                                + "<line x1=\"%d\" y1=\"%d\" x2=\"%d\" y2=\"%d\" stroke=\"#333\"/>",
                        LEFT - 2,
                        LEFT - 2,
                        H,
                        LEFT - 2,
                        H,
                        W,
                        H));
        if (!label.isEmpty()) {
            text(h, 0, 10, label);
        }
    }

    private static void rect(
            StringBuilder h, double x, double y, double w, double height, String color, String t) {
        h.append(
                String.format(
                        Locale.ROOT,
                        "<rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\" fill=\"%s\">"
                                + "<title>%s</title></rect>",
                        x,
                        y,
                        Math.max(1, w - 1),
                        height,
                        color,
                        esc(t)));
    }

    private static void text(StringBuilder h, double x, double y, String t) {
        h.append(String.format(Locale.ROOT, "<text x=\"%.1f\" y=\"%.1f\">%s</text>", x, y, esc(t)));
    }

    private static void row(StringBuilder h, String key, String value) {
        h.append("<tr><th class=\"l\">")
                .append(esc(key))
                .append("</th><td class=\"l\">")
                .append(esc(value == null ? "" : value))
                .append("</td></tr>");
    }

    private static void cell(StringBuilder h, String text) {
        h.append("<td class=\"l\">").append(esc(text == null ? "" : text)).append("</td>");
    }

    private static void num(StringBuilder h, String text) {
        h.append("<td>").append(esc(text)).append("</td>");
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
