package org.fraudpipe.bench;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import org.fraudpipe.bench.FinalFeatures.WindowId;

/**
 * Final features of a system compared with the reference (the job), window by window and feature by
 * feature, with a cause for every difference from the {@link InputIndex} of the input topic.
 *
 * <p>Causes:
 *
 * <ul>
 *   <li>{@code LATE_ARRIVAL_DECIDED_DIFFERENTLY}: the window received a record when its partition's
 *       event time was already at least {@code allowedLateness + outOfOrderness} past the window's
 *       end. Kafka Streams drops such a record (stream time per task, exact per record); a Flink
 *       system counts it as long as its watermark (the minimum over all partitions, emitted every
 *       200 ms, so trailing the stream by however much event time passes in that time at the
 *       system's own processing speed) has not passed the window's end plus the lateness. Both
 *       sides are correct for their rules; how many such records there are depends on speed.
 *   <li>{@code CONFLICTING_DUPLICATE}: a transaction id arrived twice with different payloads
 *       (which one counts is arrival order, which the systems may see differently).
 *   <li>{@code UNEXPLAINED}: none of the above: a bug in one of the systems, or data loss.
 * </ul>
 */
final class Comparison {

    static final String LATE = "LATE_ARRIVAL_DECIDED_DIFFERENTLY";
    static final String DUPLICATE = "CONFLICTING_DUPLICATE";
    static final String UNEXPLAINED = "UNEXPLAINED";

    /** A window whose final values differ (or that one side lacks). */
    record Difference(WindowId window, long[] reference, long[] other) {}

    private final List<Difference> differences = new ArrayList<>();
    private final int referenceWindows;
    private final int otherWindows;
    private int equal;

    private Comparison(int referenceWindows, int otherWindows) {
        this.referenceWindows = referenceWindows;
        this.otherWindows = otherWindows;
    }

    static Comparison of(Map<WindowId, long[]> reference, Map<WindowId, long[]> other) {
        Comparison c = new Comparison(reference.size(), other.size());
        for (Map.Entry<WindowId, long[]> e : reference.entrySet()) {
            long[] o = other.get(e.getKey());
            if (o != null && sameFeatures(e.getValue(), o)) {
                c.equal++;
            } else {
                c.differences.add(new Difference(e.getKey(), e.getValue(), o));
            }
        }
        for (Map.Entry<WindowId, long[]> e : other.entrySet()) {
            if (!reference.containsKey(e.getKey())) {
                c.differences.add(new Difference(e.getKey(), null, e.getValue()));
            }
        }
        c.differences.sort((a, b) -> a.window().compareTo(b.window()));
        return c;
    }

    static boolean sameFeatures(long[] a, long[] b) {
        for (int i = 0; i < FinalFeatures.NAMES.length; i++) {
            if (a[i] != b[i]) {
                return false;
            }
        }
        return true;
    }

    Set<WindowId> differingWindows() {
        Set<WindowId> ids = new TreeSet<>();
        differences.forEach(d -> ids.add(d.window()));
        return ids;
    }

    List<Difference> differences() {
        return differences;
    }

    /** The report: counts, differences by feature, by direction and by cause, examples. */
    Map<String, Object> report(InputIndex input, Map<WindowId, Integer> referenceTooLate) {
        Map<String, Object> r = new LinkedHashMap<>();
        r.put("referenceWindows", referenceWindows);
        r.put("otherWindows", otherWindows);
        r.put("equalWindows", equal);
        r.put("differentWindows", differences.size());
        r.put(
                "equalShare",
                referenceWindows == 0 ? null : equal / (double) Math.max(referenceWindows, 1));
        int onlyReference = 0;
        int onlyOther = 0;
        int referenceCountsMore = 0;
        int otherCountsMore = 0;
        Map<String, Integer> byFeature = new LinkedHashMap<>();
        for (String n : FinalFeatures.NAMES) {
            byFeature.put(n, 0);
        }
        Map<String, Integer> byCause = new TreeMap<>();
        List<Map<String, Object>> examples = new ArrayList<>();
        Map<String, Integer> examplesPerCause = new HashMap<>();
        for (Difference d : differences) {
            if (d.reference() == null) {
                onlyOther++;
            } else if (d.other() == null) {
                onlyReference++;
            } else {
                for (int i = 0; i < FinalFeatures.NAMES.length; i++) {
                    if (d.reference()[i] != d.other()[i]) {
                        byFeature.merge(FinalFeatures.NAMES[i], 1, Integer::sum);
                    }
                }
            }
            long ref = d.reference() == null ? 0 : d.reference()[0];
            long oth = d.other() == null ? 0 : d.other()[0];
            if (ref > oth) {
                referenceCountsMore++;
            } else if (oth > ref) {
                otherCountsMore++;
            }
            InputIndex.WindowFacts facts = input.facts(d.window());
            String cause = cause(facts);
            byCause.merge(cause, 1, Integer::sum);
            if (examplesPerCause.merge(cause, 1, Integer::sum) <= 3) {
                Map<String, Object> ex = new LinkedHashMap<>();
                ex.put("window", d.window().toString());
                ex.put("cause", cause);
                ex.put("reference", d.reference() == null ? null : toList(d.reference()));
                ex.put("other", d.other() == null ? null : toList(d.other()));
                ex.put("inputRecords", facts == null ? 0 : facts.records());
                ex.put("inputDistinctIds", facts == null ? 0 : facts.distinctIds());
                ex.put(
                        "latestArrivalPastWindowEndMillis",
                        facts == null ? null : facts.maxArrivalLagMillis());
                ex.put("referenceTooLateRecords", referenceTooLate.getOrDefault(d.window(), 0));
                examples.add(ex);
            }
        }
        r.put("onlyInReference", onlyReference);
        r.put("onlyInOther", onlyOther);
        r.put("referenceCountsMoreTransactions", referenceCountsMore);
        r.put("otherCountsMoreTransactions", otherCountsMore);
        r.put("differentByFeature", byFeature);
        r.put("differentByCause", byCause);
        r.put("examples", examples);
        return r;
    }

    private String cause(InputIndex.WindowFacts facts) {
        if (facts == null) {
            return UNEXPLAINED;
        }
        if (facts.conflictingDuplicate()) {
            return DUPLICATE;
        }
        if (facts.maxArrivalLagMillis() >= lateThresholdMillis) {
            return LATE;
        }
        return UNEXPLAINED;
    }

    private long lateThresholdMillis = Long.MAX_VALUE;

    /** Records arriving this far past their window's end are late enough to be decided apart. */
    Comparison lateThreshold(long millis) {
        this.lateThresholdMillis = millis;
        return this;
    }

    private static List<Long> toList(long[] v) {
        List<Long> l = new ArrayList<>();
        for (int i = 0; i < FinalFeatures.NAMES.length; i++) {
            l.add(v[i]);
        }
        return l;
    }
}
