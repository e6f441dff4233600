package org.fraudpipe.job.features;

import java.io.IOException;
import org.apache.flink.api.common.typeutils.TypeSerializer;
import org.apache.flink.api.common.typeutils.TypeSerializerSchemaCompatibility;
import org.apache.flink.api.common.typeutils.TypeSerializerSnapshot;
import org.apache.flink.core.memory.DataInputView;
import org.apache.flink.core.memory.DataOutputView;

/**
 * The versioned snapshot of {@link FeatureAccumulatorSerializer}: its version is the accumulator's
 * serialization format (2 onwards; format 1 was written under {@link
 * FeatureAccumulatorSerializer.Snapshot}), so a checkpoint or savepoint records which format its
 * window state is in, and a later build knows how to read it.
 *
 * <p>Compatibility, as the current build decides it for state written by an earlier one:
 *
 * <ul>
 *   <li>same format, or format 2 under format 3 (the same bytes): compatible as is;
 *   <li>an older format (this snapshot with a lower version, or the first release's {@link
 *       FeatureAccumulatorSerializer.Snapshot}): compatible after migration: Flink reads the state
 *       with {@link FeatureAccumulatorSerializer#forFormat} of the old format and writes it in the
 *       current one (RocksDB migrates on restore; new fields take their empty value);
 *   <li>anything else (a newer format, another serializer): incompatible, and the restore fails
 *       rather than misread the bytes.
 * </ul>
 */
public final class FeatureAccumulatorSerializerSnapshot
        implements TypeSerializerSnapshot<FeatureAccumulator> {

    private int format;

    /** For Flink, which instantiates snapshots to read them (then {@link #readSnapshot}). */
    public FeatureAccumulatorSerializerSnapshot() {
        this(FeatureAccumulatorSerializer.CURRENT_FORMAT);
    }

    FeatureAccumulatorSerializerSnapshot(int format) {
        this.format = format;
    }

    /** The format of the state this snapshot describes. */
    public int format() {
        return format;
    }

    @Override
    public int getCurrentVersion() {
        return format;
    }

    @Override
    public void writeSnapshot(DataOutputView out) {
        // The version is the format; there are no parameters.
    }

    @Override
    public void readSnapshot(int readVersion, DataInputView in, ClassLoader userCodeClassLoader)
            throws IOException {
        if (readVersion < 2 || readVersion > FeatureAccumulatorSerializer.CURRENT_FORMAT) {
            throw new IOException(
                    "feature accumulator state in format "
                            + readVersion
                            + ", which this build cannot read (it reads up to format "
                            + FeatureAccumulatorSerializer.CURRENT_FORMAT
                            + "): restore it with the build that wrote it or a newer one");
        }
        format = readVersion;
    }

    @Override
    public TypeSerializer<FeatureAccumulator> restoreSerializer() {
        return FeatureAccumulatorSerializer.forFormat(format);
    }

    @Override
    public TypeSerializerSchemaCompatibility<FeatureAccumulator> resolveSchemaCompatibility(
            TypeSerializerSnapshot<FeatureAccumulator> oldSnapshot) {
        int oldFormat;
        if (oldSnapshot instanceof FeatureAccumulatorSerializerSnapshot versioned) {
            oldFormat = versioned.format;
        } else if (oldSnapshot instanceof FeatureAccumulatorSerializer.Snapshot) {
            oldFormat = 1;
        } else {
            return TypeSerializerSchemaCompatibility.incompatible();
        }
        // Formats 2 and 3 are the same bytes (format 3 says how the window pane around it is
        // kept, and reads format 2's panes as they are): no migration between them.
        if (oldFormat == format || (oldFormat == 2 && format == 3)) {
            return TypeSerializerSchemaCompatibility.compatibleAsIs();
        }
        return oldFormat < format
                ? TypeSerializerSchemaCompatibility.compatibleAfterMigration()
                : TypeSerializerSchemaCompatibility.incompatible();
    }
}
