package org.fraudpipe.sim;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Instant;
import org.junit.jupiter.api.Test;

class LabelJsonTest {

    private static final Label FRAUD =
            new Label(
                    "t-9",
                    "u-000001",
                    Instant.parse("2026-11-28T04:09:53.517Z"),
                    Instant.parse("2026-11-28T04:09:54Z"),
                    12,
                    true,
                    FraudPattern.ACCOUNT_TAKEOVER,
                    "b-000001",
                    true,
                    false,
                    false,
                    false,
                    null);

    @Test
    void roundTripIsExact() throws Exception {
        String line = LabelJson.toJsonLine(FRAUD);
        assertThat(line)
                .isEqualTo(
                        "{\"transactionId\":\"t-9\",\"userId\":\"u-000001\","
                                + "\"eventTime\":\"2026-11-28T04:09:53.517Z\","
                                + "\"arrivalTime\":\"2026-11-28T04:09:54Z\",\"line\":12,"
                                + "\"fraud\":true,\"pattern\":\"ACCOUNT_TAKEOVER\","
                                + "\"burstId\":\"b-000001\",\"duplicate\":true,"
                                + "\"futureDated\":false,\"hoursLate\":false,"
                                + "\"malformed\":false,\"malformedKind\":null}");
        assertThat(LabelJson.parseLine("l", line, 1)).isEqualTo(FRAUD);
    }

    @Test
    void inconsistentLabelIsRejectedWithItsLine() {
        String line = LabelJson.toJsonLine(FRAUD).replace("\"fraud\":true", "\"fraud\":false");
        assertThatThrownBy(() -> LabelJson.parseLine("labels.jsonl", line, 5))
                .hasMessageStartingWith("labels.jsonl:5: inconsistent label");
    }

    @Test
    void unknownPatternIsNamed() {
        String line = LabelJson.toJsonLine(FRAUD).replace("ACCOUNT_TAKEOVER", "PHISHING");
        assertThatThrownBy(() -> LabelJson.parseLine(null, line, 2))
                .hasMessageStartingWith("line 2: field \"pattern\" must be one of");
    }
}
