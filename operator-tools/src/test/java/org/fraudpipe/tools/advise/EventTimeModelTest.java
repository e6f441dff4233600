package org.fraudpipe.tools.advise;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.time.Instant;
import org.fraudpipe.parity.ParityPeriod;
import org.junit.jupiter.api.Test;

/**
 * The archive's watermark model: per-partition watermarks, their minimum over the active
 * partitions, a partition idle after the idleness without windowable records (on arrival times),
 * the watermark never going back; and the arrival order across partitions.
 */
class EventTimeModelTest {

    private static final Duration MINUTE = Duration.ofMinutes(1);
    private static final long T0 = Instant.parse("2026-11-28T12:00:00Z").toEpochMilli();

    private static long at(int seconds) {
        return T0 + seconds * 1000L;
    }

    /**
     * Partition 0 has a record every 10 s from 12:00:00 to 12:03:00, on time; partition 1 one
     * record at 12:00:05 and then none (and, if asked, one at 12:02:55 dated 12:00:30).
     */
    private static RecordedTraffic twoPartitions(boolean lateRecordOnPartitionOne) {
        RecordedTraffic.Builder b = new RecordedTraffic.Builder("test");
        int p0 = b.partition("transactions-0");
        int p1 = b.partition("transactions-1");
        b.add("q", "u2", at(5), at(5), p1, 0, false);
        for (int s = 0; s <= 180; s += 10) {
            b.add("t" + s, "u1", at(s), at(s), p0, s, false);
        }
        if (lateRecordOnPartitionOne) {
            // Event 12:00:30, arriving at 12:02:55: its partition was idle; the others moved on.
            b.add("late", "u2", at(30), at(175), p1, 1, false);
        }
        return b.inArrivalOrder(TrafficReader::comparePartitionNames);
    }

    @Test
    void anIdlePartitionStopsHoldingTheWatermarkAfterTheIdleness() {
        RecordedTraffic t = twoPartitions(false);
        EventTimeModel withIdleness = new EventTimeModel(t, MINUTE, ParityPeriod.UNBOUNDED, MINUTE);
        EventTimeModel.Outcome o = withIdleness.evaluate(Duration.ZERO, Duration.ZERO);
        // [12:00, 12:01) needs the watermark at 12:00:59.999, i.e. both partitions at 12:01:00:
        // partition 1 never gets there. It goes idle at 12:01:05.001 (a minute after its record,
        // noticed before the record arriving at 12:01:10): the watermark jumps to partition 0's,
        // 12:00:59.999 (its 12:01:00 record arrived), and both users' windows fire 5.001 s after
        // their end. Later windows fire as partition 0's records arrive (0 s); 12:03 stays open.
        assertThat(o.windowsFiredOnTime).isEqualTo(4); // u1, u2 @12:00; u1 @12:01, @12:02
        assertThat(o.windowsOpenAtEnd).isEqualTo(1);
        assertThat(o.firstResultDelay.max()).isEqualTo(5_001);
        assertThat(o.firstResultDelay.p50()).isZero();
        assertThat(o.tooLate).isZero();

        EventTimeModel noIdleness = new EventTimeModel(t, MINUTE, ParityPeriod.UNBOUNDED, null);
        EventTimeModel.Outcome held = noIdleness.evaluate(Duration.ZERO, Duration.ZERO);
        // Without idleness partition 1 holds event time at 12:00:05 for good: nothing fires.
        assertThat(held.windowsFiredOnTime).isZero();
        assertThat(held.windowsOpenAtEnd).isEqualTo(held.windows);

        assertThat(withIdleness.idleGaps).containsExactly(0, 0);
        assertThat(withIdleness.longestGap[0]).isEqualTo(10_000);
    }

    @Test
    void aRecordOfAPartitionWakingUpIsJudgedAgainstWhatTheOthersMovedOn() {
        RecordedTraffic t = twoPartitions(true);
        EventTimeModel m = new EventTimeModel(t, MINUTE, ParityPeriod.UNBOUNDED, MINUTE);
        // With lateness 0 the 12:00:30 record, arriving at 12:02:55 on the woken partition, is
        // too late; with 2 minutes it re-fires u2's window [12:00, 12:01).
        assertThat(m.evaluate(Duration.ZERO, Duration.ZERO).tooLate).isEqualTo(1);
        EventTimeModel.Outcome grace = m.evaluate(Duration.ZERO, Duration.ofMinutes(2));
        assertThat(grace.tooLate).isZero();
        assertThat(grace.refires).isEqualTo(1);
        assertThat(m.idleGaps[1]).as("partition 1's gap of 2m50s").isEqualTo(1);
        assertThat(m.longestGap[1]).isEqualTo(170_000);
    }

    @Test
    void arrivalOrderIsByOffsetWithinAPartitionAndByArrivalTimeAcrossThem() {
        RecordedTraffic.Builder b = new RecordedTraffic.Builder("test");
        int p10 = b.partition("transactions-10");
        int p2 = b.partition("transactions-2");
        // Read out of order; partition 2's offset 7 has an earlier timestamp than offset 6 (a
        // CreateTime topic): offsets decide within the partition.
        b.add("c", "u", at(3), at(3), p10, 5, false);
        b.add("b", "u", at(9), at(9), p2, 7, false);
        b.add("a", "u", at(1), at(2), p2, 6, false);
        b.add("d", "u", at(8), at(8), p10, 4, false);
        RecordedTraffic t = b.inArrivalOrder(TrafficReader::comparePartitionNames);
        assertThat(t.partitionNames).containsExactly("transactions-2", "transactions-10");
        // Heads: p2@6 (arrived 2) before p10@4 (8); then p2@7 (9) vs p10@4 (8): p10@4, p10@5 (3
        // but behind offset 4), then p2@7.
        long[] expected = {at(1), at(8), at(3), at(9)};
        assertThat(t.eventTime).containsExactly(expected);
        assertThat(t.partition).containsExactly(0, 1, 1, 0);
    }
}
