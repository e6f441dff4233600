package org.fraudpipe.job.position;

import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.apache.flink.api.common.accumulators.LongMaximum;
import org.apache.flink.api.common.state.ListState;
import org.apache.flink.api.common.state.ListStateDescriptor;
import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.metrics.MetricGroup;
import org.apache.flink.runtime.state.StateInitializationContext;
import org.apache.flink.runtime.state.StateSnapshotContext;
import org.apache.flink.streaming.api.datastream.DataStream;
import org.apache.flink.streaming.api.operators.AbstractStreamOperator;
import org.apache.flink.streaming.api.operators.OneInputStreamOperator;
import org.apache.flink.streaming.runtime.streamrecord.StreamRecord;
import org.fraudpipe.job.ingest.IngestedRecord;
import org.fraudpipe.job.position.ReadPositions.Reader;
import org.fraudpipe.job.topology.OperatorNames;
import org.fraudpipe.job.topology.Uids;
import org.fraudpipe.schemas.avro.ReadPosition;

/**
 * Tracks where one reader of the transactions topic stands: chained to the reader's source, it sees
 * every record the source hands on (valid, invalid or future-dated alike) and keeps, per partition,
 * the offset after the last one. Emits nothing per record.
 *
 * <p>What it makes of that position:
 *
 * <ul>
 *   <li>a {@link LongMaximum} accumulator per partition ({@link ReadPositions#ofAccumulators}):
 *       what a client that drains the job waits on ({@link DrainGate}), on a MiniCluster and a
 *       cluster alike;
 *   <li>a gauge {@value #GAUGE} per partition, in the groups {@code topic}/{@code partition} of the
 *       operator ({@code "Read position (windows)"} or {@code "(decisions)"}), for dashboards;
 *   <li>a {@link ReadPosition} record of every partition it knows, emitted before each checkpoint
 *       barrier ({@link #prepareSnapshotPreBarrier}) and at the end of input: archived, it commits
 *       with the very checkpoint whose records it covers, so the archive says how far each reader
 *       had come in what it holds; and since every checkpoint records every partition, the newest
 *       records alone say where each reader stands (a reader of the archive need not read its
 *       history).
 * </ul>
 *
 * <p>Why not Flink's {@code KafkaSourceReader...currentOffset} metric: it is the split reader's
 * fetch position, which runs ahead of what the source has emitted by up to the records in its
 * hand-over queue; a drain ends the stream at what was emitted. This operator sees exactly that.
 *
 * <p>State: the positions, in union list state, so that after a restore (rescaled or not) every
 * subtask reports them at once and the accumulators do not start over from nothing. Positions only
 * grow, so merging by maximum is right whoever held a partition before.
 */
public final class ReadPositionsOperator extends AbstractStreamOperator<ReadPosition>
        implements OneInputStreamOperator<IngestedRecord, ReadPosition> {

    private static final long serialVersionUID = 1L;

    /** The gauge of a partition's position (the offset after the last record handed on). */
    public static final String GAUGE = "fraudReadNextOffset";

    private final Reader reader;

    private transient Map<String, Partition> partitions;

    /** The partition of the last record: a source subtask reads a few, so mostly a hit. */
    private transient Partition last;

    private transient ListState<ReadPosition> state;
    private transient boolean finished;

    /** One partition's position and what has been said of it. */
    private static final class Partition {
        final String topic;
        final int partition;
        volatile long next;
        LongMaximum accumulator;

        Partition(String topic, int partition, long next) {
            this.topic = topic;
            this.partition = partition;
            this.next = next;
        }
    }

    public ReadPositionsOperator(Reader reader) {
        this.reader = reader;
    }

    /**
     * Tracks {@code reader}'s position on {@code read}, the records its source hands on: chained to
     * the source (same parallelism, forward edge), with the reader's stable uid.
     */
    public static DataStream<ReadPosition> track(DataStream<IngestedRecord> read, Reader reader) {
        return read.transform(
                        reader == Reader.WINDOWS
                                ? OperatorNames.READ_POSITIONS_WINDOWS
                                : OperatorNames.READ_POSITIONS_DECISIONS,
                        TypeInformation.of(ReadPosition.class),
                        new ReadPositionsOperator(reader))
                .uid(
                        reader == Reader.WINDOWS
                                ? Uids.READ_POSITIONS_WINDOWS
                                : Uids.READ_POSITIONS_DECISIONS)
                .setParallelism(read.getParallelism());
    }

    @Override
    public void initializeState(StateInitializationContext context) throws Exception {
        super.initializeState(context);
        partitions = new LinkedHashMap<>();
        state =
                context.getOperatorStateStore()
                        .getUnionListState(
                                new ListStateDescriptor<>(
                                        "read-positions", TypeInformation.of(ReadPosition.class)));
        if (context.isRestored()) {
            for (ReadPosition p : state.get()) {
                advance(p.getSourceTopic(), p.getSourcePartition(), p.getNextOffset());
            }
        }
    }

    @Override
    public void processElement(StreamRecord<IngestedRecord> element) {
        IngestedRecord r = element.getValue();
        advance(r.sourceTopic, r.sourcePartition, r.sourceOffset + 1);
    }

    private void advance(String topic, int partition, long next) {
        Partition p = last;
        if (p == null || p.partition != partition || !p.topic.equals(topic)) {
            p = partitions.get(topic + "/" + partition);
            last = p;
        }
        if (p == null) {
            p = new Partition(topic, partition, next);
            partitions.put(topic + "/" + partition, p);
            register(p);
            last = p;
        } else if (next > p.next) {
            p.next = next;
        }
        p.accumulator.add(p.next);
    }

    private void register(Partition p) {
        p.accumulator = new LongMaximum();
        getRuntimeContext()
                .addAccumulator(
                        ReadPositions.accumulatorName(reader, p.topic, p.partition), p.accumulator);
        MetricGroup group =
                getMetricGroup()
                        .addGroup("topic", p.topic)
                        .addGroup("partition", Integer.toString(p.partition));
        group.gauge(GAUGE, () -> p.next);
    }

    @Override
    public void prepareSnapshotPreBarrier(long checkpointId) throws Exception {
        super.prepareSnapshotPreBarrier(checkpointId);
        if (!finished) {
            emitAll();
        }
    }

    @Override
    public void snapshotState(StateSnapshotContext context) throws Exception {
        super.snapshotState(context);
        List<ReadPosition> all = new ArrayList<>(partitions.size());
        long now = System.currentTimeMillis();
        for (Partition p : partitions.values()) {
            all.add(record(p, now));
        }
        state.update(all);
    }

    @Override
    public void finish() throws Exception {
        emitAll();
        finished = true;
        super.finish();
    }

    private void emitAll() {
        long now = System.currentTimeMillis();
        for (Partition p : partitions.values()) {
            output.collect(new StreamRecord<>(record(p, now)));
        }
    }

    private ReadPosition record(Partition p, long now) {
        return ReadPosition.newBuilder()
                .setReader(reader.id())
                .setSourceTopic(p.topic)
                .setSourcePartition(p.partition)
                .setNextOffset(p.next)
                .setRecordedAt(Instant.ofEpochMilli(now))
                .build();
    }
}
