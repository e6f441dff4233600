package org.fraudpipe.job.sim;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonGenerator;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.StreamReadFeature;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.json.JsonMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.BufferedReader;
import java.io.Closeable;
import java.io.IOException;
import java.io.StringWriter;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.DateTimeException;
import java.time.Instant;
import java.time.format.DateTimeFormatter;
import java.util.Iterator;
import java.util.List;
import java.util.NoSuchElementException;
import java.util.Optional;
import java.util.Set;
import java.util.regex.Pattern;
import org.fraudpipe.job.ingest.TransactionValidator;
import org.fraudpipe.schemas.avro.Transaction;

/**
 * The replay format: JSON Lines, one transaction per line, in arrival order.
 *
 * <p>A line is a JSON object with these fields, written in this order: {@code transactionId},
 * {@code userId}, {@code amountMinor} (integer), {@code currency}, {@code merchantId}, {@code
 * deviceId}, {@code country} (strings), {@code eventTime} and {@code arrivalTime} (ISO-8601 UTC
 * instants such as {@code 2026-11-28T12:00:00Z}, with a 3-digit fraction when the milliseconds are
 * not zero). Every field is required except {@code arrivalTime}, which may be absent (not {@code
 * null}): a hand-written or exported file may not know when records arrived (see {@link
 * ReplayRecord#arrivalOrEventTime()}). Lines end with {@code \n}; the file is UTF-8.
 *
 * <p>Writing is canonical: {@code toJsonLine(parseLine(l)) == l} for every line this class wrote.
 * Reading is strict and line based, so the replay job can use it for its input and report the exact
 * line of a problem:
 *
 * <ul>
 *   <li>{@link #parseLine} checks the format: one JSON object, no duplicate, unknown or missing
 *       field ({@code arrivalTime} may be missing), right JSON types, instants in UTC ({@code Z})
 *       with at most millisecond precision (what Avro's {@code timestamp-millis} holds).
 *   <li>{@link TransactionValidator} checks the content: non-empty ids, {@code amountMinor >= 0},
 *       currency of three and country of two upper-case letters.
 *   <li>{@link #parseValidLine} does both.
 * </ul>
 *
 * Every error is a {@link ReplayFormatException} naming the line.
 */
public final class TransactionJson {

    /** Field names of a line, in the order they are written. */
    public static final List<String> FIELDS =
            List.of(
                    "transactionId",
                    "userId",
                    "amountMinor",
                    "currency",
                    "merchantId",
                    "deviceId",
                    "country",
                    "eventTime",
                    "arrivalTime");

    private static final Set<String> FIELD_SET = Set.copyOf(FIELDS);
    private static final Pattern CURRENCY = Pattern.compile("[A-Z]{3}");
    private static final Pattern COUNTRY = Pattern.compile("[A-Z]{2}");

    static final JsonMapper MAPPER =
            JsonMapper.builder()
                    .enable(StreamReadFeature.STRICT_DUPLICATE_DETECTION)
                    .enable(DeserializationFeature.FAIL_ON_TRAILING_TOKENS)
                    .build();
    private static final JsonFactory FACTORY = MAPPER.getFactory();

    private TransactionJson() {}

    /**
     * The canonical line (without line terminator) for a transaction that arrived at a time.
     *
     * @param arrivalTime when it arrived, or {@code null} to leave the field out
     */
    public static String toJsonLine(Transaction tx, Instant arrivalTime) {
        StringWriter out = new StringWriter(256);
        try (JsonGenerator g = FACTORY.createGenerator(out)) {
            g.writeStartObject();
            g.writeStringField("transactionId", tx.getTransactionId());
            g.writeStringField("userId", tx.getUserId());
            g.writeNumberField("amountMinor", tx.getAmountMinor());
            g.writeStringField("currency", tx.getCurrency());
            g.writeStringField("merchantId", tx.getMerchantId());
            g.writeStringField("deviceId", tx.getDeviceId());
            g.writeStringField("country", tx.getCountry());
            g.writeStringField("eventTime", formatInstant(tx.getEventTime()));
            if (arrivalTime != null) {
                g.writeStringField("arrivalTime", formatInstant(arrivalTime));
            }
            g.writeEndObject();
        } catch (IOException e) {
            throw new UncheckedIOException("writing to a StringWriter cannot fail", e);
        }
        return out.toString();
    }

    /** The canonical line (without line terminator) of a replay record. */
    public static String toJsonLine(ReplayRecord record) {
        return toJsonLine(record.transaction(), record.arrivalTime());
    }

    /**
     * The line as an editable tree whose fields keep the canonical order (used to derive malformed
     * variants of a line).
     */
    static ObjectNode toObjectNode(Transaction tx, Instant arrivalTime) {
        try {
            return (ObjectNode) MAPPER.readTree(toJsonLine(tx, arrivalTime));
        } catch (JsonProcessingException e) {
            throw new IllegalStateException("a canonical line must parse", e);
        }
    }

    /** ISO-8601 UTC, e.g. {@code 2026-11-28T12:00:00Z} or {@code 2026-11-28T12:00:00.250Z}. */
    public static String formatInstant(Instant instant) {
        return DateTimeFormatter.ISO_INSTANT.format(instant);
    }

    /** {@link #parseLine(String, String, long)} without a source name. */
    public static ReplayRecord parseLine(String line, long lineNumber)
            throws ReplayFormatException {
        return parseLine(null, line, lineNumber);
    }

    /**
     * Reads one line of the replay format, checking its format but not its content (see the class
     * comment).
     *
     * @param source file name for error messages, or {@code null}
     * @param line the line without terminator
     * @param lineNumber its 1-based number, for error messages
     * @throws ReplayFormatException naming the line and what is wrong
     */
    public static ReplayRecord parseLine(String source, String line, long lineNumber)
            throws ReplayFormatException {
        ObjectNode node = parseObject(source, line, lineNumber, FIELD_SET, FIELDS);
        Fields f = new Fields(source, lineNumber, node);
        Transaction tx =
                new Transaction(
                        f.string("transactionId"),
                        f.string("userId"),
                        f.longValue("amountMinor"),
                        f.string("currency"),
                        f.string("merchantId"),
                        f.string("deviceId"),
                        f.string("country"),
                        f.instant("eventTime"));
        return new ReplayRecord(tx, node.has("arrivalTime") ? f.instant("arrivalTime") : null);
    }

    /**
     * {@link #parseLine} followed by the job's own {@link TransactionValidator}: a line that is a
     * valid transaction.
     */
    public static ReplayRecord parseValidLine(String source, String line, long lineNumber)
            throws ReplayFormatException {
        ReplayRecord record = parseLine(source, line, lineNumber);
        Optional<String> violation = TransactionValidator.problem(record.transaction());
        if (violation.isPresent()) {
            throw new ReplayFormatException(
                    source, lineNumber, "invalid transaction: " + violation.get());
        }
        return record;
    }

    /** A strict reader of a replay file ({@link #parseValidLine} on every line). */
    public static LineReader open(Path file) throws IOException {
        return new LineReader(
                Files.newBufferedReader(file, StandardCharsets.UTF_8), file.toString());
    }

    /** A strict reader over already opened text ({@link #parseValidLine} on every line). */
    public static LineReader reader(BufferedReader in, String source) {
        return new LineReader(in, source);
    }

    /**
     * Reads a replay file line by line, strictly: an empty line, a malformed line or an invalid
     * transaction is an error naming the line. Iterating (lazily, one line per element) wraps those
     * errors in {@link UncheckedIOException} (with the {@link ReplayFormatException} as cause).
     */
    public static final class LineReader implements Closeable, Iterable<ReplayRecord> {
        private final BufferedReader in;
        private final String source;
        private long lineNumber;

        private LineReader(BufferedReader in, String source) {
            this.in = in;
            this.source = source;
        }

        /** The next record, or {@code null} at the end of the input. */
        public ReplayRecord next() throws IOException {
            String line = in.readLine();
            if (line == null) {
                return null;
            }
            lineNumber++;
            return parseValidLine(source, line, lineNumber);
        }

        /** Number of lines read so far (the line number of the last record returned). */
        public long lineNumber() {
            return lineNumber;
        }

        @Override
        public Iterator<ReplayRecord> iterator() {
            return new Iterator<>() {
                private ReplayRecord buffered;
                private boolean exhausted;

                @Override
                public boolean hasNext() {
                    if (buffered == null && !exhausted) {
                        try {
                            buffered = LineReader.this.next();
                        } catch (IOException e) {
                            throw new UncheckedIOException(e.getMessage(), e);
                        }
                        exhausted = buffered == null;
                    }
                    return buffered != null;
                }

                @Override
                public ReplayRecord next() {
                    if (!hasNext()) {
                        throw new NoSuchElementException();
                    }
                    ReplayRecord r = buffered;
                    buffered = null;
                    return r;
                }
            };
        }

        @Override
        public void close() throws IOException {
            in.close();
        }
    }

    // ---- strict JSON helpers, shared with LabelJson ----

    static ObjectNode parseObject(
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
    static final class Fields {
        private final String source;
        private final long lineNumber;
        private final ObjectNode node;

        Fields(String source, long lineNumber, ObjectNode node) {
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

        ReplayFormatException error(String problem) {
            return new ReplayFormatException(source, lineNumber, problem);
        }

        String string(String name) throws ReplayFormatException {
            JsonNode value = required(name);
            if (!value.isTextual()) {
                throw error("field \"" + name + "\" must be a string, got " + value);
            }
            return value.textValue();
        }

        String nullableString(String name) throws ReplayFormatException {
            JsonNode value = required(name);
            return value.isNull() ? null : string(name);
        }

        long longValue(String name) throws ReplayFormatException {
            JsonNode value = required(name);
            if (!value.isIntegralNumber() || !value.canConvertToLong()) {
                throw error("field \"" + name + "\" must be a 64-bit integer, got " + value);
            }
            return value.longValue();
        }

        boolean bool(String name) throws ReplayFormatException {
            JsonNode value = required(name);
            if (!value.isBoolean()) {
                throw error("field \"" + name + "\" must be true or false, got " + value);
            }
            return value.booleanValue();
        }

        Instant instant(String name) throws ReplayFormatException {
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

    private static boolean isBlank(String s) {
        return s == null || s.isBlank();
    }
}
