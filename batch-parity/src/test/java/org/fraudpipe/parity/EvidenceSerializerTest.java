package org.fraudpipe.parity;

import static org.assertj.core.api.Assertions.assertThat;
import static org.fraudpipe.parity.ParityFixtures.W;

import java.io.IOException;
import java.util.List;
import org.apache.flink.api.common.serialization.SerializerConfigImpl;
import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.api.common.typeutils.TypeSerializer;
import org.apache.flink.core.memory.DataInputDeserializer;
import org.apache.flink.core.memory.DataOutputSerializer;
import org.fraudpipe.schemas.avro.ArchivedTransaction;
import org.fraudpipe.schemas.avro.LateReason;
import org.fraudpipe.schemas.avro.Transaction;
import org.junit.jupiter.api.Test;

/** Every kind of evidence survives a sort's round trip through {@link EvidenceSerializer}. */
class EvidenceSerializerTest {

    private static List<Evidence> samples() {
        Transaction tx = ParityFixtures.tx("t-1", "u-\u00fc1", W.plusSeconds(5), 1_250, "d-1");
        ArchivedTransaction archived = ParityFixtures.archived(tx, 42, W.plusSeconds(6));
        Evidence label = Evidence.label("u-\u00fc1", "t-1", true);
        Evidence bare = new Evidence(); // every reference null
        return List.of(
                Evidence.ideal(ParityFixtures.idealOf(List.of(archived))),
                Evidence.served(ParityFixtures.servedOf(List.of(tx), 2)),
                Evidence.kafkaServed(ParityFixtures.servedOf(List.of(tx), 0), 1, 9_000L),
                Evidence.archived(archived, W.toEpochMilli()),
                Evidence.archived(
                        archived, W.toEpochMilli(), W.toEpochMilli() - 1, "caveat \u20ac"),
                Evidence.late(ParityFixtures.late(tx, LateReason.TOO_LATE, 61_000)),
                Evidence.deadLetter(ParityFixtures.deadLetter(7), "u-1", W.toEpochMilli()),
                label,
                bare);
    }

    @Test
    void everyKindRoundTripsAndCopies() throws IOException {
        TypeSerializer<Evidence> serializer = new EvidenceSerializer();
        DataOutputSerializer out = new DataOutputSerializer(256);
        for (Evidence e : samples()) {
            serializer.serialize(e, out);
        }
        DataInputDeserializer in = new DataInputDeserializer(out.getCopyOfBuffer());
        TypeSerializer<Evidence> reader = serializer.duplicate();
        for (Evidence e : samples()) {
            Evidence back = reader.deserialize(in);
            assertThat(back).usingRecursiveComparison().isEqualTo(e);
            assertThat(serializer.copy(e)).usingRecursiveComparison().isEqualTo(e);
        }
        assertThat(in.available()).isZero();
    }

    @Test
    void copyMovesOneRecordsBytesAsTheyAre() throws IOException {
        // A sort spills by copying records one after another out of its buffers: each copy must
        // take exactly one record's bytes, unchanged, and leave the next one to read.
        TypeSerializer<Evidence> serializer = new EvidenceSerializer();
        List<Evidence> samples = samples();
        DataOutputSerializer written = new DataOutputSerializer(256);
        for (Evidence e : samples) {
            serializer.serialize(e, written);
        }
        DataInputDeserializer source = new DataInputDeserializer(written.getCopyOfBuffer());
        // (sized up front: this test view, unlike a sort's paged views, cannot grow on a copy)
        DataOutputSerializer copied = new DataOutputSerializer(written.length());
        for (int i = 0; i < samples.size(); i++) {
            serializer.duplicate().copy(source, copied);
        }
        assertThat(source.available()).isZero();
        assertThat(copied.getCopyOfBuffer()).isEqualTo(written.getCopyOfBuffer());
        DataInputDeserializer back = new DataInputDeserializer(copied.getCopyOfBuffer());
        for (Evidence e : samples) {
            assertThat(serializer.deserialize(back)).usingRecursiveComparison().isEqualTo(e);
        }
    }

    @Test
    void flinkUsesItForEvidenceNotThePojoSerializer() {
        TypeInformation<Evidence> info = TypeInformation.of(Evidence.class);
        assertThat(info).isInstanceOf(EvidenceSerializer.EvidenceTypeInfo.class);
        assertThat(info.createSerializer(new SerializerConfigImpl()))
                .isInstanceOf(EvidenceSerializer.class);
    }
}
