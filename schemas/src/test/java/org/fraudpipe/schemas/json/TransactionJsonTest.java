package org.fraudpipe.schemas.json;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Instant;
import org.fraudpipe.schemas.avro.Transaction;
import org.junit.jupiter.api.Test;

class TransactionJsonTest {

    private static final String VALID =
            "{\"transactionId\":\"t-1\",\"userId\":\"u-1\",\"amountMinor\":1250,"
                    + "\"currency\":\"EUR\",\"merchantId\":\"m-1\",\"deviceId\":\"d-1\","
                    + "\"country\":\"DE\",\"eventTime\":\"2026-11-28T12:00:00Z\","
                    + "\"arrivalTime\":\"2026-11-28T12:00:00.250Z\"}";

    private static Transaction tx(long amount, Instant eventTime) {
        return new Transaction("t-1", "u-1", amount, "EUR", "m-1", "d-1", "DE", eventTime);
    }

    @Test
    void writesFieldsInCanonicalOrderWithMillisecondsOnlyWhenNonZero() {
        String line =
                TransactionJson.toJsonLine(
                        tx(1250, Instant.parse("2026-11-28T12:00:00Z")),
                        Instant.parse("2026-11-28T12:00:00.250Z"));
        assertThat(line).isEqualTo(VALID);
    }

    @Test
    void badJsonIsReportedWithLineAndColumn() {
        assertThatThrownBy(() -> TransactionJson.parseLine("tx.jsonl", "{\"transactionId\":", 17))
                .isInstanceOf(ReplayFormatException.class)
                .hasMessageStartingWith("tx.jsonl:17: not valid JSON at column")
                .satisfies(e -> assertThat(((ReplayFormatException) e).lineNumber()).isEqualTo(17));
    }

    @Test
    void arrivalTimeMayBeAbsentAndIsThenLeftOutWhenWriting() throws Exception {
        String line = VALID.replace(",\"arrivalTime\":\"2026-11-28T12:00:00.250Z\"", "");
        assertThat(line).doesNotContain("arrivalTime");

        ReplayRecord read = TransactionJson.parseValidLine("f", line, 1);

        assertThat(read.arrivalTime()).isNull();
        assertThat(read.arrivalOrEventTime()).isEqualTo(Instant.parse("2026-11-28T12:00:00Z"));
        assertThat(TransactionJson.toJsonLine(read)).isEqualTo(line);
    }

    @Test
    void arrivalTimeWhenPresentIsStillStrict() {
        assertThatThrownBy(
                        () ->
                                TransactionJson.parseLine(
                                        VALID.replace("\"2026-11-28T12:00:00.250Z\"", "null"), 2))
                .hasMessage("line 2: field \"arrivalTime\" must be a string, got null");
        assertThatThrownBy(
                        () ->
                                TransactionJson.parseLine(
                                        VALID.replace("12:00:00.250Z", "12:00:00.250+01:00"), 3))
                .hasMessageStartingWith(
                        "line 3: field \"arrivalTime\" must be an ISO-8601 UTC instant");
    }

    @Test
    void missingFieldIsNamed() {
        String line = VALID.replace("\"merchantId\":\"m-1\",", "");
        assertThatThrownBy(() -> TransactionJson.parseLine(line, 3))
                .hasMessage("line 3: missing field \"merchantId\"");
    }

    @Test
    void unknownAndDuplicateFieldsAreRejected() {
        assertThatThrownBy(() -> TransactionJson.parseLine(VALID.replace("}", ",\"x\":1}"), 4))
                .hasMessageStartingWith("line 4: unknown field \"x\"");
        assertThatThrownBy(
                        () ->
                                TransactionJson.parseLine(
                                        VALID.replace("}", ",\"userId\":\"u-2\"}"), 5))
                .hasMessageStartingWith("line 5: not valid JSON")
                .hasMessageContaining("userId");
    }

    @Test
    void wrongTypesAreRejected() {
        assertThatThrownBy(() -> TransactionJson.parseLine(VALID.replace("1250", "\"1250\""), 6))
                .hasMessage("line 6: field \"amountMinor\" must be a 64-bit integer, got \"1250\"");
        assertThatThrownBy(() -> TransactionJson.parseLine(VALID.replace("1250", "12.5"), 7))
                .hasMessageContaining("must be a 64-bit integer");
        assertThatThrownBy(() -> TransactionJson.parseLine(VALID.replace("\"u-1\"", "7"), 8))
                .hasMessage("line 8: field \"userId\" must be a string, got 7");
        assertThatThrownBy(() -> TransactionJson.parseLine("[1,2]", 9))
                .hasMessage("line 9: expected a JSON object, got ARRAY");
        assertThatThrownBy(() -> TransactionJson.parseLine(VALID + " {}", 10))
                .hasMessageStartingWith("line 10: not valid JSON");
    }

    @Test
    void instantsMustBeUtcWithAtMostMilliseconds() {
        assertThatThrownBy(
                        () ->
                                TransactionJson.parseLine(
                                        VALID.replace(
                                                "2026-11-28T12:00:00Z",
                                                "2026-11-28T13:00:00+01:00"),
                                        11))
                .hasMessageStartingWith(
                        "line 11: field \"eventTime\" must be an ISO-8601 UTC instant");
        assertThatThrownBy(
                        () ->
                                TransactionJson.parseLine(
                                        VALID.replace(
                                                "2026-11-28T12:00:00Z",
                                                "2026-11-28T12:00:00.0001Z"),
                                        12))
                .hasMessageContaining("sub-millisecond");
    }

    @Test
    void negativeAmountReadsButFailsValidation() throws Exception {
        String line = VALID.replace("1250", "-5");
        assertThat(TransactionJson.parseLine(line, 1).transaction().getAmountMinor()).isEqualTo(-5);
        assertThatThrownBy(() -> TransactionJson.parseValidLine("f", line, 13))
                .hasMessageStartingWith("f:13: invalid transaction: amountMinor is negative (-5)");
        assertThatThrownBy(
                        () ->
                                TransactionJson.parseValidLine(
                                        null, VALID.replace("\"u-1\"", "\"\""), 14))
                .hasMessageStartingWith("line 14: invalid transaction: userId is empty");
    }

    @Test
    void emptyLineIsAnError() {
        assertThatThrownBy(() -> TransactionJson.parseValidLine(null, "", 2))
                .isInstanceOf(ReplayFormatException.class)
                .hasMessageStartingWith("line 2:");
    }
}
