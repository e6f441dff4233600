package org.fraudpipe.scoring;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.FloatBuffer;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import org.fraudpipe.schemas.avro.FeatureRecord;
import org.fraudpipe.schemas.avro.TransactionFeatures;
import org.junit.jupiter.api.Test;

class FeatureLayoutTest {

    private static final FeatureRecord WINDOW =
            SyntheticWindows.record("u-1", SyntheticWindows.START, 4, 10_000, 6_300, 2, 3, 1);

    @Test
    void v1HasTheseColumnsInThisOrder() {
        assertThat(FeatureLayout.V1.names())
                .containsExactly(
                        "amount_max_log",
                        "amount_mean_log",
                        "amount_sum_log",
                        "distinct_countries",
                        "distinct_devices",
                        "distinct_merchants",
                        "tx_count");
        assertThat(FeatureLayout.V1.size()).isEqualTo(7);
        assertThat(FeatureLayout.V1.indexOf("tx_count")).isEqualTo(6);
        assertThat(FeatureLayout.V1.namesAsMetadata())
                .isEqualTo(
                        "amount_max_log,amount_mean_log,amount_sum_log,distinct_countries,"
                                + "distinct_devices,distinct_merchants,tx_count");
    }

    @Test
    void v1NamesAreInTribuosSortedFeatureOrder() {
        List<String> sorted = new ArrayList<>(FeatureLayout.V1.names());
        sorted.sort(null);
        assertThat(FeatureLayout.V1.names()).isEqualTo(sorted);
    }

    @Test
    void amountsAreLogsOfMajorUnitsAndCountsStayRaw() {
        assertThat(FeatureLayout.V1.values(WINDOW))
                .containsExactly(
                        StrictMath.log1p(63.0),
                        StrictMath.log1p(25.0),
                        StrictMath.log1p(100.0),
                        1,
                        2,
                        3,
                        4);
    }

    @Test
    void meanAmountOfAnEmptyWindowIsZero() {
        FeatureRecord empty =
                SyntheticWindows.record("u-1", SyntheticWindows.START, 0, 0, 0, 0, 0, 0);
        assertThat(FeatureLayout.V1.values(empty)).containsOnly(0.0);
    }

    @Test
    void writeToWritesTheSameValuesAsFloatsAndAdvancesByOneRow() {
        FloatBuffer buf =
                ByteBuffer.allocateDirect(4 * 8).order(ByteOrder.nativeOrder()).asFloatBuffer();
        FeatureLayout.V1.writeTo(WINDOW, buf);
        assertThat(buf.position()).isEqualTo(7);
        double[] values = FeatureLayout.V1.values(WINDOW);
        for (int i = 0; i < values.length; i++) {
            assertThat(buf.get(i)).isEqualTo((float) values[i]);
        }
    }

    @Test
    void namesMustBeStrictlyAscendingAndSimple() {
        FeatureLayout.Feature<FeatureRecord> a = new FeatureLayout.Feature<>("a", "a", r -> 0);
        FeatureLayout.Feature<FeatureRecord> b = new FeatureLayout.Feature<>("b", "b", r -> 0);
        assertThatThrownBy(() -> new FeatureLayout<>(List.of(b, a)))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("strictly ascending")
                .hasMessageContaining("`a` follows `b`");
        assertThatThrownBy(() -> new FeatureLayout<>(List.of(a, a)))
                .hasMessageContaining("strictly ascending");
        assertThatThrownBy(
                        () ->
                                new FeatureLayout<>(
                                        List.of(
                                                new FeatureLayout.Feature<FeatureRecord>(
                                                        "Tx,Count", "", r -> 0))))
                .hasMessageContaining("must match [a-z0-9_]+");
        assertThatThrownBy(() -> new FeatureLayout<FeatureRecord>(List.of()))
                .hasMessageContaining("at least one");
    }

    private static final TransactionFeatures TRANSACTION =
            TransactionFeatures.newBuilder()
                    .setTransactionId("t-1")
                    .setUserId("u-1")
                    .setEventTime(Instant.parse("2026-11-28T12:05:00Z"))
                    .setTrailingWindowMillis(600_000)
                    .setTxCount(4)
                    .setAmountSum(10_000)
                    .setAmountMax(5_000)
                    .setDistinctDevices(2)
                    .setDistinctMerchants(3)
                    .setDistinctCountries(1)
                    .setAmountMinor(2_500)
                    .setNewDevice(true)
                    .setNewMerchant(false)
                    .setNewCountry(true)
                    .setHistoryComplete(true)
                    .build();

    @Test
    void transactionLayoutHasTheWindowFeaturesPlusTheTransactionsOwnInSortedOrder() {
        assertThat(FeatureLayout.TRANSACTION_V1.names())
                .containsExactly(
                        "amount_log",
                        "amount_max_log",
                        "amount_mean_log",
                        "amount_sum_log",
                        "distinct_countries",
                        "distinct_devices",
                        "distinct_merchants",
                        "new_country",
                        "new_device",
                        "new_merchant",
                        "tx_count");
        List<String> sorted = new ArrayList<>(FeatureLayout.TRANSACTION_V1.names());
        Collections.sort(sorted);
        assertThat(FeatureLayout.TRANSACTION_V1.names()).isEqualTo(sorted);
        // Every window feature of V1 is in it, computed the same way.
        for (String name : FeatureLayout.V1.names()) {
            assertThat(FeatureLayout.TRANSACTION_V1.names()).contains(name);
        }
    }

    @Test
    void transactionLayoutValuesAreLogAmountsRawCountsAndZeroOneFlags() {
        assertThat(FeatureLayout.TRANSACTION_V1.values(TRANSACTION))
                .containsExactly(
                        StrictMath.log1p(25.0),
                        StrictMath.log1p(50.0),
                        StrictMath.log1p(25.0),
                        StrictMath.log1p(100.0),
                        1.0,
                        2.0,
                        3.0,
                        1.0,
                        1.0,
                        0.0,
                        4.0);
    }
}
