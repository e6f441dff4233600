package org.fraudpipe.scoring.data;

import com.fasterxml.jackson.core.JsonGenerator;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.StreamReadFeature;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.json.JsonMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.StringWriter;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.DateTimeException;
import java.time.Instant;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Set;
import org.apache.avro.LogicalTypes;
import org.apache.avro.Schema;
import org.fraudpipe.schemas.avro.FeatureRecord;
import org.fraudpipe.schemas.avro.Timing;

/**
 * The labelled-features file: the input of {@code ./fraud train}, written by {@code ./fraud
 * features} (and later by the parity export). JSON Lines, UTF-8, {@code \n} line ends, one window
 * per line:
 *
 * <pre>{@code
 * {"userId":"u-000001","windowStart":"2026-11-28T00:10:00Z","windowEnd":"2026-11-28T00:20:00Z",
 *  "txCount":2,"amountSum":5035,"amountMax":3000,"distinctDevices":1,"distinctMerchants":2,
 *  "distinctCountries":1,"revision":0,"timing":"ON_TIME","lateRecordsIncluded":0,
 *  "emittedAt":"+292278994-08-17T07:12:55.807Z","watermark":"+292278994-08-17T07:12:55.807Z",
 *  "fraud":false}
 * }</pre>
 *
 * (one line in the file). That is a {@code FeatureRecord} exactly as {@code ./fraud replay} writes
 * it to {@code features.jsonl} (field names and order of the Avro schema, instants as ISO-8601 UTC,
 * enums as symbols) plus the label {@code "fraud"}, last. So a replay's output becomes training
 * data by adding one field.
 *
 * <p>Reading is strict about what training uses and lenient about the pane: {@code userId}, {@code
 * windowStart}, {@code windowEnd}, the six feature fields and {@code fraud} are required with exact
 * JSON types; the pane fields ({@code revision}, {@code timing}, {@code lateRecordsIncluded},
 * {@code emittedAt}, {@code watermark}) may be absent (then: 0, ON_TIME, 0, and the end-of-input
 * instant {@link #END_OF_INPUT} for both times, i.e. an ideal value over all data); any other field
 * is an error (a typo must not silently drop a feature). Every error names the file and line.
 */
public final class LabelledFeaturesJson {

    /** Name of the label field. */
    public static final String FRAUD_FIELD = "fraud";

    /**
     * Emission time and watermark of an ideal (batch) value: Flink's end-of-input watermark, as in
     * the replay's output ({@code +292278994-08-17T07:12:55.807Z}).
     */
    public static final Instant END_OF_INPUT = Instant.ofEpochMilli(Long.MAX_VALUE);

    private static final Set<String> REQUIRED =
            Set.of(
                    "userId",
                    "windowStart",
                    "windowEnd",
                    "txCount",
                    "amountSum",
                    "amountMax",
                    "distinctDevices",
                    "distinctMerchants",
                    "distinctCountries",
                    FRAUD_FIELD);

    private static final Set<String> OPTIONAL =
            Set.of("revision", "timing", "lateRecordsIncluded", "emittedAt", "watermark");

    static final JsonMapper MAPPER =
            JsonMapper.builder()
                    .enable(StreamReadFeature.STRICT_DUPLICATE_DETECTION)
                    .enable(DeserializationFeature.FAIL_ON_TRAILING_TOKENS)
                    .build();

    private LabelledFeaturesJson() {}

    /** The canonical line (without terminator) of a labelled window. */
    public static String toJsonLine(LabelledWindow window) {
        FeatureRecord r = window.features();
        StringWriter out = new StringWriter(400);
        try (JsonGenerator g = MAPPER.getFactory().createGenerator(out)) {
            g.writeStartObject();
            for (Schema.Field field : r.getSchema().getFields()) {
                g.writeFieldName(field.name());
                writeValue(g, field, r.get(field.pos()));
            }
            g.writeBooleanField(FRAUD_FIELD, window.fraud());
            g.writeEndObject();
        } catch (IOException e) {
            throw new UncheckedIOException("writing to a StringWriter cannot fail", e);
        }
        return out.toString();
    }

    static void writeValue(JsonGenerator g, Schema.Field field, Object value) throws IOException {
        Schema schema = field.schema();
        if (schema.getLogicalType() instanceof LogicalTypes.TimestampMillis) {
            g.writeString(formatInstant((Instant) value));
            return;
        }
        switch (schema.getType()) {
            case STRING, ENUM -> g.writeString(value.toString());
            case INT -> g.writeNumber((Integer) value);
            case LONG -> g.writeNumber((Long) value);
            case BOOLEAN -> g.writeBoolean((Boolean) value);
            default ->
                    throw new IllegalStateException(
                            "field "
                                    + field.name()
                                    + " of type "
                                    + schema.getType()
                                    + " has no JSON form here yet: add it with a test");
        }
    }

    /** ISO-8601 UTC, e.g. {@code 2026-11-28T12:00:00Z}, as the replay writes instants. */
    public static String formatInstant(Instant instant) {
        return DateTimeFormatter.ISO_INSTANT.format(instant);
    }

    /**
     * Reads one line.
     *
     * @param source file name for messages, or {@code null}
     */
    public static LabelledWindow parseLine(String source, String line, long lineNumber)
            throws FeatureFileException {
        ObjectNode object = parseObject(source, line, lineNumber);
        Iterator<String> names = object.fieldNames();
        while (names.hasNext()) {
            String name = names.next();
            if (!REQUIRED.contains(name) && !OPTIONAL.contains(name)) {
                throw new FeatureFileException(
                        source,
                        lineNumber,
                        "unknown field \""
                                + name
                                + "\" (a line is a FeatureRecord plus \"fraud\")");
            }
        }
        Fields f = new Fields(source, lineNumber, object);
        FeatureRecord record =
                FeatureRecord.newBuilder()
                        .setUserId(f.string("userId"))
                        .setWindowStart(f.instant("windowStart", null))
                        .setWindowEnd(f.instant("windowEnd", null))
                        .setTxCount(f.nonNegativeLong("txCount"))
                        .setAmountSum(f.nonNegativeLong("amountSum"))
                        .setAmountMax(f.nonNegativeLong("amountMax"))
                        .setDistinctDevices(f.nonNegativeInt("distinctDevices", null))
                        .setDistinctMerchants(f.nonNegativeInt("distinctMerchants", null))
                        .setDistinctCountries(f.nonNegativeInt("distinctCountries", null))
                        .setRevision(f.nonNegativeInt("revision", 0))
                        .setTiming(f.timing())
                        .setLateRecordsIncluded(f.nonNegativeInt("lateRecordsIncluded", 0))
                        .setEmittedAt(f.instant("emittedAt", END_OF_INPUT))
                        .setWatermark(f.instant("watermark", END_OF_INPUT))
                        .build();
        if (!record.getWindowEnd().isAfter(record.getWindowStart())) {
            throw new FeatureFileException(
                    source, lineNumber, "windowEnd must be after windowStart");
        }
        return new LabelledWindow(record, f.bool(FRAUD_FIELD));
    }

    /** One line as a JSON object; errors name the line. */
    static ObjectNode parseObject(String source, String line, long lineNumber)
            throws FeatureFileException {
        if (line.isBlank()) {
            throw new FeatureFileException(source, lineNumber, "empty line");
        }
        JsonNode node;
        try {
            node = MAPPER.readTree(line);
        } catch (JsonProcessingException e) {
            String what = e.getOriginalMessage();
            int cut = what.indexOf('\n');
            throw new FeatureFileException(
                    source,
                    lineNumber,
                    "not valid JSON: " + (cut >= 0 ? what.substring(0, cut) : what));
        }
        if (!(node instanceof ObjectNode object)) {
            throw new FeatureFileException(source, lineNumber, "expected a JSON object");
        }
        return object;
    }

    /** Reads a whole file (training sets are held in memory anyway). */
    public static List<LabelledWindow> readAll(Path file) throws IOException {
        List<LabelledWindow> windows = new ArrayList<>();
        try (BufferedReader in = Files.newBufferedReader(file, StandardCharsets.UTF_8)) {
            String line;
            long n = 0;
            while ((line = in.readLine()) != null) {
                windows.add(parseLine(file.toString(), line, ++n));
            }
        }
        return windows;
    }

    /** Typed, strict access to the fields of one line. */
    static final class Fields {
        private final String source;
        private final long line;
        private final ObjectNode node;

        Fields(String source, long line, ObjectNode node) {
            this.source = source;
            this.line = line;
            this.node = node;
        }

        private FeatureFileException error(String problem) {
            return new FeatureFileException(source, line, problem);
        }

        private JsonNode get(String name, boolean required) throws FeatureFileException {
            JsonNode v = node.get(name);
            if (v == null && required) {
                throw error("missing field \"" + name + "\"");
            }
            return v;
        }

        boolean bool(String name) throws FeatureFileException {
            JsonNode v = get(name, true);
            if (!v.isBoolean()) {
                throw error("field \"" + name + "\" must be true or false, got " + v);
            }
            return v.booleanValue();
        }

        String string(String name) throws FeatureFileException {
            JsonNode v = get(name, true);
            if (!v.isTextual() || v.textValue().isEmpty()) {
                throw error("field \"" + name + "\" must be a non-empty string, got " + v);
            }
            return v.textValue();
        }

        long nonNegativeLong(String name) throws FeatureFileException {
            JsonNode v = get(name, true);
            if (!v.isIntegralNumber() || !v.canConvertToLong() || v.longValue() < 0) {
                throw error("field \"" + name + "\" must be a non-negative integer, got " + v);
            }
            return v.longValue();
        }

        int nonNegativeInt(String name, Integer absent) throws FeatureFileException {
            JsonNode v = get(name, absent == null);
            if (v == null) {
                return absent;
            }
            if (!v.isIntegralNumber() || !v.canConvertToInt() || v.intValue() < 0) {
                throw error("field \"" + name + "\" must be a non-negative int, got " + v);
            }
            return v.intValue();
        }

        Timing timing() throws FeatureFileException {
            JsonNode v = get("timing", false);
            if (v == null) {
                return Timing.ON_TIME;
            }
            try {
                return Timing.valueOf(v.asText());
            } catch (IllegalArgumentException e) {
                throw error(
                        "field \"timing\" must be one of "
                                + java.util.Arrays.toString(Timing.values())
                                + ", got "
                                + v);
            }
        }

        Instant instant(String name, Instant absent) throws FeatureFileException {
            JsonNode v = get(name, absent == null);
            if (v == null) {
                return absent;
            }
            if (!v.isTextual()) {
                throw error("field \"" + name + "\" must be an ISO-8601 UTC string, got " + v);
            }
            try {
                Instant t = DateTimeFormatter.ISO_INSTANT.parse(v.textValue(), Instant::from);
                t.toEpochMilli(); // Avro timestamp-millis range
                if (!v.textValue().endsWith("Z") || t.getNano() % 1_000_000 != 0) {
                    throw new DateTimeException("not UTC millis");
                }
                return t;
            } catch (DateTimeException | ArithmeticException e) {
                throw error(
                        "field \""
                                + name
                                + "\" must be an ISO-8601 UTC instant with at most millisecond"
                                + " precision like 2026-11-28T12:00:00Z, got "
                                + v);
            }
        }
    }
}
