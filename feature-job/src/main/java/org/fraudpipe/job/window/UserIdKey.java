package org.fraudpipe.job.window;

import org.apache.flink.api.java.functions.KeySelector;
import org.fraudpipe.schemas.avro.Transaction;

/** The key of every feature window: the transaction's {@code userId}. */
public final class UserIdKey implements KeySelector<Transaction, String> {

    private static final long serialVersionUID = 1L;

    @Override
    public String getKey(Transaction tx) {
        return tx.getUserId();
    }
}
