package org.fraudpipe.job.transaction;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.apache.flink.api.common.serialization.SerializerConfigImpl;
import org.apache.flink.api.common.state.MapState;
import org.apache.flink.api.common.state.ValueState;
import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.api.common.typeinfo.Types;
import org.apache.flink.api.java.functions.KeySelector;
import org.apache.flink.runtime.checkpoint.OperatorSubtaskState;
import org.apache.flink.runtime.state.KeyedStateBackend;
import org.apache.flink.runtime.state.VoidNamespace;
import org.apache.flink.runtime.state.VoidNamespaceSerializer;
import org.apache.flink.state.rocksdb.RocksDBKeyedStateBackend;
import org.apache.flink.streaming.api.datastream.DataStream;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.streaming.api.transformations.OneInputTransformation;
import org.apache.flink.streaming.util.KeyedOneInputStreamOperatorTestHarness;
import org.apache.flink.streaming.util.OneInputStreamOperatorTestHarness;
import org.fraudpipe.job.ingest.IngestedRecord;
import org.fraudpipe.job.ingest.SourcePosition;
import org.fraudpipe.job.window.ProcessingTimeSource;
import org.fraudpipe.schemas.avro.Transaction;
import org.fraudpipe.schemas.avro.TransactionScore;

/**
 * The per-transaction path's operators exactly as {@link TransactionScoring#apply} builds them
 * (taken from the topology, not rebuilt), in operator harnesses: the filter, the keyed trailing
 * features, and optionally the scoring stage, fed the keyed operator's output as the chain does.
 */
final class TrailingHarness {

    static final TypeInformation<IngestedRecord> INGESTED =
            TypeInformation.of(IngestedRecord.class);

    final KeyedOneInputStreamOperatorTestHarness<String, IngestedRecord, ArrivalFeatures> trailing;
    final OneInputStreamOperatorTestHarness<IngestedRecord, IngestedRecord> filter;
    private final TransactionScoring.Spec spec;

    private TrailingHarness(
            TransactionScoring.Spec spec,
            KeyedOneInputStreamOperatorTestHarness<String, IngestedRecord, ArrivalFeatures>
                    trailing,
            OneInputStreamOperatorTestHarness<IngestedRecord, IngestedRecord> filter) {
        this.spec = spec;
        this.trailing = trailing;
        this.filter = filter;
    }

    /** The transformations of the path, from the topology. */
    record Transformations(
            OneInputTransformation<IngestedRecord, IngestedRecord> filter,
            OneInputTransformation<IngestedRecord, ArrivalFeatures> trailing,
            OneInputTransformation<ArrivalFeatures, TransactionScore> scoring) {}

    @SuppressWarnings("unchecked")
    static Transformations build(TransactionScoring.Spec spec) {
        StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment();
        DataStream<TransactionScore> scores =
                TransactionScoring.apply(
                        env.fromData(INGESTED, arrival(tx("sample", "u", 1, 0), 0, null)), spec);
        var scoring =
                (OneInputTransformation<ArrivalFeatures, TransactionScore>)
                        scores.getTransformation();
        var trailing =
                (OneInputTransformation<IngestedRecord, ArrivalFeatures>)
                        scoring.getInputs().get(0);
        var filter =
                (OneInputTransformation<IngestedRecord, IngestedRecord>)
                        trailing.getInputs().get(0).getInputs().get(0); // under the keyBy
        return new Transformations(filter, trailing, scoring);
    }

    static TransactionScoring.Spec spec(Duration trailing, Duration lateness) {
        return new TransactionScoring.Spec(
                new TestScorer.Factory(),
                trailing,
                lateness,
                64,
                Duration.ofMillis(5),
                ProcessingTimeSource.WALL_CLOCK);
    }

    static TrailingHarness open(TransactionScoring.Spec spec) throws Exception {
        return open(spec, null, null);
    }

    @SuppressWarnings("unchecked")
    static TrailingHarness open(
            TransactionScoring.Spec spec,
            org.apache.flink.runtime.state.StateBackend backend,
            OperatorSubtaskState restore)
            throws Exception {
        Transformations t = build(spec);
        var trailing =
                new KeyedOneInputStreamOperatorTestHarness<>(
                        t.trailing().getOperatorFactory(),
                        (KeySelector<IngestedRecord, String>) t.trailing().getStateKeySelector(),
                        Types.STRING);
        if (backend != null) {
            trailing.setStateBackend(backend);
        }
        trailing.setup(
                TypeInformation.of(ArrivalFeatures.class)
                        .createSerializer(new SerializerConfigImpl()));
        if (restore != null) {
            trailing.initializeState(restore);
        }
        trailing.open();
        OneInputStreamOperatorTestHarness<IngestedRecord, IngestedRecord> filter =
                new OneInputStreamOperatorTestHarness<>(t.filter().getOperatorFactory(), 128, 1, 0);
        filter.setup(INGESTED.createSerializer(new SerializerConfigImpl()));
        filter.open();
        return new TrailingHarness(spec, trailing, filter);
    }

    static Transaction tx(String id, String user, long amount, long eventTime) {
        return tx(id, user, amount, "d1", "m1", "DE", eventTime);
    }

    static Transaction tx(
            String id,
            String user,
            long amount,
            String device,
            String merchant,
            String country,
            long eventTime) {
        return org.fraudpipe.job.features.TestTransactions.tx(
                id, user, amount, device, merchant, country, eventTime);
    }

    /** A valid record as the source ingests it, read at {@code receivedAt}. */
    static IngestedRecord arrival(Transaction tx, long receivedAt, Long recordTimestamp) {
        return IngestedRecord.valid(
                tx,
                new SourcePosition(
                        "transactions",
                        0,
                        receivedAt,
                        recordTimestamp == null
                                ? null
                                : java.time.Instant.ofEpochMilli(recordTimestamp)),
                receivedAt,
                false);
    }

    /** Sends a record through the keyed operator, with its event-time timestamp. */
    void process(IngestedRecord record) throws Exception {
        trailing.processElement(record, record.timestamp());
    }

    void process(Transaction tx) throws Exception {
        process(arrival(tx, tx.getEventTime().toEpochMilli(), null));
    }

    void watermark(long watermark) throws Exception {
        trailing.processWatermark(watermark);
    }

    /** The answers so far, in order. */
    List<ArrivalFeatures> answers() {
        return trailing.extractOutputValues();
    }

    /** The last answer. */
    ArrivalFeatures last() {
        List<ArrivalFeatures> a = answers();
        return a.get(a.size() - 1);
    }

    /**
     * Received transactions in state, over all users, read through the state itself (the same on
     * the heap and in RocksDB).
     */
    int stateEntries() throws Exception {
        int n = 0;
        for (UserReceivedTransactions r : userStates().values()) {
            n += r.held().size();
        }
        return n;
    }

    /** Answered-only entries in state (kept for retries, never counted), over all users. */
    int answeredOnlyEntries() throws Exception {
        int n = 0;
        for (UserReceivedTransactions r : userStates().values()) {
            n += r.answeredOnly().size();
        }
        return n;
    }

    /**
     * Entries kept for retries beyond what the first layout kept (each until its eviction time):
     * answered-only ones, and held ones kept past their eviction time.
     */
    int entriesKeptPastEviction() throws Exception {
        long keep = spec.trailing().toMillis() + spec.allowedLateness().toMillis();
        int n = 0;
        for (UserReceivedTransactions r : userStates().values()) {
            n += r.answeredOnly().size();
            ReceivedEntries held = r.held();
            for (int i = 0; i < held.size(); i++) {
                if (held.keptUntil(i) > held.entry(i).eventTime() + keep) {
                    n++;
                }
            }
        }
        return n;
    }

    /** Every user's per-transaction state, read through the state itself. */
    Map<String, UserReceivedTransactions> userStates() throws Exception {
        KeyedStateBackend<String> backend = backend();
        List<String> keys;
        try (var stream =
                backend.getKeys(TrailingFeatureFunction.USER_STATE, VoidNamespace.INSTANCE)) {
            keys = stream.toList();
        }
        ValueState<UserReceivedTransactions> state =
                backend.getPartitionedState(
                        VoidNamespace.INSTANCE,
                        VoidNamespaceSerializer.INSTANCE,
                        TrailingFeatureFunction.userStateDescriptor());
        Map<String, UserReceivedTransactions> states = new TreeMap<>();
        for (String key : keys) {
            backend.setCurrentKey(key);
            states.put(key, state.value());
        }
        return states;
    }

    /** Users with state of the first layout (its map or its evicted-through value). */
    List<String> firstLayoutUsers() throws Exception {
        List<String> users = new ArrayList<>();
        for (String name :
                List.of(
                        TrailingFeatureFunction.RECEIVED_STATE,
                        TrailingFeatureFunction.EVICTED_THROUGH.getName())) {
            try (var keys = backend().getKeys(name, VoidNamespace.INSTANCE)) {
                keys.forEach(users::add);
            }
        }
        return users;
    }

    /**
     * Rewrites every user's state as a build of the first layout kept it (a map entry per received
     * transaction, {@link TrailingFeatureFunction#RECEIVED_STATE}, and the user's evicted-through
     * value), leaving the timers as they are (both layouts keep one per user at the earliest
     * eviction time): what a restore of that build's savepoint hands this one.
     */
    void rewriteInFirstLayout() throws Exception {
        KeyedStateBackend<String> backend = backend();
        Map<String, UserReceivedTransactions> states = userStates();
        MapState<String, ReceivedTransaction> entries =
                backend.getPartitionedState(
                        VoidNamespace.INSTANCE,
                        VoidNamespaceSerializer.INSTANCE,
                        TrailingFeatureFunction.firstLayoutDescriptor());
        ValueState<Long> evictedThrough =
                backend.getPartitionedState(
                        VoidNamespace.INSTANCE,
                        VoidNamespaceSerializer.INSTANCE,
                        TrailingFeatureFunction.EVICTED_THROUGH);
        ValueState<UserReceivedTransactions> userState =
                backend.getPartitionedState(
                        VoidNamespace.INSTANCE,
                        VoidNamespaceSerializer.INSTANCE,
                        TrailingFeatureFunction.userStateDescriptor());
        if (entriesKeptPastEviction() > 0) {
            throw new IllegalStateException(
                    "the first layout kept no entry past its eviction time, this state does");
        }
        for (var user : states.entrySet()) {
            backend.setCurrentKey(user.getKey());
            UserReceivedTransactions r = user.getValue();
            for (int i = 0; i < r.held().size(); i++) {
                entries.put(r.held().id(i), r.held().entry(i));
            }
            evictedThrough.update(r.evictedThrough());
            userState.clear();
        }
    }

    @SuppressWarnings("unchecked")
    private KeyedStateBackend<String> backend() {
        return (KeyedStateBackend<String>)
                (KeyedStateBackend<?>) trailing.getOperator().getKeyedStateBackend();
    }

    /**
     * Raw keyed state entries of the backend (users with a map on the heap; map entries in
     * RocksDB).
     */
    int rawStateEntries() {
        KeyedStateBackend<?> backend = trailing.getOperator().getKeyedStateBackend();
        return backend instanceof RocksDBKeyedStateBackend<?> rocks
                ? rocks.numKeyValueStateEntries()
                : trailing.numKeyedStateEntries();
    }

    int timers() {
        return trailing.numEventTimeTimers();
    }

    /** Records the filter lets through, in order. */
    List<IngestedRecord> filtered(List<IngestedRecord> records) throws Exception {
        List<IngestedRecord> out = new ArrayList<>();
        int before = filter.extractOutputValues().size();
        for (IngestedRecord r : records) {
            filter.processElement(r, r.timestamp());
        }
        List<IngestedRecord> all = filter.extractOutputValues();
        out.addAll(all.subList(before, all.size()));
        return out;
    }

    TransactionScoring.Spec spec() {
        return spec;
    }

    void close() throws Exception {
        trailing.close();
        filter.close();
    }
}
