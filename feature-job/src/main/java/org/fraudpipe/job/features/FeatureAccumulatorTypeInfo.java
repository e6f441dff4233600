package org.fraudpipe.job.features;

import java.lang.reflect.Type;
import java.util.Map;
import org.apache.flink.api.common.serialization.SerializerConfig;
import org.apache.flink.api.common.typeinfo.TypeInfoFactory;
import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.api.common.typeutils.TypeSerializer;

/**
 * Flink type information of {@link FeatureAccumulator}: always {@link
 * FeatureAccumulatorSerializer}. Flink finds it through the {@code @TypeInfo} annotation on the
 * accumulator, so type extraction anywhere (stream, batch) gives the same serializer.
 */
public final class FeatureAccumulatorTypeInfo extends TypeInformation<FeatureAccumulator> {

    private static final long serialVersionUID = 1L;

    /** The instance. */
    public static final FeatureAccumulatorTypeInfo INSTANCE = new FeatureAccumulatorTypeInfo();

    private FeatureAccumulatorTypeInfo() {}

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
    public Class<FeatureAccumulator> getTypeClass() {
        return FeatureAccumulator.class;
    }

    @Override
    public boolean isKeyType() {
        return false;
    }

    @Override
    public TypeSerializer<FeatureAccumulator> createSerializer(SerializerConfig config) {
        return FeatureAccumulatorSerializer.INSTANCE;
    }

    @Override
    public String toString() {
        return "FeatureAccumulator";
    }

    @Override
    public boolean equals(Object obj) {
        return obj instanceof FeatureAccumulatorTypeInfo;
    }

    @Override
    public int hashCode() {
        return FeatureAccumulatorTypeInfo.class.hashCode();
    }

    @Override
    public boolean canEqual(Object obj) {
        return obj instanceof FeatureAccumulatorTypeInfo;
    }

    /** Referenced by {@code @TypeInfo} on {@link FeatureAccumulator}. */
    public static final class Factory extends TypeInfoFactory<FeatureAccumulator> {
        @Override
        public TypeInformation<FeatureAccumulator> createTypeInfo(
                Type t, Map<String, TypeInformation<?>> genericParameters) {
            return INSTANCE;
        }
    }
}
