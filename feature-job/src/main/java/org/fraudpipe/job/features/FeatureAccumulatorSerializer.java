package org.fraudpipe.job.features;

import java.io.IOException;
import java.util.LinkedHashMap;
import java.util.Map;
import org.apache.flink.api.common.typeutils.SimpleTypeSerializerSnapshot;
import org.apache.flink.api.common.typeutils.TypeSerializerSnapshot;
import org.apache.flink.api.common.typeutils.base.TypeSerializerSingleton;
import org.apache.flink.core.memory.DataInputView;
import org.apache.flink.core.memory.DataOutputView;
import org.apache.flink.types.StringValue;
import org.fraudpipe.job.features.FeatureAccumulator.Contribution;

/**
 * Flink serializer of {@link FeatureAccumulator}: the window state of the feature job, read and
 * written on every record with RocksDB and stored in every checkpoint.
 *
 * <p>Format (version 1, no per-field tags or class names): {@code recordsSeen} (8 bytes), the
 * number of entries (4 bytes), then per distinct transaction in arrival order: {@code
 * transactionId}, {@code amountMinor} (8 bytes), {@code deviceId}, {@code merchantId}, {@code
 * country}; strings in Flink's {@link StringValue} encoding (length varint + chars, null-safe).
 *
 * <p>Compatibility: the format is part of the savepoint contract. Changing it needs a new snapshot
 * class whose compatibility check reads this format and migrates (COMPATIBLE_AFTER_MIGRATION);
 * never change this class's format in place.
 */
public final class FeatureAccumulatorSerializer
        extends TypeSerializerSingleton<FeatureAccumulator> {

    private static final long serialVersionUID = 1L;

    /** The (stateless, thread-safe) instance. */
    public static final FeatureAccumulatorSerializer INSTANCE = new FeatureAccumulatorSerializer();

    private FeatureAccumulatorSerializer() {}

    private Object readResolve() {
        return INSTANCE;
    }

    @Override
    public boolean isImmutableType() {
        return false;
    }

    @Override
    public FeatureAccumulator createInstance() {
        return new FeatureAccumulator();
    }

    @Override
    public FeatureAccumulator copy(FeatureAccumulator from) {
        return from.copy();
    }

    @Override
    public FeatureAccumulator copy(FeatureAccumulator from, FeatureAccumulator reuse) {
        return from.copy();
    }

    @Override
    public int getLength() {
        return -1;
    }

    @Override
    public void serialize(FeatureAccumulator acc, DataOutputView out) throws IOException {
        out.writeLong(acc.recordsSeen());
        out.writeInt(acc.distinctTransactions());
        for (Map.Entry<String, Contribution> e : acc.entries()) {
            Contribution c = e.getValue();
            StringValue.writeString(e.getKey(), out);
            out.writeLong(c.amountMinor());
            StringValue.writeString(c.deviceId(), out);
            StringValue.writeString(c.merchantId(), out);
            StringValue.writeString(c.country(), out);
        }
    }

    @Override
    public FeatureAccumulator deserialize(DataInputView in) throws IOException {
        long recordsSeen = in.readLong();
        int n = in.readInt();
        if (n < 0) {
            throw new IOException("corrupt feature accumulator: negative entry count " + n);
        }
        LinkedHashMap<String, Contribution> entries = new LinkedHashMap<>(Math.max(4, n * 2));
        for (int i = 0; i < n; i++) {
            String id = StringValue.readString(in);
            long amount = in.readLong();
            String device = StringValue.readString(in);
            String merchant = StringValue.readString(in);
            String country = StringValue.readString(in);
            entries.put(id, new Contribution(amount, device, merchant, country));
        }
        return FeatureAccumulator.restore(entries, recordsSeen);
    }

    @Override
    public FeatureAccumulator deserialize(FeatureAccumulator reuse, DataInputView in)
            throws IOException {
        return deserialize(in);
    }

    @Override
    public void copy(DataInputView source, DataOutputView target) throws IOException {
        serialize(deserialize(source), target);
    }

    @Override
    public TypeSerializerSnapshot<FeatureAccumulator> snapshotConfiguration() {
        return new Snapshot();
    }

    /** Snapshot of the version-1 format; restores {@link #INSTANCE}. */
    public static final class Snapshot extends SimpleTypeSerializerSnapshot<FeatureAccumulator> {
        public Snapshot() {
            super(() -> INSTANCE);
        }
    }
}
