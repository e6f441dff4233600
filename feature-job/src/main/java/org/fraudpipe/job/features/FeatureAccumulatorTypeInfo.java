package org.fraudpipe.job.features;

import java.lang.reflect.Type;
import java.util.Map;
import org.apache.flink.api.common.serialization.SerializerConfig;
import org.apache.flink.api.common.typeinfo.TypeInfoFactory;
import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.api.common.typeutils.TypeSerializer;
import org.fraudpipe.job.io.SerializerTypeInfo;

/**
 * Flink type information of {@link FeatureAccumulator}: always {@link
 * FeatureAccumulatorSerializer}. Flink finds it through the {@code @TypeInfo} annotation on the
 * accumulator, so type extraction anywhere (stream, batch) gives the same serializer.
 */
public final class FeatureAccumulatorTypeInfo extends SerializerTypeInfo<FeatureAccumulator> {

    private static final long serialVersionUID = 1L;

    /** The instance. */
    public static final FeatureAccumulatorTypeInfo INSTANCE = new FeatureAccumulatorTypeInfo();

    private FeatureAccumulatorTypeInfo() {
        super(FeatureAccumulator.class);
    }

    @Override
    public TypeSerializer<FeatureAccumulator> createSerializer(SerializerConfig config) {
        return FeatureAccumulatorSerializer.INSTANCE;
    }

    public static final class Factory extends TypeInfoFactory<FeatureAccumulator> {
        @Override
        public TypeInformation<FeatureAccumulator> createTypeInfo(
                Type t, Map<String, TypeInformation<?>> genericParameters) {
            return INSTANCE;
        }
    }
}
