package org.fraudpipe.schemas.registry;

import java.util.ArrayList;
import java.util.List;
import java.util.function.UnaryOperator;
import org.apache.avro.Schema;
import org.apache.avro.SchemaBuilder;

/**
 * The schema changes a producer makes, as new versions of a record schema (same name and
 * namespace): fields added, dropped, given a default, their type changed.
 */
public final class SchemaChanges {
    private SchemaChanges() {}

    /** {@code record} with a field {@code name} of {@code type} appended (no default if null). */
    public static Schema withField(Schema record, String name, Schema type, Object defaultValue) {
        List<Schema.Field> fields = copy(record, f -> f);
        fields.add(new Schema.Field(name, type, null, defaultValue));
        return rebuild(record, fields);
    }

    /** {@code record} with a string field {@code name} that has no default. */
    public static Schema withRequiredString(Schema record, String name) {
        return withField(record, name, Schema.create(Schema.Type.STRING), null);
    }

    /**
     * {@code record} with a field {@code name} of type {@code ["null", "string"]}, default null.
     */
    public static Schema withOptionalString(Schema record, String name) {
        return withField(
                record,
                name,
                SchemaBuilder.unionOf().nullType().and().stringType().endUnion(),
                Schema.Field.NULL_DEFAULT_VALUE);
    }

    /** {@code record} without its field {@code name}. */
    public static Schema without(Schema record, String name) {
        requireField(record, name);
        List<Schema.Field> fields = new ArrayList<>();
        for (Schema.Field f : record.getFields()) {
            if (!f.name().equals(name)) {
                fields.add(new Schema.Field(f, f.schema()));
            }
        }
        return rebuild(record, fields);
    }

    /** {@code record} with its field {@code name} given {@code defaultValue} as default. */
    public static Schema withDefault(Schema record, String name, Object defaultValue) {
        requireField(record, name);
        return rebuild(
                record,
                copy(
                        record,
                        f ->
                                f.name().equals(name)
                                        ? new Schema.Field(
                                                f.name(), f.schema(), f.doc(), defaultValue)
                                        : f));
    }

    /** {@code record} with its field {@code name} of type {@code type} (no default). */
    public static Schema withType(Schema record, String name, Schema.Type type) {
        requireField(record, name);
        return rebuild(
                record,
                copy(
                        record,
                        f ->
                                f.name().equals(name)
                                        ? new Schema.Field(f.name(), Schema.create(type), f.doc())
                                        : f));
    }

    private static List<Schema.Field> copy(Schema record, UnaryOperator<Schema.Field> change) {
        List<Schema.Field> fields = new ArrayList<>();
        for (Schema.Field f : record.getFields()) {
            Schema.Field changed = change.apply(f);
            fields.add(changed == f ? new Schema.Field(f, f.schema()) : changed);
        }
        return fields;
    }

    private static Schema rebuild(Schema record, List<Schema.Field> fields) {
        return Schema.createRecord(
                record.getName(), record.getDoc(), record.getNamespace(), false, fields);
    }

    private static void requireField(Schema record, String name) {
        if (record.getField(name) == null) {
            throw new IllegalArgumentException(record.getFullName() + " has no field " + name);
        }
    }
}
