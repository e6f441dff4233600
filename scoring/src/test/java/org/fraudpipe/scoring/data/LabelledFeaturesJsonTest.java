package org.fraudpipe.scoring.data;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Files;
import java.nio.file.Path;
import org.fraudpipe.schemas.avro.FeatureRecord;
import org.fraudpipe.schemas.avro.Timing;
import org.fraudpipe.scoring.SyntheticWindows;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class LabelledFeaturesJsonTest {

    @TempDir Path tmp;

    private static final FeatureRecord IDEAL =
            SyntheticWindows.record("u-000001", SyntheticWindows.START, 2, 5035, 3000, 1, 2, 1);

    private static final String IDEAL_LINE =
            "{\"userId\":\"u-000001\",\"windowStart\":\"2026-11-28T00:00:00Z\","
                    + "\"windowEnd\":\"2026-11-28T00:10:00Z\",\"txCount\":2,\"amountSum\":5035,"
                    + "\"amountMax\":3000,\"distinctDevices\":1,\"distinctMerchants\":2,"
                    + "\"distinctCountries\":1,\"revision\":0,\"timing\":\"ON_TIME\","
                    + "\"lateRecordsIncluded\":0,\"emittedAt\":\"+292278994-08-17T07:12:55.807Z\","
                    + "\"watermark\":\"+292278994-08-17T07:12:55.807Z\",\"fraud\":true}";

    @Test
    void writesTheFeatureRecordInSchemaOrderThenTheLabel() {
        assertThat(LabelledFeaturesJson.toJsonLine(new LabelledWindow(IDEAL, true)))
                .isEqualTo(IDEAL_LINE);
    }

    @Test
    void readsWhatItWritesIncludingTheEndOfInputInstant() throws Exception {
        LabelledWindow w = LabelledFeaturesJson.parseLine("f", IDEAL_LINE, 1);
        assertThat(w).isEqualTo(new LabelledWindow(IDEAL, true));
        FeatureRecord late =
                FeatureRecord.newBuilder(IDEAL)
                        .setRevision(2)
                        .setTiming(Timing.LATE)
                        .setLateRecordsIncluded(1)
                        .setEmittedAt(java.time.Instant.parse("2026-11-28T00:12:00.250Z"))
                        .build();
        String line = LabelledFeaturesJson.toJsonLine(new LabelledWindow(late, false));
        assertThat(LabelledFeaturesJson.parseLine("f", line, 1).features()).isEqualTo(late);
    }

    @Test
    void paneFieldsMayBeAbsentAndDefaultToAnIdealValue() throws Exception {
        String minimal =
                "{\"userId\":\"u-000001\",\"windowStart\":\"2026-11-28T00:00:00Z\","
                        + "\"windowEnd\":\"2026-11-28T00:10:00Z\",\"txCount\":2,\"amountSum\":5035,"
                        + "\"amountMax\":3000,\"distinctDevices\":1,\"distinctMerchants\":2,"
                        + "\"distinctCountries\":1,\"fraud\":true}";
        assertThat(LabelledFeaturesJson.parseLine("f", minimal, 1))
                .isEqualTo(new LabelledWindow(IDEAL, true));
    }

    @Test
    void errorsNameTheFileLineAndField() {
        assertThatThrownBy(
                        () ->
                                LabelledFeaturesJson.parseLine(
                                        "features.jsonl",
                                        IDEAL_LINE.replace(",\"fraud\":true", ""),
                                        7))
                .isInstanceOf(FeatureFileException.class)
                .hasMessage("features.jsonl:7: missing field \"fraud\"");
        assertThatThrownBy(
                        () ->
                                LabelledFeaturesJson.parseLine(
                                        "f", IDEAL_LINE.replace("\"txCount\"", "\"txcount\""), 3))
                .hasMessageContaining("f:3: unknown field \"txcount\"");
        assertThatThrownBy(
                        () ->
                                LabelledFeaturesJson.parseLine(
                                        "f",
                                        IDEAL_LINE.replace("\"txCount\":2", "\"txCount\":-2"),
                                        3))
                .hasMessageContaining("\"txCount\" must be a non-negative integer");
        assertThatThrownBy(
                        () ->
                                LabelledFeaturesJson.parseLine(
                                        "f",
                                        IDEAL_LINE.replace("\"fraud\":true", "\"fraud\":1"),
                                        3))
                .hasMessageContaining("\"fraud\" must be true or false");
        assertThatThrownBy(() -> LabelledFeaturesJson.parseLine("f", "{\"userId\":", 4))
                .hasMessageStartingWith("f:4: not valid JSON");
    }

    @Test
    void readAllReadsEveryLine() throws Exception {
        Path file = tmp.resolve("features.jsonl");
        Files.writeString(file, IDEAL_LINE + "\n" + IDEAL_LINE.replace("true}", "false}") + "\n");
        assertThat(LabelledFeaturesJson.readAll(file))
                .extracting(LabelledWindow::fraud)
                .containsExactly(true, false);
    }
}
