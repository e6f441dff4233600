package org.fraudpipe.job.features;

import static org.assertj.core.api.Assertions.assertThat;
import static org.fraudpipe.job.features.TestTransactions.tx;

import org.apache.flink.api.common.serialization.SerializerConfigImpl;
import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.api.common.typeutils.TypeSerializerSchemaCompatibility;
import org.apache.flink.api.common.typeutils.TypeSerializerSnapshot;
import org.apache.flink.core.memory.DataInputDeserializer;
import org.apache.flink.core.memory.DataOutputSerializer;
import org.apache.flink.util.InstantiationUtil;
import org.junit.jupiter.api.Test;

class FeatureAccumulatorSerializerTest {

    private final FeatureAccumulatorSerializer serializer = FeatureAccumulatorSerializer.INSTANCE;

    private static FeatureAccumulator sample() {
        FeatureAccumulator acc = new FeatureAccumulator();
        acc.add(tx("tx-1", "u", 100, "dev-1", "m-1", "DE", 0));
        acc.add(tx("tx-2", "u", 250, "dev-ü", "m-2", "FR", 1));
        acc.add(tx("tx-1", "u", 999, "dev-9", "m-9", "US", 2));
        return acc;
    }

    private FeatureAccumulator roundTrip(FeatureAccumulator acc) throws Exception {
        DataOutputSerializer out = new DataOutputSerializer(64);
        serializer.serialize(acc, out);
        return serializer.deserialize(new DataInputDeserializer(out.getCopyOfBuffer()));
    }

    @Test
    void roundTripKeepsEntriesAndRecordsSeen() throws Exception {
        FeatureAccumulator acc = sample();

        FeatureAccumulator back = roundTrip(acc);

        assertThat(back).isEqualTo(acc);
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
        // + 4 length bytes)
        assertThat(out.length()).isBetween(60, 70);
    }

    @Test
    void flinkTypeExtractionUsesTheExplicitSerializer() {
        TypeInformation<FeatureAccumulator> type = TypeInformation.of(FeatureAccumulator.class);

        assertThat(type).isEqualTo(FeatureAccumulatorTypeInfo.INSTANCE);
        assertThat(type.createSerializer(new SerializerConfigImpl())).isSameAs(serializer);
    }

    @Test
    void snapshotRestoresACompatibleSerializer() throws Exception {
        TypeSerializerSnapshot<FeatureAccumulator> snapshot = serializer.snapshotConfiguration();
        DataOutputSerializer out = new DataOutputSerializer(64);
        TypeSerializerSnapshot.writeVersionedSnapshot(out, snapshot);
        TypeSerializerSnapshot<FeatureAccumulator> restored =
                TypeSerializerSnapshot.readVersionedSnapshot(
                        new DataInputDeserializer(out.getCopyOfBuffer()),
                        getClass().getClassLoader());

        TypeSerializerSchemaCompatibility<FeatureAccumulator> compatibility =
                serializer.snapshotConfiguration().resolveSchemaCompatibility(restored);

        assertThat(compatibility.isCompatibleAsIs()).isTrue();
        assertThat(restored.restoreSerializer()).isSameAs(serializer);
    }

    @Test
    void javaSerializationKeepsTheSingleton() throws Exception {
        byte[] bytes = InstantiationUtil.serializeObject(serializer);

        Object back = InstantiationUtil.deserializeObject(bytes, getClass().getClassLoader());

        assertThat(back).isSameAs(serializer);
    }
}
