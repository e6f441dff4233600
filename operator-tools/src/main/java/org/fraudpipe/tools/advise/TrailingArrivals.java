package org.fraudpipe.tools.advise;

import java.time.Duration;
import java.util.Arrays;
import java.util.TreeSet;
import org.fraudpipe.job.features.WindowAssignment;
import org.fraudpipe.parity.ParityPeriod;

/**
 * What a score at arrival cannot see, from the arrival order alone: the transactions scored before
 * a record of their trailing window arrived. For transaction x of user u with event time t, a
 * record of u with event time in {@code (t - trailing, t]} that arrived after x. Over windowable
 * transactions, first copies only: a retry of a scored id gets the original's score, and a retry of
 * a record that already arrived brings nothing new. It does not depend on the watermark bound or
 * the allowed lateness: every valid transaction is scored at once, whatever its lateness.
 */
final class TrailingArrivals {

    private TrailingArrivals() {}

    /**
     * @return {transactions considered (in the period's windows), of them scored before a record of
     *     their trailing window arrived}
     */
    static long[] count(
            RecordedTraffic t, Duration trailing, WindowAssignment windows, ParityPeriod period) {
        long window = trailing.toMillis();
        boolean[] seen = new boolean[t.transactionIds];
        // First copies of windowable transactions, in arrival order, grouped by user (stable).
        int[] perUser = new int[t.users + 1];
        boolean[] first = new boolean[t.size];
        for (int i = 0; i < t.size; i++) {
            if (t.isWindowable(i) && !seen[t.transaction[i]]) {
                seen[t.transaction[i]] = true;
                first[i] = true;
                perUser[t.user[i] + 1]++;
            }
        }
        for (int u = 0; u < t.users; u++) {
            perUser[u + 1] += perUser[u];
        }
        int[] fill = Arrays.copyOf(perUser, t.users);
        int[] ordered = new int[perUser[t.users]];
        for (int i = 0; i < t.size; i++) {
            if (first[i]) {
                ordered[fill[t.user[i]]++] = i;
            }
        }
        long considered = 0;
        long missed = 0;
        TreeSet<Long> later = new TreeSet<>();
        for (int u = 0; u < t.users; u++) {
            later.clear();
            // Backwards in arrival order: `later` holds the event times of what arrived after.
            for (int x = perUser[u + 1] - 1; x >= perUser[u]; x--) {
                int i = ordered[x];
                long ev = t.eventTime[i];
                if (period.containsWindowStart(windows.startOf(ev))) {
                    considered++;
                    Long floor = later.floor(ev);
                    if (floor != null && floor > ev - window) {
                        missed++;
                    }
                }
                later.add(ev);
            }
        }
        return new long[] {considered, missed};
    }
}
