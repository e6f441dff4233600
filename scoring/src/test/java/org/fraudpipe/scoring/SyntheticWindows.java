package org.fraudpipe.scoring;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import org.fraudpipe.schemas.avro.FeatureRecord;
import org.fraudpipe.schemas.avro.Timing;
import org.fraudpipe.scoring.data.LabelledFeaturesJson;
import org.fraudpipe.scoring.data.LabelledWindow;

/**
 * Small, seeded, labelled feature sets for tests: legitimate windows look like a card holder (one
 * to three purchases of tens of euros, one device, home country), fraudulent ones like a burst
 * (many transactions, new devices, other countries, large or tiny amounts). The classes overlap a
 * little, so a model has something to learn but not a perfect split.
 */
public final class SyntheticWindows {

    public static final Instant START = Instant.parse("2026-11-28T00:00:00Z");
    public static final Duration WINDOW = Duration.ofMinutes(10);

    private SyntheticWindows() {}

    /** {@code users} users with {@code windowsPerUser} windows each; about 1 in 8 fraudulent. */
    public static List<LabelledWindow> generate(int users, int windowsPerUser, long seed) {
        SplittableRandom rnd = new SplittableRandom(seed);
        List<LabelledWindow> out = new ArrayList<>();
        for (int u = 0; u < users; u++) {
            String user = String.format("u-%06d", u);
            for (int w = 0; w < windowsPerUser; w++) {
                boolean fraud = rnd.nextInt(8) == 0;
                Instant start = START.plus(WINDOW.multipliedBy(w * 3L + rnd.nextInt(3)));
                out.add(new LabelledWindow(window(rnd, user, start, fraud), fraud));
            }
        }
        return out;
    }

    private static FeatureRecord window(
            SplittableRandom rnd, String user, Instant start, boolean fraud) {
        // 1 in 40 windows of either class looks like the other class (noise).
        boolean looksFraud = fraud != (rnd.nextInt(40) == 0);
        int tx = looksFraud ? 4 + rnd.nextInt(16) : 1 + rnd.nextInt(3);
        long sum = 0;
        long max = 0;
        boolean tiny = looksFraud && rnd.nextBoolean();
        for (int i = 0; i < tx; i++) {
            long amount =
                    looksFraud
                            ? (tiny ? 100 + rnd.nextInt(400) : 20_000 + rnd.nextInt(60_000))
                            : 500 + rnd.nextInt(6_000);
            sum += amount;
            max = Math.max(max, amount);
        }
        int devices = looksFraud ? 1 + rnd.nextInt(2) : 1;
        int countries = looksFraud ? 1 + rnd.nextInt(2) : 1;
        int merchants = looksFraud ? tx : 1 + rnd.nextInt(tx);
        return record(user, start, tx, sum, max, devices, merchants, countries);
    }

    /** An ideal (end-of-input) feature record. */
    public static FeatureRecord record(
            String user,
            Instant start,
            long tx,
            long sum,
            long max,
            int devices,
            int merchants,
            int countries) {
        return FeatureRecord.newBuilder()
                .setUserId(user)
                .setWindowStart(start)
                .setWindowEnd(start.plus(WINDOW))
                .setTxCount(tx)
                .setAmountSum(sum)
                .setAmountMax(max)
                .setDistinctDevices(devices)
                .setDistinctMerchants(merchants)
                .setDistinctCountries(countries)
                .setRevision(0)
                .setTiming(Timing.ON_TIME)
                .setLateRecordsIncluded(0)
                .setEmittedAt(LabelledFeaturesJson.END_OF_INPUT)
                .setWatermark(LabelledFeaturesJson.END_OF_INPUT)
                .build();
    }

    /** The feature records alone. */
    public static List<FeatureRecord> records(List<LabelledWindow> windows) {
        return windows.stream().map(LabelledWindow::features).toList();
    }
}
