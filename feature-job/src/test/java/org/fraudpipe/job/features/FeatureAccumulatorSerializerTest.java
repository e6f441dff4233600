package org.fraudpipe.job.features;

import static org.assertj.core.api.Assertions.assertThat;
import static org.fraudpipe.job.features.TestTransactions.tx;

import java.io.IOException;
import java.util.HexFormat;
import org.apache.flink.api.common.serialization.SerializerConfigImpl;
import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.api.common.typeutils.TypeSerializer;
import org.apache.flink.api.common.typeutils.TypeSerializerSchemaCompatibility;
import org.apache.flink.api.common.typeutils.TypeSerializerSnapshot;
import org.apache.flink.api.common.typeutils.base.StringSerializer;
import org.apache.flink.core.memory.DataInputDeserializer;
import org.apache.flink.core.memory.DataOutputSerializer;
import org.apache.flink.util.InstantiationUtil;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

class FeatureAccumulatorSerializerTest {

    /**
     * {@link #sample()} as the first release's serializer wrote it (format 1), taken from that
     * build: the bytes in every savepoint of it.
     */
    private static final String SAMPLE_FORMAT_1 =
            "0000000000000003000000020574782d310000000000000064066465762d31046d2d310344450574782d32"
                    + "00000000000000fa066465762dfc01046d2d32034652";

    /**
     * The serializer snapshot the first release wrote next to its window state: the class name
     * {@code FeatureAccumulatorSerializer$Snapshot} and version 3 (of Flink's
     * SimpleTypeSerializerSnapshot), no parameters.
     */
    private static final String SNAPSHOT_OF_FORMAT_1 =
            "00406f72672e6672617564706970652e6a6f622e66656174757265732e46656174757265416363756d75"
                    + "6c61746f7253657269616c697a657224536e617073686f7400000003";

    private final FeatureAccumulatorSerializer serializer = FeatureAccumulatorSerializer.INSTANCE;

    private static FeatureAccumulator sample() {
        FeatureAccumulator acc = new FeatureAccumulator();
        acc.add(tx("tx-1", "u", 100, "dev-1", "m-1", "DE", 0));
        acc.add(tx("tx-2", "u", 250, "dev-ü", "m-2", "FR", 1));
        acc.add(tx("tx-1", "u", 999, "dev-9", "m-9", "US", 2));
        return acc;
    }

    private FeatureAccumulator roundTrip(FeatureAccumulator acc) throws Exception {
        return serializer.deserialize(new DataInputDeserializer(bytes(serializer, acc)));
    }

    private static byte[] bytes(TypeSerializer<FeatureAccumulator> s, FeatureAccumulator acc)
            throws IOException {
        DataOutputSerializer out = new DataOutputSerializer(64);
        s.serialize(acc, out);
        return out.getCopyOfBuffer();
    }

    private static TypeSerializerSnapshot<FeatureAccumulator> readSnapshot(byte[] written)
            throws IOException {
        return TypeSerializerSnapshot.readVersionedSnapshot(
                new DataInputDeserializer(written),
                FeatureAccumulatorSerializerTest.class.getClassLoader());
    }

    private static byte[] written(TypeSerializerSnapshot<?> snapshot) throws IOException {
        DataOutputSerializer out = new DataOutputSerializer(64);
        TypeSerializerSnapshot.writeVersionedSnapshot(out, snapshot);
        return out.getCopyOfBuffer();
    }

    @Test
    void roundTripKeepsEntriesRecordsSeenAndConflicts() throws Exception {
        FeatureAccumulator acc = sample();

        FeatureAccumulator back = roundTrip(acc);

        assertThat(back).isEqualTo(acc);
        assertThat(back.conflictingTransactionIds()).containsExactly("tx-1");
        assertThat(back.toValues()).isEqualTo(acc.toValues());
        assertThat(roundTrip(new FeatureAccumulator())).isEqualTo(new FeatureAccumulator());
    }

    @Test
    void roundTripKeepsArrivalOrderSoFirstPayloadStillWinsInLaterMerges() throws Exception {
        FeatureAccumulator back = roundTrip(sample());
        FeatureAccumulator later = new FeatureAccumulator();
        later.add(tx("tx-2", "u", 1, "dev-x", "m-x", "XX", 3));

        assertThat(back.mergeFrom(later).toValues().amountSum()).isEqualTo(350);
    }

    @Test
    void copyIsIndependentOfTheOriginal() {
        FeatureAccumulator acc = sample();
        FeatureAccumulator copy = serializer.copy(acc);

        acc.add(tx("tx-3", "u", 1, 3));

        assertThat(copy.distinctTransactions()).isEqualTo(2);
        assertThat(copy.recordsSeen()).isEqualTo(3);
    }

    @Test
    void serializedSizeIsAboutTheStringsPlusTwelveBytesPerTransaction() throws Exception {
        DataOutputSerializer out = new DataOutputSerializer(64);
        serializer.serialize(sample(), out);

        // 12 header + 2 x (5 id + 8 amount + 5 device(+1 for the umlaut) + 3 merchant + 2 country
        // + 4 length bytes) + 4 conflict count + the conflicting id (5 + 1 length byte)
        assertThat(out.length()).isBetween(70, 80);
    }

    @Test
    void flinkTypeExtractionUsesTheExplicitSerializer() {
        TypeInformation<FeatureAccumulator> type = TypeInformation.of(FeatureAccumulator.class);

        assertThat(type).isEqualTo(FeatureAccumulatorTypeInfo.INSTANCE);
        assertThat(type.createSerializer(new SerializerConfigImpl())).isSameAs(serializer);
    }

    @Test
    void snapshotOfTheCurrentFormatRestoresTheSameSerializer() throws Exception {
        TypeSerializerSnapshot<FeatureAccumulator> restored =
                readSnapshot(written(serializer.snapshotConfiguration()));

        TypeSerializerSchemaCompatibility<FeatureAccumulator> compatibility =
                serializer.snapshotConfiguration().resolveSchemaCompatibility(restored);

        assertThat(restored).isInstanceOf(FeatureAccumulatorSerializerSnapshot.class);
        assertThat(restored.getCurrentVersion())
                .isEqualTo(FeatureAccumulatorSerializer.CURRENT_FORMAT);
        assertThat(compatibility.isCompatibleAsIs()).isTrue();
        assertThat(restored.restoreSerializer()).isSameAs(serializer);
    }

    @Test
    void formatOneWritesExactlyWhatTheFirstReleaseWrote() throws Exception {
        FeatureAccumulatorSerializer formatOne = FeatureAccumulatorSerializer.forFormat(1);

        assertThat(HexFormat.of().formatHex(bytes(formatOne, sample()))).isEqualTo(SAMPLE_FORMAT_1);
        assertThat(HexFormat.of().formatHex(written(formatOne.snapshotConfiguration())))
                .isEqualTo(SNAPSHOT_OF_FORMAT_1);
    }

    @Test
    @DisplayName(
            "#7.11 state of the first release (format 1) is migrated: read with the old format,"
                    + " entries and records seen kept, no conflicts known yet")
    void stateOfTheFirstReleaseIsMigratedToTheCurrentFormat() throws Exception {
        TypeSerializerSnapshot<FeatureAccumulator> old =
                readSnapshot(HexFormat.of().parseHex(SNAPSHOT_OF_FORMAT_1));

        TypeSerializerSchemaCompatibility<FeatureAccumulator> compatibility =
                serializer.snapshotConfiguration().resolveSchemaCompatibility(old);
        assertThat(compatibility.isCompatibleAfterMigration()).isTrue();

        // What Flink does to migrate: read with the old snapshot's serializer, write with ours.
        FeatureAccumulator migrated =
                old.restoreSerializer()
                        .deserialize(
                                new DataInputDeserializer(
                                        HexFormat.of().parseHex(SAMPLE_FORMAT_1)));
        FeatureAccumulator back = roundTrip(migrated);

        FeatureAccumulator expected = sample();
        assertThat(back.toValues()).isEqualTo(expected.toValues());
        assertThat(back.recordsSeen()).isEqualTo(3);
        assertThat(back.conflictingTransactionIds()).isEmpty();
        // A conflict after the migration is recorded.
        back.add(tx("tx-2", "u", 1, "dev-x", "m-x", "XX", 3));
        assertThat(roundTrip(back).conflictingTransactionIds()).containsExactly("tx-2");
    }

    /**
     * The guard a build of format 2 applies to this build's format 3 (the same code, one format
     * lower): the restore fails, naming both formats, instead of reading a skipped on-time firing
     * as no firing.
     */
    @Test
    void stateOfAnUnknownNewerFormatIsRefusedNamingIt() throws Exception {
        byte[] fromTheFuture = written(new FeatureAccumulatorSerializerSnapshot());
        // the version is the last int of the versioned snapshot: pretend the next format
        int next = FeatureAccumulatorSerializer.CURRENT_FORMAT + 1;
        fromTheFuture[fromTheFuture.length - 1] = (byte) next;

        org.assertj.core.api.Assertions.assertThatThrownBy(() -> readSnapshot(fromTheFuture))
                .hasStackTraceContaining("format " + next)
                .hasStackTraceContaining(
                        "reads up to format " + FeatureAccumulatorSerializer.CURRENT_FORMAT);
    }

    @Test
    void stateOfFormatTwoRestoresAsItIsTheSameBytes() throws Exception {
        byte[] snapshotOfTwo = written(new FeatureAccumulatorSerializerSnapshot(2));
        TypeSerializerSnapshot<FeatureAccumulator> two = readSnapshot(snapshotOfTwo);
        assertThat(
                        serializer
                                .snapshotConfiguration()
                                .resolveSchemaCompatibility(two)
                                .isCompatibleAsIs())
                .as("no migration from format 2 to 3")
                .isTrue();
        FeatureAccumulator a = sample();
        a.add(tx("tx-2", "u", 1, "dev-x", "m-x", "XX", 3)); // a conflict: format 2's part
        assertThat(bytes(FeatureAccumulatorSerializer.forFormat(2), a))
                .isEqualTo(bytes(FeatureAccumulatorSerializer.INSTANCE, a));
    }

    @Test
    @SuppressWarnings({"unchecked", "rawtypes"})
    void stateOfAnotherSerializerIsIncompatible() {
        assertThat(
                        serializer
                                .snapshotConfiguration()
                                .resolveSchemaCompatibility(
                                        (TypeSerializerSnapshot)
                                                StringSerializer.INSTANCE.snapshotConfiguration())
                                .isIncompatible())
                .isTrue();
    }

    @Test
    void javaSerializationKeepsTheInstancePerFormat() throws Exception {
        for (FeatureAccumulatorSerializer s :
                new FeatureAccumulatorSerializer[] {
                    serializer, FeatureAccumulatorSerializer.forFormat(1)
                }) {
            byte[] bytes = InstantiationUtil.serializeObject(s);

            Object back = InstantiationUtil.deserializeObject(bytes, getClass().getClassLoader());

            assertThat(back).isSameAs(s);
        }
    }
}
