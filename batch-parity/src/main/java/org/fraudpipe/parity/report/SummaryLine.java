package org.fraudpipe.parity.report;

import java.util.Map;
import java.util.stream.Collectors;

/**
 * The one line a parity run prints on stdout, for a scheduler's log and a person's eye: status,
 * period, window counts by class and cause, score skew, the same for the transactions scored at
 * arrival, and where the report is. Example:
 *
 * <pre>
 * parity FAIL 2026-11-28: 14102 windows, 14050 match, 48 explained (LATE_DROPPED=47 DUPLICATE=1),
 * 4 unexplained (UNEXPLAINED=3 MISSING_IN_STREAM=1); scores: 13990 compared, max |delta| 0.3120,
 * 2 decisions flipped; transactions: 95210 judged, 94790 match, 419 explained (ARRIVED_LATER=402
 * EVICTED=17), 1 unexplained (MISSING_SCORE=1); transaction scores: 95209 compared, max |delta|
 * 0.2010, 9 decision(s) flipped; report: /reports/2026-11-28/report.html
 * </pre>
 */
public final class SummaryLine {

    private SummaryLine() {}

    public static String of(ParityReport r, String period, String reportPath) {
        ParityReport.WindowCounts w = r.windows();
        StringBuilder s = new StringBuilder();
        s.append("parity ").append(r.status()).append(' ').append(period).append(": ");
        s.append(w.judged()).append(" windows, ").append(w.matched()).append(" match, ");
        s.append(w.explained()).append(" explained").append(causes(r.byCause(), true));
        s.append(", ").append(w.alarms()).append(" unexplained").append(causes(r.byCause(), false));
        ParityReport.ScoreSkew k = r.scoreSkew();
        if (k.compared() > 0 || k.otherModelVersion() > 0) {
            s.append(
                    String.format(
                            "; scores: %d compared, max |delta| %.4f, %d decision(s) flipped",
                            k.compared(), k.maxAbsDelta(), k.flippedDecisions()));
            if (k.otherModelVersion() > 0) {
                s.append(", ").append(k.otherModelVersion()).append(" served by another model");
            }
        }
        TransactionSection t = r.transactions();
        if (t == null || !t.checked()) {
            s.append("; transactions: not checked");
        } else {
            TransactionSection.Counts c = t.transactions();
            s.append("; transactions: ").append(c.judged()).append(" judged, ");
            s.append(c.matched()).append(" match, ");
            s.append(c.explained()).append(" explained").append(transactionCauses(t, true));
            s.append(", ").append(c.alarms()).append(" unexplained");
            s.append(transactionCauses(t, false));
            TransactionSection.Skew ts = t.scoreSkew();
            if (ts.compared() > 0) {
                s.append(
                        String.format(
                                java.util.Locale.ROOT,
                                "; transaction scores: %d compared, max |delta| %.4f, %d"
                                        + " decision(s) flipped",
                                ts.compared(),
                                ts.maxAbsDelta(),
                                ts.flippedDecisions()));
                if (ts.labels().given()) {
                    s.append(", ")
                            .append(ts.labels().fraudsLetThrough())
                            .append(" fraud(s) let through");
                }
            }
        }
        s.append("; report: ").append(reportPath);
        return s.toString();
    }

    private static String transactionCauses(TransactionSection t, boolean explained) {
        String listed =
                t.byCause().entrySet().stream()
                        .filter(e -> e.getValue() > 0 && !e.getKey().equals("MATCH"))
                        .filter(
                                e ->
                                        org.fraudpipe.parity.transaction.TransactionCause.valueOf(
                                                                e.getKey())
                                                        .isExplained()
                                                == explained)
                        .map(e -> e.getKey() + "=" + e.getValue())
                        .collect(Collectors.joining(" "));
        return listed.isEmpty() ? "" : " (" + listed + ")";
    }

    private static String causes(Map<String, Long> byCause, boolean explained) {
        String listed =
                byCause.entrySet().stream()
                        .filter(e -> e.getValue() > 0 && !e.getKey().equals("MATCH"))
                        .filter(
                                e ->
                                        org.fraudpipe.parity.Cause.valueOf(e.getKey()).isExplained()
                                                == explained)
                        .map(e -> e.getKey() + "=" + e.getValue())
                        .collect(Collectors.joining(" "));
        return listed.isEmpty() ? "" : " (" + listed + ")";
    }
}
