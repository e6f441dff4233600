package org.fraudpipe.tools.advise;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;

/**
 * The summary {@code ./fraud advise} prints on stdout: a headline (the verdict and the
 * recommendation, what {@code ./fraud demo} repeats), then the input, the delay distribution, the
 * grid, the reasons, the job's command line and where the advice files are.
 */
public final class AdviceSummary {

    private AdviceSummary() {}

    /** The first line: verdict, recommended pair and its price, or what to relax. */
    public static String headline(Advice a, String html) {
        Advice.Recommendation r = a.recommendation();
        String what;
        if (r.targetsMet()) {
            Advice.Pair best =
                    a.grid().stream()
                            .filter(
                                    p ->
                                            p.outOfOrderness().equals(r.outOfOrderness())
                                                    && p.allowedLateness()
                                                            .equals(r.allowedLateness()))
                            .findFirst()
                            .orElseThrow();
            what =
                    "recommended --out-of-orderness "
                            + r.outOfOrderness()
                            + " --allowed-lateness "
                            + r.allowedLateness()
                            + " ("
                            + Human.share(best.tooLateShare())
                            + " too late, first result p99 "
                            + Human.duration(best.firstResultDelay().p99Millis())
                            + ", state about "
                            + Human.bytes(best.peakStateBytesEstimate())
                            + ")";
        } else {
            what = "no pair meets the targets: " + r.relax().get(0);
        }
        return String.format(
                Locale.ROOT,
                "advise %s: %s; %d pairs over %s transactions; advice: %s",
                a.status(),
                what,
                a.grid().size(),
                Human.count(a.input().counted()),
                html);
    }

    /** Every line of the summary. */
    public static List<String> lines(Advice a, String html, String timing) {
        List<String> out = new ArrayList<>();
        out.add(headline(a, html));
        Advice.Input in = a.input();
        out.add(
                "  input       "
                        + in.kind()
                        + " "
                        + in.source()
                        + ": "
                        + Human.count(in.records())
                        + " valid transactions ("
                        + Human.count(in.deadLetters())
                        + " dead letters, "
                        + Human.count(in.quarantined())
                        + " quarantined), "
                        + Human.count(in.users())
                        + " users, "
                        + in.partitions().size()
                        + (in.partitions().size() == 1 ? " partition" : " partitions")
                        + ", window "
                        + in.windowSize()
                        + "; windows counted: "
                        + in.period());
        out.add("  watermark   " + in.watermarkModel());
        Advice.DelayStats d = a.delays().overall();
        out.add(
                "  delay       p50 "
                        + Human.duration(d.p50Millis())
                        + ", p90 "
                        + Human.duration(d.p90Millis())
                        + ", p95 "
                        + Human.duration(d.p95Millis())
                        + ", p99 "
                        + Human.duration(d.p99Millis())
                        + ", p99.9 "
                        + Human.duration(d.p999Millis())
                        + ", max "
                        + Human.duration(d.maxMillis())
                        + "; "
                        + Human.share(d.negativeShare())
                        + " dated after arrival");
        a.delays().byHour().stream()
                .filter(h -> h.over10Minutes() > 0)
                .max(
                        Comparator.comparingLong(Advice.HourRow::over10Minutes)
                                .thenComparing(Advice.HourRow::hour, Comparator.reverseOrder()))
                .ifPresent(
                        h ->
                                out.add(
                                        "  hours late  "
                                                + a.delays().byHour().stream()
                                                        .filter(x -> x.over10Minutes() > 0)
                                                        .count()
                                                + " of "
                                                + a.delays().byHour().size()
                                                + " arrival hours had records 10 min or more"
                                                + " late; the most at "
                                                + h.hour()
                                                + ": "
                                                + Human.count(h.over10Minutes())
                                                + " of "
                                                + Human.count(h.records())
                                                + " (max "
                                                + Human.duration(h.maxMillis())
                                                + ")"));
        a.delays().idlePartitions().forEach(p -> out.add("  idle        " + p));
        a.delays().holdingBack().forEach(p -> out.add("  holds back  " + p));
        out.add(
                "  grid        "
                        + a.grid().size()
                        + " pairs"
                        + (timing == null ? "" : ", replayed in " + timing)
                        + " (* recommended, c current):");
        out.add(
                String.format(
                        Locale.ROOT,
                        "    %-2s %-8s %-9s %18s %10s %11s %13s  %s",
                        "",
                        "bound",
                        "lateness",
                        "too late",
                        "re-fires",
                        "first p99",
                        "state (est.)",
                        "targets"));
        Advice.Recommendation r = a.recommendation();
        for (Advice.Pair p : a.grid()) {
            boolean best =
                    p.outOfOrderness().equals(r.outOfOrderness())
                            && p.allowedLateness().equals(r.allowedLateness());
            out.add(
                    String.format(
                            Locale.ROOT,
                            "    %-2s %-8s %-9s %18s %10s %11s %13s  %s",
                            (best ? "*" : "") + (p.current() ? "c" : ""),
                            p.outOfOrderness(),
                            p.allowedLateness(),
                            Human.count(p.tooLate()) + " (" + Human.share(p.tooLateShare()) + ")",
                            Human.count(p.refires()),
                            Human.duration(p.firstResultDelay().p99Millis()),
                            Human.bytes(p.peakStateBytesEstimate()),
                            p.meetsTargets() ? "met" : String.join("; ", p.misses())));
        }
        out.add("  why         " + r.reasons());
        if (r.command() != null) {
            out.add("  run         " + r.command());
        }
        Advice.PerTransaction t = a.perTransaction();
        out.add(
                "  at arrival  "
                        + Human.count(t.scoredBeforeATrailingRecordArrived())
                        + " of "
                        + Human.count(t.transactions())
                        + " transactions ("
                        + Human.share(t.share())
                        + ") would be scored before a record of their "
                        + t.trailingWindow()
                        + " trailing window arrived, with any pair (no per-transaction path in"
                        + " this build)");
        out.add("  advice      " + html + " (and advice.json)");
        return out;
    }
}
