package org.fraudpipe.job.window;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.fraudpipe.job.features.TestTransactions.tx;

import java.io.IOException;
import org.apache.flink.api.common.typeutils.TypeSerializer;
import org.apache.flink.api.common.typeutils.TypeSerializerSchemaCompatibility;
import org.apache.flink.api.common.typeutils.TypeSerializerSnapshot;
import org.apache.flink.core.memory.DataInputDeserializer;
import org.apache.flink.core.memory.DataOutputSerializer;
import org.fraudpipe.job.features.FeatureAccumulator;
import org.fraudpipe.job.features.FeatureAccumulatorSerializer;
import org.fraudpipe.schemas.avro.Timing;
import org.junit.jupiter.api.Test;

/** The feature window's state entry: bytes, invariants and the compatibility of its snapshot. */
class WindowPaneSerializerTest {

    private static WindowPane pane(int records) {
        FeatureAccumulator acc = new FeatureAccumulator();
        for (int i = 0; i < records; i++) {
            acc.add(tx("t" + i, "alice", 100 + i, 1_000L * i));
        }
        return new WindowPane(acc);
    }

    private static WindowPane roundTrip(TypeSerializer<WindowPane> serializer, WindowPane pane)
            throws IOException {
        DataOutputSerializer out = new DataOutputSerializer(64);
        serializer.serialize(pane, out);
        return serializer.deserialize(new DataInputDeserializer(out.getCopyOfBuffer()));
    }

    @Test
    void unfiredAndFiredPanesRoundTrip() throws IOException {
        WindowPane unfired = pane(2);
        WindowPane fired = pane(3);
        assertThat(fired.fire(true)).isEqualTo(Timing.ON_TIME);
        fired.accumulator().add(tx("late", "alice", 7, 500));
        assertThat(fired.fire(false)).isEqualTo(Timing.LATE);

        WindowPane unfiredBack = roundTrip(WindowPaneSerializer.INSTANCE, unfired);
        WindowPane firedBack = roundTrip(WindowPaneSerializer.INSTANCE, fired);

        assertThat(unfiredBack).isEqualTo(unfired);
        assertThat(unfiredBack.hasFired()).isFalse();
        assertThat(firedBack).isEqualTo(fired);
        assertThat(firedBack.revision()).isEqualTo(1);
        assertThat(firedBack.recordsSeenOnTime()).isEqualTo(3);
        assertThat(firedBack.lateRecordsIncluded()).isEqualTo(1);
    }

    @Test
    void aFirstPaneCausedByALateRecordCountsEverythingAsLate() {
        WindowPane p = pane(1);
        assertThat(p.fire(false)).isEqualTo(Timing.LATE);
        assertThat(p.revision()).isZero();
        assertThat(p.lateRecordsIncluded()).isEqualTo(1);
    }

    @Test
    void corruptBookkeepingIsRefusedOnRead() {
        DataOutputSerializer out = new DataOutputSerializer(64);
        assertThatThrownBy(
                        () -> {
                            out.writeInt(0);
                            out.writeLong(5); // five records on time ...
                            FeatureAccumulatorSerializer.INSTANCE.serialize(
                                    pane(2).accumulator(), out); // ... of two
                            WindowPaneSerializer.INSTANCE.deserialize(
                                    new DataInputDeserializer(out.getCopyOfBuffer()));
                        })
                .isInstanceOf(IOException.class)
                .hasMessageContaining("5 records on time of 2");
    }

    @Test
    void theSnapshotRestoresTheSerializerAndMigratesAnOlderAccumulatorFormat() throws IOException {
        TypeSerializerSnapshot<WindowPane> current = writeAndRead(WindowPaneSerializer.INSTANCE);
        assertThat(current.restoreSerializer()).isEqualTo(WindowPaneSerializer.INSTANCE);
        assertThat(
                        WindowPaneSerializer.INSTANCE
                                .snapshotConfiguration()
                                .resolveSchemaCompatibility(current)
                                .isCompatibleAsIs())
                .isTrue();

        WindowPaneSerializer formatOne =
                new WindowPaneSerializer(FeatureAccumulatorSerializer.forFormat(1));
        TypeSerializerSnapshot<WindowPane> old = writeAndRead(formatOne);
        TypeSerializerSchemaCompatibility<WindowPane> compatibility =
                WindowPaneSerializer.INSTANCE
                        .snapshotConfiguration()
                        .resolveSchemaCompatibility(old);
        assertThat(compatibility.isCompatibleAfterMigration()).isTrue();
        // Bytes the old format wrote are read by the restored serializer.
        WindowPane p = pane(2);
        assertThat(roundTrip(old.restoreSerializer(), p)).isEqualTo(p);
    }

    private static TypeSerializerSnapshot<WindowPane> writeAndRead(
            TypeSerializer<WindowPane> serializer) throws IOException {
        DataOutputSerializer out = new DataOutputSerializer(64);
        TypeSerializerSnapshot.writeVersionedSnapshot(out, serializer.snapshotConfiguration());
        return TypeSerializerSnapshot.readVersionedSnapshot(
                new DataInputDeserializer(out.getCopyOfBuffer()),
                WindowPaneSerializerTest.class.getClassLoader());
    }
}
