package org.fraudpipe.bench;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.HashMap;
import java.util.Map;
import org.fraudpipe.bench.FinalFeatures.WindowId;
import org.junit.jupiter.api.Test;

class ComparisonTest {

    private static long[] f(long tx, long sum) {
        return new long[] {tx, sum, sum, 1, 1, 1, 0};
    }

    @Test
    void countsEqualDifferentAndMissingWindowsByFeatureAndDirection() {
        WindowId a = new WindowId("u1", 0);
        WindowId b = new WindowId("u2", 0);
        WindowId c = new WindowId("u3", 0);
        WindowId d = new WindowId("u4", 0);
        Map<WindowId, long[]> ours = new HashMap<>(Map.of(a, f(1, 10), b, f(2, 30), c, f(1, 5)));
        Map<WindowId, long[]> peer = new HashMap<>(Map.of(a, f(1, 10), b, f(1, 10), d, f(1, 7)));
        Comparison cmp = Comparison.of(ours, peer);
        assertThat(cmp.differingWindows()).containsExactly(b, c, d);
        Map<String, Object> report = cmp.lateThreshold(1000).report(emptyIndex(), Map.of());
        assertThat(report)
                .containsEntry("equalWindows", 1)
                .containsEntry("differentWindows", 3)
                .containsEntry("onlyInReference", 1)
                .containsEntry("onlyInOther", 1)
                .containsEntry("referenceCountsMoreTransactions", 2)
                .containsEntry("otherCountsMoreTransactions", 1);
        assertThat(report.get("differentByFeature")).asString().contains("txCount=1");
        // Nothing in the input explains them: the alarm.
        assertThat(report.get("differentByCause")).isEqualTo(Map.of(Comparison.UNEXPLAINED, 3));
    }

    @Test
    void theRevisionIsNotAFeature() {
        WindowId a = new WindowId("u1", 0);
        long[] r0 = f(1, 10);
        long[] r3 = f(1, 10);
        r3[6] = 3;
        assertThat(Comparison.of(Map.of(a, r3), Map.of(a, r0)).differences()).isEmpty();
    }

    @Test
    void highestRevisionWinsForTheJobLastRecordForPeers() {
        org.fraudpipe.schemas.avro.FeatureRecord.Builder b =
                org.fraudpipe.schemas.avro.FeatureRecord.newBuilder()
                        .setUserId("u1")
                        .setWindowStart(java.time.Instant.EPOCH)
                        .setWindowEnd(java.time.Instant.ofEpochSecond(600))
                        .setAmountSum(1)
                        .setAmountMax(1)
                        .setDistinctDevices(1)
                        .setDistinctMerchants(1)
                        .setDistinctCountries(1)
                        .setTiming(org.fraudpipe.schemas.avro.Timing.LATE)
                        .setLateRecordsIncluded(0)
                        .setEmittedAt(java.time.Instant.EPOCH)
                        .setWatermark(java.time.Instant.EPOCH);
        FinalFeatures job = new FinalFeatures(FinalFeatures.Rule.HIGHEST_REVISION, new HashMap<>());
        FinalFeatures peer = new FinalFeatures(FinalFeatures.Rule.LAST_RECORD, new HashMap<>());
        for (int[] rev : new int[][] {{1, 2}, {0, 1}}) {
            var r = b.setRevision(rev[0]).setTxCount(rev[1]).build();
            job.accept(r);
            peer.accept(r);
        }
        job.accept(b.setUserId("~flush-0").setRevision(0).setTxCount(1).build());
        assertThat(job.values().get(new WindowId("u1", 0))[0]).isEqualTo(2);
        assertThat(peer.values().get(new WindowId("u1", 0))[0]).isEqualTo(1);
        assertThat(job.windows()).isEqualTo(1);
        assertThat(job.records()).isEqualTo(3);
    }

    private static InputIndex emptyIndex() {
        return InputIndexTestAccess.empty();
    }
}
