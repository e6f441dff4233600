package org.fraudpipe.job.position;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;
import java.util.stream.Collectors;
import org.apache.flink.core.execution.JobClient;
import org.fraudpipe.job.position.ReadPositions.Reader;

/**
 * What a client checks before it drains the job ({@code stopWithSavepoint(true, ...)}): that every
 * reader of the transactions topic has handed on every record up to the end offsets of what was
 * published. A drain ends each source's stream where it stands: whatever a lagging reader had not
 * read yet is never read by that run, so it reaches neither that path's outputs nor (for the window
 * path's reader) the archive, while the other path served it. Waiting first makes a drain complete
 * for both paths.
 *
 * <p>Positions come from the job's accumulators ({@link ReadPositionsOperator}), which reach the
 * JobManager with the TaskManagers' heartbeats: a gate opens up to one heartbeat interval after the
 * readers caught up.
 */
public final class DrainGate {

    /** How often the positions are read while waiting. */
    static final Duration POLL = Duration.ofMillis(200);

    /**
     * One reader short of the end of one partition.
     *
     * @param at the reader's position (the offset after the last record it handed on), or -1 if it
     *     has read nothing there
     * @param end the end offset published
     */
    public record Behind(Reader reader, int partition, long at, long end) {
        long records() {
            return at < 0 ? end : end - at;
        }

        @Override
        public String toString() {
            return reader.id()
                    + " reader on partition "
                    + partition
                    + " at "
                    + (at < 0 ? "nothing read" : "offset " + at)
                    + " of "
                    + end
                    + " ("
                    + records()
                    + " behind)";
        }
    }

    /** The readers did not catch up in time; the message names who is behind and by how much. */
    public static final class NotCaughtUp extends Exception {
        private static final long serialVersionUID = 1L;
        private final List<Behind> behind;

        NotCaughtUp(String message, List<Behind> behind) {
            super(message);
            this.behind = List.copyOf(behind);
        }

        public List<Behind> behind() {
            return behind;
        }
    }

    private DrainGate() {}

    /**
     * Who is short of {@code endOffsets} (partition to the offset after the last record published;
     * partitions with nothing published need nothing) among {@code readers}, in {@code positions}.
     */
    public static List<Behind> behind(
            ReadPositions positions, Map<Integer, Long> endOffsets, Set<Reader> readers) {
        List<Behind> behind = new ArrayList<>();
        for (Reader reader : readers) {
            endOffsets.forEach(
                    (partition, end) -> {
                        long at = positions.next(reader, partition).orElse(-1L);
                        if (end > 0 && at < end) {
                            behind.add(new Behind(reader, partition, at, end));
                        }
                    });
        }
        return behind;
    }

    /**
     * Waits until no reader of {@code readers} is behind {@code endOffsets}, reading {@code
     * positions} every {@link #POLL}.
     *
     * @return how long it waited
     * @throws NotCaughtUp after {@code timeout}, naming the readers and partitions behind
     */
    public static Duration await(
            Supplier<ReadPositions> positions,
            Map<Integer, Long> endOffsets,
            Set<Reader> readers,
            Duration timeout)
            throws NotCaughtUp, InterruptedException {
        long start = System.nanoTime();
        long deadline = start + timeout.toNanos();
        while (true) {
            List<Behind> behind = behind(positions.get(), endOffsets, readers);
            if (behind.isEmpty()) {
                return Duration.ofNanos(System.nanoTime() - start);
            }
            if (System.nanoTime() >= deadline) {
                throw new NotCaughtUp(
                        "after "
                                + timeout.toSeconds()
                                + " s the job had not read everything published: "
                                + behind.stream()
                                        .map(Behind::toString)
                                        .collect(Collectors.joining("; "))
                                + ". A drain now ends that reader's stream there: the records"
                                + " it has not read reach neither its path nor, for the windows"
                                + " reader, the archive (parity names them NOT_YET_ARCHIVED or"
                                + " NOT_YET_SCORED). Look for backpressure on that reader's"
                                + " operators (the web UI's BackPressure tab), or stop without"
                                + " draining and restore from the savepoint, which reads on"
                                + " from where each reader stood.",
                        behind);
            }
            Thread.sleep(POLL.toMillis());
        }
    }

    /**
     * The positions in {@code job}'s accumulators, or none while they cannot be read (the job
     * starting, or between attempts).
     */
    public static Supplier<ReadPositions> positionsOf(JobClient job) {
        return () -> {
            try {
                return ReadPositions.ofAccumulators(job.getAccumulators().get(2, TimeUnit.SECONDS));
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return ReadPositions.NONE;
            } catch (Exception unavailable) {
                return ReadPositions.NONE;
            }
        };
    }
}
