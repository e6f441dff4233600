package org.fraudpipe.job.position;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.EnumSet;
import java.util.Map;
import org.fraudpipe.job.position.ReadPositions.Reader;
import org.junit.jupiter.api.Test;

class DrainGateTest {

    private static final Map<Integer, Long> END = Map.of(0, 10L, 1, 4L, 2, 0L);

    private static ReadPositions positions(
            long windows0, long windows1, long decisions0, long decisions1) {
        return new ReadPositions.Builder()
                .add(Reader.WINDOWS, "tx", 0, windows0)
                .add(Reader.WINDOWS, "tx", 1, windows1)
                .add(Reader.DECISIONS, "tx", 0, decisions0)
                .add(Reader.DECISIONS, "tx", 1, decisions1)
                .build();
    }

    @Test
    void everyReaderMustReachEveryPartitionsEndAnEmptyPartitionNeedsNothing() {
        assertThat(DrainGate.behind(positions(10, 4, 10, 4), END, EnumSet.allOf(Reader.class)))
                .isEmpty();
        assertThat(DrainGate.behind(positions(7, 4, 10, 4), END, EnumSet.allOf(Reader.class)))
                .containsExactly(new DrainGate.Behind(Reader.WINDOWS, 0, 7, 10));
        // A partition a reader has read nothing of is behind by all of it.
        assertThat(
                        DrainGate.behind(
                                new ReadPositions.Builder()
                                        .add(Reader.WINDOWS, "tx", 0, 10)
                                        .build(),
                                END,
                                EnumSet.of(Reader.WINDOWS)))
                .containsExactly(new DrainGate.Behind(Reader.WINDOWS, 1, -1, 4));
        // Only the readers asked for count.
        assertThat(DrainGate.behind(positions(10, 4, 0, 0), END, EnumSet.of(Reader.WINDOWS)))
                .isEmpty();
    }

    @Test
    void theGateOpensOnceTheReadersCaughtUp() throws Exception {
        Deque<ReadPositions> readings = new ArrayDeque<>();
        readings.add(ReadPositions.NONE);
        readings.add(positions(10, 4, 3, 4));
        readings.add(positions(10, 4, 10, 4));
        Duration waited =
                DrainGate.await(
                        () -> readings.size() > 1 ? readings.poll() : readings.peek(),
                        END,
                        EnumSet.allOf(Reader.class),
                        Duration.ofMinutes(1));
        assertThat(readings).hasSize(1);
        assertThat(waited).isPositive();
    }

    @Test
    void aGateThatTimesOutNamesWhoIsBehindAndByHowMuch() {
        assertThatThrownBy(
                        () ->
                                DrainGate.await(
                                        () -> positions(10, 4, 6, 4),
                                        END,
                                        EnumSet.allOf(Reader.class),
                                        Duration.ZERO))
                .isInstanceOf(DrainGate.NotCaughtUp.class)
                .hasMessageContaining(
                        "decisions reader on partition 0 at offset 6 of 10 (4 behind)")
                .hasMessageContaining("NOT_YET_SCORED");
    }
}
