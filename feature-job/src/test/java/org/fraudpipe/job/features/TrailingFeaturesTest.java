package org.fraudpipe.job.features;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.fraudpipe.job.features.TestTransactions.tx;

import java.time.Duration;
import java.util.List;
import org.fraudpipe.schemas.avro.Transaction;
import org.fraudpipe.schemas.avro.TransactionFeatures;
import org.junit.jupiter.api.Test;

/**
 * {@link TrailingFeatures} on hand-made cases: the window's bounds, the duplicate rule, novelty.
 */
class TrailingFeaturesTest {

    private static final Duration T = Duration.ofMinutes(10);
    private static final long MINUTE = 60_000;
    private static final long AT = 1_735_725_600_000L; // 2025-01-01T10:00Z

    @Test
    void theTrailingWindowIsOpenAtItsStartAndClosedAtTheTransaction() {
        Transaction x = tx("x", "alice", 100, "d1", "m1", "DE", AT);
        List<Transaction> history =
                List.of(
                        tx("at-start", "alice", 1, "d1", "m1", "DE", AT - 10 * MINUTE), // out
                        tx("just-in", "alice", 10, "d1", "m1", "DE", AT - 10 * MINUTE + 1),
                        tx("same-ms", "alice", 1000, "d1", "m1", "DE", AT),
                        tx("later", "alice", 5, "d1", "m1", "DE", AT + 1)); // after x: out

        TrailingFeatures.Result r = TrailingFeatures.compute(history, x, T);

        assertThat(r.values().txCount()).isEqualTo(3);
        assertThat(r.values().amountSum()).isEqualTo(1110);
        assertThat(r.values().amountMax()).isEqualTo(1000);
    }

    @Test
    void xAloneCountsOnceAndEverythingOfItIsNew() {
        Transaction x = tx("x", "alice", 250, "d1", "m1", "DE", AT);

        TrailingFeatures.Result r = TrailingFeatures.compute(List.of(), x, T);

        assertThat(r.values()).isEqualTo(new FeatureValues(1, 250, 250, 1, 1, 1, 1));
        assertThat(r.newDevice()).isTrue();
        assertThat(r.newMerchant()).isTrue();
        assertThat(r.newCountry()).isTrue();
    }

    @Test
    void noveltyIsAgainstTheOtherTransactionsOfTheWindowOnly() {
        Transaction x = tx("x", "alice", 1, "d-new", "m1", "FR", AT);
        List<Transaction> history =
                List.of(
                        tx("a", "alice", 1, "d1", "m1", "DE", AT - MINUTE),
                        tx("old", "alice", 1, "d-new", "m9", "FR", AT - 20 * MINUTE),
                        tx("bob", "bob", 1, "d-new", "m9", "FR", AT - MINUTE));

        TrailingFeatures.Result r = TrailingFeatures.compute(history, x, T);

        assertThat(r.newDevice()).as("seen only outside the window and by bob").isTrue();
        assertThat(r.newMerchant()).isFalse();
        assertThat(r.newCountry()).isTrue();
        assertThat(r.values().distinctDevices()).isEqualTo(2);
        assertThat(r.values().txCount()).isEqualTo(2);
    }

    @Test
    void aDuplicateCountsOnceWithTheFirstArrivedPayloadAndXsOwnIdIsXs() {
        Transaction x = tx("x", "alice", 100, "d1", "m1", "DE", AT);
        List<Transaction> history =
                List.of(
                        tx("a", "alice", 10, "d1", "m1", "DE", AT - MINUTE),
                        tx("a", "alice", 99, "d2", "m1", "DE", AT - MINUTE), // conflicting
                        tx("x", "alice", 7, "d3", "m3", "NL", AT - MINUTE)); // x's id: x's payload

        TrailingFeatures.Result r = TrailingFeatures.compute(history, x, T);

        assertThat(r.values().txCount()).isEqualTo(2);
        assertThat(r.values().amountSum()).isEqualTo(110);
        assertThat(r.values().distinctDevices()).isEqualTo(1);
        assertThat(r.newDevice()).isFalse();
    }

    @Test
    void theResultWritesTheFeatureFieldsOfTheRecordAndIsTakenOnce() {
        Transaction x = tx("x", "alice", 100, "d1", "m1", "DE", AT);
        TrailingFeatures f = TrailingFeatures.of(x, T);
        f.add("a", AT - MINUTE, 50, "d2", "m1", "DE");
        TrailingFeatures.Result r = f.result();

        TransactionFeatures record =
                r.writeTo(TransactionFeatures.newBuilder())
                        .setTransactionId("x")
                        .setUserId("alice")
                        .setEventTime(x.getEventTime())
                        .setTrailingWindowMillis(T.toMillis())
                        .setAmountMinor(100)
                        .setHistoryComplete(true)
                        .build();

        assertThat(record.getTxCount()).isEqualTo(2);
        assertThat(record.getAmountSum()).isEqualTo(150);
        assertThat(record.getDistinctDevices()).isEqualTo(2);
        assertThat(record.getNewDevice()).isTrue();
        assertThat(record.getNewMerchant()).isFalse();
        assertThatThrownBy(f::result).isInstanceOf(IllegalStateException.class);
        assertThatThrownBy(() -> TrailingFeatures.of(x, Duration.ZERO))
                .isInstanceOf(IllegalArgumentException.class);
    }
}
