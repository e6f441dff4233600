package org.fraudpipe.job.features;

import org.apache.flink.api.common.functions.AggregateFunction;
import org.fraudpipe.schemas.avro.Transaction;

/**
 * The one feature core: how the transactions of one user in one window become {@link
 * FeatureValues}. The streaming job's window, the batch parity check (Flink BATCH mode) and
 * training export all use this class; nothing else computes features.
 *
 * <p>Meaning (see {@link FeatureAccumulator} for the duplicate rule): {@code txCount} = distinct
 * {@code transactionId}s; amounts, devices, merchants and countries are taken once per id. The
 * function does not look at event times: which transactions belong to the window is the window
 * assigner's business ({@link WindowAssignment}).
 */
public final class FeatureAggregator
        implements AggregateFunction<Transaction, FeatureAccumulator, FeatureValues> {

    private static final long serialVersionUID = 1L;

    @Override
    public FeatureAccumulator createAccumulator() {
        return new FeatureAccumulator();
    }

    @Override
    public FeatureAccumulator add(Transaction tx, FeatureAccumulator acc) {
        acc.add(tx);
        return acc;
    }

    @Override
    public FeatureValues getResult(FeatureAccumulator acc) {
        return acc.toValues();
    }

    /**
     * Merges {@code later} into {@code earlier} and returns it: for an id in both, {@code
     * earlier}'s payload counts. Flink calls this only for merging windows (not used by the job);
     * batch and training may use it to combine partial results in arrival order.
     */
    @Override
    public FeatureAccumulator merge(FeatureAccumulator earlier, FeatureAccumulator later) {
        return earlier.mergeFrom(later);
    }

    /** Plain-Java use (training, tools): the features of these transactions in arrival order. */
    public static FeatureValues compute(Iterable<Transaction> arrivalOrder) {
        FeatureAccumulator acc = new FeatureAccumulator();
        for (Transaction tx : arrivalOrder) {
            acc.add(tx);
        }
        return acc.toValues();
    }
}
