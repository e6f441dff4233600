package org.fraudpipe.job.position;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Instant;
import java.util.List;
import java.util.Map;
import org.fraudpipe.job.position.ReadPositions.Reader;
import org.fraudpipe.schemas.avro.ReadPosition;
import org.junit.jupiter.api.Test;

class ReadPositionsTest {

    private static ReadPosition recorded(String reader, String topic, int partition, long next) {
        return ReadPosition.newBuilder()
                .setReader(reader)
                .setSourceTopic(topic)
                .setSourcePartition(partition)
                .setNextOffset(next)
                .setRecordedAt(Instant.EPOCH)
                .build();
    }

    @Test
    void recordedPositionsCombineByTheLargestPerReaderAndPartition() {
        ReadPositions p =
                ReadPositions.of(
                        List.of(
                                recorded("windows", "tx", 0, 5),
                                recorded("windows", "tx", 0, 9),
                                recorded("windows", "tx", 0, 7),
                                recorded("decisions", "tx", 1, 3)));
        assertThat(p.of(Reader.WINDOWS)).isEqualTo(Map.of(0, 9L));
        assertThat(p.of(Reader.DECISIONS)).isEqualTo(Map.of(1, 3L));
        assertThat(p.topic()).isEqualTo("tx");
        assertThat(p.notReached(Reader.WINDOWS, 0, 9)).isTrue();
        assertThat(p.notReached(Reader.WINDOWS, 0, 8)).isFalse();
        // Unknown is never "not reached": nothing is excused without a recorded position.
        assertThat(p.notReached(Reader.WINDOWS, 1, 100)).isFalse();
        assertThat(ReadPositions.NONE.notReached(Reader.DECISIONS, 0, 0)).isFalse();
    }

    @Test
    void accumulatorsCarryTheSamePositionsOthersAreIgnored() {
        ReadPositions p =
                ReadPositions.ofAccumulators(
                        Map.of(
                                ReadPositions.accumulatorName(Reader.WINDOWS, "my.topic-1", 2),
                                12L,
                                ReadPositions.accumulatorName(Reader.DECISIONS, "my.topic-1", 2),
                                15L,
                                "fraudRecordsIn",
                                99L));
        assertThat(p.next(Reader.WINDOWS, 2)).hasValue(12);
        assertThat(p.next(Reader.DECISIONS, 2)).hasValue(15);
        assertThat(p.topic()).isEqualTo("my.topic-1");
    }

    @Test
    void positionsOfTwoTopicsAreNotOneJobsAndAreRefused() {
        assertThatThrownBy(
                        () ->
                                ReadPositions.of(
                                        List.of(
                                                recorded("windows", "a", 0, 1),
                                                recorded("windows", "b", 0, 1))))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("two topics");
        assertThatThrownBy(() -> ReadPositions.of(List.of(recorded("other", "a", 0, 1))))
                .hasMessageContaining("unknown reader 'other'");
    }
}
