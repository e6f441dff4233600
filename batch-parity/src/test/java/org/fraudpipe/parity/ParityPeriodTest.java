package org.fraudpipe.parity;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.time.Instant;
import java.time.LocalDate;
import org.fraudpipe.job.features.WindowAssignment;
import org.fraudpipe.schemas.archive.ArchivePartition;
import org.junit.jupiter.api.Test;

class ParityPeriodTest {

    private static final LocalDate DAY = LocalDate.parse("2026-11-28");

    @Test
    void aDayJudgesTheWindowsStartingOnIt() {
        ParityPeriod p = ParityPeriod.days(DAY, DAY);
        assertThat(p.containsWindowStart(Instant.parse("2026-11-28T00:00:00Z").toEpochMilli()))
                .isTrue();
        assertThat(p.containsWindowStart(Instant.parse("2026-11-28T23:50:00Z").toEpochMilli()))
                .isTrue();
        assertThat(p.containsWindowStart(Instant.parse("2026-11-29T00:00:00Z").toEpochMilli()))
                .isFalse();
        assertThat(p.containsWindowStart(Instant.parse("2026-11-27T23:50:00Z").toEpochMilli()))
                .isFalse();
        assertThat(p.days()).containsExactly(DAY);
    }

    @Test
    void alignedWindowsNeedNoDataPastTheDay() {
        ParityPeriod p = ParityPeriod.days(DAY, DAY);
        WindowAssignment tenMinutes = WindowAssignment.tumbling(Duration.ofMinutes(10));
        assertThat(p.dataEnd(tenMinutes)).isEqualTo(Instant.parse("2026-11-29T00:00:00Z"));
        assertThat(p.eventTimePartitions(tenMinutes)).hasSize(24);
    }

    @Test
    void aWindowAcrossMidnightIsJudgedByTheDayItStartsOnWithTheNextDaysData() {
        // 7-minute windows do not divide the day: one starts at 23:55:xx and ends after midnight.
        ParityPeriod p = ParityPeriod.days(DAY, DAY);
        WindowAssignment seven = WindowAssignment.tumbling(Duration.ofMinutes(7));
        long lastStart = seven.startOf(Instant.parse("2026-11-28T23:59:59.999Z").toEpochMilli());
        assertThat(p.containsWindowStart(lastStart)).isTrue();
        assertThat(p.dataEnd(seven)).isAfter(Instant.parse("2026-11-29T00:00:00Z"));
        assertThat(p.eventTimePartitions(seven))
                .hasSize(25)
                .last()
                .isEqualTo(ArchivePartition.parse("date=2026-11-29/hour=00"));
    }

    @Test
    void rangesAreInclusiveAndMustNotBeReversed() {
        assertThat(ParityPeriod.days(DAY, DAY.plusDays(2)).days()).hasSize(3);
        assertThatThrownBy(() -> ParityPeriod.days(DAY, DAY.minusDays(1)))
                .hasMessageContaining("before --from");
    }
}
