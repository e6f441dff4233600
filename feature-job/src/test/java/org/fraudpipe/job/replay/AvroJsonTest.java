package org.fraudpipe.job.replay;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.time.LocalDate;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.apache.avro.Schema;
import org.apache.avro.generic.GenericData;
import org.apache.avro.generic.GenericRecord;
import org.fraudpipe.schemas.avro.DeadLetter;
import org.fraudpipe.schemas.avro.DeadLetterReason;
import org.fraudpipe.schemas.avro.Decision;
import org.fraudpipe.schemas.avro.FeatureRecord;
import org.fraudpipe.schemas.avro.LateReason;
import org.fraudpipe.schemas.avro.LateRecord;
import org.fraudpipe.schemas.avro.ScoreRecord;
import org.fraudpipe.schemas.avro.Timing;
import org.fraudpipe.schemas.avro.Transaction;
import org.junit.jupiter.api.Test;

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
                .hasMessageContaining("day: logical type date");
    }
}
