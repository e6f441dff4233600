package org.fraudpipe.job.io;

import org.apache.flink.api.common.serialization.SerializerConfig;
import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.api.common.typeutils.TypeSerializer;

/**
 * Flink type information of a class with a serializer of its own (declared on the class with
 * {@code @TypeInfo} and a factory returning a subclass of this): one field, not a key, equal to any
 * other instance of the same subclass. Flink's type extraction then gives that serializer
 * everywhere, never a POJO's or Kryo's.
 */
public abstract class SerializerTypeInfo<T> extends TypeInformation<T> {

    private static final long serialVersionUID = 1L;

    private final Class<T> type;

    protected SerializerTypeInfo(Class<T> type) {
        this.type = type;
    }

    @Override
    public abstract TypeSerializer<T> createSerializer(SerializerConfig config);

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
    public Class<T> getTypeClass() {
        return type;
    }

    @Override
    public boolean isKeyType() {
        return false;
    }

    @Override
    public String toString() {
        return type.getSimpleName();
    }

    @Override
    public boolean equals(Object obj) {
        return obj != null && obj.getClass() == getClass();
    }

    @Override
    public int hashCode() {
        return getClass().hashCode();
    }

    @Override
    public boolean canEqual(Object obj) {
        return obj != null && obj.getClass() == getClass();
    }
}
