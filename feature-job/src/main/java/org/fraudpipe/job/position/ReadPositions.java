package org.fraudpipe.job.position;

import java.io.Serializable;
import java.util.Collections;
import java.util.EnumMap;
import java.util.Locale;
import java.util.Map;
import java.util.OptionalLong;
import java.util.TreeMap;
import org.fraudpipe.schemas.avro.ReadPosition;

/**
 * The positions of the job's readers of the transactions topic: per reader and partition, the
 * offset after the last record that reader handed on (positions only grow, so several readings of
 * one reader's position combine by taking the largest). Immutable.
 *
 * <p>Partitions are those of one input topic: the job reads one. Readings that name more than one
 * topic are refused by {@link #of(Iterable)} (the positions of another topic say nothing about this
 * one's records).
 */
public final class ReadPositions implements Serializable {

    private static final long serialVersionUID = 1L;

    /** The reader of each path. */
    public enum Reader {
        /**
         * The window path's source: what it read reached the windows, the late and dead-letter
         * topics and the archive of received transactions.
         */
        WINDOWS,
        /**
         * The per-transaction path's source (with {@code --transaction-source shared}, the same).
         */
        DECISIONS;

        /** As recorded ({@code ReadPosition.reader}) and in metric and accumulator names. */
        public String id() {
            return name().toLowerCase(Locale.ROOT);
        }

        /** The reader recorded as {@code id}. */
        public static Reader of(String id) {
            for (Reader r : values()) {
                if (r.id().equals(id)) {
                    return r;
                }
            }
            throw new IllegalArgumentException(
                    "unknown reader '" + id + "' (known: windows, decisions)");
        }
    }

    /** No positions known: every question about a record answers "unknown". */
    public static final ReadPositions NONE = new ReadPositions(null, new EnumMap<>(Reader.class));

    /**
     * Prefix of the accumulators {@link ReadPositionsOperator} keeps, one per reader and partition.
     */
    static final String ACCUMULATOR_PREFIX = "fraudReadPosition/";

    private final String topic;
    private final EnumMap<Reader, TreeMap<Integer, Long>> next;

    private ReadPositions(String topic, EnumMap<Reader, TreeMap<Integer, Long>> next) {
        this.topic = topic;
        this.next = next;
    }

    /**
     * The positions in {@code recorded} (archived {@link ReadPosition} records, in any order and
     * with repetitions): per reader and partition the largest.
     *
     * @throws IllegalArgumentException if they name more than one topic or an unknown reader
     */
    public static ReadPositions of(Iterable<ReadPosition> recorded) {
        Builder b = new Builder();
        for (ReadPosition p : recorded) {
            b.add(
                    Reader.of(p.getReader()),
                    p.getSourceTopic(),
                    p.getSourcePartition(),
                    p.getNextOffset());
        }
        return b.build();
    }

    /**
     * The positions in a running job's accumulators ({@code JobClient#getAccumulators()}, or a
     * finished job's); other accumulators are ignored.
     */
    public static ReadPositions ofAccumulators(Map<String, Object> accumulators) {
        Builder b = new Builder();
        accumulators.forEach(
                (name, value) -> {
                    if (name.startsWith(ACCUMULATOR_PREFIX) && value instanceof Number n) {
                        String[] parts = name.substring(ACCUMULATOR_PREFIX.length()).split("/");
                        if (parts.length == 3) {
                            b.add(
                                    Reader.of(parts[0]),
                                    parts[1],
                                    Integer.parseInt(parts[2]),
                                    n.longValue());
                        }
                    }
                });
        return b.build();
    }

    /** The accumulator of one reader's position on one partition: a {@code LongMaximum}. */
    static String accumulatorName(Reader reader, String topic, int partition) {
        return ACCUMULATOR_PREFIX + reader.id() + "/" + topic + "/" + partition;
    }

    /** Whether nothing is known (no reader recorded a position). */
    public boolean isEmpty() {
        return next.values().stream().allMatch(Map::isEmpty);
    }

    /** The topic the positions are of, or null if none is known. */
    public String topic() {
        return topic;
    }

    /**
     * {@code reader}'s position on {@code partition}: the offset after the last record it handed
     * on; empty if it recorded none there.
     */
    public OptionalLong next(Reader reader, int partition) {
        Long n = next.getOrDefault(reader, new TreeMap<>()).get(partition);
        return n == null ? OptionalLong.empty() : OptionalLong.of(n);
    }

    /**
     * Whether {@code reader} provably had not reached the record at {@code offset} of {@code
     * partition}: it recorded a position there, and the record is at or after it. False when
     * unknown (no position of that reader on that partition): a record is then never excused.
     */
    public boolean notReached(Reader reader, int partition, long offset) {
        OptionalLong n = next(reader, partition);
        return n.isPresent() && offset >= n.getAsLong();
    }

    /** Per partition, {@code reader}'s position (unmodifiable). */
    public Map<Integer, Long> of(Reader reader) {
        return Collections.unmodifiableMap(next.getOrDefault(reader, new TreeMap<>()));
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof ReadPositions other
                && java.util.Objects.equals(topic, other.topic)
                && next.equals(other.next);
    }

    @Override
    public int hashCode() {
        return java.util.Objects.hash(topic, next);
    }

    @Override
    public String toString() {
        return "ReadPositions{" + topic + " " + next + "}";
    }

    /** Collects positions, keeping the largest per reader and partition. */
    static final class Builder {
        private String topic;
        private final EnumMap<Reader, TreeMap<Integer, Long>> next = new EnumMap<>(Reader.class);

        Builder add(Reader reader, String topic, int partition, long nextOffset) {
            if (this.topic == null) {
                this.topic = topic;
            } else if (!this.topic.equals(topic)) {
                throw new IllegalArgumentException(
                        "read positions of two topics, "
                                + this.topic
                                + " and "
                                + topic
                                + ": the job reads one input topic, so these are not one job's");
            }
            next.computeIfAbsent(reader, r -> new TreeMap<>())
                    .merge(partition, nextOffset, Math::max);
            return this;
        }

        ReadPositions build() {
            EnumMap<Reader, TreeMap<Integer, Long>> copy = new EnumMap<>(Reader.class);
            next.forEach((r, m) -> copy.put(r, new TreeMap<>(m)));
            return new ReadPositions(topic, copy);
        }
    }
}
