package org.fraudpipe.scoring;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.FloatBuffer;
import java.util.ArrayList;
import java.util.List;
import org.fraudpipe.schemas.avro.FeatureRecord;
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
        FeatureLayout.Feature a = new FeatureLayout.Feature("a", "a", r -> 0);
        FeatureLayout.Feature b = new FeatureLayout.Feature("b", "b", r -> 0);
        assertThatThrownBy(() -> new FeatureLayout(List.of(b, a)))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("strictly ascending")
                .hasMessageContaining("`a` follows `b`");
        assertThatThrownBy(() -> new FeatureLayout(List.of(a, a)))
                .hasMessageContaining("strictly ascending");
        assertThatThrownBy(
                        () ->
                                new FeatureLayout(
                                        List.of(new FeatureLayout.Feature("Tx,Count", "", r -> 0))))
                .hasMessageContaining("must match [a-z0-9_]+");
        assertThatThrownBy(() -> new FeatureLayout(List.of())).hasMessageContaining("at least one");
    }
}
