package org.fraudpipe.job.window;

import java.io.IOException;
import org.apache.flink.api.common.typeutils.CompositeTypeSerializerSnapshot;
import org.apache.flink.api.common.typeutils.TypeSerializer;
import org.apache.flink.api.common.typeutils.TypeSerializerSnapshot;
import org.apache.flink.core.memory.DataInputView;
import org.apache.flink.core.memory.DataOutputView;
import org.fraudpipe.job.features.FeatureAccumulator;
import org.fraudpipe.job.features.FeatureAccumulatorSerializer;

/**
 * Flink serializer of {@link WindowPane}, the feature window's one state entry per user and window:
 * {@code revision} (4 bytes), {@code recordsSeenOnTime} (8 bytes), then the accumulator in its own
 * serializer's format ({@link FeatureAccumulatorSerializer}).
 *
 * <p>Compatibility: its snapshot ({@link Snapshot}) is a composite of the accumulator serializer's,
 * so a change of the accumulator's format migrates through it; a change of this class's own layout
 * needs a new snapshot version and a reader of the old one.
 */
public final class WindowPaneSerializer extends TypeSerializer<WindowPane> {

    private static final long serialVersionUID = 1L;

    /** The serializer with the current accumulator format. */
    public static final WindowPaneSerializer INSTANCE =
            new WindowPaneSerializer(FeatureAccumulatorSerializer.INSTANCE);

    private final TypeSerializer<FeatureAccumulator> accumulators;

    WindowPaneSerializer(TypeSerializer<FeatureAccumulator> accumulators) {
        this.accumulators = accumulators;
    }

    @Override
    public boolean isImmutableType() {
        return false;
    }

    @Override
    public TypeSerializer<WindowPane> duplicate() {
        TypeSerializer<FeatureAccumulator> duplicated = accumulators.duplicate();
        return duplicated == accumulators ? this : new WindowPaneSerializer(duplicated);
    }

    @Override
    public WindowPane createInstance() {
        return new WindowPane();
    }

    @Override
    public WindowPane copy(WindowPane from) {
        return from.copy();
    }

    @Override
    public WindowPane copy(WindowPane from, WindowPane reuse) {
        return from.copy();
    }

    @Override
    public int getLength() {
        return -1;
    }

    @Override
    public void serialize(WindowPane pane, DataOutputView out) throws IOException {
        out.writeInt(pane.revision());
        out.writeLong(pane.recordsSeenOnTime());
        accumulators.serialize(pane.accumulator(), out);
    }

    @Override
    public WindowPane deserialize(DataInputView in) throws IOException {
        int revision = in.readInt();
        long recordsSeenOnTime = in.readLong();
        FeatureAccumulator accumulator = accumulators.deserialize(in);
        try {
            return WindowPane.restore(accumulator, revision, recordsSeenOnTime);
        } catch (IllegalArgumentException e) {
            throw new IOException(e.getMessage(), e);
        }
    }

    @Override
    public WindowPane deserialize(WindowPane reuse, DataInputView in) throws IOException {
        return deserialize(in);
    }

    @Override
    public void copy(DataInputView source, DataOutputView target) throws IOException {
        target.writeInt(source.readInt());
        target.writeLong(source.readLong());
        accumulators.copy(source, target);
    }

    @Override
    public boolean equals(Object obj) {
        return obj instanceof WindowPaneSerializer other && other.accumulators.equals(accumulators);
    }

    @Override
    public int hashCode() {
        return 31 * WindowPaneSerializer.class.hashCode() + accumulators.hashCode();
    }

    @Override
    public String toString() {
        return "WindowPaneSerializer(" + accumulators + ")";
    }

    @Override
    public TypeSerializerSnapshot<WindowPane> snapshotConfiguration() {
        return new Snapshot(this);
    }

    /**
     * The snapshot, with the accumulator serializer's nested (whose format, 3, says that the
     * on-time firing is not written back: {@link WindowPane#settleOnTimeFiring}). Versions: 1, this
     * layout; 2, the same layout under format 3's rule. A build that knows only version 1 reads
     * version 2 without looking, which is why the rule is guarded by the accumulator's format,
     * which every build checks; from version 2 on this snapshot refuses a newer version itself,
     * naming both.
     */
    public static final class Snapshot
            extends CompositeTypeSerializerSnapshot<WindowPane, WindowPaneSerializer> {

        private static final int VERSION = 2;

        /** For Flink, which instantiates snapshots to read them. */
        public Snapshot() {}

        Snapshot(WindowPaneSerializer serializer) {
            super(serializer);
        }

        @Override
        protected int getCurrentOuterSnapshotVersion() {
            return VERSION;
        }

        @Override
        protected void readOuterSnapshot(
                int readOuterSnapshotVersion, DataInputView in, ClassLoader userCodeClassLoader)
                throws IOException {
            if (readOuterSnapshotVersion > VERSION) {
                throw new IOException(
                        "window pane state of snapshot version "
                                + readOuterSnapshotVersion
                                + ", which this build cannot read (it reads up to version "
                                + VERSION
                                + "): restore it with the build that wrote it or a newer one");
            }
        }

        @Override
        protected TypeSerializer<?>[] getNestedSerializers(WindowPaneSerializer outer) {
            return new TypeSerializer<?>[] {outer.accumulators};
        }

        @Override
        @SuppressWarnings("unchecked")
        protected WindowPaneSerializer createOuterSerializerWithNestedSerializers(
                TypeSerializer<?>[] nested) {
            return new WindowPaneSerializer((TypeSerializer<FeatureAccumulator>) nested[0]);
        }
    }
}
