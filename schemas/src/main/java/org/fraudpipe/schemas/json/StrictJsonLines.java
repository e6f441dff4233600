package org.fraudpipe.schemas.json;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.StreamReadFeature;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.json.JsonMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.time.DateTimeException;
import java.time.Instant;
import java.time.format.DateTimeFormatter;
import java.util.Iterator;
import java.util.List;
import java.util.Set;

/**
 * Strict reading of JSON Lines files, shared by the project's line formats (transactions, the
 * simulator's labels): one object per line, no duplicate or unknown field, typed access that names
 * the line and the field of every problem ({@link ReplayFormatException}).
 */
public final class StrictJsonLines {

    /** A mapper that refuses duplicate fields and trailing tokens. */
    public static final JsonMapper MAPPER =
            JsonMapper.builder()
                    .enable(StreamReadFeature.STRICT_DUPLICATE_DETECTION)
                    .enable(DeserializationFeature.FAIL_ON_TRAILING_TOKENS)
                    .build();

    private StrictJsonLines() {}

    /**
     * Parses {@code line} as one JSON object whose field names are all in {@code allowed}.
     *
     * @param order the field names in their documented order, for the error message
     * @throws ReplayFormatException naming the line: empty, not JSON, not an object, unknown field
     */
    public static ObjectNode parseObject(
            String source, String line, long lineNumber, Set<String> allowed, List<String> order)
            throws ReplayFormatException {
        if (line.isBlank()) {
            throw new ReplayFormatException(
                    source, lineNumber, "empty line (expected one JSON object per line)");
        }
        JsonNode node;
        try {
            node = MAPPER.readTree(line);
        } catch (JsonProcessingException e) {
            String what = e.getOriginalMessage();
            int cut = what.indexOf('\n');
            if (cut >= 0) {
                what = what.substring(0, cut);
            }
            long column = e.getLocation() == null ? -1 : e.getLocation().getColumnNr();
            throw new ReplayFormatException(
                    source,
                    lineNumber,
                    "not valid JSON" + (column > 0 ? " at column " + column : "") + ": " + what);
        }
        if (!(node instanceof ObjectNode object)) {
            throw new ReplayFormatException(
                    source, lineNumber, "expected a JSON object, got " + node.getNodeType());
        }
        Iterator<String> names = object.fieldNames();
        while (names.hasNext()) {
            String name = names.next();
            if (!allowed.contains(name)) {
                throw new ReplayFormatException(
                        source,
                        lineNumber,
                        "unknown field \"" + name + "\" (expected exactly " + order + ")");
            }
        }
        return object;
    }

    /** Typed, strict access to the fields of one parsed line. */
    public static final class Fields {
        private final String source;
        private final long lineNumber;
        private final ObjectNode node;

        public Fields(String source, long lineNumber, ObjectNode node) {
            this.source = source;
            this.lineNumber = lineNumber;
            this.node = node;
        }

        private JsonNode required(String name) throws ReplayFormatException {
            JsonNode value = node.get(name);
            if (value == null) {
                throw error("missing field \"" + name + "\"");
            }
            return value;
        }

        public ReplayFormatException error(String problem) {
            return new ReplayFormatException(source, lineNumber, problem);
        }

        public String string(String name) throws ReplayFormatException {
            JsonNode value = required(name);
            if (!value.isTextual()) {
                throw error("field \"" + name + "\" must be a string, got " + value);
            }
            return value.textValue();
        }

        public String nullableString(String name) throws ReplayFormatException {
            JsonNode value = required(name);
            return value.isNull() ? null : string(name);
        }

        public long longValue(String name) throws ReplayFormatException {
            JsonNode value = required(name);
            if (!value.isIntegralNumber() || !value.canConvertToLong()) {
                throw error("field \"" + name + "\" must be a 64-bit integer, got " + value);
            }
            return value.longValue();
        }

        public boolean bool(String name) throws ReplayFormatException {
            JsonNode value = required(name);
            if (!value.isBoolean()) {
                throw error("field \"" + name + "\" must be true or false, got " + value);
            }
            return value.booleanValue();
        }

        public Instant instant(String name) throws ReplayFormatException {
            String text = string(name);
            Instant instant;
            try {
                if (!text.endsWith("Z")) {
                    throw new DateTimeException("not UTC");
                }
                instant = DateTimeFormatter.ISO_INSTANT.parse(text, Instant::from);
                instant.toEpochMilli(); // Avro timestamp-millis range
            } catch (DateTimeException | ArithmeticException e) {
                throw error(
                        "field \""
                                + name
                                + "\" must be an ISO-8601 UTC instant like 2026-11-28T12:00:00Z, got \""
                                + text
                                + "\"");
            }
            if (instant.getNano() % 1_000_000 != 0) {
                throw error(
                        "field \""
                                + name
                                + "\" has sub-millisecond precision (at most 3 fraction digits): \""
                                + text
                                + "\"");
            }
            return instant;
        }
    }
}
