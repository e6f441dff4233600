package org.fraudpipe.scoring;

import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import org.fraudpipe.schemas.avro.TransactionFeatures;
import org.fraudpipe.scoring.data.LabelledTransaction;

/** Small, seeded, labelled per-transaction rows for tests (160 users, 10 transactions each). */
public final class SyntheticTransactions {

    private static final Instant START = Instant.parse("2026-11-28T00:00:00Z");

    private SyntheticTransactions() {}

    /**
     * Seeded rows: fraudulent transactions come in bursts (many transactions, new devices, big or
     * tiny amounts); {@code hideHistory} takes part of the burst away (as a row whose trailing
     * window lacks records that arrived late would), so "as of arrival" rows are weaker evidence.
     */
    public static List<LabelledTransaction> generate(long seed, boolean hideHistory) {
        SplittableRandom rnd = new SplittableRandom(seed);
        List<LabelledTransaction> out = new ArrayList<>();
        for (int u = 0; u < 160; u++) {
            String user = String.format("u-%06d", u);
            for (int i = 0; i < 10; i++) {
                boolean fraud = rnd.nextInt(8) == 0;
                boolean looksFraud = fraud != (rnd.nextInt(30) == 0);
                int tx = looksFraud ? 3 + rnd.nextInt(10) : 1 + rnd.nextInt(3);
                if (hideHistory && looksFraud && rnd.nextInt(3) == 0) {
                    tx = 1 + rnd.nextInt(2);
                }
                long amount = looksFraud ? 20_000 + rnd.nextInt(60_000) : 500 + rnd.nextInt(6_000);
                out.add(
                        new LabelledTransaction(
                                TransactionFeatures.newBuilder()
                                        .setTransactionId(user + "-t" + i)
                                        .setUserId(user)
                                        .setEventTime(START.plusSeconds(600L * i + u))
                                        .setTrailingWindowMillis(600_000)
                                        .setTxCount(tx)
                                        .setAmountSum(amount * tx)
                                        .setAmountMax(amount)
                                        .setDistinctDevices(looksFraud ? 2 : 1)
                                        .setDistinctMerchants(Math.min(tx, looksFraud ? tx : 2))
                                        .setDistinctCountries(1)
                                        .setAmountMinor(amount)
                                        .setNewDevice(looksFraud && rnd.nextBoolean())
                                        .setNewMerchant(rnd.nextBoolean())
                                        .setNewCountry(false)
                                        .setHistoryComplete(true)
                                        .build(),
                                fraud));
            }
        }
        return out;
    }
}
