package org.fraudpipe.bench;

import java.util.HashMap;
import java.util.Map;
import org.fraudpipe.bench.probe.RunProbe;
import org.fraudpipe.schemas.avro.FeatureRecord;

/**
 * The final value of every (user, window) in one system's features topic, as an upsert reader holds
 * it: the highest revision for the job (its contract), the last record in offset order for the
 * peers (which have no revisions). Flush users are left out.
 */
final class FinalFeatures {

    /** One (user, window). User ids are shared instances (a dictionary), to keep maps small. */
    record WindowId(String userId, long windowStart) implements Comparable<WindowId> {
        @Override
        public int compareTo(WindowId o) {
            int c = userId.compareTo(o.userId);
            return c != 0 ? c : Long.compare(windowStart, o.windowStart);
        }

        @Override
        public String toString() {
            return userId + "@" + java.time.Instant.ofEpochMilli(windowStart);
        }
    }

    /** Names of the six compared features, in the order of {@link #features}. */
    static final String[] NAMES = {
        "txCount",
        "amountSum",
        "amountMax",
        "distinctDevices",
        "distinctMerchants",
        "distinctCountries"
    };

    enum Rule {
        HIGHEST_REVISION,
        LAST_RECORD
    }

    private final Rule rule;
    private final Map<String, String> users;
    private final Map<WindowId, long[]> values = new HashMap<>();
    private long records;

    FinalFeatures(Rule rule, Map<String, String> userDictionary) {
        this.rule = rule;
        this.users = userDictionary;
    }

    /** Takes one record of the topic (in offset order within its partition). */
    void accept(FeatureRecord r) {
        records++;
        if (RunProbe.isFlushUser(r.getUserId())) {
            return;
        }
        String user = users.computeIfAbsent(r.getUserId(), u -> u);
        WindowId id = new WindowId(user, r.getWindowStart().toEpochMilli());
        long[] v = features(r);
        long[] previous = values.get(id);
        if (previous == null || rule == Rule.LAST_RECORD || v[6] >= previous[6]) {
            values.put(id, v);
        }
    }

    /** The six features then the revision. */
    static long[] features(FeatureRecord r) {
        return new long[] {
            r.getTxCount(),
            r.getAmountSum(),
            r.getAmountMax(),
            r.getDistinctDevices(),
            r.getDistinctMerchants(),
            r.getDistinctCountries(),
            r.getRevision()
        };
    }

    Map<WindowId, long[]> values() {
        return values;
    }

    /** Records read from the topic, flush users included. */
    long records() {
        return records;
    }

    /** Windows with a final value. */
    int windows() {
        return values.size();
    }
}
