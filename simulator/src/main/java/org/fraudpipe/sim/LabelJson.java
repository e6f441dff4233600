package org.fraudpipe.sim;

import com.fasterxml.jackson.core.JsonGenerator;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.StringWriter;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import org.fraudpipe.schemas.json.ReplayFormatException;
import org.fraudpipe.schemas.json.StrictJsonLines;
import org.fraudpipe.schemas.json.TransactionJson;

/**
 * The labels file: JSON Lines, one line per generated transaction id, in the order the ids first
 * appear in the transactions file. Fields, in this order: {@code transactionId}, {@code userId},
 * {@code eventTime}, {@code arrivalTime}, {@code line}, {@code fraud}, {@code pattern}, {@code
 * burstId} (null for legitimate traffic), {@code duplicate}, {@code futureDated}, {@code
 * hoursLate}, {@code malformed}, {@code malformedKind} (null unless malformed). See {@link Label}
 * for their meaning and invariants. Reading is as strict as {@link TransactionJson}.
 */
public final class LabelJson {

    /** Field names of a line, in the order they are written. */
    public static final List<String> FIELDS =
            List.of(
                    "transactionId",
                    "userId",
                    "eventTime",
                    "arrivalTime",
                    "line",
                    "fraud",
                    "pattern",
                    "burstId",
                    "duplicate",
                    "futureDated",
                    "hoursLate",
                    "malformed",
                    "malformedKind");

    private static final Set<String> FIELD_SET = Set.copyOf(FIELDS);

    private LabelJson() {}

    /** The canonical line (without line terminator) of a label. */
    public static String toJsonLine(Label label) {
        StringWriter out = new StringWriter(320);
        try (JsonGenerator g = StrictJsonLines.MAPPER.getFactory().createGenerator(out)) {
            g.writeStartObject();
            g.writeStringField("transactionId", label.transactionId());
            g.writeStringField("userId", label.userId());
            g.writeStringField("eventTime", TransactionJson.formatInstant(label.eventTime()));
            g.writeStringField("arrivalTime", TransactionJson.formatInstant(label.arrivalTime()));
            g.writeNumberField("line", label.line());
            g.writeBooleanField("fraud", label.fraud());
            g.writeStringField("pattern", label.pattern().name());
            g.writeStringField("burstId", label.burstId());
            g.writeBooleanField("duplicate", label.duplicate());
            g.writeBooleanField("futureDated", label.futureDated());
            g.writeBooleanField("hoursLate", label.hoursLate());
            g.writeBooleanField("malformed", label.malformed());
            g.writeStringField(
                    "malformedKind",
                    label.malformedKind() == null ? null : label.malformedKind().name());
            g.writeEndObject();
        } catch (IOException e) {
            throw new UncheckedIOException("writing to a StringWriter cannot fail", e);
        }
        return out.toString();
    }

    /** Reads one line of a labels file; errors name the line. */
    public static Label parseLine(String source, String line, long lineNumber)
            throws ReplayFormatException {
        ObjectNode node = StrictJsonLines.parseObject(source, line, lineNumber, FIELD_SET, FIELDS);
        StrictJsonLines.Fields f = new StrictJsonLines.Fields(source, lineNumber, node);
        FraudPattern pattern = enumValue(f, FraudPattern.class, f.string("pattern"), "pattern");
        String kind = f.nullableString("malformedKind");
        try {
            return new Label(
                    f.string("transactionId"),
                    f.string("userId"),
                    f.instant("eventTime"),
                    f.instant("arrivalTime"),
                    f.longValue("line"),
                    f.bool("fraud"),
                    pattern,
                    f.nullableString("burstId"),
                    f.bool("duplicate"),
                    f.bool("futureDated"),
                    f.bool("hoursLate"),
                    f.bool("malformed"),
                    kind == null ? null : enumValue(f, MalformedKind.class, kind, "malformedKind"));
        } catch (IllegalArgumentException e) {
            throw f.error("inconsistent label: " + e.getMessage());
        }
    }

    /** Reads a whole labels file (labels are small: one short line per transaction id). */
    public static List<Label> readAll(Path file) throws IOException {
        List<Label> labels = new ArrayList<>();
        try (BufferedReader in = Files.newBufferedReader(file, StandardCharsets.UTF_8)) {
            String line;
            long n = 0;
            while ((line = in.readLine()) != null) {
                labels.add(parseLine(file.toString(), line, ++n));
            }
        }
        return labels;
    }

    private static <E extends Enum<E>> E enumValue(
            StrictJsonLines.Fields f, Class<E> type, String text, String field)
            throws ReplayFormatException {
        try {
            return Enum.valueOf(type, text);
        } catch (IllegalArgumentException e) {
            throw f.error(
                    "field \""
                            + field
                            + "\" must be one of "
                            + java.util.Arrays.toString(type.getEnumConstants())
                            + ", got \""
                            + text
                            + "\"");
        }
    }
}
