package org.fraudpipe.job.replay;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonGenerator;
import java.io.IOException;
import java.io.StringWriter;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.time.Instant;
import java.util.Base64;
import java.util.Collection;
import java.util.Map;
import java.util.TreeMap;
import org.apache.avro.LogicalType;
import org.apache.avro.LogicalTypes;
import org.apache.avro.Schema;
import org.apache.avro.generic.GenericData;
import org.apache.avro.generic.GenericFixed;
import org.apache.avro.generic.IndexedRecord;
import org.apache.avro.specific.SpecificRecordBase;
import org.fraudpipe.job.sim.TransactionJson;

/**
 * Writes an Avro record as one line of JSON, the representation of the replay's output files. It is
 * not Avro's own JSON encoding (which wraps union values in a type object and writes timestamps as
 * numbers); it is what a person or a script reading the files expects:
 *
 * <ul>
 *   <li>an object with the record's fields, named as in the schema, in schema order; nested records
 *       are nested objects;
 *   <li>{@code timestamp-millis}: an ISO-8601 UTC string, with a 3-digit fraction only when the
 *       milliseconds are not zero ({@link TransactionJson#formatInstant}), e.g. {@code
 *       2026-11-28T12:00:00Z}; beyond year 9999 with a sign, e.g. Flink's end-of-input watermark
 *       {@code +292278994-08-17T07:12:55.807Z};
 *   <li>enums: the symbol; strings: strings; int and long: integers; boolean: true/false;
 *   <li>float and double: JSON numbers as Java prints them ({@code 0.25}, {@code 1.0E-5}); NaN and
 *       the infinities, which JSON cannot hold, as the strings {@code "NaN"}, {@code "Infinity"},
 *       {@code "-Infinity"};
 *   <li>bytes and fixed: standard Base64 (RFC 4648, with padding) of the bytes, e.g. the raw value
 *       of a dead letter;
 *   <li>a union: {@code null}, or the value written as its branch (no type wrapper);
 *   <li>arrays: JSON arrays; maps: objects with their keys in ascending order (so equal maps write
 *       equal bytes).
 * </ul>
 *
 * <p>Invariants: pure and deterministic (equal records give equal strings); no line break in the
 * output (Jackson escapes control characters inside strings). A logical type other than {@code
 * timestamp-millis} whose value is converted (e.g. a {@code LocalDate}) is rejected rather than
 * guessed: add it here with a test when a schema needs it.
 */
public final class AvroJson {

    private static final JsonFactory FACTORY = new JsonFactory();

    private AvroJson() {}

    /** The record as one JSON line, without line terminator. */
    public static String toJsonLine(IndexedRecord record) {
        StringWriter out = new StringWriter(256);
        try (JsonGenerator g = FACTORY.createGenerator(out)) {
            writeRecord(g, record, modelOf(record));
        } catch (IOException e) {
            throw new UncheckedIOException("writing to a StringWriter cannot fail", e);
        }
        return out.toString();
    }

    private static GenericData modelOf(IndexedRecord record) {
        return record instanceof SpecificRecordBase specific
                ? specific.getSpecificData()
                : GenericData.get();
    }

    private static void writeRecord(JsonGenerator g, IndexedRecord record, GenericData model)
            throws IOException {
        g.writeStartObject();
        for (Schema.Field field : record.getSchema().getFields()) {
            g.writeFieldName(field.name());
            writeValue(g, field.schema(), record.get(field.pos()), model, field.name());
        }
        g.writeEndObject();
    }

    private static void writeValue(
            JsonGenerator g, Schema schema, Object value, GenericData model, String path)
            throws IOException {
        if (value == null) {
            g.writeNull();
            return;
        }
        LogicalType logical = schema.getLogicalType();
        if (logical instanceof LogicalTypes.TimestampMillis) {
            Instant instant = value instanceof Instant i ? i : Instant.ofEpochMilli((Long) value);
            g.writeString(TransactionJson.formatInstant(instant));
            return;
        }
        if (logical != null && !isAvroRepresentation(schema.getType(), value)) {
            throw new IllegalArgumentException(
                    path
                            + ": logical type "
                            + logical.getName()
                            + " ("
                            + value.getClass().getName()
                            + ") has no JSON form in AvroJson yet");
        }
        switch (schema.getType()) {
            case NULL -> g.writeNull();
            case BOOLEAN -> g.writeBoolean((Boolean) value);
            case INT -> g.writeNumber((Integer) value);
            case LONG -> g.writeNumber((Long) value);
            case FLOAT -> writeFloating(g, (Float) value);
            case DOUBLE -> writeFloating(g, (Double) value);
            case STRING -> g.writeString(value.toString());
            case ENUM -> g.writeString(value.toString());
            case BYTES -> g.writeString(base64((ByteBuffer) value));
            case FIXED ->
                    g.writeString(
                            Base64.getEncoder().encodeToString(((GenericFixed) value).bytes()));
            case RECORD -> writeRecord(g, (IndexedRecord) value, model);
            case ARRAY -> {
                g.writeStartArray();
                int i = 0;
                for (Object element : (Collection<?>) value) {
                    writeValue(g, schema.getElementType(), element, model, path + "[" + i++ + "]");
                }
                g.writeEndArray();
            }
            case MAP -> {
                TreeMap<String, Object> sorted = new TreeMap<>();
                for (Map.Entry<?, ?> e : ((Map<?, ?>) value).entrySet()) {
                    sorted.put(e.getKey().toString(), e.getValue());
                }
                g.writeStartObject();
                for (Map.Entry<String, Object> e : sorted.entrySet()) {
                    g.writeFieldName(e.getKey());
                    writeValue(
                            g, schema.getValueType(), e.getValue(), model, path + "." + e.getKey());
                }
                g.writeEndObject();
            }
            case UNION -> {
                Schema branch = schema.getTypes().get(model.resolveUnion(schema, value));
                writeValue(g, branch, value, model, path);
            }
        }
    }

    /** Whether {@code value} is the plain Avro form of {@code type} (no logical conversion). */
    private static boolean isAvroRepresentation(Schema.Type type, Object value) {
        return switch (type) {
            case INT -> value instanceof Integer;
            case LONG -> value instanceof Long;
            case STRING -> value instanceof CharSequence;
            case BYTES -> value instanceof ByteBuffer;
            case FIXED -> value instanceof GenericFixed;
            default -> false;
        };
    }

    private static void writeFloating(JsonGenerator g, Number value) throws IOException {
        double d = value.doubleValue();
        if (Double.isNaN(d) || Double.isInfinite(d)) {
            g.writeString(Double.toString(d));
        } else if (value instanceof Float f) {
            g.writeNumber(f);
        } else {
            g.writeNumber(d);
        }
    }

    private static String base64(ByteBuffer buffer) {
        ByteBuffer view = buffer.duplicate();
        byte[] bytes = new byte[view.remaining()];
        view.get(bytes);
        return Base64.getEncoder().encodeToString(bytes);
    }
}
