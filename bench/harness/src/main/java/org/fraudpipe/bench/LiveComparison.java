package org.fraudpipe.bench;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * The per-transaction features of the job (scores at arrival) against the SQL peer's OVER query on
 * the same live traffic, transaction by transaction for the sampled users, the six features both
 * define; every difference is explained from the traffic (regenerated: {@link LiveTraffic} is a
 * pure function of the seed) or counted {@code UNEXPLAINED}.
 *
 * <p>The two definitions differ on purpose, and these are the causes:
 *
 * <ul>
 *   <li>{@value #LATER_ARRIVAL}: a transaction y of the user with event time in x's trailing window
 *       arrived after x. The job answered x at its arrival, without y; the peer answers x when the
 *       watermark passes x's event time, over every row of the range it had by then, in event-time
 *       order (y included if it was there).
 *   <li>{@value #DROPPED_BY_PEER}: a transaction of the window (x itself, or an earlier y) has no
 *       row in the peer's output: it arrived when its user had already been answered for a later
 *       event time, and the peer drops such a row ({@code RowTimeRangeBoundedPrecedingFunction});
 *       the job scored and counted it. The traffic's deliberately late events are such rows.
 *   <li>{@value #PEER_STATE_CLEARED}: x is a late event (sent behind the watermark) and the peer
 *       counted fewer transactions: Flink's OVER function clears a user's state at an event-time
 *       timer 1.5 x the range after the first row it kept, and a late row accepted after that
 *       (later than the user's last emitted row) finds no history; an earlier row of the user lies
 *       more than 1.5 x the range before x was sent.
 *   <li>{@value #HISTORY_INCOMPLETE}: the job scored x with part of its trailing window already
 *       evicted ({@code historyComplete} false: x arrived more than the allowed lateness behind the
 *       watermark).
 *   <li>{@value #UNEXPLAINED}: none of the above.
 * </ul>
 *
 * <p>Compared: transactions answered by both, and those answered by one only, up to a tail margin:
 * at the end of a run the peer has not answered the last rows (they wait for a watermark that no
 * later record moves), so indices at or after {@code compareBefore} are left out.
 */
final class LiveComparison {

    static final String LATER_ARRIVAL = "LATER_ARRIVAL_IN_TRAILING_WINDOW";
    static final String DROPPED_BY_PEER = "ROW_DROPPED_BY_PEER";
    static final String HISTORY_INCOMPLETE = "HISTORY_INCOMPLETE";
    static final String PEER_STATE_CLEARED = "PEER_STATE_CLEARED_BEFORE_LATE_ROW";
    static final String UNEXPLAINED = "UNEXPLAINED";

    private LiveComparison() {}

    /**
     * One sampled event of the traffic: what the explanations need.
     *
     * @param late whether it was sent behind the watermark (a late event of the traffic)
     * @param sentMillis when it was sent (its scheduled instant): the watermark was at most this
     */
    record Input(long index, long user, long eventTime, boolean late, long sentMillis) {

        /** An event sent at its event time, not late. */
        Input(long index, long user, long eventTime) {
            this(index, user, eventTime, false, eventTime);
        }
    }

    /**
     * Compares the answers and explains each difference.
     *
     * @param ours the job's features per event index (six features, historyComplete)
     * @param peer the peer's features per event index (six features, ...)
     * @param inputs every event of the sampled users (all of the run: a late event sent after the
     *     last compared one may still fall in its trailing window)
     * @param trailingMillis T: the window is {@code (t - T, t]}
     */
    static Map<String, Object> compare(
            Map<Long, long[]> ours,
            Map<Long, long[]> peer,
            List<Input> inputs,
            long compareBefore,
            long trailingMillis) {
        Map<Long, List<Input>> byUser = new HashMap<>();
        Map<Long, Input> byIndex = new HashMap<>();
        for (Input in : inputs) {
            byUser.computeIfAbsent(in.user(), u -> new ArrayList<>()).add(in);
            byIndex.put(in.index(), in);
        }
        long compared = 0;
        long equal = 0;
        long onlyOurs = 0;
        long onlyPeer = 0;
        long different = 0;
        Map<String, Long> byCause = new TreeMap<>();
        Map<String, Long> byFeature = new LinkedHashMap<>();
        for (String n : FinalFeatures.NAMES) {
            byFeature.put(n, 0L);
        }
        List<Map<String, Object>> examples = new ArrayList<>();
        Map<String, Integer> examplesPerCause = new HashMap<>();
        java.util.Set<Long> indices = new java.util.TreeSet<>(ours.keySet());
        indices.addAll(peer.keySet());
        for (long i : indices) {
            if (i >= compareBefore) {
                continue;
            }
            compared++;
            long[] o = ours.get(i);
            long[] p = peer.get(i);
            if (o != null && p != null && same(o, p)) {
                equal++;
                continue;
            }
            String cause;
            if (o == null) {
                onlyPeer++;
                cause = UNEXPLAINED; // the job answers every valid transaction
            } else if (p == null) {
                onlyOurs++;
                cause = DROPPED_BY_PEER;
            } else {
                different++;
                for (int f = 0; f < FinalFeatures.NAMES.length; f++) {
                    if (o[f] != p[f]) {
                        byFeature.merge(FinalFeatures.NAMES[f], 1L, Long::sum);
                    }
                }
                cause = explain(byIndex.get(i), byUser, peer, o, p, trailingMillis);
            }
            byCause.merge(cause, 1L, Long::sum);
            if (examplesPerCause.merge(cause, 1, Integer::sum) <= 3) {
                Map<String, Object> ex = new LinkedHashMap<>();
                ex.put("eventIndex", i);
                ex.put("cause", cause);
                ex.put("ours", o == null ? null : toList(o));
                ex.put("peer", p == null ? null : toList(p));
                examples.add(ex);
            }
        }
        Map<String, Object> r = new LinkedHashMap<>();
        r.put("compared", compared);
        r.put("equal", equal);
        r.put("equalShare", compared == 0 ? null : equal / (double) compared);
        r.put("different", different);
        r.put("onlyOurs", onlyOurs);
        r.put("onlyPeer", onlyPeer);
        r.put("differentByFeature", byFeature);
        r.put("byCause", byCause);
        r.put("examples", examples);
        return r;
    }

    private static String explain(
            Input x,
            Map<Long, List<Input>> byUser,
            Map<Long, long[]> peer,
            long[] ours,
            long[] peerAnswer,
            long trailingMillis) {
        if (x == null) {
            return UNEXPLAINED;
        }
        if (ours.length > 6 && ours[6] == 0) {
            return HISTORY_INCOMPLETE;
        }
        boolean laterArrival = false;
        boolean dropped = false;
        for (Input y : byUser.getOrDefault(x.user(), List.of())) {
            if (y.index() == x.index()
                    || y.eventTime() <= x.eventTime() - trailingMillis
                    || y.eventTime() > x.eventTime()) {
                continue;
            }
            if (y.index() > x.index() && peer.containsKey(y.index())) {
                laterArrival = true;
            }
            if (y.index() < x.index() && !peer.containsKey(y.index())) {
                dropped = true;
            }
        }
        if (laterArrival) {
            return LATER_ARRIVAL;
        }
        if (dropped) {
            return DROPPED_BY_PEER;
        }
        // Flink's RowTimeRangeBoundedPrecedingFunction clears a user's whole state at an event-time
        // timer 1.5 x the range after the first row it keeps; a late row accepted afterwards (not
        // behind the user's last emitted time) is answered over itself and later rows only.
        if (x.late() && peerAnswer != null && peerAnswer[0] < ours[0]) {
            for (Input z : byUser.getOrDefault(x.user(), List.of())) {
                if (z.index() < x.index()
                        && z.eventTime() + trailingMillis * 3 / 2 < x.sentMillis()) {
                    return PEER_STATE_CLEARED;
                }
            }
        }
        return UNEXPLAINED;
    }

    static boolean same(long[] a, long[] b) {
        for (int f = 0; f < FinalFeatures.NAMES.length; f++) {
            if (a[f] != b[f]) {
                return false;
            }
        }
        return true;
    }

    private static List<Long> toList(long[] v) {
        List<Long> l = new ArrayList<>();
        for (int f = 0; f < FinalFeatures.NAMES.length; f++) {
            l.add(v[f]);
        }
        return l;
    }
}
