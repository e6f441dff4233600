package org.fraudpipe.schemas.archive;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Instant;
import java.time.LocalDate;
import org.fraudpipe.schemas.avro.DeadLetter;
import org.fraudpipe.schemas.avro.DeadLetterReason;
import org.junit.jupiter.api.Test;

class ArchivePartitionTest {

    private static long at(String instant) {
        return Instant.parse(instant).toEpochMilli();
    }

    @Test
    void partitionIsTheUtcHourOfTheInstant() {
        assertThat(ArchivePartition.of(at("2026-11-28T23:59:59.999Z")).path())
                .isEqualTo("date=2026-11-28/hour=23");
        assertThat(ArchivePartition.of(at("2026-11-29T00:00:00Z")).path())
                .isEqualTo("date=2026-11-29/hour=00");
        assertThat(ArchivePartition.of(at("1969-12-31T23:30:00Z")).path())
                .isEqualTo("date=1969-12-31/hour=23");
    }

    @Test
    void pathRoundTrips() {
        ArchivePartition p = new ArchivePartition(LocalDate.parse("2026-11-28"), 7);
        assertThat(ArchivePartition.parse(p.path())).isEqualTo(p);
        assertThat(p.start()).isEqualTo(Instant.parse("2026-11-28T07:00:00Z"));
        assertThat(p.end()).isEqualTo(Instant.parse("2026-11-28T08:00:00Z"));
        assertThatThrownBy(() -> ArchivePartition.parse("date=2026-11-28/hour=7"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("date=YYYY-MM-DD/hour=HH");
    }

    @Test
    void coveringListsEveryOverlappingHourOnce() {
        assertThat(
                        ArchivePartition.covering(
                                        at("2026-11-28T22:30:00Z"), at("2026-11-29T00:00:00.001Z"))
                                .stream()
                                .map(ArchivePartition::path))
                .containsExactly(
                        "date=2026-11-28/hour=22",
                        "date=2026-11-28/hour=23",
                        "date=2026-11-29/hour=00");
        assertThat(
                        ArchivePartition.covering(
                                at("2026-11-28T22:00:00Z"), at("2026-11-28T22:00:00Z")))
                .isEmpty();
    }

    @Test
    void deadLettersArePartitionedByArrival() {
        DeadLetter withTimestamp =
                DeadLetter.newBuilder()
                        .setSourceTopic("t")
                        .setSourcePartition(0)
                        .setSourceOffset(1)
                        .setRecordTimestamp(Instant.parse("2026-11-28T05:10:00Z"))
                        .setReason(DeadLetterReason.INVALID)
                        .setErrorMessage("x")
                        .setDetectedAt(Instant.parse("2026-11-28T06:10:00Z"))
                        .build();
        assertThat(ArchiveStream.DEAD_LETTERS.partitionOf(withTimestamp).hour()).isEqualTo(5);
        withTimestamp.setRecordTimestamp(null);
        assertThat(ArchiveStream.DEAD_LETTERS.partitionOf(withTimestamp).hour()).isEqualTo(6);
        assertThatThrownBy(() -> ArchiveStream.FEATURES.partitionOf(withTimestamp))
                .isInstanceOf(IllegalArgumentException.class);
    }
}
