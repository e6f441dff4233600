package org.fraudpipe.schemas.wire;

import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.api.java.typeutils.GenericTypeInfo;

/**
 * The Flink type of a generated Avro class. With {@code flink-avro} on the classpath, {@code
 * TypeInformation.of(clazz)} gives Flink's Avro type (records cross the network and state as Avro
 * binary). Without it, {@code TypeInformation.of} throws ("You may be missing the 'flink-avro'
 * dependency"), so Flink's generic (Kryo) type is used: it works for records of strings, numbers,
 * enums, nested records and {@code Instant}; records with {@code bytes} fields (DeadLetter) need
 * {@code --add-opens java.base/java.nio=ALL-UNNAMED}, which Flink's default JVM options have.
 */
final class FlinkTypes {
    private static final boolean FLINK_AVRO_PRESENT = isFlinkAvroPresent();

    private FlinkTypes() {}

    static <T> TypeInformation<T> of(Class<T> type) {
        return FLINK_AVRO_PRESENT ? TypeInformation.of(type) : new GenericTypeInfo<>(type);
    }

    private static boolean isFlinkAvroPresent() {
        try {
            Class.forName(
                    "org.apache.flink.formats.avro.typeutils.AvroTypeInfo",
                    false,
                    FlinkTypes.class.getClassLoader());
            return true;
        } catch (ClassNotFoundException | LinkageError e) {
            return false;
        }
    }
}
