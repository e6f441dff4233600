package org.fraudpipe.bench;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

class LivePacerTest {

    /** dueBy by brute force: every event whose scheduled instant is at or before now. */
    static long bruteDueBy(LivePacer p, long now) {
        long n = 0;
        for (long i = 0; i < p.total(); i++) {
            if (p.scheduledNanos(i) <= now) {
                n++;
            }
        }
        return n;
    }

    @Test
    void dueByCountsTheEventsScheduledAtOrBeforeNow() {
        long start = 1_000_000;
        for (long rate : new long[] {1, 3, 7, 1000, 30_000}) {
            LivePacer p = new LivePacer(rate, 3 * rate + 5, start);
            for (long now = start - 5; now < start + 3_100_000_000L; now += 9_999_991) {
                assertThat(p.dueBy(now))
                        .as("rate %d at %d", rate, now)
                        .isEqualTo(bruteDueBy(p, now));
            }
            // exactly at an event's instant it is due, a nanosecond before it is not
            long at = p.scheduledNanos(rate + 1);
            assertThat(p.dueBy(at)).isEqualTo(rate + 2);
            assertThat(p.dueBy(at - 1)).isEqualTo(rate + 1);
        }
    }

    @Test
    void theScheduleDoesNotDriftAndStopsAtTheTotal() {
        LivePacer p = new LivePacer(30_000, 30_000L * 600, 0);
        // after ten minutes exactly 18 million events are due, to the nanosecond
        assertThat(p.scheduledNanos(30_000L * 600 - 1)).isLessThan(600_000_000_000L);
        assertThat(p.scheduledNanos(30_000L * 300)).isEqualTo(300_000_000_000L);
        assertThat(p.dueBy(300_000_000_000L)).isEqualTo(30_000L * 300 + 1);
        assertThat(p.dueBy(Long.MAX_VALUE / 2)).isEqualTo(p.total());
        assertThat(p.dueBy(-1)).isZero();
        assertThat(p.nanosUntil(1, 0)).isEqualTo(33_333);
        assertThat(p.nanosUntil(1, 50_000)).isZero();
    }

    @Test
    void aRateOutsideOneToAMillionIsRefused() {
        assertThatThrownBy(() -> new LivePacer(0, 1, 0))
                .isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> new LivePacer(2_000_000, 1, 0))
                .isInstanceOf(IllegalArgumentException.class);
    }
}
