package org.fraudpipe.job.window;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Queue;
import org.apache.flink.api.common.serialization.SerializerConfigImpl;
import org.apache.flink.api.common.state.MapState;
import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.api.common.typeinfo.Types;
import org.apache.flink.runtime.checkpoint.OperatorSubtaskState;
import org.apache.flink.runtime.state.KeyedStateBackend;
import org.apache.flink.runtime.state.StateBackend;
import org.apache.flink.runtime.state.VoidNamespace;
import org.apache.flink.runtime.state.VoidNamespaceSerializer;
import org.apache.flink.state.rocksdb.RocksDBKeyedStateBackend;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.streaming.api.transformations.OneInputTransformation;
import org.apache.flink.streaming.runtime.streamrecord.StreamRecord;
import org.apache.flink.streaming.util.AbstractStreamOperatorTestHarness;
import org.apache.flink.streaming.util.KeyedOneInputStreamOperatorTestHarness;
import org.apache.flink.streaming.util.OneInputStreamOperatorTestHarness;
import org.fraudpipe.job.features.TestTransactions;
import org.fraudpipe.schemas.avro.FeatureRecord;
import org.fraudpipe.schemas.avro.LateRecord;
import org.fraudpipe.schemas.avro.Transaction;

/**
 * The window operator exactly as {@link FeatureWindows#apply} builds it (taken from the topology,
 * not rebuilt), in a keyed operator harness, plus the too-late conversion fed the same watermarks,
 * as the chained pipeline does.
 */
final class WindowHarness {

    static final TypeInformation<Transaction> TRANSACTION = TypeInformation.of(Transaction.class);

    final FeatureWindowSpec spec;
    final KeyedOneInputStreamOperatorTestHarness<String, Transaction, FeatureRecord> window;
    final OneInputStreamOperatorTestHarness<Transaction, LateRecord> tooLate;
    private int tooLateConsumed;

    private WindowHarness(
            FeatureWindowSpec spec,
            KeyedOneInputStreamOperatorTestHarness<String, Transaction, FeatureRecord> window,
            OneInputStreamOperatorTestHarness<Transaction, LateRecord> tooLate) {
        this.spec = spec;
        this.window = window;
        this.tooLate = tooLate;
    }

    static WindowHarness open(Duration size, Duration lateness) throws Exception {
        return open(new FeatureWindowSpec(size, lateness), null);
    }

    static WindowHarness open(FeatureWindowSpec spec, StateBackend backend) throws Exception {
        return open(spec, backend, null);
    }

    /** A harness whose window operator starts from a snapshot of an earlier one. */
    static WindowHarness openRestored(FeatureWindowSpec spec, OperatorSubtaskState snapshot)
            throws Exception {
        return open(spec, null, snapshot);
    }

    /** Max parallelism of the parallel harnesses: the job's own. */
    static final int MAX_PARALLELISM = 128;

    /**
     * Subtask {@code subtask} of {@code parallelism} window operators, restored from {@code
     * snapshot} (repackaged snapshots of every subtask of the earlier run, null for a fresh start)
     * as Flink redistributes state on a rescale.
     */
    static WindowHarness openSubtask(
            FeatureWindowSpec spec,
            int parallelism,
            int subtask,
            OperatorSubtaskState snapshot,
            int snapshotParallelism)
            throws Exception {
        OperatorSubtaskState restored =
                snapshot == null
                        ? null
                        : AbstractStreamOperatorTestHarness.repartitionOperatorState(
                                snapshot,
                                MAX_PARALLELISM,
                                snapshotParallelism,
                                parallelism,
                                subtask);
        return open(spec, null, restored, parallelism, subtask, FeatureWindows.HELD_UNFIRED_PANES);
    }

    /** A harness whose window subtask holds at most {@code heldPanes} unfired panes in the heap. */
    static WindowHarness openHolding(
            FeatureWindowSpec spec,
            StateBackend backend,
            OperatorSubtaskState snapshot,
            int heldPanes)
            throws Exception {
        return open(spec, backend, snapshot, 1, 0, heldPanes);
    }

    private static WindowHarness open(
            FeatureWindowSpec spec, StateBackend backend, OperatorSubtaskState snapshot)
            throws Exception {
        return open(spec, backend, snapshot, 1, 0, FeatureWindows.HELD_UNFIRED_PANES);
    }

    @SuppressWarnings("unchecked")
    private static WindowHarness open(
            FeatureWindowSpec spec,
            StateBackend backend,
            OperatorSubtaskState snapshot,
            int parallelism,
            int subtask,
            int heldPanes)
            throws Exception {
        StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment();
        WindowedFeatures built =
                FeatureWindows.apply(env.fromData(TRANSACTION, sampleInput()), spec, heldPanes);
        OneInputTransformation<Transaction, FeatureRecord> windowTransformation =
                (OneInputTransformation<Transaction, FeatureRecord>)
                        built.features().getTransformation();
        OneInputTransformation<Transaction, LateRecord> tooLateTransformation =
                (OneInputTransformation<Transaction, LateRecord>)
                        built.tooLate().getTransformation();

        var window =
                new KeyedOneInputStreamOperatorTestHarness<>(
                        windowTransformation.getOperatorFactory(),
                        new UserIdKey(),
                        Types.STRING,
                        MAX_PARALLELISM,
                        parallelism,
                        subtask);
        if (backend != null) {
            window.setStateBackend(backend);
        }
        window.setup(
                TypeInformation.of(FeatureRecord.class)
                        .createSerializer(new SerializerConfigImpl()));
        if (snapshot != null) {
            window.initializeState(snapshot);
        }
        window.open();

        OneInputStreamOperatorTestHarness<Transaction, LateRecord> tooLate =
                new OneInputStreamOperatorTestHarness<>(
                        tooLateTransformation.getOperatorFactory(), 128, 1, 0);
        tooLate.setup(
                TypeInformation.of(LateRecord.class).createSerializer(new SerializerConfigImpl()));
        tooLate.open();
        return new WindowHarness(spec, window, tooLate);
    }

    private static Transaction sampleInput() {
        return TestTransactions.tx("sample", "u", 1, 0);
    }

    void process(Transaction tx) throws Exception {
        window.processElement(tx, tx.getEventTime().toEpochMilli());
        forwardTooLate();
    }

    /** Advances the watermark of both operators, as the chain does. */
    void watermark(long watermark) throws Exception {
        window.processWatermark(watermark);
        tooLate.processWatermark(watermark);
        forwardTooLate();
    }

    void processingTime(long time) throws Exception {
        window.setProcessingTime(time);
        tooLate.setProcessingTime(time);
    }

    private void forwardTooLate() throws Exception {
        List<StreamRecord<Transaction>> sideOutput = tooLateTransactions();
        for (int i = tooLateConsumed; i < sideOutput.size(); i++) {
            tooLate.processElement(sideOutput.get(i));
        }
        tooLateConsumed = sideOutput.size();
    }

    /** Keyed state entries of the window operator, on the heap or in RocksDB. */
    int stateEntries() {
        KeyedStateBackend<?> backend = window.getOperator().getKeyedStateBackend();
        return backend instanceof RocksDBKeyedStateBackend<?> rocks
                ? rocks.numKeyValueStateEntries()
                : window.numKeyedStateEntries();
    }

    /**
     * The window state entry of {@code user}'s window at {@code start} as stored (not settled), or
     * null. Sets the backend's current key.
     */
    WindowPane storedPane(String user, long start) throws Exception {
        return storedWindows(user).get(start);
    }

    /** The user's window state: window start to stored pane. */
    MapState<Long, WindowPane> storedWindows(String user) throws Exception {
        KeyedStateBackend<Object> backend = window.getOperator().getKeyedStateBackend();
        backend.setCurrentKey(user);
        return backend.getPartitionedState(
                VoidNamespace.INSTANCE,
                VoidNamespaceSerializer.INSTANCE,
                FeatureWindowFunction.windowsDescriptor());
    }

    /** Main output so far, in order (watermarks left out). */
    List<FeatureRecord> features() {
        return window.extractOutputValues();
    }

    /** Raw late-data side output of the window operator so far. */
    List<StreamRecord<Transaction>> tooLateTransactions() {
        Queue<StreamRecord<Transaction>> q =
                window.getSideOutput(FeatureWindows.tooLateTag(TRANSACTION));
        return q == null ? List.of() : new ArrayList<>(q);
    }

    /** Late records produced by the conversion so far. */
    List<LateRecord> lateRecords() {
        return tooLate.extractOutputValues();
    }

    void close() throws Exception {
        window.close();
        tooLate.close();
    }
}
