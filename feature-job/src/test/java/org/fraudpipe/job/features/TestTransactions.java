package org.fraudpipe.job.features;

import java.time.Instant;
import org.fraudpipe.schemas.avro.Transaction;

/** Builds transactions for tests: only the fields a test cares about vary. */
public final class TestTransactions {

    private TestTransactions() {}

    public static Transaction tx(String id, String user, long amountMinor, long eventTimeMillis) {
        return tx(id, user, amountMinor, "dev-1", "merchant-1", "DE", eventTimeMillis);
    }

    public static Transaction tx(
            String id,
            String user,
            long amountMinor,
            String device,
            String merchant,
            String country,
            long eventTimeMillis) {
        return Transaction.newBuilder()
                .setTransactionId(id)
                .setUserId(user)
                .setAmountMinor(amountMinor)
                .setCurrency("EUR")
                .setMerchantId(merchant)
                .setDeviceId(device)
                .setCountry(country)
                .setEventTime(Instant.ofEpochMilli(eventTimeMillis))
                .build();
    }
}
