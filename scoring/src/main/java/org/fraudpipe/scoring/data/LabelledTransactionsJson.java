package org.fraudpipe.scoring.data;

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
import java.util.Iterator;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import org.apache.avro.Schema;
import org.fraudpipe.schemas.avro.TransactionFeatures;

/**
 * The per-transaction training file: the input of {@code ./fraud train --per-transaction}, written
 * by {@code ./fraud features --per-transaction}. JSON Lines, UTF-8, {@code \n} line ends, one
 * transaction per line: a {@code TransactionFeatures} exactly as {@code ./fraud replay} writes the
 * {@code features} of a line of {@code transaction-scores.jsonl} (field names and order of the Avro
 * schema, instants as ISO-8601 UTC) plus the label {@code "fraud"}, last:
 *
 * <pre>{@code
 * {"transactionId":"t-1","userId":"u-000001","eventTime":"2026-11-28T00:10:00Z",
 *  "trailingWindowMillis":600000,"txCount":2,"amountSum":5035,"amountMax":3000,
 *  "distinctDevices":1,"distinctMerchants":2,"distinctCountries":1,"amountMinor":3000,
 *  "newDevice":false,"newMerchant":true,"newCountry":false,"historyComplete":true,"fraud":false}
 * }</pre>
 *
 * <p>Reading is strict: every field of the schema and {@code fraud} is required with its exact JSON
 * type ({@code historyComplete} may be absent: true), any other field is an error, counts and
 * amounts are non-negative; every error names the file and line.
 */
public final class LabelledTransactionsJson {

    /** Name of the label field. */
    public static final String FRAUD_FIELD = LabelledFeaturesJson.FRAUD_FIELD;

    private static final Set<String> FIELDS;

    static {
        Set<String> names = new LinkedHashSet<>();
        for (Schema.Field f : TransactionFeatures.getClassSchema().getFields()) {
            names.add(f.name());
        }
        names.add(FRAUD_FIELD);
        FIELDS = Set.copyOf(names);
    }

    private LabelledTransactionsJson() {}

    /** The canonical line (without terminator) of a labelled transaction. */
    public static String toJsonLine(LabelledTransaction labelled) {
        TransactionFeatures r = labelled.features();
        StringWriter out = new StringWriter(400);
        try (JsonGenerator g = LabelledFeaturesJson.MAPPER.getFactory().createGenerator(out)) {
            g.writeStartObject();
            for (Schema.Field field : r.getSchema().getFields()) {
                g.writeFieldName(field.name());
                LabelledFeaturesJson.writeValue(g, field, r.get(field.pos()));
            }
            g.writeBooleanField(FRAUD_FIELD, labelled.fraud());
            g.writeEndObject();
        } catch (IOException e) {
            throw new UncheckedIOException("writing to a StringWriter cannot fail", e);
        }
        return out.toString();
    }

    /**
     * Reads one line.
     *
     * @param source file name for messages, or {@code null}
     */
    public static LabelledTransaction parseLine(String source, String line, long lineNumber)
            throws FeatureFileException {
        ObjectNode object = LabelledFeaturesJson.parseObject(source, line, lineNumber);
        Iterator<String> names = object.fieldNames();
        while (names.hasNext()) {
            String name = names.next();
            if (!FIELDS.contains(name)) {
                throw new FeatureFileException(
                        source,
                        lineNumber,
                        "unknown field \""
                                + name
                                + "\" (a line is a TransactionFeatures plus \"fraud\")");
            }
        }
        LabelledFeaturesJson.Fields f = new LabelledFeaturesJson.Fields(source, lineNumber, object);
        TransactionFeatures record =
                TransactionFeatures.newBuilder()
                        .setTransactionId(f.string("transactionId"))
                        .setUserId(f.string("userId"))
                        .setEventTime(f.instant("eventTime", null))
                        .setTrailingWindowMillis(f.nonNegativeLong("trailingWindowMillis"))
                        .setTxCount(f.nonNegativeLong("txCount"))
                        .setAmountSum(f.nonNegativeLong("amountSum"))
                        .setAmountMax(f.nonNegativeLong("amountMax"))
                        .setDistinctDevices(f.nonNegativeInt("distinctDevices", null))
                        .setDistinctMerchants(f.nonNegativeInt("distinctMerchants", null))
                        .setDistinctCountries(f.nonNegativeInt("distinctCountries", null))
                        .setAmountMinor(f.nonNegativeLong("amountMinor"))
                        .setNewDevice(f.bool("newDevice"))
                        .setNewMerchant(f.bool("newMerchant"))
                        .setNewCountry(f.bool("newCountry"))
                        .setHistoryComplete(
                                object.has("historyComplete") ? f.bool("historyComplete") : true)
                        .build();
        if (record.getTrailingWindowMillis() == 0) {
            throw new FeatureFileException(
                    source, lineNumber, "trailingWindowMillis must be positive");
        }
        return new LabelledTransaction(record, f.bool(FRAUD_FIELD));
    }

    /** Reads a whole file (training sets are held in memory anyway). */
    public static List<LabelledTransaction> readAll(Path file) throws IOException {
        List<LabelledTransaction> rows = new ArrayList<>();
        try (BufferedReader in = Files.newBufferedReader(file, StandardCharsets.UTF_8)) {
            String line;
            long n = 0;
            while ((line = in.readLine()) != null) {
                rows.add(parseLine(file.toString(), line, ++n));
            }
        }
        return rows;
    }
}
