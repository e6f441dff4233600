package org.fraudpipe.tools.advise;

import java.time.Duration;
import java.util.Arrays;
import java.util.HashMap;
import java.util.Map;
import org.fraudpipe.job.features.WindowAssignment;
import org.fraudpipe.job.window.FeatureWindowSpec;
import org.fraudpipe.parity.ParityPeriod;

/**
 * The job's event time over recorded traffic, replayed exactly for any (out-of-orderness bound,
 * allowed lateness) pair: which records are on time, late within grace (a re-fire, or a window's
 * first and LATE pane) or too late, when each window fires and is dropped, and what is alive in the
 * window state meanwhile.
 *
 * <p><b>What is replayed.</b> The windowable records (valid, not future-dated: {@link
 * RecordedTraffic#isWindowable}) in arrival order. Before each record the window operator holds a
 * watermark {@code W = base - bound - 1 ms}, where {@code base} depends on the traffic only, not on
 * the pair:
 *
 * <ul>
 *   <li>a replay file (one partition, no idleness): the largest event time of the windowable
 *       records before it, exactly as the replay's per-record watermark ({@code
 *       IngestWatermarks.perRecord}: one watermark after every windowable record);
 *   <li>an archive: the running maximum of the minimum, over the partitions that are active, of
 *       their largest event time so far; a partition is active from its first record until it has
 *       had no windowable record for longer than the idleness (measured on arrival times), and
 *       again from its next record. That is Flink's per-partition watermarks with idleness, emitted
 *       at once instead of every 200 ms.
 * </ul>
 *
 * <p>Since the bound only shifts every watermark by the same amount, the base is computed once, as
 * a list of steps (position, value, arrival time when it was reached), and each pair is one pass
 * over compact arrays. The fates are the job's ({@code FeatureWindowFunction}, package {@code
 * window}): too late iff {@link FeatureWindowSpec#isTooLate} at the watermark before the record; on
 * time iff {@code W < end - 1}; else late within grace: a re-fire when the window already has state
 * (any earlier windowable record of the same user and window, since every earlier one was accepted
 * too), otherwise the window's first pane, LATE. A window fires on time when the watermark reaches
 * {@code end - 1} and is dropped at {@link FeatureWindowSpec#cleanupTime}. A retry of a transaction
 * is a record like any other (it re-fires, it can be too late) but adds no distinct transaction to
 * the state.
 *
 * <p>Only windows whose start lies in the period are counted (an archive is read a little past the
 * period, for the watermark); the state counts every window alive.
 */
final class EventTimeModel {

    /** Window state per user and live window, fixed part (docs/BENCHMARKS.md): an estimate. */
    static final long STATE_BYTES_PER_WINDOW = 40;

    /** Window state per distinct transaction in a live window (docs/BENCHMARKS.md). */
    static final long STATE_BYTES_PER_TRANSACTION = 90;

    /** A partition is named as holding the watermark back by more than this. */
    static final long HOLD_BACK_MILLIS = 1000;

    private final Duration windowSize;
    private final long size;
    final int records;
    private final long[] eventTime;
    private final int[] window;
    private final int[] userWindow;
    private final boolean[] firstOfWindow;
    private final boolean[] newTransaction;
    final long[] windowStart;
    final boolean[] windowCounted;
    private final int[] userOfUserWindow;
    private final int[] membersStart;
    private final int[] members;
    private final int users;
    private int steps;
    private int[] stepPosition = new int[1024];
    private long[] stepBase = new long[1024];
    private long[] stepTime = new long[1024];
    private final long[] baseBefore;
    final long countedRecords;

    /** Per partition: records it held the watermark back by more than {@link #HOLD_BACK_MILLIS}. */
    final long[] heldBackRecords;

    /** Per partition: the most it held the watermark back, millis. */
    final long[] maxHoldBack;

    /** Per partition: gaps between its windowable records longer than the idleness. */
    final long[] idleGaps;

    /** Per partition: the longest gap between its windowable records, millis. */
    final long[] longestGap;

    /**
     * @param idleness null: none (a replay; partitions never stop holding the watermark)
     */
    EventTimeModel(RecordedTraffic t, Duration windowSize, ParityPeriod period, Duration idleness) {
        this.windowSize = windowSize;
        WindowAssignment assignment = WindowAssignment.tumbling(windowSize);
        this.size = assignment.sizeMillis();
        int m = 0;
        for (int i = 0; i < t.size; i++) {
            if (t.isWindowable(i)) {
                m++;
            }
        }
        this.records = m;
        int[] index = new int[m];
        for (int i = 0, j = 0; i < t.size; i++) {
            if (t.isWindowable(i)) {
                index[j++] = i;
            }
        }
        eventTime = new long[m];
        long[] starts = new long[m];
        for (int j = 0; j < m; j++) {
            eventTime[j] = t.eventTime[index[j]];
            starts[j] = assignment.startOf(eventTime[j]);
        }
        windowStart = unique(starts.clone());
        int k = windowStart.length;
        windowCounted = new boolean[k];
        for (int w = 0; w < k; w++) {
            windowCounted[w] = period.containsWindowStart(windowStart[w]);
        }
        window = new int[m];
        userWindow = new int[m];
        firstOfWindow = new boolean[m];
        newTransaction = new boolean[m];
        Map<Long, Integer> userWindows = new HashMap<>();
        int[] userOf = new int[Math.max(16, m)];
        int[] lastUserWindowOfTransaction = new int[t.transactionIds];
        Arrays.fill(lastUserWindowOfTransaction, -1);
        long counted = 0;
        for (int j = 0; j < m; j++) {
            int w = Arrays.binarySearch(windowStart, starts[j]);
            window[j] = w;
            int u = t.user[index[j]];
            long key = (long) u * k + w;
            Integer id = userWindows.get(key);
            if (id == null) {
                id = userWindows.size();
                userWindows.put(key, id);
                userOf[id] = u;
                firstOfWindow[j] = true;
            }
            userWindow[j] = id;
            int tx = t.transaction[index[j]];
            if (lastUserWindowOfTransaction[tx] != id) {
                lastUserWindowOfTransaction[tx] = id;
                newTransaction[j] = true;
            }
            if (windowCounted[w]) {
                counted++;
            }
        }
        countedRecords = counted;
        users = t.users;
        int uws = userWindows.size();
        userOfUserWindow = Arrays.copyOf(userOf, uws);
        int[] windowOfUserWindow = new int[uws];
        for (int j = 0; j < m; j++) {
            windowOfUserWindow[userWindow[j]] = window[j];
        }
        membersStart = new int[k + 1];
        for (int uw = 0; uw < uws; uw++) {
            membersStart[windowOfUserWindow[uw] + 1]++;
        }
        for (int w = 0; w < k; w++) {
            membersStart[w + 1] += membersStart[w];
        }
        members = new int[uws];
        int[] fill = Arrays.copyOf(membersStart, k);
        for (int uw = 0; uw < uws; uw++) {
            members[fill[windowOfUserWindow[uw]]++] = uw;
        }

        int partitions = t.partitionNames.size();
        heldBackRecords = new long[partitions];
        maxHoldBack = new long[partitions];
        idleGaps = new long[partitions];
        longestGap = new long[partitions];
        baseBefore = new long[m + 1];
        watermarkBase(t, index, idleness);
    }

    /** Builds the steps of the watermark base and the base before each record. */
    private void watermarkBase(RecordedTraffic t, int[] index, Duration idleness) {
        int partitions = t.partitionNames.size();
        long idle = idleness == null ? -1 : idleness.toMillis();
        long[] maxEvent = new long[partitions];
        long[] last = new long[partitions];
        Arrays.fill(maxEvent, Long.MIN_VALUE);
        Arrays.fill(last, Long.MIN_VALUE);
        boolean[] active = new boolean[partitions];
        boolean[] seen = new boolean[partitions];
        long base = Long.MIN_VALUE;
        long now = Long.MIN_VALUE;
        for (int j = 0; j < records; j++) {
            int i = index[j];
            int q = t.partition[i];
            long arrival = t.arrival[i];
            now = Math.max(now, arrival);
            if (idle >= 0) {
                // Partitions that went idle since the previous record, in the order they did.
                while (true) {
                    int next = -1;
                    for (int r = 0; r < partitions; r++) {
                        if (active[r]
                                && now - last[r] > idle
                                && (next < 0 || last[r] < last[next])) {
                            next = r;
                        }
                    }
                    if (next < 0) {
                        break;
                    }
                    active[next] = false;
                    long candidate = minActive(maxEvent, active);
                    if (candidate > base) {
                        base = candidate;
                        step(j, base, last[next] + idle + 1);
                    }
                }
            }
            baseBefore[j] = base;
            if (partitions > 1) {
                holdBack(maxEvent, active);
            }
            if (seen[q]) {
                long gap = arrival - last[q];
                longestGap[q] = Math.max(longestGap[q], gap);
                if (idle >= 0 && gap > idle) {
                    idleGaps[q]++;
                }
            }
            seen[q] = true;
            active[q] = true;
            last[q] = Math.max(last[q], arrival);
            maxEvent[q] = Math.max(maxEvent[q], t.eventTime[i]);
            long candidate = minActive(maxEvent, active);
            if (candidate > base) {
                base = candidate;
                step(j + 1, base, arrival);
            }
        }
        baseBefore[records] = base;
    }

    private static long minActive(long[] maxEvent, boolean[] active) {
        long min = Long.MAX_VALUE;
        boolean any = false;
        for (int r = 0; r < maxEvent.length; r++) {
            if (active[r]) {
                any = true;
                min = Math.min(min, maxEvent[r]);
            }
        }
        return any ? min : Long.MIN_VALUE;
    }

    /** Credits the partition that alone holds the watermark back, and by how much. */
    private void holdBack(long[] maxEvent, boolean[] active) {
        int lowest = -1;
        long min = Long.MAX_VALUE;
        long second = Long.MAX_VALUE;
        for (int r = 0; r < maxEvent.length; r++) {
            if (!active[r]) {
                continue;
            }
            if (maxEvent[r] < min) {
                second = min;
                min = maxEvent[r];
                lowest = r;
            } else if (maxEvent[r] < second) {
                second = maxEvent[r];
            }
        }
        if (lowest < 0 || second == Long.MAX_VALUE) {
            return;
        }
        long by = second - min;
        maxHoldBack[lowest] = Math.max(maxHoldBack[lowest], by);
        if (by > HOLD_BACK_MILLIS) {
            heldBackRecords[lowest]++;
        }
    }

    private void step(int position, long base, long time) {
        if (steps == stepBase.length) {
            stepPosition = Arrays.copyOf(stepPosition, steps * 2);
            stepBase = Arrays.copyOf(stepBase, steps * 2);
            stepTime = Arrays.copyOf(stepTime, steps * 2);
        }
        stepPosition[steps] = position;
        stepBase[steps] = base;
        stepTime[steps] = time;
        steps++;
    }

    /** The first step whose base is at least {@code threshold}, or -1. */
    private int firstStepReaching(long threshold) {
        int lo = 0;
        int hi = steps;
        while (lo < hi) {
            int mid = (lo + hi) >>> 1;
            if (stepBase[mid] >= threshold) {
                hi = mid;
            } else {
                lo = mid + 1;
            }
        }
        return lo < steps ? lo : -1;
    }

    /** The watermark of a base under a bound: {@code base - bound - 1}, MIN while none. */
    static long watermark(long base, long bound) {
        if (base == Long.MIN_VALUE || base < Long.MIN_VALUE + bound + 1) {
            return Long.MIN_VALUE;
        }
        return base - bound - 1;
    }

    private static long saturatedAdd(long a, long b) {
        long r = a + b;
        return ((a ^ r) & (b ^ r)) < 0 ? Long.MAX_VALUE : r;
    }

    private static long[] unique(long[] values) {
        Arrays.sort(values);
        int n = 0;
        for (int i = 0; i < values.length; i++) {
            if (i == 0 || values[i] != values[i - 1]) {
                values[n++] = values[i];
            }
        }
        return Arrays.copyOf(values, n);
    }

    /** Replays one pair over the recorded arrival order. */
    Outcome evaluate(Duration bound, Duration lateness) {
        FeatureWindowSpec spec = new FeatureWindowSpec(windowSize, lateness);
        long b = bound.toMillis();
        int k = windowStart.length;
        long[] end = new long[k];
        int[] firePosition = new int[k];
        long[] fireTime = new long[k];
        int[] dropPosition = new int[k];
        for (int w = 0; w < k; w++) {
            end[w] = windowStart[w] + size;
            // W = base - b - 1 >= end - 1  <=>  base >= end + b
            int s = firstStepReaching(saturatedAdd(end[w], b));
            firePosition[w] = s < 0 ? Integer.MAX_VALUE : stepPosition[s];
            fireTime[w] = s < 0 ? 0 : stepTime[s];
            long cleanup = spec.cleanupTime(end[w]);
            int d = firstStepReaching(saturatedAdd(saturatedAdd(cleanup, b), 1));
            dropPosition[w] = d < 0 ? Integer.MAX_VALUE : stepPosition[d];
        }
        int uws = userOfUserWindow.length;
        boolean[] alive = new boolean[uws];
        boolean[] refired = new boolean[uws];
        int[] distinct = new int[uws];
        int[] userLive = new int[users];
        int[] pendingOnTime = new int[k];
        Outcome o = new Outcome(bound, lateness, spec.maxLiveWindowsPerKey(), countedRecords);
        long[] delayValue = new long[k];
        long[] delayWeight = new long[k];
        int delays = 0;
        int nextFire = 0;
        int nextDrop = 0;
        long live = 0;
        long usersWithState = 0;
        long bytes = 0;
        for (int p = 0; p <= records; p++) {
            while (nextFire < k && firePosition[nextFire] <= p) {
                int pending = pendingOnTime[nextFire];
                if (pending > 0 && windowCounted[nextFire]) {
                    o.windowsFiredOnTime += pending;
                    delayValue[delays] = fireTime[nextFire] - end[nextFire];
                    delayWeight[delays++] = pending;
                }
                nextFire++;
            }
            while (nextDrop < k && dropPosition[nextDrop] <= p) {
                for (int x = membersStart[nextDrop]; x < membersStart[nextDrop + 1]; x++) {
                    int uw = members[x];
                    if (alive[uw]) {
                        alive[uw] = false;
                        live--;
                        bytes -=
                                STATE_BYTES_PER_WINDOW + STATE_BYTES_PER_TRANSACTION * distinct[uw];
                        if (--userLive[userOfUserWindow[uw]] == 0) {
                            usersWithState--;
                        }
                    }
                }
                nextDrop++;
            }
            if (p == records) {
                break;
            }
            long w = watermark(baseBefore[p], b);
            int win = window[p];
            boolean counted = windowCounted[win];
            if (spec.isTooLate(eventTime[p], w)) {
                if (counted) {
                    o.tooLate++;
                }
                continue;
            }
            int uw = userWindow[p];
            boolean onTime = w < end[win] - 1;
            if (counted) {
                if (onTime) {
                    o.onTime++;
                } else {
                    o.lateWithinGrace++;
                    if (firstOfWindow[p]) {
                        o.windowsFirstFiredLate++;
                    } else {
                        o.refires++;
                        if (!refired[uw]) {
                            refired[uw] = true;
                            o.windowsRefired++;
                        }
                    }
                }
            }
            if (firstOfWindow[p]) {
                alive[uw] = true;
                live++;
                bytes += STATE_BYTES_PER_WINDOW;
                int user = userOfUserWindow[uw];
                if (userLive[user]++ == 0) {
                    usersWithState++;
                }
                o.maxLiveWindowsOfOneUser = Math.max(o.maxLiveWindowsOfOneUser, userLive[user]);
                if (counted) {
                    o.windows++;
                }
                if (onTime) {
                    pendingOnTime[win]++;
                }
            }
            if (newTransaction[p]) {
                distinct[uw]++;
                bytes += STATE_BYTES_PER_TRANSACTION;
            }
            if (live > o.peakLiveWindows) {
                o.peakLiveWindows = live;
                o.usersWithStateAtPeak = usersWithState;
            }
            o.peakStateBytes = Math.max(o.peakStateBytes, bytes);
        }
        for (int w = nextFire; w < k; w++) {
            if (windowCounted[w]) {
                o.windowsOpenAtEnd += pendingOnTime[w];
            }
        }
        o.firstResultDelay = Percentiles.weighted(delayValue, delayWeight, delays);
        return o;
    }

    /** What one pair does to the recorded traffic (counts over the period's windows). */
    static final class Outcome {
        final Duration bound;
        final Duration lateness;
        final long liveWindowsRule;
        final long records;
        long onTime;
        long lateWithinGrace;
        long tooLate;
        long refires;
        long windowsRefired;
        long windowsFirstFiredLate;
        long windows;
        long windowsFiredOnTime;
        long windowsOpenAtEnd;
        long peakLiveWindows;
        long usersWithStateAtPeak;
        long maxLiveWindowsOfOneUser;
        long peakStateBytes;
        Percentiles firstResultDelay;

        Outcome(Duration bound, Duration lateness, long liveWindowsRule, long records) {
            this.bound = bound;
            this.lateness = lateness;
            this.liveWindowsRule = liveWindowsRule;
            this.records = records;
        }

        double tooLateShare() {
            return records == 0 ? 0 : (double) tooLate / records;
        }
    }
}
