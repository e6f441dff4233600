package org.fraudpipe.scoring.data;

import java.util.Objects;
import org.fraudpipe.schemas.avro.TransactionFeatures;

/**
 * One per-transaction training example: the features of one transaction (as of its arrival, or
 * ideal) and whether the transaction is fraudulent (the simulator's label of its id).
 *
 * @param features the transaction's features
 * @param fraud the label
 */
public record LabelledTransaction(TransactionFeatures features, boolean fraud) {
    public LabelledTransaction {
        Objects.requireNonNull(features, "features");
    }
}
