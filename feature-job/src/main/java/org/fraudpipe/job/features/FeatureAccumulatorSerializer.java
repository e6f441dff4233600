package org.fraudpipe.job.features;

import java.io.IOException;
import java.io.ObjectStreamException;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.Map;
import org.apache.flink.api.common.typeutils.SimpleTypeSerializerSnapshot;
import org.apache.flink.api.common.typeutils.TypeSerializer;
import org.apache.flink.api.common.typeutils.TypeSerializerSnapshot;
import org.apache.flink.core.memory.DataInputView;
import org.apache.flink.core.memory.DataOutputView;
import org.apache.flink.types.StringValue;
import org.fraudpipe.job.features.FeatureAccumulator.Contribution;

/**
 * Flink serializer of {@link FeatureAccumulator}: the window state of the feature job, read and
 * written on every record with RocksDB and stored in every checkpoint and savepoint.
 *
 * <p>Formats (no per-field tags or class names; strings in Flink's {@link StringValue} encoding
 * through {@link StringValueCodec}, length varint + chars, null-safe):
 *
 * <ul>
 *   <li><b>1</b> (the first release): {@code recordsSeen} (8 bytes), the number of entries (4
 *       bytes), then per distinct transaction in arrival order: {@code transactionId}, {@code
 *       amountMinor} (8 bytes), {@code deviceId}, {@code merchantId}, {@code country}.
 *   <li><b>2</b>: format 1, then the number of conflicting transaction ids (4 bytes) and each of
 *       them ({@link FeatureAccumulator#conflictingTransactionIds()}).
 *   <li><b>3</b> (current): the bytes of format 2; the number says that the window state holding it
 *       follows the rule of format 3: the on-time firing is not written back ({@code
 *       WindowPane#settleOnTimeFiring}). A build that reads only up to format 2 refuses it at
 *       restore (its snapshot refuses a newer format, naming both), instead of reading a skipped
 *       firing as no firing; this build reads format 2 as it is (what format 2 wrote at an on-time
 *       firing, format 3 reads the same).
 * </ul>
 *
 * <p>Compatibility: the formats are part of the savepoint contract. {@link #INSTANCE} writes the
 * current format; its snapshot, {@link FeatureAccumulatorSerializerSnapshot}, is versioned by the
 * format and asks Flink to migrate state written in an older one (read with {@link #forFormat} of
 * that format, rewritten in the current). Savepoints of the first release carry the snapshot class
 * {@link Snapshot} (format 1), kept for them. A new format means a new version of that snapshot and
 * a reader here; never change a format in place.
 */
public final class FeatureAccumulatorSerializer extends TypeSerializer<FeatureAccumulator> {

    private static final long serialVersionUID = 2L;

    /** The format {@link #INSTANCE} writes. */
    public static final int CURRENT_FORMAT = 3;

    /** The serializer of the current format (stateless, thread-safe). */
    public static final FeatureAccumulatorSerializer INSTANCE =
            new FeatureAccumulatorSerializer(CURRENT_FORMAT);

    /** Reads and writes format 1: for state of the first release (written without conflicts). */
    static final FeatureAccumulatorSerializer FORMAT_1 = new FeatureAccumulatorSerializer(1);

    /** Reads and writes format 2: the bytes of format 3, for state written before it. */
    static final FeatureAccumulatorSerializer FORMAT_2 = new FeatureAccumulatorSerializer(2);

    private final int format;

    private FeatureAccumulatorSerializer(int format) {
        this.format = format;
    }

    /**
     * The serializer of {@code format} (1 to {@link #CURRENT_FORMAT}).
     *
     * @throws IllegalArgumentException for a format this build does not know
     */
    public static FeatureAccumulatorSerializer forFormat(int format) {
        return switch (format) {
            case 1 -> FORMAT_1;
            case 2 -> FORMAT_2;
            case CURRENT_FORMAT -> INSTANCE;
            default ->
                    throw new IllegalArgumentException(
                            "feature accumulator format "
                                    + format
                                    + " is unknown to this build (it reads 1 to "
                                    + CURRENT_FORMAT
                                    + "): restore the state with the build that wrote it or a"
                                    + " newer one");
        };
    }

    /** The format this serializer reads and writes. */
    public int format() {
        return format;
    }

    private Object readResolve() throws ObjectStreamException {
        return forFormat(format);
    }

    @Override
    public boolean isImmutableType() {
        return false;
    }

    @Override
    public TypeSerializer<FeatureAccumulator> duplicate() {
        return this;
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

    /** Format 1 cannot hold conflicts: writing it drops them (only tests write format 1). */
    @Override
    public void serialize(FeatureAccumulator acc, DataOutputView out) throws IOException {
        out.writeLong(acc.recordsSeen());
        out.writeInt(acc.distinctTransactions());
        for (Map.Entry<String, Contribution> e : acc.entries()) {
            Contribution c = e.getValue();
            StringValueCodec.write(e.getKey(), out);
            out.writeLong(c.amountMinor());
            StringValueCodec.write(c.deviceId(), out);
            StringValueCodec.write(c.merchantId(), out);
            StringValueCodec.write(c.country(), out);
        }
        if (format >= 2) {
            out.writeInt(acc.conflictingTransactionIds().size());
            for (String id : acc.conflictingTransactionIds()) {
                StringValueCodec.write(id, out);
            }
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
            String id = StringValueCodec.read(in);
            long amount = in.readLong();
            String device = StringValueCodec.read(in);
            String merchant = StringValueCodec.read(in);
            String country = StringValueCodec.read(in);
            entries.put(id, new Contribution(amount, device, merchant, country));
        }
        LinkedHashSet<String> conflicting = new LinkedHashSet<>();
        if (format >= 2) {
            int m = in.readInt();
            if (m < 0 || m > n) {
                throw new IOException(
                        "corrupt feature accumulator: " + m + " conflicting ids for " + n);
            }
            for (int i = 0; i < m; i++) {
                conflicting.add(StringValueCodec.read(in));
            }
        }
        return FeatureAccumulator.restore(entries, recordsSeen, conflicting);
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
    public boolean equals(Object obj) {
        return obj instanceof FeatureAccumulatorSerializer other && other.format == format;
    }

    @Override
    public int hashCode() {
        return 31 * FeatureAccumulatorSerializer.class.hashCode() + format;
    }

    @Override
    public String toString() {
        return "FeatureAccumulatorSerializer(format " + format + ")";
    }

    @Override
    public TypeSerializerSnapshot<FeatureAccumulator> snapshotConfiguration() {
        return format == 1 ? new Snapshot() : new FeatureAccumulatorSerializerSnapshot(format);
    }

    /**
     * The snapshot of format 1, as savepoints of the first release name it (the class name is in
     * them: never rename or remove it). Restores the format-1 reader; {@link
     * FeatureAccumulatorSerializerSnapshot} tells Flink to migrate such state.
     */
    public static final class Snapshot extends SimpleTypeSerializerSnapshot<FeatureAccumulator> {
        public Snapshot() {
            super(() -> FORMAT_1);
        }
    }
}
