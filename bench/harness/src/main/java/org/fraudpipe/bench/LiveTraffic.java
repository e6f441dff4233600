package org.fraudpipe.bench;

import java.time.Instant;
import java.util.Locale;
import java.util.SplittableRandom;
import org.fraudpipe.schemas.avro.Transaction;

/**
 * The traffic of a live-paced run, event by event, as a pure function of the seed and the event's
 * index: event {@code i} is due {@link LivePacer#offsetNanos} after the run's start, and its event
 * time is that instant (the run's wall-clock start plus the offset) minus a client delay. So two
 * runs with the same seed and rate publish the same transactions with the same event times relative
 * to their start (the job and its peer see the same input, shifted in time), and the harness can
 * regenerate any part of the input after a run (the equality check's explanations) without having
 * kept it.
 *
 * <p>What an event is: a transaction of one of {@code users} users chosen uniformly (each user
 * transacts every {@code users / rate} seconds on average), from the user's own device most of the
 * time, at one of 5,000 merchants, in the user's home country most of the time; its event time
 * trails its scheduled instant by 0-200 ms (client and network), except for a {@code lateShare}
 * arriving {@code lateMin..lateMax} behind (offline terminals; late for the windows, and for the
 * SQL peer's watermark). A {@code retryShare} of the events is sent a second time, 0.2-3 s later,
 * with the same id and payload (a producer retry). Transaction ids carry their index ({@code
 * lt-<index>-<hex>}), so a reader of the outputs knows which event an answer is for.
 */
final class LiveTraffic {

    /** The users of the harness's readiness records, left out of every figure. */
    static final String PING_USER_PREFIX = "~ping-";

    private static final String[] COUNTRIES = {
        "DE", "FR", "NL", "BE", "AT", "ES", "IT", "PL", "SE", "DK", "IE", "PT"
    };

    /**
     * One event.
     *
     * @param index its index in the schedule
     * @param transaction what is published
     * @param late whether its event time trails its schedule by more than a client delay
     * @param retried whether it is sent a second time
     * @param retryDelayMillis when the copy is sent, after the original's scheduled instant
     */
    record Event(
            long index,
            Transaction transaction,
            boolean late,
            boolean retried,
            long retryDelayMillis) {}

    private final long seed;
    private final long rate;
    private final long users;
    private final long startWallMillis;
    private final double lateShare;
    private final long lateMinMillis;
    private final long lateMaxMillis;
    private final double retryShare;

    LiveTraffic(
            long seed,
            long rate,
            long users,
            long startWallMillis,
            double lateShare,
            long lateMinMillis,
            long lateMaxMillis,
            double retryShare) {
        if (users < 1 || rate < 1) {
            throw new IllegalArgumentException("users and rate must be positive");
        }
        if (lateShare < 0 || lateShare > 1 || retryShare < 0 || retryShare > 1) {
            throw new IllegalArgumentException("shares must be in [0, 1]");
        }
        if (lateMinMillis < 0 || lateMaxMillis <= lateMinMillis) {
            throw new IllegalArgumentException("late delay range must be non-empty");
        }
        this.seed = seed;
        this.rate = rate;
        this.users = users;
        this.startWallMillis = startWallMillis;
        this.lateShare = lateShare;
        this.lateMinMillis = lateMinMillis;
        this.lateMaxMillis = lateMaxMillis;
        this.retryShare = retryShare;
    }

    /** The same traffic with another wall-clock start. */
    LiveTraffic startingAt(long wallMillis) {
        return new LiveTraffic(
                seed, rate, users, wallMillis, lateShare, lateMinMillis, lateMaxMillis, retryShare);
    }

    long users() {
        return users;
    }

    /** The wall-clock instant event {@code i} is due (millis). */
    long scheduledWallMillis(long i) {
        return startWallMillis + LivePacer.offsetNanos(i, rate) / 1_000_000;
    }

    /** The user number of event {@code i} (cheap: no event built). */
    long user(long i) {
        return Math.floorMod(mix(seed ^ 0x5555_5555L, i), users);
    }

    /** Whether event {@code i} arrives late (cheap: no event built). */
    boolean late(long i) {
        return unit(mix(seed ^ 0x3333_3333L, i)) < lateShare;
    }

    /** Whether event {@code i} is sent twice (cheap: no event built). */
    boolean retried(long i) {
        return unit(mix(seed ^ 0x7777_7777L, i)) < retryShare;
    }

    /** Event {@code i}. */
    Event event(long i) {
        SplittableRandom rng = new SplittableRandom(mix(seed, i));
        long user = user(i);
        String userId = userId(user);
        String id = String.format(Locale.ROOT, "lt-%011d-%04x", i, rng.nextInt(1 << 16));
        int deviceDraw = rng.nextInt(100);
        String device =
                String.format(
                        Locale.ROOT, "d-%d-%d", user, deviceDraw < 90 ? 0 : 1 + deviceDraw % 3);
        String merchant = String.format(Locale.ROOT, "m-%05d", rng.nextInt(5000));
        String country =
                rng.nextInt(100) < 97
                        ? COUNTRIES[(int) (user % COUNTRIES.length)]
                        : COUNTRIES[rng.nextInt(COUNTRIES.length)];
        long amount = 100 + rng.nextLong(50_000);
        boolean late = late(i);
        long delay =
                late
                        ? lateMinMillis + rng.nextLong(lateMaxMillis - lateMinMillis)
                        : rng.nextLong(200);
        boolean retried = retried(i);
        long retryDelay = 200 + rng.nextLong(2800);
        Transaction tx =
                new Transaction(
                        id,
                        userId,
                        amount,
                        "EUR",
                        merchant,
                        device,
                        country,
                        Instant.ofEpochMilli(scheduledWallMillis(i) - delay));
        return new Event(i, tx, late, retried, retryDelay);
    }

    /** How many of the first {@code n} events are sent twice. */
    long retriedAmong(long n) {
        long r = 0;
        for (long i = 0; i < n; i++) {
            if (retried(i)) {
                r++;
            }
        }
        return r;
    }

    /** A uniform double in [0, 1) from 53 bits of {@code z}. */
    private static double unit(long z) {
        return (z >>> 11) * 0x1.0p-53;
    }

    static String userId(long user) {
        return String.format(Locale.ROOT, "lu-%08d", user);
    }

    /** The user number of a user id of this traffic, or -1 (a ping, another id). */
    static long userNumber(String userId) {
        if (userId == null || !userId.startsWith("lu-")) {
            return -1;
        }
        try {
            return Long.parseLong(userId, 3, userId.length(), 10);
        } catch (NumberFormatException e) {
            return -1;
        }
    }

    /** The event index of a transaction id of this traffic, or -1 (a ping, another id). */
    static long index(String transactionId) {
        if (transactionId == null
                || transactionId.length() != 19
                || !transactionId.startsWith("lt-")) {
            return -1;
        }
        try {
            return Long.parseLong(transactionId, 3, 14, 10);
        } catch (NumberFormatException e) {
            return -1;
        }
    }

    /** SplitMix64 of seed and index: independent streams per event. */
    static long mix(long seed, long i) {
        long z = seed * 0x9E3779B97F4A7C15L + i + 0x632BE59BD9B4E019L;
        z = (z ^ (z >>> 30)) * 0xBF58476D1CE4E5B9L;
        z = (z ^ (z >>> 27)) * 0x94D049BB133111EBL;
        return z ^ (z >>> 31);
    }
}
