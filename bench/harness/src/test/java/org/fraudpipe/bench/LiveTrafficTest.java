package org.fraudpipe.bench;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class LiveTrafficTest {

    static final long START = 1_790_000_000_000L;

    static LiveTraffic traffic(long start) {
        return new LiveTraffic(8, 1000, 5000, start, 0.01, 6_000, 180_000, 0.02);
    }

    @Test
    void anEventIsAFunctionOfTheSeedAndItsIndexShiftedWithTheStart() {
        LiveTraffic a = traffic(START);
        LiveTraffic b = traffic(START + 12_345);
        for (long i = 0; i < 2000; i++) {
            var x = a.event(i);
            var y = b.event(i);
            assertThat(y.transaction().getTransactionId())
                    .isEqualTo(x.transaction().getTransactionId());
            assertThat(y.transaction().getUserId()).isEqualTo(x.transaction().getUserId());
            assertThat(y.transaction().getAmountMinor())
                    .isEqualTo(x.transaction().getAmountMinor());
            assertThat(
                            y.transaction().getEventTime().toEpochMilli()
                                    - x.transaction().getEventTime().toEpochMilli())
                    .isEqualTo(12_345);
            assertThat(y.retried()).isEqualTo(x.retried());
            assertThat(a.event(i)).isEqualTo(x);
        }
        assertThat(traffic(START).startingAt(START + 12_345).event(77)).isEqualTo(b.event(77));
    }

    @Test
    void eventTimesTrailTheScheduleByAClientDelayOrByALateDelay() {
        LiveTraffic t = traffic(START);
        long late = 0;
        long retried = 0;
        int n = 100_000;
        for (long i = 0; i < n; i++) {
            var e = t.event(i);
            long delay = t.scheduledWallMillis(i) - e.transaction().getEventTime().toEpochMilli();
            if (e.late()) {
                late++;
                assertThat(delay).isBetween(6_000L, 179_999L);
            } else {
                assertThat(delay).isBetween(0L, 199L);
            }
            retried += e.retried() ? 1 : 0;
            assertThat(e.late()).isEqualTo(t.late(i));
            assertThat(e.retried()).isEqualTo(t.retried(i));
            assertThat(e.retryDelayMillis()).isBetween(200L, 2999L);
            assertThat(LiveTraffic.userNumber(e.transaction().getUserId())).isEqualTo(t.user(i));
            assertThat(LiveTraffic.index(e.transaction().getTransactionId())).isEqualTo(i);
        }
        assertThat(late / (double) n).isBetween(0.008, 0.012);
        assertThat(retried / (double) n).isBetween(0.017, 0.023);
        assertThat(t.retriedAmong(n)).isEqualTo(retried);
        // the schedule: rate 1000, one event per millisecond
        assertThat(t.scheduledWallMillis(2500)).isEqualTo(START + 2500);
    }

    @Test
    void idsOfOtherRecordsAreNotTheTraffics() {
        assertThat(LiveTraffic.index("ping-0-123")).isEqualTo(-1);
        assertThat(LiveTraffic.index("lt-0000000001x-ab12")).isEqualTo(-1);
        assertThat(LiveTraffic.index(null)).isEqualTo(-1);
        assertThat(LiveTraffic.userNumber(LiveTraffic.PING_USER_PREFIX + "0")).isEqualTo(-1);
        assertThat(LiveTraffic.userNumber(LiveTraffic.userId(42))).isEqualTo(42);
    }
}
