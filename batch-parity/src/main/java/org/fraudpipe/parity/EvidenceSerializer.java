package org.fraudpipe.parity;

import java.io.IOException;
import java.lang.reflect.Type;
import java.util.Map;
import org.apache.flink.api.common.serialization.SerializerConfig;
import org.apache.flink.api.common.typeinfo.TypeInfoFactory;
import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.api.common.typeutils.CompositeTypeSerializerSnapshot;
import org.apache.flink.api.common.typeutils.TypeSerializer;
import org.apache.flink.api.common.typeutils.TypeSerializerSnapshot;
import org.apache.flink.core.memory.DataInputView;
import org.apache.flink.core.memory.DataOutputSerializer;
import org.apache.flink.core.memory.DataOutputView;
import org.apache.flink.formats.avro.typeutils.AvroSerializer;
import org.fraudpipe.job.features.StringValueCodec;
import org.fraudpipe.job.io.SerializerTypeInfo;
import org.fraudpipe.schemas.avro.ArchivedTransaction;
import org.fraudpipe.schemas.avro.DeadLetter;
import org.fraudpipe.schemas.avro.FeatureRecord;
import org.fraudpipe.schemas.avro.LateRecord;
import org.fraudpipe.schemas.avro.ScoreRecord;
import org.fraudpipe.schemas.avro.TransactionScore;

/**
 * Flink serializer of {@link Evidence}, the record parity's BATCH sorts move (serialized into the
 * sort buffers, spilled, merged, read back): the scalar fields, then only the Avro record the
 * evidence carries, each through Flink's {@link AvroSerializer} of its class.
 *
 * <p>Why not Flink's {@code PojoSerializer}: to deserialize a POJO it first creates an instance of
 * every field's type, so every evidence read back from a sort built six Avro records by reflection
 * (one per payload field, five of them null a moment later). Parity runs in BATCH and keeps no
 * savepoint, so the format is free to change with the build; nothing outside parity reads it.
 *
 * <p>The form is length-prefixed (an int, then the body) so that {@link #copy(DataInputView,
 * DataOutputView)}, which a sort calls for every record it spills, moves bytes instead of
 * deserializing and serializing the record. Not thread-safe (a reused buffer): Flink duplicates a
 * serializer per thread ({@link #duplicate()}).
 */
public final class EvidenceSerializer extends TypeSerializer<Evidence> {

    private static final long serialVersionUID = 1L;

    private static final Evidence.Kind[] KINDS = Evidence.Kind.values();

    private static final int FEATURES = 1;
    private static final int SCORE = 1 << 1;
    private static final int ARCHIVED = 1 << 2;
    private static final int LATE = 1 << 3;
    private static final int DEAD_LETTER = 1 << 4;
    private static final int TRANSACTION_SCORE = 1 << 5;
    private static final int USER_ID = 1 << 6;
    private static final int LABELLED_ID = 1 << 7;
    private static final int BOUND_CAVEAT = 1 << 8;
    private static final int KIND = 1 << 9;

    private final AvroSerializer<FeatureRecord> features;
    private final AvroSerializer<ScoreRecord> scores;
    private final AvroSerializer<ArchivedTransaction> archived;
    private final AvroSerializer<LateRecord> late;
    private final AvroSerializer<DeadLetter> deadLetters;
    private final AvroSerializer<TransactionScore> transactionScores;

    /** The body of the record being serialized, to write its length first. */
    private transient DataOutputSerializer body;

    /** A serializer with fresh Avro serializers. */
    public EvidenceSerializer() {
        this(
                new AvroSerializer<>(FeatureRecord.class),
                new AvroSerializer<>(ScoreRecord.class),
                new AvroSerializer<>(ArchivedTransaction.class),
                new AvroSerializer<>(LateRecord.class),
                new AvroSerializer<>(DeadLetter.class),
                new AvroSerializer<>(TransactionScore.class));
    }

    private EvidenceSerializer(
            AvroSerializer<FeatureRecord> features,
            AvroSerializer<ScoreRecord> scores,
            AvroSerializer<ArchivedTransaction> archived,
            AvroSerializer<LateRecord> late,
            AvroSerializer<DeadLetter> deadLetters,
            AvroSerializer<TransactionScore> transactionScores) {
        this.features = features;
        this.scores = scores;
        this.archived = archived;
        this.late = late;
        this.deadLetters = deadLetters;
        this.transactionScores = transactionScores;
    }

    @SuppressWarnings("unchecked")
    private static <T> AvroSerializer<T> dup(AvroSerializer<T> s) {
        return (AvroSerializer<T>) s.duplicate();
    }

    @Override
    public boolean isImmutableType() {
        return false;
    }

    /** Avro serializers are not thread-safe: a duplicate gets its own. */
    @Override
    public TypeSerializer<Evidence> duplicate() {
        return new EvidenceSerializer(
                dup(features),
                dup(scores),
                dup(archived),
                dup(late),
                dup(deadLetters),
                dup(transactionScores));
    }

    @Override
    public Evidence createInstance() {
        return new Evidence();
    }

    @Override
    public Evidence copy(Evidence from) {
        Evidence e = new Evidence();
        e.kind = from.kind;
        e.userId = from.userId;
        e.windowStart = from.windowStart;
        e.features = from.features == null ? null : features.copy(from.features);
        e.score = from.score == null ? null : scores.copy(from.score);
        e.archived = from.archived == null ? null : archived.copy(from.archived);
        e.late = from.late == null ? null : late.copy(from.late);
        e.deadLetter = from.deadLetter == null ? null : deadLetters.copy(from.deadLetter);
        e.transactionScore =
                from.transactionScore == null
                        ? null
                        : transactionScores.copy(from.transactionScore);
        e.labelledTransactionId = from.labelledTransactionId;
        e.fraud = from.fraud;
        e.kafkaPartition = from.kafkaPartition;
        e.kafkaOffset = from.kafkaOffset;
        e.watermarkBound = from.watermarkBound;
        e.boundCaveat = from.boundCaveat;
        return e;
    }

    @Override
    public Evidence copy(Evidence from, Evidence reuse) {
        return copy(from);
    }

    @Override
    public int getLength() {
        return -1;
    }

    @Override
    public void serialize(Evidence e, DataOutputView out) throws IOException {
        if (body == null) {
            body = new DataOutputSerializer(512);
        }
        body.clear();
        serializeBody(e, body);
        out.writeInt(body.length());
        out.write(body.getSharedBuffer(), 0, body.length());
    }

    private void serializeBody(Evidence e, DataOutputView out) throws IOException {
        int present =
                (e.features != null ? FEATURES : 0)
                        | (e.score != null ? SCORE : 0)
                        | (e.archived != null ? ARCHIVED : 0)
                        | (e.late != null ? LATE : 0)
                        | (e.deadLetter != null ? DEAD_LETTER : 0)
                        | (e.transactionScore != null ? TRANSACTION_SCORE : 0)
                        | (e.userId != null ? USER_ID : 0)
                        | (e.labelledTransactionId != null ? LABELLED_ID : 0)
                        | (e.boundCaveat != null ? BOUND_CAVEAT : 0)
                        | (e.kind != null ? KIND : 0);
        out.writeShort(present);
        if (e.kind != null) {
            out.writeByte(e.kind.ordinal());
        }
        if (e.userId != null) {
            StringValueCodec.write(e.userId, out);
        }
        out.writeLong(e.windowStart);
        out.writeBoolean(e.fraud);
        out.writeInt(e.kafkaPartition);
        out.writeLong(e.kafkaOffset);
        out.writeLong(e.watermarkBound);
        if (e.labelledTransactionId != null) {
            StringValueCodec.write(e.labelledTransactionId, out);
        }
        if (e.boundCaveat != null) {
            StringValueCodec.write(e.boundCaveat, out);
        }
        if (e.features != null) {
            features.serialize(e.features, out);
        }
        if (e.score != null) {
            scores.serialize(e.score, out);
        }
        if (e.archived != null) {
            archived.serialize(e.archived, out);
        }
        if (e.late != null) {
            late.serialize(e.late, out);
        }
        if (e.deadLetter != null) {
            deadLetters.serialize(e.deadLetter, out);
        }
        if (e.transactionScore != null) {
            transactionScores.serialize(e.transactionScore, out);
        }
    }

    @Override
    public Evidence deserialize(DataInputView in) throws IOException {
        in.readInt(); // the body's length: only copy needs it
        int present = in.readUnsignedShort();
        Evidence e = new Evidence();
        if ((present & KIND) != 0) {
            e.kind = KINDS[in.readUnsignedByte()];
        }
        if ((present & USER_ID) != 0) {
            e.userId = StringValueCodec.read(in);
        }
        e.windowStart = in.readLong();
        e.fraud = in.readBoolean();
        e.kafkaPartition = in.readInt();
        e.kafkaOffset = in.readLong();
        e.watermarkBound = in.readLong();
        if ((present & LABELLED_ID) != 0) {
            e.labelledTransactionId = StringValueCodec.read(in);
        }
        if ((present & BOUND_CAVEAT) != 0) {
            e.boundCaveat = StringValueCodec.read(in);
        }
        if ((present & FEATURES) != 0) {
            e.features = features.deserialize(in);
        }
        if ((present & SCORE) != 0) {
            e.score = scores.deserialize(in);
        }
        if ((present & ARCHIVED) != 0) {
            e.archived = archived.deserialize(in);
        }
        if ((present & LATE) != 0) {
            e.late = late.deserialize(in);
        }
        if ((present & DEAD_LETTER) != 0) {
            e.deadLetter = deadLetters.deserialize(in);
        }
        if ((present & TRANSACTION_SCORE) != 0) {
            e.transactionScore = transactionScores.deserialize(in);
        }
        return e;
    }

    @Override
    public Evidence deserialize(Evidence reuse, DataInputView in) throws IOException {
        return deserialize(in);
    }

    /** The serialized form as it is: its length, then that many bytes. */
    @Override
    public void copy(DataInputView source, DataOutputView target) throws IOException {
        int length = source.readInt();
        target.writeInt(length);
        target.write(source, length);
    }

    @Override
    public boolean equals(Object obj) {
        return obj instanceof EvidenceSerializer;
    }

    @Override
    public int hashCode() {
        return EvidenceSerializer.class.hashCode();
    }

    @Override
    public TypeSerializerSnapshot<Evidence> snapshotConfiguration() {
        return new Snapshot(this);
    }

    /**
     * The snapshot: this layout (version 2: length-prefixed) with the Avro serializers' snapshots
     * nested. Nothing restores one: parity runs in BATCH and keeps no savepoint.
     */
    public static final class Snapshot
            extends CompositeTypeSerializerSnapshot<Evidence, EvidenceSerializer> {

        /** For Flink, which instantiates snapshots to read them. */
        public Snapshot() {}

        Snapshot(EvidenceSerializer serializer) {
            super(serializer);
        }

        @Override
        protected int getCurrentOuterSnapshotVersion() {
            return 2;
        }

        @Override
        protected TypeSerializer<?>[] getNestedSerializers(EvidenceSerializer outer) {
            return new TypeSerializer<?>[] {
                outer.features,
                outer.scores,
                outer.archived,
                outer.late,
                outer.deadLetters,
                outer.transactionScores
            };
        }

        @Override
        @SuppressWarnings("unchecked")
        protected EvidenceSerializer createOuterSerializerWithNestedSerializers(
                TypeSerializer<?>[] nested) {
            return new EvidenceSerializer(
                    (AvroSerializer<FeatureRecord>) nested[0],
                    (AvroSerializer<ScoreRecord>) nested[1],
                    (AvroSerializer<ArchivedTransaction>) nested[2],
                    (AvroSerializer<LateRecord>) nested[3],
                    (AvroSerializer<DeadLetter>) nested[4],
                    (AvroSerializer<TransactionScore>) nested[5]);
        }
    }

    /** Flink's type information of {@link Evidence}: this serializer, never a POJO's. */
    public static final class EvidenceTypeInfo extends SerializerTypeInfo<Evidence> {

        private static final long serialVersionUID = 1L;

        public EvidenceTypeInfo() {
            super(Evidence.class);
        }

        @Override
        public TypeSerializer<Evidence> createSerializer(SerializerConfig config) {
            return new EvidenceSerializer();
        }
    }

    /** Makes {@code TypeInformation.of(Evidence.class)} this type information. */
    public static final class Factory extends TypeInfoFactory<Evidence> {
        @Override
        public TypeInformation<Evidence> createTypeInfo(
                Type t, Map<String, TypeInformation<?>> genericParameters) {
            return new EvidenceTypeInfo();
        }
    }
}
