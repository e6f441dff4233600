package org.fraudpipe.job.ingest;

import org.apache.flink.api.common.serialization.SerializerConfig;
import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.api.common.typeutils.TypeSerializer;
import org.apache.flink.formats.avro.typeutils.AvroTypeInfo;
import org.fraudpipe.schemas.avro.Transaction;

/**
 * Flink type information of the valid transactions the ingest router hands to the feature window:
 * {@link TransactionSerializer}, or Avro's own when the schema is not the one it was written for or
 * when the system property {@value #AVRO_PROPERTY}{@code =true} asks for it (for comparisons and
 * diagnosis).
 */
public final class TransactionTypeInfo extends TypeInformation<Transaction> {

    private static final long serialVersionUID = 1L;

    /** Set to {@code true} to shuffle transactions with Avro's serializer. */
    public static final String AVRO_PROPERTY = "fraudpipe.shuffle.avro";

    private static final TransactionTypeInfo INSTANCE = new TransactionTypeInfo();

    private TransactionTypeInfo() {}

    /** The type information for the router's output. */
    public static TypeInformation<Transaction> forShuffle() {
        if (Boolean.getBoolean(AVRO_PROPERTY) || !TransactionSerializer.matchesSchema()) {
            return new AvroTypeInfo<>(Transaction.class);
        }
        return INSTANCE;
    }

    @Override
    public boolean isBasicType() {
        return false;
    }

    @Override
    public boolean isTupleType() {
        return false;
    }

    @Override
    public int getArity() {
        return 1;
    }

    @Override
    public int getTotalFields() {
        return 1;
    }

    @Override
    public Class<Transaction> getTypeClass() {
        return Transaction.class;
    }

    @Override
    public boolean isKeyType() {
        return false;
    }

    @Override
    public TypeSerializer<Transaction> createSerializer(SerializerConfig config) {
        return TransactionSerializer.INSTANCE;
    }

    @Override
    public String toString() {
        return "Transaction(shuffle)";
    }

    @Override
    public boolean equals(Object obj) {
        return obj instanceof TransactionTypeInfo;
    }

    @Override
    public int hashCode() {
        return TransactionTypeInfo.class.hashCode();
    }

    @Override
    public boolean canEqual(Object obj) {
        return obj instanceof TransactionTypeInfo;
    }
}
