package org.fraudpipe.schemas.wire;

import java.util.Map;
import org.apache.avro.specific.SpecificRecord;

/** Reads the record class of a Kafka (de)serializer from its configuration. */
final class AvroTypeConfig {
    private AvroTypeConfig() {}

    static String key(boolean isKey) {
        return isKey
                ? ConfluentAvroSerializer.KEY_TYPE_CONFIG
                : ConfluentAvroSerializer.VALUE_TYPE_CONFIG;
    }

    /** The class named by the type config, or {@code fallback} if it is not set. */
    @SuppressWarnings("unchecked")
    static <T extends SpecificRecord> Class<T> recordClass(
            Map<String, ?> configs, boolean isKey, Class<T> fallback) {
        String key = key(isKey);
        Object value = configs.get(key);
        if (value == null || value.toString().isBlank()) {
            if (fallback != null) {
                return fallback;
            }
            throw new IllegalArgumentException(
                    key
                            + " is not set: set it to the generated Avro class of the "
                            + (isKey ? "keys" : "values")
                            + ", e.g. org.fraudpipe.schemas.avro.Transaction");
        }
        Class<?> type;
        if (value instanceof Class<?> c) {
            type = c;
        } else {
            try {
                ClassLoader loader = Thread.currentThread().getContextClassLoader();
                type =
                        Class.forName(
                                value.toString().trim(),
                                true,
                                loader != null ? loader : AvroTypeConfig.class.getClassLoader());
            } catch (ClassNotFoundException e) {
                throw new IllegalArgumentException(
                        key + "='" + value + "' names a class that is not on the classpath", e);
            }
        }
        if (!SpecificRecord.class.isAssignableFrom(type)) {
            throw new IllegalArgumentException(
                    key
                            + "='"
                            + type.getName()
                            + "' is not a generated Avro class (a SpecificRecord)");
        }
        return (Class<T>) type;
    }
}
