package org.fraudpipe.schemas;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Instant;
import java.util.function.Consumer;
import org.fraudpipe.schemas.avro.Transaction;
import org.junit.jupiter.api.Test;

class TransactionValidatorTest {

    static Transaction valid() {
        return new Transaction(
                "t1", "u1", 1250L, "EUR", "m1", "d1", "DE", Instant.parse("2026-11-28T12:00:00Z"));
    }

    static String problemAfter(Consumer<Transaction> change) {
        Transaction tx = valid();
        change.accept(tx);
        return TransactionValidator.problem(tx).orElse("valid");
    }

    @Test
    void aCompleteTransactionIsValid() {
        assertThat(TransactionValidator.problem(valid())).isEmpty();
        assertThat(problemAfter(t -> t.setAmountMinor(0))).isEqualTo("valid");
    }

    @Test
    void eachBrokenRuleIsNamed() {
        assertThat(problemAfter(t -> t.setTransactionId(" "))).contains("transactionId is empty");
        assertThat(problemAfter(t -> t.setUserId(""))).contains("userId is empty");
        assertThat(problemAfter(t -> t.setAmountMinor(-1))).contains("amountMinor is negative");
        assertThat(problemAfter(t -> t.setCurrency("euro"))).contains("currency 'euro'");
        assertThat(problemAfter(t -> t.setMerchantId(""))).contains("merchantId is empty");
        assertThat(problemAfter(t -> t.setDeviceId(""))).contains("deviceId is empty");
        assertThat(problemAfter(t -> t.setCountry("DEU"))).contains("country 'DEU'");
        assertThat(problemAfter(t -> t.setEventTime(Instant.EPOCH)))
                .contains("eventTime 1970-01-01T00:00:00Z is missing or before");
    }
}
