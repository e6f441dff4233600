package org.fraudpipe.tools.soak;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.EnumMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * What a campaign did and found: the faults by kind with their recovery times, the decision path's
 * latency during faults and outside them, the checker's counts and findings, parity's exit code,
 * and the verdict. Written as JSON ({@code soak.json}) and as a few summary lines.
 *
 * <p>Recovery of a fault: from its end (the environment healed, or the job running again after a
 * kill or a restore) to the first answer to a transaction appended at or after that end; its
 * outage: from its start to that answer. A fault is <i>alone</i> when no other fault was under way
 * at any moment of its outage: only then is its recovery its own (faults every few seconds overlap,
 * and one's recovery then includes the others'); both are reported.
 */
final class SoakReport {

    private final Map<String, Object> json;
    private final List<String> summary;
    private final boolean passed;

    private SoakReport(Map<String, Object> json, List<String> summary, boolean passed) {
        this.json = json;
        this.summary = summary;
        this.passed = passed;
    }

    static SoakReport of(
            SoakSettings settings,
            Instant began,
            Instant ended,
            long published,
            List<Nemesis.Fault> faults,
            ScoreWatcher watcher,
            SoakChecker.Verdict verdict,
            int parityExit,
            int jobStarts,
            List<String> notes) {
        Map<String, Object> json = new LinkedHashMap<>();
        Map<String, Object> s = new LinkedHashMap<>();
        s.put("duration", settings.duration().toString());
        s.put("users", settings.users());
        s.put("txPerUserDay", settings.txPerUserDay());
        s.put("speedup", settings.speedup());
        s.put("seed", settings.seed());
        s.put("faultEvery", settings.faultEvery().toString());
        s.put("kinds", settings.kinds().stream().map(Enum::name).toList());
        s.put("parallelism", settings.parallelism());
        json.put("settings", s);
        json.put("began", began.toString());
        json.put("ended", ended.toString());
        json.put("published", published);
        json.put("jobStarts", jobStarts);

        List<Map<String, Object>> faultRows = new ArrayList<>();
        Map<FaultKind, List<Long>> recoveries = new EnumMap<>(FaultKind.class);
        Map<FaultKind, List<Long>> alone = new EnumMap<>(FaultKind.class);
        List<long[]> outages = new ArrayList<>();
        for (Nemesis.Fault f : faults) {
            long end = f.end().toEpochMilli();
            long recovery = watcher.recoveryAfter(end);
            boolean isAlone = recovery >= 0 && aloneDuring(f, end + recovery, faults);
            Map<String, Object> row = new LinkedHashMap<>();
            row.put("kind", f.kind().name());
            row.put("start", f.start().toString());
            row.put("end", f.end().toString());
            row.put("durationMs", Duration.between(f.start(), f.end()).toMillis());
            row.put("recoveryMs", recovery < 0 ? null : recovery);
            row.put("alone", isAlone);
            row.put("detail", f.detail());
            faultRows.add(row);
            if (recovery >= 0) {
                recoveries.computeIfAbsent(f.kind(), k -> new ArrayList<>()).add(recovery);
                if (isAlone) {
                    alone.computeIfAbsent(f.kind(), k -> new ArrayList<>()).add(recovery);
                }
                outages.add(new long[] {f.start().toEpochMilli(), end + recovery});
            }
        }
        Map<String, Object> byKind = new LinkedHashMap<>();
        for (FaultKind k : FaultKind.values()) {
            long n = faults.stream().filter(f -> f.kind() == k).count();
            if (n == 0) {
                continue;
            }
            Map<String, Object> row = new LinkedHashMap<>();
            row.put("faults", n);
            row.put("recoveryMs", stats(recoveries.getOrDefault(k, List.of())));
            row.put("recoveryAloneMs", stats(alone.getOrDefault(k, List.of())));
            byKind.put(k.name(), row);
        }
        json.put("faultsByKind", byKind);

        List<Long> during = new ArrayList<>();
        List<Long> outside = new ArrayList<>();
        for (ScoreWatcher.Answer a : watcher.answers()) {
            long latency = Math.max(0, a.scoredAt() - a.recordTimestamp());
            boolean inFault =
                    outages.stream()
                            .anyMatch(
                                    o ->
                                            a.recordTimestamp() >= o[0]
                                                    && a.recordTimestamp() <= o[1]);
            (inFault ? during : outside).add(latency);
        }
        Map<String, Object> latency = new LinkedHashMap<>();
        latency.put("definition", "scoredAt - the transaction's Kafka append time, per answer");
        latency.put("duringFaults", stats(during));
        latency.put("outsideFaults", stats(outside));
        json.put("decisionLatency", latency);
        json.put("checker", Map.of("counts", verdict.counts(), "findings", verdict.findings()));
        json.put("parityExitCode", parityExit);
        json.put("notes", notes);
        boolean passed = verdict.clean() && parityExit == 0;
        json.put("verdict", passed ? "PASS" : "FAIL");
        json.put("faults", faultRows);

        List<String> summary = new ArrayList<>();
        summary.add(
                String.format(
                        Locale.ROOT,
                        "soak %s: %d faults over %s, %d records published, %d valid arrivals"
                                + " answered by %d answers, %d windows; job started %d times;"
                                + " findings %d; parity exit %d",
                        passed ? "PASS" : "FAIL",
                        faults.size(),
                        settings.duration(),
                        published,
                        verdict.counts().getOrDefault("validArrivals", 0L),
                        verdict.counts().getOrDefault("answers", 0L),
                        verdict.counts().getOrDefault("windows", 0L),
                        jobStarts,
                        verdict.findings().size(),
                        parityExit));
        byKind.forEach(
                (k, v) -> {
                    @SuppressWarnings("unchecked")
                    Map<String, Object> row = (Map<String, Object>) v;
                    summary.add(
                            "  "
                                    + k
                                    + ": "
                                    + row.get("faults")
                                    + " faults, recovery "
                                    + row.get("recoveryMs")
                                    + ", alone "
                                    + row.get("recoveryAloneMs"));
                });
        summary.add(
                "  decision latency during faults "
                        + stats(during)
                        + ", outside "
                        + stats(outside));
        for (SoakChecker.Finding f : verdict.findings()) {
            summary.add("  FINDING " + f.kind() + " x" + f.count() + ": " + f.examples());
        }
        return new SoakReport(json, summary, passed);
    }

    /** Whether no fault but {@code f} was under way between its start and {@code recovered}. */
    static boolean aloneDuring(Nemesis.Fault f, long recovered, List<Nemesis.Fault> faults) {
        long start = f.start().toEpochMilli();
        for (Nemesis.Fault g : faults) {
            if (g != f && g.start().toEpochMilli() < recovered && g.end().toEpochMilli() > start) {
                return false;
            }
        }
        return true;
    }

    /** count, p50, p99, max of {@code values} (milliseconds). */
    static Map<String, Object> stats(List<Long> values) {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("count", values.size());
        if (values.isEmpty()) {
            return m;
        }
        long[] v = values.stream().mapToLong(Long::longValue).toArray();
        Arrays.sort(v);
        m.put("p50", v[(int) Math.min(v.length - 1, Math.floor(0.50 * v.length))]);
        m.put("p99", v[(int) Math.min(v.length - 1, Math.floor(0.99 * v.length))]);
        m.put("max", v[v.length - 1]);
        return m;
    }

    boolean passed() {
        return passed;
    }

    List<String> summary() {
        return summary;
    }

    void write(Path file) throws IOException {
        new ObjectMapper()
                .enable(SerializationFeature.INDENT_OUTPUT)
                .writeValue(file.toFile(), json);
    }
}
