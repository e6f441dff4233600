package org.fraudpipe.schemas.json;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonGenerator;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
import java.io.StringWriter;
import java.io.UncheckedIOException;
import java.time.Instant;
import java.time.format.DateTimeFormatter;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.regex.Pattern;
import org.fraudpipe.schemas.TransactionValidator;
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

    private static final JsonFactory FACTORY = StrictJsonLines.MAPPER.getFactory();

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
    public static ObjectNode toObjectNode(Transaction tx, Instant arrivalTime) {
        try {
            return (ObjectNode) StrictJsonLines.MAPPER.readTree(toJsonLine(tx, arrivalTime));
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
        ObjectNode node = StrictJsonLines.parseObject(source, line, lineNumber, FIELD_SET, FIELDS);
        StrictJsonLines.Fields f = new StrictJsonLines.Fields(source, lineNumber, node);
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
     * {@link #parseLine} followed by the contract's {@link TransactionValidator} (the job's ingest
     * rules): a line that is a valid transaction.
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

    private static boolean isBlank(String s) {
        return s == null || s.isBlank();
    }
}
