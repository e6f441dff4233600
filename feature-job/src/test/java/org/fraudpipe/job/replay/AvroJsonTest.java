package org.fraudpipe.job.replay;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.time.LocalDate;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.TreeSet;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.apache.avro.Schema;
import org.apache.avro.generic.GenericData;
import org.apache.avro.generic.GenericRecord;
import org.apache.avro.generic.IndexedRecord;
import org.apache.avro.specific.SpecificData;
import org.apache.avro.specific.SpecificRecordBase;
import org.fraudpipe.schemas.avro.ArchivedModelEvent;
import org.fraudpipe.schemas.avro.ArchivedTransaction;
import org.fraudpipe.schemas.avro.ChallengerScore;
import org.fraudpipe.schemas.avro.DeadLetter;
import org.fraudpipe.schemas.avro.DeadLetterReason;
import org.fraudpipe.schemas.avro.Decision;
import org.fraudpipe.schemas.avro.FeatureRecord;
import org.fraudpipe.schemas.avro.LateReason;
import org.fraudpipe.schemas.avro.LateRecord;
import org.fraudpipe.schemas.avro.ModelAssignment;
import org.fraudpipe.schemas.avro.ModelEvent;
import org.fraudpipe.schemas.avro.ModelRelease;
import org.fraudpipe.schemas.avro.ReadPosition;
import org.fraudpipe.schemas.avro.ScoreRecord;
import org.fraudpipe.schemas.avro.Timing;
import org.fraudpipe.schemas.avro.Transaction;
import org.fraudpipe.schemas.avro.TransactionFeatures;
import org.fraudpipe.schemas.avro.TransactionScore;
import org.fraudpipe.schemas.avro.WindowKey;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

class AvroJsonTest {

    private static final Instant T0 = Instant.parse("2026-11-28T12:00:00Z");

    static FeatureRecord feature() {
        return FeatureRecord.newBuilder()
                .setUserId("u-1")
                .setWindowStart(T0)
                .setWindowEnd(T0.plusSeconds(600))
                .setTxCount(2)
                .setAmountSum(3000)
                .setAmountMax(2000)
                .setDistinctDevices(2)
                .setDistinctMerchants(1)
                .setDistinctCountries(1)
                .setRevision(1)
                .setTiming(Timing.LATE)
                .setLateRecordsIncluded(1)
                .setEmittedAt(Instant.parse("2026-11-28T12:10:04.999Z"))
                .setWatermark(Instant.parse("2026-11-28T12:10:04.999Z"))
                .build();
    }

    static Transaction tx() {
        return new Transaction("t-1", "u-1", 1250L, "EUR", "m-1", "d-1", "DE", T0);
    }

    @Test
    void writesFieldsInSchemaOrderWithIsoInstantsAndEnumSymbols() {
        assertThat(AvroJson.toJsonLine(feature()))
                .isEqualTo(
                        "{\"userId\":\"u-1\",\"windowStart\":\"2026-11-28T12:00:00Z\","
                                + "\"windowEnd\":\"2026-11-28T12:10:00Z\",\"txCount\":2,"
                                + "\"amountSum\":3000,\"amountMax\":2000,\"distinctDevices\":2,"
                                + "\"distinctMerchants\":1,\"distinctCountries\":1,\"revision\":1,"
                                + "\"timing\":\"LATE\",\"lateRecordsIncluded\":1,"
                                + "\"emittedAt\":\"2026-11-28T12:10:04.999Z\","
                                + "\"watermark\":\"2026-11-28T12:10:04.999Z\"}");
    }

    @Test
    void nestedRecordsAreObjectsAndNullUnionsAreNull() {
        LateRecord late =
                LateRecord.newBuilder()
                        .setTransaction(tx())
                        .setReason(LateReason.FUTURE_DATED)
                        .setWindowStart(T0)
                        .setWindowEnd(T0.plusSeconds(600))
                        .setWatermark(null)
                        .setLateByMillis(-60_000)
                        .setDetectedAt(T0.minusSeconds(60))
                        .build();

        assertThat(AvroJson.toJsonLine(late))
                .isEqualTo(
                        "{\"transaction\":{\"transactionId\":\"t-1\",\"userId\":\"u-1\","
                                + "\"amountMinor\":1250,\"currency\":\"EUR\",\"merchantId\":\"m-1\","
                                + "\"deviceId\":\"d-1\",\"country\":\"DE\","
                                + "\"eventTime\":\"2026-11-28T12:00:00Z\"},"
                                + "\"reason\":\"FUTURE_DATED\","
                                + "\"windowStart\":\"2026-11-28T12:00:00Z\","
                                + "\"windowEnd\":\"2026-11-28T12:10:00Z\",\"watermark\":null,"
                                + "\"lateByMillis\":-60000,\"detectedAt\":\"2026-11-28T11:59:00Z\"}");
    }

    @Test
    void bytesAreBase64AndANonNullUnionIsWrittenAsItsBranch() {
        byte[] raw = "{\"transactionId\":".getBytes(StandardCharsets.UTF_8);
        ByteBuffer value = ByteBuffer.wrap(raw);
        DeadLetter letter =
                DeadLetter.newBuilder()
                        .setSourceTopic("tx.jsonl")
                        .setSourcePartition(0)
                        .setSourceOffset(4)
                        .setRecordTimestamp(Instant.parse("2026-11-28T12:00:00.250Z"))
                        .setKey(null)
                        .setValue(value)
                        .setReason(DeadLetterReason.UNDECODABLE)
                        .setErrorMessage("tx.jsonl:4: not valid JSON\n\"quoted\" é")
                        .setDetectedAt(T0)
                        .build();

        String line = AvroJson.toJsonLine(letter);

        assertThat(line)
                .isEqualTo(
                        "{\"sourceTopic\":\"tx.jsonl\",\"sourcePartition\":0,\"sourceOffset\":4,"
                                + "\"recordTimestamp\":\"2026-11-28T12:00:00.250Z\",\"key\":null,"
                                + "\"value\":\"eyJ0cmFuc2FjdGlvbklkIjo=\",\"reason\":\"UNDECODABLE\","
                                + "\"errorMessage\":\"tx.jsonl:4: not valid JSON\\n\\\"quoted\\\" é\","
                                + "\"detectedAt\":\"2026-11-28T12:00:00Z\"}");
        assertThat(line).doesNotContain("\n");
        assertThat(value.position()).as("the record's buffer is not consumed").isZero();
    }

    @Test
    void flinksEndOfInputWatermarkIsWrittenWithItsYearSign() {
        FeatureRecord r = feature();
        r.setWatermark(Instant.ofEpochMilli(Long.MAX_VALUE));

        assertThat(AvroJson.toJsonLine(r))
                .endsWith("\"watermark\":\"+292278994-08-17T07:12:55.807Z\"}");
    }

    @Test
    void doublesAreJsonNumbersAndNonFiniteOnesStrings() {
        ScoreRecord score =
                ScoreRecord.newBuilder()
                        .setUserId("u-1")
                        .setWindowStart(T0)
                        .setWindowEnd(T0.plusSeconds(600))
                        .setFeatures(feature())
                        .setScore(0.25)
                        .setDecision(Decision.ALLOW)
                        .setModelName("m")
                        .setModelVersion("1")
                        .setRevision(0)
                        .setTiming(Timing.ON_TIME)
                        .setScoredAt(T0)
                        .build();

        assertThat(AvroJson.toJsonLine(score)).contains("\"score\":0.25,\"decision\":\"ALLOW\"");
        score.setScore(Double.NaN);
        assertThat(AvroJson.toJsonLine(score)).contains("\"score\":\"NaN\"");
        score.setScore(1e-5);
        assertThat(AvroJson.toJsonLine(score)).contains("\"score\":1.0E-5");
    }

    private static final Schema GENERIC =
            new Schema.Parser()
                    .parse(
                            "{\"type\":\"record\",\"name\":\"G\",\"fields\":["
                                    + "{\"name\":\"flag\",\"type\":\"boolean\"},"
                                    + "{\"name\":\"ratio\",\"type\":\"float\"},"
                                    + "{\"name\":\"tags\",\"type\":{\"type\":\"array\",\"items\":\"string\"}},"
                                    + "{\"name\":\"counts\",\"type\":{\"type\":\"map\",\"values\":\"long\"}},"
                                    + "{\"name\":\"id\",\"type\":{\"type\":\"fixed\",\"name\":\"F\",\"size\":2}},"
                                    + "{\"name\":\"note\",\"type\":[\"null\",\"string\"]},"
                                    + "{\"name\":\"day\",\"type\":{\"type\":\"int\",\"logicalType\":\"date\"}}"
                                    + "]}");

    @Test
    void genericRecordsArraysSortedMapsAndFixed() {
        Map<String, Long> counts = new LinkedHashMap<>();
        counts.put("b", 2L);
        counts.put("a", 1L);
        GenericRecord g = new GenericData.Record(GENERIC);
        g.put("flag", true);
        g.put("ratio", 0.5f);
        g.put("tags", List.of("x", "y"));
        g.put("counts", counts);
        g.put("id", new GenericData.Fixed(GENERIC.getField("id").schema(), new byte[] {1, 2}));
        g.put("note", "n");
        g.put("day", 20_000);

        assertThat(AvroJson.toJsonLine(g))
                .isEqualTo(
                        "{\"flag\":true,\"ratio\":0.5,\"tags\":[\"x\",\"y\"],"
                                + "\"counts\":{\"a\":1,\"b\":2},\"id\":\"AQI=\",\"note\":\"n\","
                                + "\"day\":20000}");
    }

    @Test
    void aConvertedLogicalTypeItDoesNotKnowIsRejectedNotGuessed() {
        GenericRecord g = new GenericData.Record(GENERIC);
        g.put("flag", true);
        g.put("ratio", 0.5f);
        g.put("tags", List.of());
        g.put("counts", Map.of());
        g.put("id", new GenericData.Fixed(GENERIC.getField("id").schema(), new byte[] {1, 2}));
        g.put("day", LocalDate.of(2026, 11, 28));

        assertThatThrownBy(() -> AvroJson.toJsonLine(g))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageStartingWith("$.day: logical type date");
    }

    // ---------------------------------------------------------------------------------------
    // Reading: fromJsonLine is the exact inverse of toJsonLine

    /** Every record type of the contract (schemas/src/main/avro). */
    static final List<Class<? extends SpecificRecordBase>> CONTRACT =
            List.of(
                    Transaction.class,
                    FeatureRecord.class,
                    ScoreRecord.class,
                    LateRecord.class,
                    DeadLetter.class,
                    WindowKey.class,
                    ArchivedTransaction.class,
                    TransactionFeatures.class,
                    TransactionScore.class,
                    ReadPosition.class,
                    ModelEvent.class,
                    ModelRelease.class,
                    ModelAssignment.class,
                    ChallengerScore.class,
                    ArchivedModelEvent.class);

    private static final long SEED = 20_261_128L;
    private static final int RECORDS_PER_TYPE = 400;

    @Test
    void theRoundTripCoversEveryRecordTypeOfTheContract() throws IOException {
        Path avro = Path.of("..", "schemas", "src", "main", "avro");
        Assumptions.assumeTrue(Files.isDirectory(avro), "run from feature-job/ in the repository");
        ObjectMapper mapper = new ObjectMapper();
        Set<String> records = new TreeSet<>();
        try (Stream<Path> files = Files.list(avro)) {
            for (Path file : files.filter(f -> f.toString().endsWith(".avsc")).toList()) {
                var node = mapper.readTree(file.toFile());
                if (node.path("type").asText().equals("record")) {
                    records.add(node.path("namespace").asText() + "." + node.path("name").asText());
                }
            }
        }
        Set<String> covered = CONTRACT.stream().map(Class::getName).collect(Collectors.toSet());
        assertThat(covered).containsExactlyInAnyOrderElementsOf(records);
    }

    static Stream<Class<? extends SpecificRecordBase>> contract() {
        return CONTRACT.stream();
    }

    @ParameterizedTest
    @MethodSource("contract")
    void randomRecordsOfEveryContractTypeReadBackEqual(Class<? extends SpecificRecordBase> type) {
        Random random = new Random(SEED + type.getSimpleName().hashCode());
        SpecificData model = SpecificData.getForClass(type);
        Schema schema = model.getSchema(type);
        for (int i = 0; i < RECORDS_PER_TYPE; i++) {
            SpecificRecordBase record =
                    (SpecificRecordBase) new RandomValues(random, model).of(schema);
            String line = AvroJson.toJsonLine(record);

            SpecificRecordBase back = AvroJson.fromJsonLine(line, record.getClass());

            assertThat(back).isInstanceOf(type);
            assertSameRecord(back, record, line);
            assertThat(AvroJson.toJsonLine(back)).isEqualTo(line);
            // the generic reading holds the plain values and writes the same line
            GenericRecord generic = AvroJson.fromJsonLine(line, schema);
            assertThat(AvroJson.toJsonLine(generic)).isEqualTo(line);
        }
    }

    @ParameterizedTest
    @MethodSource("contract")
    void aFieldLeftOutTakesItsDefaultOrIsReportedMissing(Class<? extends SpecificRecordBase> type)
            throws IOException {
        Random random = new Random(SEED);
        SpecificData model = SpecificData.getForClass(type);
        Schema schema = model.getSchema(type);
        SpecificRecordBase record = (SpecificRecordBase) new RandomValues(random, model).of(schema);
        ObjectMapper mapper = new ObjectMapper();
        for (Schema.Field field : schema.getFields()) {
            ObjectNode node = (ObjectNode) mapper.readTree(AvroJson.toJsonLine(record));
            node.remove(field.name());
            String line = mapper.writeValueAsString(node);

            if (field.hasDefaultValue()) {
                SpecificRecordBase expected = model.deepCopy(schema, record);
                expected.put(field.pos(), model.getDefaultValue(field));
                assertSameRecord(AvroJson.fromJsonLine(line, type), expected, line);
            } else {
                assertThatThrownBy(() -> AvroJson.fromJsonLine(line, type))
                        .isInstanceOfSatisfying(
                                AvroJson.ReadException.class,
                                e -> {
                                    assertThat(e.path()).isEqualTo("$." + field.name());
                                    assertThat(e.problem())
                                            .isEqualTo(
                                                    "missing required field (it has no default)");
                                });
            }
        }
    }

    @Test
    void edgeValuesReadBackEqual() {
        List<Instant> instants =
                List.of(
                        T0,
                        Instant.parse("2026-11-28T12:00:00.001Z"),
                        Instant.parse("2026-11-28T12:00:00.250Z"),
                        Instant.EPOCH,
                        Instant.ofEpochMilli(-1),
                        Instant.ofEpochMilli(-62_135_596_800_001L), // 0000-12-31T23:59:59.999Z
                        Instant.parse("-0001-06-01T00:00:00Z"),
                        Instant.parse("+10000-01-01T00:00:00Z"),
                        Instant.ofEpochMilli(Long.MAX_VALUE),
                        Instant.ofEpochMilli(Long.MIN_VALUE));
        List<String> strings =
                List.of(
                        "",
                        " ",
                        "\u0000\u0001\u001f\u007f",
                        "line\nbreak\r\ttab",
                        "\"quoted\" \\ back/slash",
                        "é ß 日本 😀 \u2028\u2029 \ufeff",
                        "null");
        for (Instant instant : instants) {
            FeatureRecord r = feature();
            r.setWindowStart(instant);
            r.setWatermark(instant);
            assertRoundTrip(r);
        }
        for (String s : strings) {
            Transaction t = tx();
            t.setTransactionId(s);
            t.setCountry(s);
            assertRoundTrip(t);
        }
        for (double d :
                new double[] {
                    Double.NaN,
                    Double.POSITIVE_INFINITY,
                    Double.NEGATIVE_INFINITY,
                    -0.0,
                    0.0,
                    Double.MIN_VALUE,
                    Double.MAX_VALUE,
                    1e-5,
                    0.1,
                    1e21
                }) {
            ScoreRecord score = score();
            score.setScore(d);
            assertRoundTrip(score);
        }
        DeadLetter letter = deadLetter();
        for (byte[] bytes : new byte[][] {new byte[0], {0}, {-1, -2}, {1, 2, 3}, new byte[256]}) {
            letter.setKey(ByteBuffer.wrap(bytes));
            letter.setValue(null);
            assertRoundTrip(letter);
        }
    }

    /**
     * {@code back} is {@code original}: Avro's equals and, stricter, the same Java classes of every
     * value (e.g. Instant, String, ByteBuffer, the enum) and floating values equal by {@link
     * Double#compare} (so {@code -0.0 != 0.0} and NaN == NaN). Avro compares floating values with
     * {@code ==}, so a record holding NaN equals no copy of itself (not even its {@code deepCopy}):
     * for those only the second check applies.
     */
    static void assertSameRecord(Object back, IndexedRecord original, String line) {
        assertThat(back).as(line).isInstanceOf(original.getClass());
        GenericData model = modelOf(original);
        assertThat(difference(back, original, original.getSchema(), model, "$")).as(line).isNull();
        if (!containsNaN(original, original.getSchema(), model)) {
            assertThat(back).as(line).isEqualTo(original);
        }
    }

    private static GenericData modelOf(IndexedRecord record) {
        return record instanceof SpecificRecordBase specific
                ? specific.getSpecificData()
                : GenericData.get();
    }

    /** Where {@code a} and {@code b} differ, or null. */
    private static String difference(
            Object a, Object b, Schema schema, GenericData model, String path) {
        if (a == null || b == null) {
            return a == b ? null : path + ": " + a + " vs " + b;
        }
        switch (schema.getType()) {
            case UNION -> {
                int branch = model.resolveUnion(schema, b);
                if (model.resolveUnion(schema, a) != branch) {
                    return path + ": another union branch";
                }
                return difference(a, b, schema.getTypes().get(branch), model, path);
            }
            case RECORD -> {
                if (a.getClass() != b.getClass()) {
                    return path + ": " + a.getClass() + " vs " + b.getClass();
                }
                for (Schema.Field f : schema.getFields()) {
                    String d =
                            difference(
                                    ((IndexedRecord) a).get(f.pos()),
                                    ((IndexedRecord) b).get(f.pos()),
                                    f.schema(),
                                    model,
                                    path + "." + f.name());
                    if (d != null) {
                        return d;
                    }
                }
                return null;
            }
            case ARRAY -> {
                List<?> x = new ArrayList<>((java.util.Collection<?>) a);
                List<?> y = new ArrayList<>((java.util.Collection<?>) b);
                if (x.size() != y.size()) {
                    return path + ": sizes " + x.size() + " vs " + y.size();
                }
                for (int i = 0; i < x.size(); i++) {
                    String d =
                            difference(
                                    x.get(i),
                                    y.get(i),
                                    schema.getElementType(),
                                    model,
                                    path + "[" + i + "]");
                    if (d != null) {
                        return d;
                    }
                }
                return null;
            }
            case MAP -> {
                Map<?, ?> x = (Map<?, ?>) a;
                Map<?, ?> y = (Map<?, ?>) b;
                if (!x.keySet().equals(y.keySet())) {
                    return path + ": keys " + x.keySet() + " vs " + y.keySet();
                }
                for (Object key : x.keySet()) {
                    String d =
                            difference(
                                    x.get(key),
                                    y.get(key),
                                    schema.getValueType(),
                                    model,
                                    path + "[" + key + "]");
                    if (d != null) {
                        return d;
                    }
                }
                return null;
            }
            default -> {
                if (a.getClass() != b.getClass()) {
                    return path + ": " + a.getClass() + " vs " + b.getClass();
                }
                boolean same =
                        a instanceof Number x && (a instanceof Double || a instanceof Float)
                                ? Double.compare(x.doubleValue(), ((Number) b).doubleValue()) == 0
                                : a.equals(b);
                return same ? null : path + ": " + a + " vs " + b;
            }
        }
    }

    private static boolean containsNaN(Object value, Schema schema, GenericData model) {
        return switch (schema.getType()) {
            case FLOAT, DOUBLE -> Double.isNaN(((Number) value).doubleValue());
            case UNION ->
                    containsNaN(
                            value, schema.getTypes().get(model.resolveUnion(schema, value)), model);
            case RECORD ->
                    schema.getFields().stream()
                            .anyMatch(
                                    f ->
                                            containsNaN(
                                                    ((IndexedRecord) value).get(f.pos()),
                                                    f.schema(),
                                                    model));
            case ARRAY ->
                    ((java.util.Collection<?>) value)
                            .stream().anyMatch(e -> containsNaN(e, schema.getElementType(), model));
            case MAP ->
                    ((Map<?, ?>) value)
                            .values().stream()
                                    .anyMatch(v -> containsNaN(v, schema.getValueType(), model));
            default -> false;
        };
    }

    @Test
    void avrosEqualsSaysARecordHoldingNaNIsNotEvenEqualToItsCopy() {
        ScoreRecord score = score();
        score.setScore(Double.NaN);
        ScoreRecord copy = ScoreRecord.newBuilder(score).build();

        assertThat(copy).isNotEqualTo(score); // why assertSameRecord skips equals for NaN
        ScoreRecord back = AvroJson.fromJsonLine(AvroJson.toJsonLine(score), ScoreRecord.class);
        assertThat(back.getScore()).isNaN();
        assertSameRecord(back, score, "NaN");
    }

    private static void assertRoundTrip(SpecificRecordBase record) {
        String line = AvroJson.toJsonLine(record);
        assertSameRecord(AvroJson.fromJsonLine(line, record.getClass()), record, line);
    }

    @Test
    void readsTheEndOfInputWatermarkANullWatermarkAndANegativeLateness() {
        LateRecord late =
                LateRecord.newBuilder()
                        .setTransaction(tx())
                        .setReason(LateReason.TOO_LATE)
                        .setWindowStart(T0)
                        .setWindowEnd(T0.plusSeconds(600))
                        .setWatermark(null)
                        .setLateByMillis(-60_000)
                        .setDetectedAt(Instant.ofEpochMilli(Long.MAX_VALUE))
                        .build();

        LateRecord back = AvroJson.fromJsonLine(AvroJson.toJsonLine(late), LateRecord.class);

        assertThat(back).isEqualTo(late);
        assertThat(back.getWatermark()).isNull();
        assertThat(back.getDetectedAt()).isEqualTo(Instant.ofEpochMilli(Long.MAX_VALUE));
        assertThat(back.getTransaction().getEventTime()).isEqualTo(T0);

        late.setWatermark(Instant.parse("1969-12-31T23:59:59.999Z"));
        assertThat(AvroJson.fromJsonLine(AvroJson.toJsonLine(late), LateRecord.class))
                .isEqualTo(late);
    }

    @Test
    void deadLetterBytesComeBackAsBuffersWithTheSameContent() {
        DeadLetter letter = deadLetter();

        DeadLetter back = AvroJson.fromJsonLine(AvroJson.toJsonLine(letter), DeadLetter.class);

        assertThat(back).isEqualTo(letter);
        assertThat(back.getKey()).isNull();
        assertThat(StandardCharsets.UTF_8.decode(back.getValue()).toString())
                .isEqualTo("{\"transactionId\":");
        assertThat(back.getReason()).isSameAs(DeadLetterReason.UNDECODABLE);
    }

    @Test
    void acceptsAnyFieldOrderWhitespaceAndOtherSpellingsOfTheSameValues() {
        WindowKey key = new WindowKey("u-1", T0);
        assertThat(
                        AvroJson.fromJsonLine(
                                " {\"windowStart\" : \"2026-11-28T12:00:00.000Z\", \"userId\":\"u\\u002d1\"}\t",
                                WindowKey.class))
                .isEqualTo(key);
        assertThat(
                        AvroJson.fromJsonLine(
                                        "{\"userId\":\"u-1\",\"windowStart\":\"2026-11-28T12:00:00.25Z\"}",
                                        WindowKey.class)
                                .getWindowStart())
                .isEqualTo(T0.plusMillis(250));

        ScoreRecord score = score();
        String line = AvroJson.toJsonLine(score);
        assertThat(
                        AvroJson.fromJsonLine(
                                        line.replace("\"score\":0.25", "\"score\":1"),
                                        ScoreRecord.class)
                                .getScore())
                .isEqualTo(1.0);
        assertThat(
                        AvroJson.fromJsonLine(
                                line.replace("\"score\":0.25", "\"score\":25e-2"),
                                ScoreRecord.class))
                .isEqualTo(score);
    }

    @Test
    void absentFieldsWithADefaultTakeIt() {
        ArchivedTransaction archived =
                AvroJson.fromJsonLine(
                        "{\"transaction\":"
                                + AvroJson.toJsonLine(tx())
                                + ",\"sourceTopic\":\"tx.jsonl\",\"sourcePartition\":0,"
                                + "\"sourceOffset\":7,\"receivedAt\":\"2026-11-28T12:00:01Z\"}",
                        ArchivedTransaction.class);

        assertThat(archived.getRecordTimestamp()).isNull();
        assertThat(archived.getQuarantined()).isFalse();
        assertThat(archived.getReceivedAt()).isEqualTo(T0.plusSeconds(1));

        DeadLetter letter =
                AvroJson.fromJsonLine(
                        "{\"sourceTopic\":\"t\",\"sourcePartition\":1,\"sourceOffset\":2,"
                                + "\"reason\":\"OTHER\",\"errorMessage\":\"\","
                                + "\"detectedAt\":\"2026-11-28T12:00:00Z\"}",
                        DeadLetter.class);
        assertThat(letter.getKey()).isNull();
        assertThat(letter.getValue()).isNull();
        assertThat(letter.getRecordTimestamp()).isNull();
    }

    // ---- rejections: each names the path and the problem ----

    static Stream<Arguments> rejections() {
        String feature = AvroJson.toJsonLine(feature());
        String score = AvroJson.toJsonLine(score());
        String late = AvroJson.toJsonLine(lateRecord());
        String letter = AvroJson.toJsonLine(deadLetter());
        String archived = AvroJson.toJsonLine(archived());
        return Stream.of(
                // malformed JSON, at the value where the parser stopped
                reject(
                        "unterminated object",
                        FeatureRecord.class,
                        "{\"userId\":\"u-1\",",
                        "$",
                        "malformed JSON at column 17: Unexpected end-of-input"),
                reject(
                        "bad token in a nested record",
                        LateRecord.class,
                        late.replace("\"amountMinor\":1250", "\"amountMinor\":12 50"),
                        "$.transaction",
                        "malformed JSON at column"),
                reject(
                        "raw control character in a string",
                        WindowKey.class,
                        "{\"userId\":\"u\t1\",\"windowStart\":\"2026-11-28T12:00:00Z\"}",
                        "$.userId",
                        "malformed JSON at column 13: Illegal unquoted character"),
                reject(
                        "leading zero",
                        FeatureRecord.class,
                        feature.replace("\"txCount\":2", "\"txCount\":02"),
                        "$.txCount",
                        "malformed JSON at column"),
                reject(
                        "single quotes",
                        WindowKey.class,
                        "{'userId':'u-1'}",
                        "$",
                        "malformed JSON at column 2: Unexpected character"),
                reject(
                        "NaN as a bare token",
                        ScoreRecord.class,
                        score.replace("\"score\":0.25", "\"score\":NaN"),
                        "$.score",
                        "malformed JSON"),
                // not one object
                reject(
                        "empty line",
                        WindowKey.class,
                        "",
                        "$",
                        "empty line (expected one JSON object)"),
                reject(
                        "blank line",
                        WindowKey.class,
                        "  ",
                        "$",
                        "empty line (expected one JSON object)"),
                reject(
                        "array",
                        WindowKey.class,
                        "[]",
                        "$",
                        "expected an object (record org.fraudpipe.schemas.avro.WindowKey), got an array"),
                reject(
                        "null",
                        WindowKey.class,
                        "null",
                        "$",
                        "expected an object (record org.fraudpipe.schemas.avro.WindowKey), got null"),
                reject(
                        "trailing token",
                        FeatureRecord.class,
                        feature + " x",
                        "$",
                        "trailing content after the object at column " + (feature.length() + 2)),
                reject(
                        "second object",
                        FeatureRecord.class,
                        feature + feature,
                        "$",
                        "trailing content after the object at column " + (feature.length() + 1)),
                reject(
                        "extra closing brace",
                        FeatureRecord.class,
                        feature + "}",
                        "$",
                        "trailing content after the object at column " + (feature.length() + 1)),
                // fields
                reject(
                        "missing field",
                        FeatureRecord.class,
                        feature.replace("\"timing\":\"LATE\",", ""),
                        "$.timing",
                        "missing required field (it has no default)"),
                reject(
                        "missing nested field",
                        LateRecord.class,
                        late.replace(",\"eventTime\":\"2026-11-28T12:00:00Z\"", ""),
                        "$.transaction.eventTime",
                        "missing required field (it has no default)"),
                reject(
                        "several missing",
                        WindowKey.class,
                        "{}",
                        "$.userId",
                        "missing required field (it has no default); also missing: windowStart"),
                reject(
                        "unknown field",
                        WindowKey.class,
                        "{\"userId\":\"u-1\",\"windowStart\":\"2026-11-28T12:00:00Z\",\"user\":1}",
                        "$.user",
                        "unknown field (record org.fraudpipe.schemas.avro.WindowKey has [userId,"
                                + " windowStart])"),
                reject(
                        "unknown nested field",
                        ScoreRecord.class,
                        score.replace(
                                "\"timing\":\"LATE\",", "\"timing\":\"LATE\",\"extra\":null,"),
                        "$.features.extra",
                        "unknown field (record org.fraudpipe.schemas.avro.FeatureRecord has"),
                reject(
                        "duplicate field",
                        WindowKey.class,
                        "{\"userId\":\"u-1\",\"userId\":\"u-2\",\"windowStart\":\"2026-11-28T12:00:00Z\"}",
                        "$.userId",
                        "duplicate field"),
                // wrong JSON types
                reject(
                        "string for a long",
                        FeatureRecord.class,
                        feature.replace("\"txCount\":2", "\"txCount\":\"2\""),
                        "$.txCount",
                        "expected a long (a JSON integer), got the string \"2\""),
                reject(
                        "fraction for an int",
                        FeatureRecord.class,
                        feature.replace("\"distinctDevices\":2", "\"distinctDevices\":2.0"),
                        "$.distinctDevices",
                        "expected an int (a JSON integer), got 2.0"),
                reject(
                        "int out of range",
                        FeatureRecord.class,
                        feature.replace("\"revision\":1", "\"revision\":2147483648"),
                        "$.revision",
                        "out of range for an int: 2147483648"),
                reject(
                        "long out of range",
                        FeatureRecord.class,
                        feature.replace("\"amountSum\":3000", "\"amountSum\":9223372036854775808"),
                        "$.amountSum",
                        "out of range for a long: 9223372036854775808"),
                reject(
                        "null for a string",
                        FeatureRecord.class,
                        feature.replace("\"userId\":\"u-1\"", "\"userId\":null"),
                        "$.userId",
                        "expected a string, got null"),
                reject(
                        "object for a string",
                        LateRecord.class,
                        late.replace("\"currency\":\"EUR\"", "\"currency\":{}"),
                        "$.transaction.currency",
                        "expected a string, got an object"),
                reject(
                        "string for a boolean",
                        ArchivedTransaction.class,
                        archived.replace("\"quarantined\":false", "\"quarantined\":\"false\""),
                        "$.quarantined",
                        "expected true or false, got the string \"false\""),
                reject(
                        "string for a nested record",
                        ScoreRecord.class,
                        score.replaceFirst("\"features\":\\{.*?\\},", "\"features\":\"x\","),
                        "$.features",
                        "expected an object (record org.fraudpipe.schemas.avro.FeatureRecord), got"
                                + " the string \"x\""),
                reject(
                        "other string for a double",
                        ScoreRecord.class,
                        score.replace("\"score\":0.25", "\"score\":\"nan\""),
                        "$.score",
                        "expected a double (a JSON number, or \"NaN\", \"Infinity\", \"-Infinity\"),"
                                + " got the string \"nan\""),
                reject(
                        "double out of range",
                        ScoreRecord.class,
                        score.replace("\"score\":0.25", "\"score\":1e400"),
                        "$.score",
                        "out of range for a double: 1e400"),
                reject(
                        "number for a nullable timestamp",
                        LateRecord.class,
                        late.replace("\"watermark\":\"2026-11-28T12:10:00Z\"", "\"watermark\":5"),
                        "$.watermark",
                        "expected null or an ISO-8601 UTC timestamp string, got 5"),
                // enums
                reject(
                        "unknown symbol",
                        FeatureRecord.class,
                        feature.replace("\"timing\":\"LATE\"", "\"timing\":\"SOON\""),
                        "$.timing",
                        "unknown symbol \"SOON\" of enum org.fraudpipe.schemas.avro.Timing (expected"
                                + " one of [EARLY, ON_TIME, LATE])"),
                reject(
                        "symbol in the wrong case",
                        ScoreRecord.class,
                        score.replace("\"decision\":\"ALLOW\"", "\"decision\":\"allow\""),
                        "$.decision",
                        "unknown symbol \"allow\" of enum org.fraudpipe.schemas.avro.Decision"),
                reject(
                        "unknown symbol of an enum with a default",
                        DeadLetter.class,
                        letter.replace("\"reason\":\"UNDECODABLE\"", "\"reason\":\"TIMEOUT\""),
                        "$.reason",
                        "unknown symbol \"TIMEOUT\" of enum"
                                + " org.fraudpipe.schemas.avro.DeadLetterReason (expected one of"
                                + " [NOT_CONFLUENT_FRAMED, UNKNOWN_SCHEMA, UNDECODABLE,"
                                + " INCOMPATIBLE_SCHEMA, INVALID, OTHER])"),
                reject(
                        "number for an enum",
                        FeatureRecord.class,
                        feature.replace("\"timing\":\"LATE\"", "\"timing\":2"),
                        "$.timing",
                        "expected a symbol of org.fraudpipe.schemas.avro.Timing, got 2"),
                // Base64
                reject(
                        "illegal Base64 character",
                        DeadLetter.class,
                        letter.replace(
                                "\"value\":\"eyJ0cmFuc2FjdGlvbklkIjo=\"", "\"value\":\"ey!0\""),
                        "$.value",
                        "bad Base64 (Illegal base64 character 21): \"ey!0\""),
                reject(
                        "URL-safe Base64",
                        DeadLetter.class,
                        letter.replace("\"key\":null", "\"key\":\"-_8=\""),
                        "$.key",
                        "bad Base64 (Illegal base64 character 2d)"),
                reject(
                        "Base64 without padding",
                        DeadLetter.class,
                        letter.replace("\"key\":null", "\"key\":\"AQI\""),
                        "$.key",
                        "bad Base64 (not the canonical RFC 4648 form with padding): \"AQI\""),
                reject(
                        "Base64 of a wrong length",
                        DeadLetter.class,
                        letter.replace("\"key\":null", "\"key\":\"AQIDB\""),
                        "$.key",
                        "bad Base64 ("),
                // timestamps
                reject(
                        "space instead of T",
                        FeatureRecord.class,
                        feature.replace("2026-11-28T12:00:00Z", "2026-11-28 12:00:00Z"),
                        "$.windowStart",
                        NOT_ISO + "\"2026-11-28 12:00:00Z\""),
                reject(
                        "an offset",
                        FeatureRecord.class,
                        feature.replace("2026-11-28T12:00:00Z", "2026-11-28T13:00:00+01:00"),
                        "$.windowStart",
                        NOT_ISO + "\"2026-11-28T13:00:00+01:00\""),
                reject(
                        "no seconds",
                        FeatureRecord.class,
                        feature.replace("2026-11-28T12:00:00Z", "2026-11-28T12:00Z"),
                        "$.windowStart",
                        NOT_ISO + "\"2026-11-28T12:00Z\""),
                reject(
                        "date only",
                        FeatureRecord.class,
                        feature.replace("2026-11-28T12:00:00Z", "2026-11-28"),
                        "$.windowStart",
                        NOT_ISO + "\"2026-11-28\""),
                reject(
                        "leap second",
                        FeatureRecord.class,
                        feature.replace("2026-11-28T12:00:00Z", "2026-12-31T23:59:60Z"),
                        "$.windowStart",
                        NOT_ISO + "\"2026-12-31T23:59:60Z\""),
                reject(
                        "epoch millis",
                        FeatureRecord.class,
                        feature.replace("\"2026-11-28T12:00:00Z\"", "1795867200000"),
                        "$.windowStart",
                        "expected an ISO-8601 UTC timestamp string like 2026-11-28T12:00:00Z, got"
                                + " 1795867200000"),
                reject(
                        "microseconds",
                        FeatureRecord.class,
                        feature.replace("2026-11-28T12:00:00Z", "2026-11-28T12:00:00.000001Z"),
                        "$.windowStart",
                        "timestamp-millis holds milliseconds, got a finer fraction:"
                                + " \"2026-11-28T12:00:00.000001Z\""),
                reject(
                        "beyond a long of millis",
                        FeatureRecord.class,
                        feature.replace(
                                "\"watermark\":\"2026-11-28T12:10:04.999Z\"",
                                "\"watermark\":\"+292278994-08-17T07:12:55.808Z\""),
                        "$.watermark",
                        "outside the range of timestamp-millis (a long of epoch milliseconds):"
                                + " \"+292278994-08-17T07:12:55.808Z\""),
                reject(
                        "five-digit year without sign",
                        FeatureRecord.class,
                        feature.replace("2026-11-28T12:00:00Z", "12026-11-28T12:00:00Z"),
                        "$.windowStart",
                        NOT_ISO + "\"12026-11-28T12:00:00Z\""));
    }

    private static final String NOT_ISO =
            "expected an ISO-8601 UTC timestamp like 2026-11-28T12:00:00Z or"
                    + " 2026-11-28T12:00:00.250Z, got ";

    private static Arguments reject(
            String name,
            Class<? extends SpecificRecordBase> type,
            String line,
            String path,
            String problem) {
        return Arguments.of(name, type, line, path, problem);
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("rejections")
    void rejectsWithThePathAndTheProblem(
            String name,
            Class<? extends SpecificRecordBase> type,
            String line,
            String path,
            String problem) {
        assertThatThrownBy(() -> AvroJson.fromJsonLine(line, type))
                .isInstanceOfSatisfying(
                        AvroJson.ReadException.class,
                        e -> {
                            assertThat(e.path()).isEqualTo(path);
                            assertThat(e.problem()).startsWith(problem);
                            assertThat(e.getMessage()).isEqualTo(path + ": " + e.problem());
                        })
                .isInstanceOf(IllegalArgumentException.class);
    }

    // ---- generic records: every Avro type, unions with several distinguishable branches ----

    private static final Schema RICH =
            new Schema.Parser()
                    .parse(
                            """
                            {"type": "record", "name": "Rich", "namespace": "t", "fields": [
                              {"name": "b", "type": "boolean"},
                              {"name": "i", "type": "int"},
                              {"name": "l", "type": "long"},
                              {"name": "f", "type": "float"},
                              {"name": "d", "type": "double"},
                              {"name": "s", "type": "string"},
                              {"name": "by", "type": "bytes"},
                              {"name": "fx", "type": {"type": "fixed", "name": "F3", "size": 3}},
                              {"name": "e", "type": {"type": "enum", "name": "E", "symbols": ["A", "B"]}},
                              {"name": "ts", "type": {"type": "long", "logicalType": "timestamp-millis"}},
                              {"name": "day", "type": {"type": "int", "logicalType": "date"}},
                              {"name": "arr", "type": {"type": "array", "items": ["null", "double"]}},
                              {"name": "m", "type": {"type": "map",
                                 "values": {"type": "long", "logicalType": "timestamp-millis"}}},
                              {"name": "u", "type": ["null", "boolean", "long", "string",
                                 {"type": "array", "items": "int"},
                                 {"type": "record", "name": "Inner", "fields": [{"name": "x", "type": "int"}]}]},
                              {"name": "next", "type": ["null", "Rich"], "default": null}
                            ]}
                            """);

    @Test
    void randomGenericRecordsOfEveryAvroTypeReadBackEqual() {
        Random random = new Random(SEED);
        for (int i = 0; i < RECORDS_PER_TYPE; i++) {
            GenericRecord record =
                    (GenericRecord) new RandomValues(random, GenericData.get()).of(RICH);
            String line = AvroJson.toJsonLine(record);

            GenericRecord back = AvroJson.fromJsonLine(line, RICH);

            assertSameRecord(back, record, line);
            assertThat(AvroJson.toJsonLine(back)).isEqualTo(line);
        }
    }

    @Test
    void theGenericRecordOfTheWriterTestReadsBack() {
        Map<String, Long> counts = new LinkedHashMap<>();
        counts.put("b", 2L);
        counts.put("a", 1L);
        GenericRecord g = new GenericData.Record(GENERIC);
        g.put("flag", true);
        g.put("ratio", 0.5f);
        g.put("tags", List.of("x", "y"));
        g.put("counts", counts);
        g.put("id", new GenericData.Fixed(GENERIC.getField("id").schema(), new byte[] {1, 2}));
        g.put("note", "n");
        g.put("day", 20_000);

        GenericRecord back = AvroJson.fromJsonLine(AvroJson.toJsonLine(g), GENERIC);

        assertThat(back).isEqualTo(g);
        assertThat(back.get("tags")).isInstanceOf(GenericData.Array.class);
    }

    @Test
    void genericRejectionsNameArrayElementsMapKeysAndFixedSizes() {
        String line =
                "{\"flag\":true,\"ratio\":0.5,\"tags\":[\"x\",\"y\"],\"counts\":{\"a\":1,\"b\":2},"
                        + "\"id\":\"AQI=\",\"note\":\"n\",\"day\":20000}";
        assertThat(AvroJson.fromJsonLine(line, GENERIC).get("day")).isEqualTo(20_000);

        assertReadException(
                line.replace("[\"x\",\"y\"]", "[\"x\",2]"),
                "$.tags[1]",
                "expected a string, got 2");
        assertReadException(
                line.replace("\"b\":2", "\"b\":\"2\""),
                "$.counts[\"b\"]",
                "expected a long (a JSON integer), got the string \"2\"");
        assertReadException(
                line.replace("\"b\":2", "\"a\":2"), "$.counts[\"a\"]", "duplicate map key");
        assertReadException(
                line.replace("\"AQI=\"", "\"AQID\""), "$.id", "fixed F has 2 bytes, got 3");
        assertReadException(
                line.replace("\"ratio\":0.5", "\"ratio\":1e39"),
                "$.ratio",
                "out of range for a float: 1e39");
        assertReadException(
                line.replace("\"note\":\"n\"", "\"note\":true"),
                "$.note",
                "expected null or a string, got true");
    }

    private static void assertReadException(String line, String path, String problem) {
        assertThatThrownBy(() -> AvroJson.fromJsonLine(line, GENERIC))
                .isInstanceOf(AvroJson.ReadException.class)
                .hasMessage(path + ": " + problem);
    }

    static Stream<Arguments> ambiguousUnions() {
        return Stream.of(
                Arguments.of("[\"null\", \"int\", \"long\"]", "$.x", "number"),
                Arguments.of("[\"null\", \"string\", \"double\"]", "$.x", "string"),
                Arguments.of(
                        "[\"null\", {\"type\": \"long\", \"logicalType\": \"timestamp-millis\"},"
                                + " \"string\"]",
                        "$.x",
                        "string"),
                Arguments.of(
                        "[\"null\", {\"type\": \"record\", \"name\": \"A\", \"fields\": []},"
                                + " {\"type\": \"map\", \"values\": \"int\"}]",
                        "$.x",
                        "object"),
                Arguments.of(
                        "{\"type\": \"array\", \"items\": [\"null\", \"bytes\", {\"type\": \"enum\","
                                + " \"name\": \"E\", \"symbols\": [\"A\"]}]}",
                        "$.x[0]",
                        "string"));
    }

    @ParameterizedTest
    @MethodSource("ambiguousUnions")
    void aSchemaWithAnAmbiguousUnionIsRejectedWhateverTheLine(
            String type, String path, String json) {
        Schema schema =
                new Schema.Parser()
                        .parse(
                                "{\"type\": \"record\", \"name\": \"Amb\", \"fields\": [{\"name\": \"x\","
                                        + " \"type\": "
                                        + type
                                        + "}]}");

        assertThatThrownBy(() -> AvroJson.fromJsonLine("{\"x\":null}", schema))
                .isExactlyInstanceOf(IllegalArgumentException.class)
                .hasMessageStartingWith(
                        "schema Amb cannot be read from its JSON form: " + path + ": union ")
                .hasMessageContaining(" is ambiguous: its branches ")
                .hasMessageContaining(" are both written as a JSON " + json);
    }

    @Test
    void aGenericReadNeedsARecordSchema() {
        assertThatThrownBy(() -> AvroJson.fromJsonLine("1", Schema.create(Schema.Type.INT)))
                .isExactlyInstanceOf(IllegalArgumentException.class)
                .hasMessage("a line is the JSON form of a record, not of INT \"int\"");
    }

    // ---- fixtures ----

    static ScoreRecord score() {
        return ScoreRecord.newBuilder()
                .setUserId("u-1")
                .setWindowStart(T0)
                .setWindowEnd(T0.plusSeconds(600))
                .setFeatures(feature())
                .setScore(0.25)
                .setDecision(Decision.ALLOW)
                .setModelName("m")
                .setModelVersion("1")
                .setRevision(0)
                .setTiming(Timing.ON_TIME)
                .setScoredAt(T0)
                .build();
    }

    static LateRecord lateRecord() {
        return LateRecord.newBuilder()
                .setTransaction(tx())
                .setReason(LateReason.TOO_LATE)
                .setWindowStart(T0)
                .setWindowEnd(T0.plusSeconds(600))
                .setWatermark(T0.plusSeconds(600))
                .setLateByMillis(600_000)
                .setDetectedAt(T0.plusSeconds(601))
                .build();
    }

    static DeadLetter deadLetter() {
        return DeadLetter.newBuilder()
                .setSourceTopic("tx.jsonl")
                .setSourcePartition(0)
                .setSourceOffset(4)
                .setRecordTimestamp(Instant.parse("2026-11-28T12:00:00.250Z"))
                .setKey(null)
                .setValue(ByteBuffer.wrap("{\"transactionId\":".getBytes(StandardCharsets.UTF_8)))
                .setReason(DeadLetterReason.UNDECODABLE)
                .setErrorMessage("tx.jsonl:4: not valid JSON\n\"quoted\" é")
                .setDetectedAt(T0)
                .build();
    }

    static ArchivedTransaction archived() {
        return ArchivedTransaction.newBuilder()
                .setTransaction(tx())
                .setSourceTopic("tx.jsonl")
                .setSourcePartition(0)
                .setSourceOffset(7)
                .setRecordTimestamp(null)
                .setReceivedAt(T0.plusSeconds(1))
                .setQuarantined(false)
                .build();
    }

    /**
     * Random values of a schema, built through a model (a class's SpecificData: Instants and enum
     * constants; GenericData: plain longs), with edge values of every type mixed in.
     */
    static final class RandomValues {
        private static final long[] LONGS = {
            0, 1, -1, Long.MAX_VALUE, Long.MIN_VALUE, Integer.MAX_VALUE + 1L, 1_795_867_200_000L
        };
        private static final int[] INTS = {0, 1, -1, Integer.MAX_VALUE, Integer.MIN_VALUE};
        private static final long[] MILLIS = {
            0,
            -1,
            1,
            999,
            1000,
            -1000,
            1_795_867_200_000L, // 2026-11-28T12:00:00Z
            1_795_867_200_250L,
            -62_135_596_800_001L,
            -62_167_219_200_001L, // -0001-12-31T23:59:59.999Z
            253_402_300_799_999L, // 9999-12-31T23:59:59.999Z
            253_402_300_800_000L, // +10000-01-01T00:00:00Z
            Long.MAX_VALUE, // Flink's end-of-input watermark
            Long.MIN_VALUE
        };
        private static final double[] DOUBLES = {
            0.0,
            -0.0,
            1.0,
            -1.0,
            0.25,
            0.1,
            1e-5,
            1e21,
            Double.MIN_VALUE,
            Double.MIN_NORMAL,
            Double.MAX_VALUE,
            -Double.MAX_VALUE,
            Double.NaN,
            Double.POSITIVE_INFINITY,
            Double.NEGATIVE_INFINITY
        };
        private static final String[] PIECES = {
            "",
            "u-1",
            "EUR",
            " ",
            "\"",
            "\\",
            "/",
            "\n",
            "\r\n",
            "\t",
            "\u0000",
            "\u0001",
            "\u001f",
            "\u007f",
            "\u0080",
            "é",
            "ß",
            "日本",
            "\u2028",
            "\u2029",
            "\ufeff",
            "😀",
            "\uffff",
            "{\"a\":1}",
            "NaN",
            "null",
            "2026-11-28T12:00:00Z"
        };

        private final Random random;
        private final GenericData model;
        private int depth;

        RandomValues(Random random, GenericData model) {
            this.random = random;
            this.model = model;
        }

        Object of(Schema schema) {
            if (schema.getLogicalType() != null
                    && schema.getLogicalType().getName().equals("timestamp-millis")) {
                long millis =
                        random.nextInt(3) == 0
                                ? MILLIS[random.nextInt(MILLIS.length)]
                                : random.nextBoolean()
                                        ? random.nextLong()
                                        : 1_795_867_200_000L + random.nextInt(86_400_000);
                return model.getConversionFor(schema.getLogicalType()) == null
                        ? (Object) millis
                        : Instant.ofEpochMilli(millis);
            }
            return switch (schema.getType()) {
                case NULL -> null;
                case BOOLEAN -> random.nextBoolean();
                case INT ->
                        random.nextInt(3) == 0
                                ? INTS[random.nextInt(INTS.length)]
                                : random.nextInt();
                case LONG ->
                        random.nextInt(3) == 0
                                ? LONGS[random.nextInt(LONGS.length)]
                                : random.nextLong() >> random.nextInt(64);
                case FLOAT ->
                        random.nextInt(3) == 0
                                ? (float) DOUBLES[random.nextInt(DOUBLES.length)]
                                : random.nextBoolean()
                                        ? canonicalNaN(Float.intBitsToFloat(random.nextInt()))
                                        : random.nextFloat();
                case DOUBLE ->
                        random.nextInt(3) == 0
                                ? DOUBLES[random.nextInt(DOUBLES.length)]
                                : random.nextBoolean()
                                        ? canonicalNaN(Double.longBitsToDouble(random.nextLong()))
                                        : random.nextDouble() * 1000;
                case STRING -> string();
                case BYTES -> ByteBuffer.wrap(bytes(random.nextInt(20)));
                case FIXED -> model.createFixed(null, bytes(schema.getFixedSize()), schema);
                case ENUM ->
                        model.createEnum(
                                schema.getEnumSymbols()
                                        .get(random.nextInt(schema.getEnumSymbols().size())),
                                schema);
                case ARRAY -> {
                    List<Object> list = new ArrayList<>();
                    for (int n = random.nextInt(4); n > 0; n--) {
                        list.add(of(schema.getElementType()));
                    }
                    yield list;
                }
                case MAP -> {
                    Map<String, Object> map = new HashMap<>();
                    for (int n = random.nextInt(4); n > 0; n--) {
                        map.put(string(), of(schema.getValueType()));
                    }
                    yield map;
                }
                case UNION -> {
                    List<Schema> branches = schema.getTypes();
                    boolean nullable = branches.get(0).getType() == Schema.Type.NULL;
                    yield nullable && (depth > 1 || random.nextInt(3) == 0)
                            ? null
                            : of(branches.get(random.nextInt(branches.size())));
                }
                case RECORD -> {
                    depth++;
                    IndexedRecord record = (IndexedRecord) model.newRecord(null, schema);
                    for (Schema.Field field : schema.getFields()) {
                        record.put(field.pos(), of(field.schema()));
                    }
                    depth--;
                    yield record;
                }
            };
        }

        /** JSON writes every NaN as "NaN": the payload bits of other NaNs are not kept. */
        private static float canonicalNaN(float f) {
            return Float.isNaN(f) ? Float.NaN : f;
        }

        private static double canonicalNaN(double d) {
            return Double.isNaN(d) ? Double.NaN : d;
        }

        private String string() {
            StringBuilder s = new StringBuilder();
            for (int n = random.nextInt(6); n > 0; n--) {
                if (random.nextBoolean()) {
                    s.append(PIECES[random.nextInt(PIECES.length)]);
                } else {
                    int codePoint;
                    do {
                        codePoint = random.nextInt(Character.MAX_CODE_POINT + 1);
                    } while (codePoint >= Character.MIN_SURROGATE
                            && codePoint <= Character.MAX_SURROGATE);
                    s.appendCodePoint(codePoint);
                }
            }
            return s.toString();
        }

        private byte[] bytes(int n) {
            byte[] bytes = new byte[n];
            random.nextBytes(bytes);
            return bytes;
        }
    }
}
