package org.fraudpipe.parity.input;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Instant;
import org.fraudpipe.parity.Evidence;
import org.fraudpipe.sim.FraudPattern;
import org.fraudpipe.sim.Label;
import org.fraudpipe.sim.LabelJson;
import org.junit.jupiter.api.Test;

class TransactionLabelsTest {

    @Test
    void readsTheSimulatorsLabelsLine() {
        Label label =
                new Label(
                        "t-1",
                        "u-7",
                        Instant.parse("2026-11-28T12:00:00Z"),
                        Instant.parse("2026-11-28T12:00:01Z"),
                        3,
                        true,
                        FraudPattern.values()[firstFraud()],
                        "b-000001",
                        false,
                        false,
                        false,
                        false,
                        null);

        Evidence e = TransactionLabels.parse(LabelJson.toJsonLine(label));

        assertThat(e.kind).isEqualTo(Evidence.Kind.LABEL);
        assertThat(e.userId).isEqualTo("u-7");
        assertThat(e.labelledTransactionId).isEqualTo("t-1");
        assertThat(e.fraud).isTrue();
    }

    @Test
    void aBanksMinimalLineWorksAndAnIncompleteOneIsRefusedNamingTheFields() {
        assertThat(
                        TransactionLabels.parse(
                                        "{\"transactionId\":\"a\",\"userId\":\"u\",\"fraud\":false}")
                                .fraud)
                .isFalse();
        assertThatThrownBy(
                        () -> TransactionLabels.parse("{\"transactionId\":\"a\",\"fraud\":true}"))
                .hasMessageContaining("transactionId and userId (text) and fraud");
        assertThatThrownBy(() -> TransactionLabels.parse("not json"))
                .hasMessageContaining("not JSON");
    }

    private static int firstFraud() {
        for (int i = 0; i < FraudPattern.values().length; i++) {
            if (FraudPattern.values()[i].isFraud()) {
                return i;
            }
        }
        throw new AssertionError("no fraud pattern");
    }
}
