package org.fraudpipe.job.savepoint.migrate;

import org.apache.flink.api.common.functions.AggregateFunction;
import org.fraudpipe.job.features.FeatureAccumulator;
import org.fraudpipe.job.features.FeatureAggregator;
import org.fraudpipe.schemas.avro.Transaction;

/**
 * The feature aggregate with the accumulator itself as its result: what the State Processor API
 * needs to hand the first release's window contents (an aggregating state of {@link
 * FeatureAggregator}) to the migration whole, not as features. Adding and merging are the feature
 * core's; nothing is added while reading.
 */
final class AccumulatorReadout
        implements AggregateFunction<Transaction, FeatureAccumulator, FeatureAccumulator> {

    private static final long serialVersionUID = 1L;

    private final FeatureAggregator core = new FeatureAggregator();

    @Override
    public FeatureAccumulator createAccumulator() {
        return core.createAccumulator();
    }

    @Override
    public FeatureAccumulator add(Transaction tx, FeatureAccumulator acc) {
        return core.add(tx, acc);
    }

    @Override
    public FeatureAccumulator getResult(FeatureAccumulator acc) {
        return acc;
    }

    @Override
    public FeatureAccumulator merge(FeatureAccumulator a, FeatureAccumulator b) {
        return core.merge(a, b);
    }
}
