package org.fraudpipe.job.features;

import static org.assertj.core.api.Assertions.assertThat;
import static org.fraudpipe.job.features.TestTransactions.tx;

import java.util.List;
import org.junit.jupiter.api.Test;

class FeatureAggregatorTest {

    private final FeatureAggregator aggregator = new FeatureAggregator();

    private FeatureValues aggregate(FeatureAccumulator acc) {
        return aggregator.getResult(acc);
    }

    @Test
    void emptyAccumulatorGivesAllZeros() {
        assertThat(aggregate(aggregator.createAccumulator())).isEqualTo(FeatureValues.EMPTY);
    }

    @Test
    void sumsAndMaxesAmountsOfDistinctTransactions() {
        FeatureAccumulator acc = aggregator.createAccumulator();
        aggregator.add(tx("a", "u", 100, 0), acc);
        aggregator.add(tx("b", "u", 250, 1), acc);
        aggregator.add(tx("c", "u", 50, 2), acc);

        FeatureValues v = aggregate(acc);

        assertThat(v.txCount()).isEqualTo(3);
        assertThat(v.amountSum()).isEqualTo(400);
        assertThat(v.amountMax()).isEqualTo(250);
        assertThat(v.recordsSeen()).isEqualTo(3);
    }

    @Test
    void duplicateTransactionIdCountsOnceButIsSeen() {
        FeatureAccumulator acc = aggregator.createAccumulator();
        assertThat(acc.add(tx("a", "u", 100, 0))).isTrue();
        assertThat(acc.add(tx("a", "u", 100, 0))).isFalse();
        aggregator.add(tx("a", "u", 100, 0), acc);

        FeatureValues v = aggregate(acc);

        assertThat(v.txCount()).isEqualTo(1);
        assertThat(v.amountSum()).isEqualTo(100);
        assertThat(v.recordsSeen()).isEqualTo(3);
    }

    @Test
    void firstArrivedPayloadWinsForConflictingDuplicates() {
        FeatureAccumulator acc = aggregator.createAccumulator();
        aggregator.add(tx("a", "u", 100, "dev-1", "m-1", "DE", 0), acc);
        aggregator.add(tx("a", "u", 999, "dev-2", "m-2", "FR", 0), acc);

        FeatureValues v = aggregate(acc);

        assertThat(v)
                .isEqualTo(
                        new FeatureValues(
                                /* txCount */ 1,
                                /* amountSum */ 100,
                                /* amountMax */ 100,
                                /* devices */ 1,
                                /* merchants */ 1,
                                /* countries */ 1,
                                /* recordsSeen */ 2));
    }

    @Test
    void conflictingDuplicatesAreRecordedExactRetriesAndEventTimeOnlyDifferencesAreNot() {
        FeatureAccumulator acc = aggregator.createAccumulator();
        aggregator.add(tx("a", "u", 100, "dev-1", "m-1", "DE", 0), acc);
        aggregator.add(tx("a", "u", 100, "dev-1", "m-1", "DE", 0), acc); // retry
        aggregator.add(tx("a", "u", 100, "dev-1", "m-1", "DE", 5), acc); // other event time
        aggregator.add(tx("b", "u", 200, "dev-1", "m-1", "DE", 0), acc);
        aggregator.add(tx("b", "u", 200, "dev-2", "m-1", "DE", 0), acc); // other device
        aggregator.add(tx("b", "u", 300, "dev-1", "m-1", "DE", 0), acc); // and another amount

        assertThat(acc.conflictingTransactionIds()).containsExactly("b");
        // Not a feature: the features are those of the first payloads.
        assertThat(aggregate(acc)).isEqualTo(new FeatureValues(2, 300, 200, 1, 1, 1, 6));
    }

    @Test
    void mergeRecordsAConflictBetweenTheTwoFirstPayloadsAndKeepsBothSidesConflicts() {
        FeatureAccumulator earlier = aggregator.createAccumulator();
        aggregator.add(tx("a", "u", 100, 0), earlier);
        aggregator.add(tx("b", "u", 200, 0), earlier);
        aggregator.add(tx("b", "u", 201, 0), earlier);
        FeatureAccumulator later = aggregator.createAccumulator();
        aggregator.add(tx("a", "u", 999, 0), later);
        aggregator.add(tx("c", "u", 300, 0), later);
        aggregator.add(tx("c", "u", 301, 0), later);
        aggregator.add(tx("b", "u", 200, 0), later);

        FeatureAccumulator merged = aggregator.merge(earlier, later);

        assertThat(merged.conflictingTransactionIds()).containsExactlyInAnyOrder("a", "b", "c");
    }

    @Test
    void distinctSetsCountDistinctValuesOfDistinctTransactions() {
        FeatureAccumulator acc = aggregator.createAccumulator();
        aggregator.add(tx("a", "u", 1, "dev-1", "m-1", "DE", 0), acc);
        aggregator.add(tx("b", "u", 1, "dev-1", "m-2", "DE", 0), acc);
        aggregator.add(tx("c", "u", 1, "dev-2", "m-3", "FR", 0), acc);
        aggregator.add(tx("d", "u", 1, "dev-1", "m-1", "DE", 0), acc);

        FeatureValues v = aggregate(acc);

        assertThat(v.distinctDevices()).isEqualTo(2);
        assertThat(v.distinctMerchants()).isEqualTo(3);
        assertThat(v.distinctCountries()).isEqualTo(2);
    }

    @Test
    void mergeCountsSharedIdsOnceWithTheEarlierPayload() {
        FeatureAccumulator earlier = aggregator.createAccumulator();
        aggregator.add(tx("a", "u", 100, "dev-1", "m-1", "DE", 0), earlier);
        aggregator.add(tx("b", "u", 200, "dev-1", "m-1", "DE", 0), earlier);
        FeatureAccumulator later = aggregator.createAccumulator();
        aggregator.add(tx("b", "u", 900, "dev-9", "m-9", "US", 0), later);
        aggregator.add(tx("c", "u", 300, "dev-2", "m-2", "FR", 0), later);

        FeatureValues v = aggregate(aggregator.merge(earlier, later));

        assertThat(v).isEqualTo(new FeatureValues(3, 600, 300, 2, 2, 2, 4));
    }

    @Test
    void mergeLeavesTheLaterAccumulatorUnchanged() {
        FeatureAccumulator earlier = aggregator.createAccumulator();
        aggregator.add(tx("a", "u", 100, 0), earlier);
        FeatureAccumulator later = aggregator.createAccumulator();
        aggregator.add(tx("b", "u", 200, 0), later);
        FeatureAccumulator laterBefore = later.copy();

        aggregator.merge(earlier, later);

        assertThat(later).isEqualTo(laterBefore);
    }

    @Test
    void mergeWithEmptyIsIdentity() {
        FeatureAccumulator acc = aggregator.createAccumulator();
        aggregator.add(tx("a", "u", 100, 0), acc);
        FeatureValues before = aggregate(acc);

        assertThat(aggregate(aggregator.merge(acc, aggregator.createAccumulator())))
                .isEqualTo(before);
        assertThat(aggregate(aggregator.merge(aggregator.createAccumulator(), acc)))
                .isEqualTo(before);
    }

    @Test
    void computeOverArrivalOrderEqualsIncrementalAggregation() {
        List<org.fraudpipe.schemas.avro.Transaction> txs =
                List.of(tx("a", "u", 5, 0), tx("b", "u", 7, 1), tx("a", "u", 5, 0));

        assertThat(FeatureAggregator.compute(txs))
                .isEqualTo(new FeatureValues(2, 12, 7, 1, 1, 1, 3));
    }
}
