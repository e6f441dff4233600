package org.fraudpipe.parity.report;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Random;
import org.fraudpipe.parity.Cause;
import org.fraudpipe.parity.WindowVerdict;
import org.fraudpipe.schemas.avro.Decision;
import org.fraudpipe.schemas.avro.FeatureRecord;
import org.fraudpipe.schemas.avro.ScoreRecord;
import org.fraudpipe.schemas.avro.Timing;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class ReportBuilderTest {

    private static final long HOUR = 3_600_000L;
    private static final long T0 = Instant.parse("2026-11-28T10:00:00Z").toEpochMilli();

    private static FeatureRecord features(String user, long start, long txCount) {
        return FeatureRecord.newBuilder()
                .setUserId(user)
                .setWindowStart(Instant.ofEpochMilli(start))
                .setWindowEnd(Instant.ofEpochMilli(start + 600_000))
                .setTxCount(txCount)
                .setAmountSum(100 * txCount)
                .setAmountMax(100)
                .setDistinctDevices(1)
                .setDistinctMerchants(1)
                .setDistinctCountries(1)
                .setRevision(0)
                .setTiming(Timing.ON_TIME)
                .setLateRecordsIncluded(0)
                .setEmittedAt(Instant.ofEpochMilli(start))
                .setWatermark(Instant.ofEpochMilli(start))
                .build();
    }

    private static WindowVerdict verdict(
            String user,
            long start,
            Cause cause,
            long idealTx,
            long servedTx,
            double servedScore,
            double idealScore,
            String version) {
        WindowVerdict v = new WindowVerdict();
        v.userId = user;
        v.windowStart = start;
        v.windowEnd = start + 600_000;
        v.cause = cause;
        v.causes = cause.name();
        v.differingFeatures = idealTx == servedTx ? "" : "txCount,amountSum";
        v.ideal = features(user, start, idealTx);
        v.served = features(user, start, servedTx);
        v.servedPanes = 1;
        v.archivedRecords = (int) idealTx;
        v.lateDropped = cause == Cause.LATE_DROPPED ? 1 : 0;
        v.lateByMillis = cause == Cause.LATE_DROPPED ? new long[] {200_000} : new long[0];
        v.servedScore =
                ScoreRecord.newBuilder()
                        .setUserId(user)
                        .setWindowStart(Instant.ofEpochMilli(start))
                        .setWindowEnd(Instant.ofEpochMilli(start + 600_000))
                        .setFeatures(v.served)
                        .setScore(servedScore)
                        .setDecision(
                                servedScore >= 0.9
                                        ? Decision.BLOCK
                                        : servedScore >= 0.5 ? Decision.REVIEW : Decision.ALLOW)
                        .setModelName("m")
                        .setModelVersion(version)
                        .setRevision(0)
                        .setTiming(Timing.ON_TIME)
                        .setScoredAt(Instant.ofEpochMilli(start))
                        .build();
        v.idealScore = idealScore;
        v.idealDecision = idealScore >= 0.9 ? "BLOCK" : idealScore >= 0.5 ? "REVIEW" : "ALLOW";
        v.idealModelVersion = "v1";
        v.note = "";
        return v;
    }

    private static List<WindowVerdict> sample() {
        List<WindowVerdict> out = new ArrayList<>();
        for (int i = 0; i < 30; i++) {
            out.add(verdict("u" + i, T0, Cause.MATCH, 2, 2, 0.1, 0.1, "v1"));
        }
        out.add(verdict("late1", T0 + HOUR, Cause.LATE_DROPPED, 3, 2, 0.2, 0.6, "v1"));
        out.add(verdict("late2", T0 + HOUR, Cause.LATE_DROPPED, 3, 2, 0.2, 0.25, "v1"));
        out.add(verdict("bad", T0 + HOUR, Cause.UNEXPLAINED, 5, 4, 0.3, 0.95, "v1"));
        out.add(verdict("old", T0, Cause.MATCH, 1, 1, 0.1, 0.1, "v0"));
        return out;
    }

    private static ParityReport build(List<WindowVerdict> verdicts, ParityThresholds t) {
        ReportBuilder b = new ReportBuilder();
        verdicts.forEach(b::add);
        return b.build(Map.of("period", "2026-11-28"), t);
    }

    @Test
    void countsWindowsByClassCauseAndHour() {
        ParityReport r = build(sample(), ParityThresholds.DEFAULT);
        assertThat(r.windows().judged()).isEqualTo(34);
        assertThat(r.windows().matched()).isEqualTo(31);
        assertThat(r.windows().explained()).isEqualTo(2);
        assertThat(r.windows().alarms()).isEqualTo(1);
        assertThat(r.windows().mismatchRate()).isEqualTo(3 / 34.0);
        assertThat(r.byCause()).containsEntry("LATE_DROPPED", 2L).containsEntry("DUPLICATE", 0L);
        assertThat(r.byHour()).hasSize(2);
        assertThat(r.byHour().get(1).mismatched()).isEqualTo(3);
        assertThat(r.byHour().get(1).alarms()).isEqualTo(1);
        assertThat(r.lateness().stream().mapToLong(Histogram.Bucket::count).sum()).isEqualTo(2);
        assertThat(r.worstUnexplained()).extracting(WindowFinding::userId).containsExactly("bad");
        assertThat(r.examples()).containsOnlyKeys("UNEXPLAINED", "LATE_DROPPED");
    }

    @Test
    void scoreSkewComparesOnlyTheSameModelVersionAndCountsFlips() {
        ParityReport.ScoreSkew s = build(sample(), ParityThresholds.DEFAULT).scoreSkew();
        assertThat(s.compared()).isEqualTo(33);
        assertThat(s.otherModelVersion()).isEqualTo(1);
        assertThat(s.maxAbsDelta()).isEqualTo(0.65, org.assertj.core.data.Offset.offset(1e-12));
        assertThat(s.flippedDecisions()).isEqualTo(2);
        assertThat(s.flips()).containsEntry("ALLOW->REVIEW", 1L).containsEntry("ALLOW->BLOCK", 1L);
    }

    @Test
    void thresholdsDecideTheExitCode() {
        assertThat(build(sample(), ParityThresholds.DEFAULT).exitCode()).isEqualTo(1);
        ParityReport lenient = build(sample(), new ParityThresholds(1, 1.0, -1, 1.0));
        assertThat(lenient.exitCode()).isZero();
        assertThat(lenient.status()).isEqualTo("PASS");
        ParityReport rate = build(sample(), new ParityThresholds(1, 0.05, -1, 1.0));
        assertThat(rate.violations()).singleElement().asString().contains("mismatch rate");
        ParityReport flips = build(sample(), new ParityThresholds(1, 1.0, 1, 1.0));
        assertThat(flips.violations()).singleElement().asString().contains("2 flipped");
        // 2 flips among 33 windows scored by the same model: 6 %.
        ParityReport flipRate = build(sample(), new ParityThresholds(1, 1.0, -1, 0.05));
        assertThat(flipRate.violations())
                .singleElement()
                .asString()
                .contains("flipped decision rate 0.060606 (2 of 33 compared)");
        assertThat(build(sample(), new ParityThresholds(1, 1.0, -1, 0.07)).exitCode()).isZero();
    }

    @Test
    void theDefaultsFailOnExplainedSkewAboveOnePercentOrFlipsAboveATenthOfAPercent() {
        // No alarm at all: 1 of 100 windows explained-late passes, 2 of 100 fail.
        List<WindowVerdict> onePercent = new ArrayList<>();
        for (int i = 0; i < 99; i++) {
            onePercent.add(verdict("u" + i, T0, Cause.MATCH, 2, 2, 0.1, 0.1, "v1"));
        }
        onePercent.add(verdict("late", T0, Cause.LATE_DROPPED, 3, 2, 0.2, 0.25, "v1"));
        assertThat(build(onePercent, ParityThresholds.DEFAULT).exitCode()).isZero();

        List<WindowVerdict> twoPercent = new ArrayList<>(onePercent);
        twoPercent.set(0, verdict("late0", T0, Cause.LATE_DROPPED, 3, 2, 0.2, 0.25, "v1"));
        ParityReport skewed = build(twoPercent, ParityThresholds.DEFAULT);
        assertThat(skewed.exitCode()).isEqualTo(1);
        assertThat(skewed.violations()).singleElement().asString().contains("mismatch rate");

        // One flipped decision in 100 compared windows: 1 % > 0.1 %.
        List<WindowVerdict> flipped = new ArrayList<>(onePercent);
        flipped.set(1, verdict("flip", T0, Cause.LATE_DROPPED, 3, 2, 0.2, 0.6, "v1"));
        flipped.set(99, verdict("u99", T0, Cause.MATCH, 2, 2, 0.1, 0.1, "v1"));
        ParityReport flips = build(flipped, ParityThresholds.DEFAULT);
        assertThat(flips.violations())
                .singleElement()
                .asString()
                .contains("flipped decision rate 0.010000 (1 of 100 compared)");
        assertThat(build(onePercent, ParityThresholds.ALARMS_ONLY).exitCode()).isZero();
        assertThat(build(twoPercent, ParityThresholds.ALARMS_ONLY).exitCode()).isZero();
    }

    @Test
    void theReportDoesNotDependOnTheOrderOfVerdicts() {
        List<WindowVerdict> many = new ArrayList<>();
        for (int i = 0; i < 40; i++) {
            many.add(
                    verdict(
                            "x" + i,
                            T0 + i * 600_000L,
                            Cause.UNEXPLAINED,
                            3,
                            1,
                            0.1,
                            0.1 + i / 100.0,
                            "v1"));
            many.add(verdict("y" + i, T0, Cause.LATE_DROPPED, 3, 2, 0.3, 0.3 + i / 1000.0, "v1"));
        }
        String first = ReportJson.write(build(many, ParityThresholds.DEFAULT));
        for (long seed = 1; seed <= 5; seed++) {
            Collections.shuffle(many, new Random(seed));
            assertThat(ReportJson.write(build(many, ParityThresholds.DEFAULT))).isEqualTo(first);
            assertThat(ReportHtml.render(build(many, ParityThresholds.DEFAULT)))
                    .isEqualTo(
                            ReportHtml.render(build(sortedCopy(many), ParityThresholds.DEFAULT)));
        }
        ParityReport r = build(many, ParityThresholds.DEFAULT);
        assertThat(r.worstUnexplained()).hasSize(ReportBuilder.WORST_UNEXPLAINED);
        assertThat(r.worstUnexplained().get(0).userId()).isEqualTo("x39");
        assertThat(r.examples().get("LATE_DROPPED")).hasSize(ReportBuilder.EXAMPLES_PER_CAUSE);
    }

    @Test
    void partialReportsFoldedPerSubtaskMergeToTheReportOfOneFold() {
        List<WindowVerdict> many = new ArrayList<>(sample());
        for (int i = 0; i < 40; i++) {
            many.add(
                    verdict(
                            "x" + i,
                            T0 + i * 600_000L,
                            Cause.UNEXPLAINED,
                            3,
                            1,
                            0.1,
                            0.1 + i / 100.0,
                            "v1"));
            many.add(verdict("y" + i, T0, Cause.LATE_DROPPED, 3, 2, 0.3, 0.3 + i / 1000.0, "v1"));
        }
        String whole = ReportJson.write(build(many, ParityThresholds.DEFAULT));
        Random random = new Random(7);
        for (int parts = 1; parts <= 6; parts++) {
            List<ReportBuilder> partials = new ArrayList<>();
            for (int p = 0; p < parts; p++) {
                partials.add(new ReportBuilder());
            }
            for (WindowVerdict v : many) {
                partials.get(random.nextInt(parts)).add(v);
            }
            Collections.shuffle(partials, random);
            ReportBuilder merged = new ReportBuilder();
            for (ReportBuilder partial : partials) {
                // What crosses the network from each judging subtask: bytes.
                merged.merge(ReportBuilder.fromBytes(partial.toBytes()));
            }
            ParityReport report =
                    merged.build(Map.of("period", "2026-11-28"), ParityThresholds.DEFAULT);
            assertThat(ReportJson.write(report)).as(parts + " partials").isEqualTo(whole);
        }
        ParityReport r = build(many, ParityThresholds.DEFAULT);
        assertThat(r.worstUnexplained()).hasSize(ReportBuilder.WORST_UNEXPLAINED);
        assertThat(r.examples().get("LATE_DROPPED")).hasSize(ReportBuilder.EXAMPLES_PER_CAUSE);
    }

    @Test
    void theReportLinksTheLatenessAdviceNextToIt(@TempDir Path dir) throws Exception {
        ParityReport r = build(sample(), ParityThresholds.DEFAULT);
        Path html = ReportFiles.write(r, dir);
        assertThat(Files.readString(html)).doesNotContain("advice.html");
        Files.writeString(dir.resolve(ReportFiles.ADVICE_HTML), "<html></html>");
        ReportFiles.write(r, dir);
        assertThat(Files.readString(html)).contains("<a href=\"advice.html\">advice.html</a>");
    }

    private static List<WindowVerdict> sortedCopy(List<WindowVerdict> vs) {
        List<WindowVerdict> copy = new ArrayList<>(vs);
        copy.sort(java.util.Comparator.comparing((WindowVerdict v) -> v.userId));
        return copy;
    }

    @Test
    void htmlEscapesUserControlledText() {
        List<WindowVerdict> vs = sample();
        vs.add(verdict("<script>alert(1)</script>", T0, Cause.UNEXPLAINED, 2, 1, 0.1, 0.1, "v1"));
        String html = ReportHtml.render(build(vs, ParityThresholds.DEFAULT));
        assertThat(html).doesNotContain("<script>").contains("&lt;script&gt;");
        assertThat(html).contains("<svg").contains("FAIL");
    }
}
