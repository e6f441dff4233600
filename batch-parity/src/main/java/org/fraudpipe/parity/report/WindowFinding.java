package org.fraudpipe.parity.report;

import java.time.Instant;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.fraudpipe.parity.FeatureVector;
import org.fraudpipe.parity.WindowVerdict;
import org.fraudpipe.schemas.avro.FeatureRecord;

/**
 * One window as the report shows it: the verdict without the raw records, features as name/value
 * maps (null where a side is absent).
 */
public record WindowFinding(
        String userId,
        Instant windowStart,
        Instant windowEnd,
        String cause,
        List<String> causes,
        List<String> differingFeatures,
        Map<String, Long> ideal,
        Map<String, Long> served,
        Integer servedRevision,
        int archivedRecords,
        int lateDropped,
        int quarantined,
        int deadLettered,
        int conflictingDuplicates,
        Double servedScore,
        Double idealScore,
        String servedDecision,
        String idealDecision,
        String note) {

    static WindowFinding of(WindowVerdict v) {
        return new WindowFinding(
                v.userId,
                Instant.ofEpochMilli(v.windowStart),
                Instant.ofEpochMilli(v.windowEnd),
                v.cause.name(),
                List.of(v.causes.split(",")),
                v.differingFeatures.isEmpty()
                        ? List.of()
                        : Arrays.asList(v.differingFeatures.split(",")),
                valuesOf(v.ideal),
                valuesOf(v.served),
                v.served == null ? null : v.served.getRevision(),
                v.archivedRecords,
                v.lateDropped,
                v.quarantined,
                v.deadLettered,
                v.conflictingDuplicates,
                v.servedScore == null ? null : v.servedScore.getScore(),
                Double.isNaN(v.idealScore) ? null : v.idealScore,
                v.servedScore == null ? null : v.servedScore.getDecision().name(),
                v.idealDecision,
                v.note);
    }

    private static Map<String, Long> valuesOf(FeatureRecord r) {
        if (r == null) {
            return null;
        }
        long[] values = FeatureVector.of(r).values();
        Map<String, Long> out = new LinkedHashMap<>();
        for (int i = 0; i < values.length; i++) {
            out.put(FeatureVector.NAMES.get(i), values[i]);
        }
        return out;
    }
}
