package org.fraudpipe.tools.advise;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.fraudpipe.job.config.Durations;
import org.fraudpipe.job.features.WindowAssignment;
import org.fraudpipe.parity.ParityPeriod;

/**
 * The arrival-delay distribution (arrival minus event time) of the valid transactions of the
 * period's windows: overall, per partition, per UTC hour of arrival, on a logarithmic histogram;
 * and the partitions that went idle or held the watermark back ({@link EventTimeModel}).
 */
final class DelayProfile {

    static final long HOUR = 3_600_000;
    static final long OFFLINE_MILLIS = 600_000;

    /** Upper edges of the histogram's buckets after {@code < 0} and {@code [0, 1ms)}: 1-2-5. */
    static final long[] EDGES = {
        1,
        2,
        5,
        10,
        20,
        50,
        100,
        200,
        500,
        1_000,
        2_000,
        5_000,
        10_000,
        30_000,
        60_000,
        120_000,
        300_000,
        600_000,
        1_800_000,
        3_600_000,
        7_200_000,
        21_600_000,
        43_200_000,
        86_400_000
    };

    /** A partition holding the watermark back for at least this share of records is named. */
    static final double HOLD_BACK_SHARE = 0.01;

    private DelayProfile() {}

    static Advice.Delays of(
            RecordedTraffic t,
            WindowAssignment windows,
            ParityPeriod period,
            EventTimeModel model,
            Duration idleness) {
        int partitions = t.partitionNames.size();
        long[] all = new long[t.size];
        int n = 0;
        long[][] perPartition = new long[partitions][];
        int[] perPartitionCount = new int[partitions];
        for (int q = 0; q < partitions; q++) {
            perPartition[q] = new long[16];
        }
        Map<Long, long[]> byHour = new TreeMap<>();
        Map<Long, Integer> byHourCount = new TreeMap<>();
        for (int i = 0; i < t.size; i++) {
            if (!period.containsWindowStart(windows.startOf(t.eventTime[i]))) {
                continue;
            }
            long delay = t.arrival[i] - t.eventTime[i];
            all[n++] = delay;
            int q = t.partition[i];
            if (perPartitionCount[q] == perPartition[q].length) {
                perPartition[q] = Arrays.copyOf(perPartition[q], perPartitionCount[q] * 2);
            }
            perPartition[q][perPartitionCount[q]++] = delay;
            long hour = Math.floorDiv(t.arrival[i], HOUR) * HOUR;
            long[] h = byHour.get(hour);
            int c = byHourCount.getOrDefault(hour, 0);
            if (h == null) {
                h = new long[64];
            } else if (c == h.length) {
                h = Arrays.copyOf(h, c * 2);
            }
            h[c] = delay;
            byHour.put(hour, h);
            byHourCount.put(hour, c + 1);
        }
        List<Advice.Bucket> histogram = histogram(all, n);
        Advice.DelayStats overall = stats(all, n);

        List<Advice.PartitionDelays> parts = new ArrayList<>();
        List<String> idle = new ArrayList<>();
        List<String> holding = new ArrayList<>();
        for (int q = 0; q < partitions; q++) {
            String name = t.partitionNames.get(q);
            parts.add(
                    new Advice.PartitionDelays(
                            name,
                            stats(perPartition[q], perPartitionCount[q]),
                            model.idleGaps[q],
                            model.longestGap[q],
                            model.heldBackRecords[q],
                            model.maxHoldBack[q]));
            if (idleness != null && model.idleGaps[q] > 0) {
                idle.add(
                        name
                                + ": "
                                + model.idleGaps[q]
                                + (model.idleGaps[q] == 1 ? " gap" : " gaps")
                                + " longer than the idleness "
                                + Durations.format(idleness)
                                + " (longest "
                                + Human.duration(model.longestGap[q])
                                + "): idle then, and its next records are judged against the"
                                + " watermark the other partitions moved on");
            }
            if (model.records > 0
                    && (double) model.heldBackRecords[q] / model.records >= HOLD_BACK_SHARE) {
                holding.add(
                        name
                                + ": alone held the watermark back by more than "
                                + Human.duration(EventTimeModel.HOLD_BACK_MILLIS)
                                + " during "
                                + Human.share((double) model.heldBackRecords[q] / model.records)
                                + " of the records, by up to "
                                + Human.duration(model.maxHoldBack[q]));
            }
        }
        List<Advice.HourRow> hours = new ArrayList<>();
        for (Map.Entry<Long, long[]> e : byHour.entrySet()) {
            int c = byHourCount.get(e.getKey());
            long[] h = e.getValue();
            long offline = 0;
            for (int i = 0; i < c; i++) {
                if (h[i] >= OFFLINE_MILLIS) {
                    offline++;
                }
            }
            Percentiles p = Percentiles.of(h, c);
            hours.add(
                    new Advice.HourRow(
                            Instant.ofEpochMilli(e.getKey()),
                            c,
                            p.p50(),
                            p.p99(),
                            p.max(),
                            offline));
        }
        return new Advice.Delays(overall, parts, hours, histogram, idle, holding);
    }

    static Advice.DelayStats stats(long[] delays, int n) {
        long negative = 0;
        for (int i = 0; i < n; i++) {
            if (delays[i] < 0) {
                negative++;
            }
        }
        Percentiles p = Percentiles.of(delays, n);
        return new Advice.DelayStats(
                n,
                p.p50(),
                p.p90(),
                p.p95(),
                p.p99(),
                p.p999(),
                p.max(),
                negative,
                n == 0 ? 0 : (double) negative / n);
    }

    /** Of the first-result delays of one pair (weighted percentiles). */
    static Advice.DelayStats stats(Percentiles p) {
        return new Advice.DelayStats(
                p.count(), p.p50(), p.p90(), p.p95(), p.p99(), p.p999(), p.max(), 0, 0);
    }

    private static List<Advice.Bucket> histogram(long[] delays, int n) {
        long[] counts = new long[EDGES.length + 2];
        for (int i = 0; i < n; i++) {
            long d = delays[i];
            if (d < 0) {
                counts[0]++;
                continue;
            }
            int b = Arrays.binarySearch(EDGES, d);
            // d < EDGES[0] -> bucket 1 ([0, 1ms)); EDGES[i-1] <= d < EDGES[i] -> bucket i + 1
            int idx = b >= 0 ? b + 1 : -b - 1;
            counts[idx + 1]++;
        }
        List<Advice.Bucket> out = new ArrayList<>();
        out.add(new Advice.Bucket("< 0 (dated after arrival)", null, 0L, counts[0]));
        long from = 0;
        for (int i = 0; i < EDGES.length; i++) {
            out.add(
                    new Advice.Bucket(
                            Human.duration(from) + " .. " + Human.duration(EDGES[i]),
                            from,
                            EDGES[i],
                            counts[i + 1]));
            from = EDGES[i];
        }
        out.add(
                new Advice.Bucket(
                        ">= " + Human.duration(from), from, null, counts[EDGES.length + 1]));
        return out;
    }
}
