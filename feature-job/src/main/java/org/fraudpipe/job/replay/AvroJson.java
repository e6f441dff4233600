package org.fraudpipe.job.replay;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonGenerator;
import com.fasterxml.jackson.core.JsonLocation;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.JsonToken;
import com.fasterxml.jackson.core.io.JsonStringEncoder;
import java.io.IOException;
import java.io.StringWriter;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.time.DateTimeException;
import java.time.Instant;
import java.time.format.DateTimeFormatter;
import java.time.temporal.TemporalAccessor;
import java.util.ArrayList;
import java.util.Base64;
import java.util.Collection;
import java.util.Collections;
import java.util.EnumSet;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.WeakHashMap;
import java.util.stream.Collectors;
import org.apache.avro.Conversion;
import org.apache.avro.Conversions;
import org.apache.avro.LogicalType;
import org.apache.avro.LogicalTypes;
import org.apache.avro.Schema;
import org.apache.avro.generic.GenericData;
import org.apache.avro.generic.GenericFixed;
import org.apache.avro.generic.GenericRecord;
import org.apache.avro.generic.IndexedRecord;
import org.apache.avro.specific.SpecificData;
import org.apache.avro.specific.SpecificRecordBase;
import org.fraudpipe.schemas.json.TransactionJson;

/**
 * The JSON form of an Avro record as one line: the representation of the replay's output files,
 * written by {@link #toJsonLine} and read back, exactly, by {@link #fromJsonLine(String, Class)}.
 * It is not Avro's own JSON encoding (which wraps union values in a type object and writes
 * timestamps as numbers); it is what a person or a script reading the files expects:
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
 * <p>Writing invariants: pure and deterministic (equal records give equal strings); no line break
 * in the output (Jackson escapes control characters inside strings). A logical type other than
 * {@code timestamp-millis} whose value is converted (e.g. a {@code LocalDate}) is rejected rather
 * than guessed, when writing and when reading: add it here with a test when a schema needs it.
 *
 * <h2>Reading</h2>
 *
 * {@code fromJsonLine(toJsonLine(r), r.getClass()).equals(r)} for every specific record {@code r}
 * (and {@code fromJsonLine(toJsonLine(g), g.getSchema()).equals(g)} for a generic record holding
 * Avro's plain values): the same class and the same value in every field, down to {@code -0.0}. One
 * caveat is Avro's, not ours: its {@code equals} compares floating values with {@code ==}, so a
 * record holding NaN equals no copy of itself, not even its {@code deepCopy}; the record read back
 * then holds NaN where the original did (every NaN is written {@code "NaN"}, so only the canonical
 * NaN comes back). Reading is strict; it accepts the JSON form above and, where JSON itself leaves
 * freedom, any equivalent spelling:
 *
 * <ul>
 *   <li>exactly one JSON object, optionally surrounded by whitespace; nothing after it;
 *   <li>fields in any order, each at most once; a field not in the schema is an error (no aliases);
 *   <li>every field of the schema present, except that a field with a default may be absent and
 *       then takes its default (as in Avro's schema resolution). An explicit {@code null} is only a
 *       value of a nullable union, never "absent";
 *   <li>int and long: JSON integers in range (not {@code 1.0}, not {@code "1"}); float and double:
 *       any JSON number that is finite in the type, or exactly {@code "NaN"}, {@code "Infinity"},
 *       {@code "-Infinity"};
 *   <li>{@code timestamp-millis}: an ISO-8601 instant ending in {@code Z}, with at most millisecond
 *       precision (so {@code ...:00Z}, {@code ...:00.250Z} and {@code ...:00.25Z} are accepted;
 *       offsets such as {@code +01:00}, epoch numbers, leap seconds and sub-millisecond fractions
 *       are not), within the range of a long of epoch milliseconds;
 *   <li>enums: one of the schema's symbols. An unknown symbol is an error even if the enum has a
 *       default: Avro's enum default is a schema-resolution rule for a reader that does not know a
 *       writer's symbol; these files are ours and are read with the schema they were written with,
 *       so an unknown symbol means a wrong or corrupt file and mapping it to the default would hide
 *       exactly the differences a parity check looks for;
 *   <li>bytes and fixed: canonical standard Base64 with padding (what the writer writes: no line
 *       breaks, no URL alphabet, no missing padding); fixed of exactly its size;
 *   <li>unions: the JSON type of the value selects the branch. A union can therefore only be read
 *       if its branches are written as different JSON types (null; boolean; number for int and
 *       long; string for string, enum, bytes, fixed and timestamp-millis; number or string for
 *       float and double; object for record and map; array for array). The contract only has {@code
 *       [null, X]} unions; a schema with an ambiguous union, e.g. {@code [null, int, long]} or
 *       {@code [null, string, double]}, is rejected with an {@link IllegalArgumentException} naming
 *       the union, whatever the line;
 *   <li>maps: each key at most once.
 * </ul>
 *
 * Values are built through the model of the target: for a specific class its own {@link
 * SpecificData} (generated classes, {@link Instant} for {@code timestamp-millis} via the class's
 * registered conversion, enum constants), for a schema {@link GenericData} without conversions
 * ({@code Long} epoch milliseconds). Strings are {@link String}, bytes {@link ByteBuffer}, arrays
 * {@link GenericData.Array}, maps {@link LinkedHashMap} with {@link String} keys.
 *
 * <p>Every problem with a line is a {@link ReadException} (an unchecked {@link
 * IllegalArgumentException}; a caller reading a file adds the file and line) naming the path of the
 * value in the record (e.g. {@code $.features.timing}, {@code $.tags[2]}, {@code $.counts["a"]};
 * {@code $} is the whole line) and what is wrong with it.
 */
public final class AvroJson {

    private static final JsonFactory FACTORY = new JsonFactory();

    /** Schemas checked to be readable (no ambiguous union): the problem, or "" if none. */
    private static final Map<Schema, String> READABLE =
            Collections.synchronizedMap(new WeakHashMap<>());

    private AvroJson() {}

    // ------------------------------------------------------------------------------------------
    // Writing

    /** The record as one JSON line, without line terminator. */
    public static String toJsonLine(IndexedRecord record) {
        StringWriter out = new StringWriter(256);
        try (JsonGenerator g = FACTORY.createGenerator(out)) {
            writeRecord(g, record, modelOf(record), Path.ROOT);
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

    private static void writeRecord(
            JsonGenerator g, IndexedRecord record, GenericData model, Path path)
            throws IOException {
        g.writeStartObject();
        for (Schema.Field field : record.getSchema().getFields()) {
            g.writeFieldName(field.name());
            writeValue(g, field.schema(), record.get(field.pos()), model, path.field(field.name()));
        }
        g.writeEndObject();
    }

    private static void writeValue(
            JsonGenerator g, Schema schema, Object value, GenericData model, Path path)
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
            case RECORD -> writeRecord(g, (IndexedRecord) value, model, path);
            case ARRAY -> {
                g.writeStartArray();
                int i = 0;
                for (Object element : (Collection<?>) value) {
                    writeValue(g, schema.getElementType(), element, model, path.index(i++));
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
                    writeValue(g, schema.getValueType(), e.getValue(), model, path.key(e.getKey()));
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

    // ------------------------------------------------------------------------------------------
    // Reading

    /**
     * A line is not the JSON form of a record of the expected schema (see the class comment). The
     * message is {@code <path>: <problem>}, e.g. {@code $.features.timing: unknown symbol "SOON" of
     * enum org.fraudpipe.schemas.avro.Timing (expected one of [EARLY, ON_TIME, LATE])}.
     */
    public static final class ReadException extends IllegalArgumentException {
        private static final long serialVersionUID = 1L;

        private final String path;
        private final String problem;

        ReadException(Path path, String problem) {
            super(path + ": " + problem);
            this.path = path.toString();
            this.problem = problem;
        }

        /** Where in the line: {@code $} for the whole line, else e.g. {@code $.features.timing}. */
        public String path() {
            return path;
        }

        /** What is wrong, without the path. */
        public String problem() {
            return problem;
        }
    }

    /**
     * Reads a line written by {@link #toJsonLine} back into the specific record it was written
     * from: {@code fromJsonLine(toJsonLine(r), r.getClass()).equals(r)}.
     *
     * @param line one line, without line terminator
     * @param type a generated Avro class
     * @throws ReadException if the line is not the JSON form of a {@code type} (see the class
     *     comment); the message names the path of the offending value and the problem
     * @throws IllegalArgumentException if the schema of {@code type} has a union that cannot be
     *     read back (branches written as the same JSON type)
     */
    public static <T extends SpecificRecordBase> T fromJsonLine(String line, Class<T> type) {
        SpecificData model = SpecificData.getForClass(type);
        Schema schema = model.getSchema(type);
        Object record = read(line, schema, model);
        if (!type.isInstance(record)) {
            throw new IllegalStateException(
                    "Avro built a "
                            + record.getClass().getName()
                            + " for schema "
                            + schema.getFullName()
                            + ", not a "
                            + type.getName()
                            + " (class not visible to its SpecificData?)");
        }
        return type.cast(record);
    }

    /**
     * Reads a line written by {@link #toJsonLine} into a generic record of {@code schema}, holding
     * Avro's plain values ({@link GenericData} without conversions: {@code timestamp-millis} as
     * {@code Long} epoch milliseconds, strings as {@link String}, enums as {@link
     * GenericData.EnumSymbol}).
     *
     * @throws ReadException if the line is not the JSON form of a record of {@code schema}
     * @throws IllegalArgumentException if {@code schema} is not a record schema or has a union that
     *     cannot be read back
     */
    public static GenericRecord fromJsonLine(String line, Schema schema) {
        if (schema.getType() != Schema.Type.RECORD) {
            throw new IllegalArgumentException(
                    "a line is the JSON form of a record, not of "
                            + schema.getType()
                            + " "
                            + schema);
        }
        return (GenericRecord) read(line, schema, GenericData.get());
    }

    private static Object read(String line, Schema schema, GenericData model) {
        checkReadable(schema);
        try (JsonParser p = FACTORY.createParser(line)) {
            if (next(p, Path.ROOT) == null) {
                throw new ReadException(Path.ROOT, "empty line (expected one JSON object)");
            }
            Object record = readValue(p, schema, model, Path.ROOT);
            int end = (int) p.currentLocation().getCharOffset();
            boolean trailing;
            try {
                trailing = p.nextToken() != null;
            } catch (JsonProcessingException e) {
                trailing = true;
            }
            if (trailing) {
                int column = end;
                while (column < line.length() && Character.isWhitespace(line.charAt(column))) {
                    column++;
                }
                throw new ReadException(
                        Path.ROOT, "trailing content after the object at column " + (column + 1));
            }
            return record;
        } catch (IOException e) {
            throw new UncheckedIOException("reading from a String cannot fail", e);
        }
    }

    private static JsonToken next(JsonParser p, Path path) throws IOException {
        try {
            return p.nextToken();
        } catch (JsonProcessingException e) {
            throw malformed(path, e);
        }
    }

    /**
     * The next token inside an object: a member name or the end. Jackson reads a number or literal
     * value together with its name, so a malformed value is reported at the member's path.
     */
    private static JsonToken nextMember(JsonParser p, Path object, boolean mapKeys)
            throws IOException {
        try {
            return p.nextToken();
        } catch (JsonProcessingException e) {
            Path at = object;
            if (p.currentToken() == JsonToken.FIELD_NAME) {
                String name = p.currentName();
                at = mapKeys ? object.key(name) : object.field(name);
            }
            throw malformed(at, e);
        }
    }

    private static String text(JsonParser p, Path path) throws IOException {
        try {
            return p.getText();
        } catch (JsonProcessingException e) {
            throw malformed(path, e);
        }
    }

    private static ReadException malformed(Path path, JsonProcessingException e) {
        String what = e.getOriginalMessage();
        int cut = what.indexOf('\n');
        if (cut >= 0) {
            what = what.substring(0, cut);
        }
        return new ReadException(
                path,
                "malformed JSON"
                        + (e.getLocation() == null ? "" : at(e.getLocation()))
                        + ": "
                        + what);
    }

    private static String at(JsonLocation location) {
        return location.getColumnNr() > 0 ? " at column " + location.getColumnNr() : "";
    }

    /** Reads the value whose first token is the parser's current token. */
    private static Object readValue(JsonParser p, Schema schema, GenericData model, Path path)
            throws IOException {
        LogicalType logical = schema.getLogicalType();
        if (logical != null) {
            Conversion<?> conversion = model.getConversionFor(logical);
            if (logical instanceof LogicalTypes.TimestampMillis) {
                long millis = readTimestampMillis(p, path);
                return conversion == null
                        ? millis
                        : Conversions.convertToLogicalType(millis, schema, logical, conversion);
            }
            if (conversion != null) {
                throw new IllegalArgumentException(
                        path
                                + ": logical type "
                                + logical.getName()
                                + " (converted to "
                                + conversion.getConvertedType().getName()
                                + ") has no JSON form in AvroJson yet");
            }
        }
        JsonToken token = p.currentToken();
        switch (schema.getType()) {
            case UNION -> {
                return readValue(p, branchFor(p, schema, path), model, path);
            }
            case NULL -> {
                expect(p, token == JsonToken.VALUE_NULL, "null", path);
                return null;
            }
            case BOOLEAN -> {
                expect(p, token.isBoolean(), "true or false", path);
                return token == JsonToken.VALUE_TRUE;
            }
            case INT -> {
                expect(p, token == JsonToken.VALUE_NUMBER_INT, "an int (a JSON integer)", path);
                if (p.getNumberType() != JsonParser.NumberType.INT) {
                    throw new ReadException(path, "out of range for an int: " + text(p, path));
                }
                return p.getIntValue();
            }
            case LONG -> {
                expect(p, token == JsonToken.VALUE_NUMBER_INT, "a long (a JSON integer)", path);
                JsonParser.NumberType type = p.getNumberType();
                if (type != JsonParser.NumberType.INT && type != JsonParser.NumberType.LONG) {
                    throw new ReadException(path, "out of range for a long: " + text(p, path));
                }
                return p.getLongValue();
            }
            case FLOAT -> {
                String text = floatingText(p, "a float", path);
                float f = Float.parseFloat(text);
                if (Float.isInfinite(f) && token.isNumeric()) {
                    throw new ReadException(path, "out of range for a float: " + text);
                }
                return f;
            }
            case DOUBLE -> {
                String text = floatingText(p, "a double", path);
                double d = Double.parseDouble(text);
                if (Double.isInfinite(d) && token.isNumeric()) {
                    throw new ReadException(path, "out of range for a double: " + text);
                }
                return d;
            }
            case STRING -> {
                expect(p, token == JsonToken.VALUE_STRING, "a string", path);
                return text(p, path);
            }
            case ENUM -> {
                expect(
                        p,
                        token == JsonToken.VALUE_STRING,
                        "a symbol of " + schema.getFullName(),
                        path);
                String symbol = text(p, path);
                if (!schema.hasEnumSymbol(symbol)) {
                    throw new ReadException(
                            path,
                            "unknown symbol "
                                    + quote(symbol)
                                    + " of enum "
                                    + schema.getFullName()
                                    + " (expected one of "
                                    + schema.getEnumSymbols()
                                    + ")");
                }
                return model.createEnum(symbol, schema);
            }
            case BYTES -> {
                return ByteBuffer.wrap(readBase64(p, path));
            }
            case FIXED -> {
                byte[] bytes = readBase64(p, path);
                if (bytes.length != schema.getFixedSize()) {
                    throw new ReadException(
                            path,
                            "fixed "
                                    + schema.getFullName()
                                    + " has "
                                    + schema.getFixedSize()
                                    + " bytes, got "
                                    + bytes.length);
                }
                return model.createFixed(null, bytes, schema);
            }
            case RECORD -> {
                return readRecord(p, schema, model, path);
            }
            case ARRAY -> {
                expect(p, token == JsonToken.START_ARRAY, "an array", path);
                List<Object> elements = new ArrayList<>();
                while (next(p, path.index(elements.size())) != JsonToken.END_ARRAY) {
                    Path element = path.index(elements.size());
                    elements.add(readValue(p, schema.getElementType(), model, element));
                }
                return new GenericData.Array<>(schema, elements);
            }
            case MAP -> {
                expect(p, token == JsonToken.START_OBJECT, "an object (a map)", path);
                Map<String, Object> map = new LinkedHashMap<>();
                while (nextMember(p, path, true) != JsonToken.END_OBJECT) {
                    String key = p.currentName();
                    Path entry = path.key(key);
                    if (map.containsKey(key)) {
                        throw new ReadException(entry, "duplicate map key");
                    }
                    next(p, entry);
                    map.put(key, readValue(p, schema.getValueType(), model, entry));
                }
                return map;
            }
        }
        throw new IllegalStateException("unknown Avro type " + schema.getType());
    }

    private static Object readRecord(JsonParser p, Schema schema, GenericData model, Path path)
            throws IOException {
        expect(
                p,
                p.currentToken() == JsonToken.START_OBJECT,
                "an object (record " + schema.getFullName() + ")",
                path);
        IndexedRecord record = (IndexedRecord) model.newRecord(null, schema);
        List<Schema.Field> fields = schema.getFields();
        boolean[] seen = new boolean[fields.size()];
        while (nextMember(p, path, false) != JsonToken.END_OBJECT) {
            String name = p.currentName();
            Path at = path.field(name);
            Schema.Field field = schema.getField(name);
            if (field == null) {
                throw new ReadException(
                        at,
                        "unknown field (record "
                                + schema.getFullName()
                                + " has "
                                + fields.stream().map(Schema.Field::name).toList()
                                + ")");
            }
            if (seen[field.pos()]) {
                throw new ReadException(at, "duplicate field");
            }
            seen[field.pos()] = true;
            next(p, at);
            record.put(field.pos(), readValue(p, field.schema(), model, at));
        }
        List<String> missing = new ArrayList<>();
        for (Schema.Field field : fields) {
            if (!seen[field.pos()]) {
                if (field.hasDefaultValue()) {
                    record.put(field.pos(), model.getDefaultValue(field));
                } else {
                    missing.add(field.name());
                }
            }
        }
        if (!missing.isEmpty()) {
            throw new ReadException(
                    path.field(missing.get(0)),
                    "missing required field (it has no default)"
                            + (missing.size() == 1
                                    ? ""
                                    : "; also missing: "
                                            + String.join(
                                                    ", ", missing.subList(1, missing.size()))));
        }
        return record;
    }

    private static void expect(JsonParser p, boolean ok, String expected, Path path)
            throws IOException {
        if (!ok) {
            throw new ReadException(path, "expected " + expected + ", got " + describe(p, path));
        }
    }

    /** The current token for an error message: its text for scalars. */
    private static String describe(JsonParser p, Path path) throws IOException {
        JsonToken token = p.currentToken();
        return switch (token) {
            case START_OBJECT -> "an object";
            case START_ARRAY -> "an array";
            case VALUE_STRING -> "the string " + quote(abbreviate(text(p, path)));
            default -> abbreviate(text(p, path));
        };
    }

    private static String abbreviate(String s) {
        return s.length() <= 60 ? s : s.substring(0, 57) + "...";
    }

    private static String quote(String s) {
        return '"' + new String(JsonStringEncoder.getInstance().quoteAsString(s)) + '"';
    }

    private static String floatingText(JsonParser p, String what, Path path) throws IOException {
        JsonToken token = p.currentToken();
        if (token == JsonToken.VALUE_NUMBER_INT || token == JsonToken.VALUE_NUMBER_FLOAT) {
            return text(p, path);
        }
        if (token == JsonToken.VALUE_STRING) {
            String text = text(p, path);
            if (text.equals("NaN") || text.equals("Infinity") || text.equals("-Infinity")) {
                return text;
            }
        }
        throw new ReadException(
                path,
                "expected "
                        + what
                        + " (a JSON number, or \"NaN\", \"Infinity\", \"-Infinity\"), got "
                        + describe(p, path));
    }

    private static long readTimestampMillis(JsonParser p, Path path) throws IOException {
        expect(
                p,
                p.currentToken() == JsonToken.VALUE_STRING,
                "an ISO-8601 UTC timestamp string like 2026-11-28T12:00:00Z",
                path);
        String text = text(p, path);
        Instant instant;
        try {
            if (!text.endsWith("Z")) {
                throw new DateTimeException("not UTC");
            }
            TemporalAccessor parsed = DateTimeFormatter.ISO_INSTANT.parse(text);
            if (parsed.query(DateTimeFormatter.parsedLeapSecond())) {
                throw new DateTimeException("leap second");
            }
            instant = Instant.from(parsed);
        } catch (DateTimeException e) {
            throw new ReadException(
                    path,
                    "expected an ISO-8601 UTC timestamp like 2026-11-28T12:00:00Z or"
                            + " 2026-11-28T12:00:00.250Z, got "
                            + quote(abbreviate(text)));
        }
        if (instant.getNano() % 1_000_000 != 0) {
            throw new ReadException(
                    path,
                    "timestamp-millis holds milliseconds, got a finer fraction: " + quote(text));
        }
        try {
            return instant.toEpochMilli();
        } catch (ArithmeticException e) {
            throw new ReadException(
                    path,
                    "outside the range of timestamp-millis (a long of epoch milliseconds): "
                            + quote(text));
        }
    }

    private static byte[] readBase64(JsonParser p, Path path) throws IOException {
        expect(
                p,
                p.currentToken() == JsonToken.VALUE_STRING,
                "a Base64 string (RFC 4648, with padding)",
                path);
        String text = text(p, path);
        byte[] bytes;
        try {
            bytes = Base64.getDecoder().decode(text);
        } catch (IllegalArgumentException e) {
            throw new ReadException(
                    path, "bad Base64 (" + e.getMessage() + "): " + quote(abbreviate(text)));
        }
        if (!Base64.getEncoder().encodeToString(bytes).equals(text)) {
            throw new ReadException(
                    path,
                    "bad Base64 (not the canonical RFC 4648 form with padding): "
                            + quote(abbreviate(text)));
        }
        return bytes;
    }

    // ---- unions ----

    /** The JSON types a value of a schema is written as. */
    private enum JsonType {
        NULL,
        BOOLEAN,
        NUMBER,
        STRING,
        OBJECT,
        ARRAY
    }

    private static Set<JsonType> writtenAs(Schema schema) {
        if (schema.getLogicalType() instanceof LogicalTypes.TimestampMillis) {
            return EnumSet.of(JsonType.STRING);
        }
        return switch (schema.getType()) {
            case NULL -> EnumSet.of(JsonType.NULL);
            case BOOLEAN -> EnumSet.of(JsonType.BOOLEAN);
            case INT, LONG -> EnumSet.of(JsonType.NUMBER);
            case FLOAT, DOUBLE -> EnumSet.of(JsonType.NUMBER, JsonType.STRING);
            case STRING, ENUM, BYTES, FIXED -> EnumSet.of(JsonType.STRING);
            case RECORD, MAP -> EnumSet.of(JsonType.OBJECT);
            case ARRAY -> EnumSet.of(JsonType.ARRAY);
            case UNION -> throw new IllegalStateException("Avro forbids a union in a union");
        };
    }

    private static JsonType jsonTypeOf(JsonToken token) {
        return switch (token) {
            case VALUE_NULL -> JsonType.NULL;
            case VALUE_TRUE, VALUE_FALSE -> JsonType.BOOLEAN;
            case VALUE_NUMBER_INT, VALUE_NUMBER_FLOAT -> JsonType.NUMBER;
            case VALUE_STRING -> JsonType.STRING;
            case START_OBJECT -> JsonType.OBJECT;
            case START_ARRAY -> JsonType.ARRAY;
            default -> throw new IllegalStateException("not the start of a value: " + token);
        };
    }

    /** The branch written as the JSON type of the current token (unique: see checkReadable). */
    private static Schema branchFor(JsonParser p, Schema union, Path path) throws IOException {
        JsonType type = jsonTypeOf(p.currentToken());
        for (Schema branch : union.getTypes()) {
            if (writtenAs(branch).contains(type)) {
                return branch;
            }
        }
        throw new ReadException(
                path,
                "expected "
                        + union.getTypes().stream()
                                .map(AvroJson::describeBranch)
                                .collect(Collectors.joining(" or "))
                        + ", got "
                        + describe(p, path));
    }

    private static String describeBranch(Schema branch) {
        if (branch.getLogicalType() instanceof LogicalTypes.TimestampMillis) {
            return "an ISO-8601 UTC timestamp string";
        }
        return switch (branch.getType()) {
            case NULL -> "null";
            case BOOLEAN -> "true or false";
            case INT -> "an int";
            case LONG -> "a long";
            case FLOAT -> "a float";
            case DOUBLE -> "a double";
            case STRING -> "a string";
            case ENUM -> "a symbol of " + branch.getFullName();
            case BYTES -> "a Base64 string";
            case FIXED -> "a Base64 string (fixed " + branch.getFullName() + ")";
            case RECORD -> "an object (record " + branch.getFullName() + ")";
            case MAP -> "an object (a map)";
            case ARRAY -> "an array";
            case UNION -> "a union";
        };
    }

    /**
     * Throws if some union of the schema has two branches written as the same JSON type: a value of
     * such a union cannot be told apart when read back.
     */
    private static void checkReadable(Schema schema) {
        String problem = READABLE.get(schema);
        if (problem == null) {
            problem = unreadableUnion(schema, Path.ROOT, new HashSet<>());
            READABLE.put(schema, problem);
        }
        if (!problem.isEmpty()) {
            throw new IllegalArgumentException(
                    "schema "
                            + schema.getFullName()
                            + " cannot be read from its JSON form: "
                            + problem);
        }
    }

    private static String unreadableUnion(Schema schema, Path path, Set<String> records) {
        switch (schema.getType()) {
            case RECORD -> {
                if (!records.add(schema.getFullName())) {
                    return "";
                }
                for (Schema.Field field : schema.getFields()) {
                    String problem =
                            unreadableUnion(field.schema(), path.field(field.name()), records);
                    if (!problem.isEmpty()) {
                        return problem;
                    }
                }
                return "";
            }
            case ARRAY -> {
                return unreadableUnion(schema.getElementType(), path.index(0), records);
            }
            case MAP -> {
                return unreadableUnion(schema.getValueType(), path.key("*"), records);
            }
            case UNION -> {
                List<Schema> branches = schema.getTypes();
                for (int i = 0; i < branches.size(); i++) {
                    for (int j = i + 1; j < branches.size(); j++) {
                        Set<JsonType> shared = EnumSet.copyOf(writtenAs(branches.get(i)));
                        shared.retainAll(writtenAs(branches.get(j)));
                        if (!shared.isEmpty()) {
                            return path
                                    + ": union "
                                    + schema
                                    + " is ambiguous: its branches "
                                    + branches.get(i)
                                    + " and "
                                    + branches.get(j)
                                    + " are both written as a JSON "
                                    + shared.iterator().next().name().toLowerCase()
                                    + " (only unions whose branches have different JSON types"
                                    + " can be read back)";
                        }
                    }
                }
                for (Schema branch : branches) {
                    String problem = unreadableUnion(branch, path, records);
                    if (!problem.isEmpty()) {
                        return problem;
                    }
                }
                return "";
            }
            default -> {
                return "";
            }
        }
    }

    // ---- paths ----

    /** Path of a value in a record, for messages: {@code $.a.b[2]["key"]}; built lazily. */
    private static final class Path {
        static final Path ROOT = new Path(null, null, -1, false);

        private final Path parent;
        private final String name;
        private final int index;
        private final boolean mapKey;

        private Path(Path parent, String name, int index, boolean mapKey) {
            this.parent = parent;
            this.name = name;
            this.index = index;
            this.mapKey = mapKey;
        }

        Path field(String field) {
            return new Path(this, field, -1, false);
        }

        Path index(int i) {
            return new Path(this, null, i, false);
        }

        Path key(String key) {
            return new Path(this, key, -1, true);
        }

        @Override
        public String toString() {
            if (parent == null) {
                return "$";
            }
            String step =
                    mapKey
                            ? "[" + quote(name) + "]"
                            : name != null ? "." + name : "[" + index + "]";
            return parent + step;
        }
    }
}
