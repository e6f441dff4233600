package org.fraudpipe.sim;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.Iterator;
import java.util.List;
import java.util.Locale;
import java.util.NoSuchElementException;
import java.util.PriorityQueue;
import java.util.Spliterator;
import java.util.Spliterators;
import java.util.SplittableRandom;
import java.util.UUID;
import java.util.stream.Stream;
import java.util.stream.StreamSupport;
import org.fraudpipe.schemas.avro.Transaction;
import org.fraudpipe.schemas.json.StrictJsonLines;
import org.fraudpipe.schemas.json.TransactionJson;

/**
 * Pure, deterministic generator of card-transaction traffic in arrival order, with ground-truth
 * labels. No I/O, no wall clock: the same {@link SimulationConfig} always yields the same records.
 *
 * <h2>Traffic model</h2>
 *
 * <ul>
 *   <li>Each user has a home country (and its currency, used for all the user's amounts), one
 *       country they sometimes travel to (3 % of their transactions), one to three devices (the
 *       first used 80 % of the time), 3..12 usual merchants out of a pool of 5,000 (85 % of their
 *       transactions) and a typical amount (log-normal around 25.00).
 *   <li>Users' activity levels are log-normal (mean {@code txPerUserDay}, a few users tens of times
 *       busier than the median). Each user's transactions are a Poisson process modulated by a
 *       daily rhythm in the user's local time: {@code 1 + 0.8 sin(2 pi (hour - 9) / 24)}, peak at
 *       15:00, trough (0.2) at 03:00.
 *   <li>Fraud: with the same rhythm, a user's account is sometimes attacked; each attack is a burst
 *       of {@link FraudPattern#ACCOUNT_TAKEOVER} (70 %) or {@link FraudPattern#CARD_TESTING} (30 %)
 *       transactions, interleaved with the user's own. The attack rate is set so that the expected
 *       share of fraudulent ids is {@code fraudShare} (bursts cut by the end of the span make it
 *       slightly lower).
 *   <li>Arrival: every record arrives {@link DelayModel#sampleMillis} after its true event time.
 *       Legitimate transactions may instead be future-dated (eventTime = arrival + 1..8 h: the
 *       client's clock is ahead; never flagged hours-late) or malformed ({@link MalformedKind});
 *       valid, not future-dated transactions of any pattern may be duplicated: the same transaction
 *       (same id and payload) arrives again 0.1..10 s later (log-uniform), as after a producer
 *       retry.
 * </ul>
 *
 * <h2>Invariants</h2>
 *
 * <ul>
 *   <li>Records come in nondecreasing {@code arrivalTime}; ties keep the order in which the
 *       generator created the records (the order is total and stable). {@link
 *       SimulatedRecord#line()} counts records from 1.
 *   <li>True event times lie in {@code [start, start + duration)}; arrivals may be later (up to the
 *       longest hours-late delay) and future-dated eventTimes up to 8 h after their arrival.
 *   <li>A record is emitted once no record still to be generated can arrive before it: the
 *       generator walks event time in order and every record arrives at or after its true event
 *       time. Memory is therefore the users' profiles plus the records in flight (at most the
 *       longest delay's worth of hours-late ones), not the whole output.
 *   <li>All randomness comes from {@link SplittableRandom}s derived from the seed (one per user,
 *       one for ids, one for arrival anomalies) and is transformed with {@link StrictMath} only;
 *       ids, numbers and names are formatted locale-free.
 * </ul>
 */
public final class TransactionSimulator implements Iterator<SimulatedRecord> {

    static final long HOUR_MS = 3_600_000L;
    static final long DAY_MS = 24 * HOUR_MS;

    /** Amplitude of the daily rhythm; the rate ranges over [1 - A, 1 + A] times its daily mean. */
    private static final double RHYTHM_AMPLITUDE = 0.8;

    private static final double RHYTHM_MAX = 1 + RHYTHM_AMPLITUDE;
    private static final double ACTIVITY_SIGMA = 1.0;
    private static final int MERCHANT_POOL = 5_000;
    private static final double ATO_SHARE = 0.7;
    private static final int ATO_MIN = 6;
    private static final int ATO_MAX = 20;
    private static final int CT_MIN = 10;
    private static final int CT_MAX = 30;

    /** Expected fraudulent transactions per attack (before truncation at the end of the span). */
    static final double MEAN_BURST_SIZE =
            ATO_SHARE * (ATO_MIN + ATO_MAX) / 2.0 + (1 - ATO_SHARE) * (CT_MIN + CT_MAX) / 2.0;

    private static final long RETRY_GAP_MIN_MS = 100;
    private static final long RETRY_GAP_MAX_MS = 10_000;
    private static final long SKEW_MIN_MS = HOUR_MS;
    private static final long SKEW_MAX_MS = 8 * HOUR_MS;

    /** Country, its currency, its UTC offset (whole hours, no DST) and weight as a home country. */
    private record Country(String code, String currency, int utcOffsetHours, int homeWeight) {}

    private static final Country[] COUNTRIES = {
        new Country("DE", "EUR", 1, 20),
        new Country("FR", "EUR", 1, 14),
        new Country("GB", "GBP", 0, 12),
        new Country("ES", "EUR", 1, 10),
        new Country("IT", "EUR", 1, 10),
        new Country("NL", "EUR", 1, 8),
        new Country("PL", "PLN", 1, 6),
        new Country("BE", "EUR", 1, 4),
        new Country("AT", "EUR", 1, 3),
        new Country("PT", "EUR", 0, 3),
        new Country("SE", "SEK", 1, 3),
        new Country("CH", "CHF", 1, 3),
        new Country("IE", "EUR", 0, 2),
        new Country("US", "USD", -5, 2),
        // never home in this simulation: destinations of fraud
        new Country("BR", "BRL", -3, 0),
        new Country("MX", "MXN", -6, 0),
        new Country("TR", "TRY", 3, 0),
        new Country("AE", "AED", 4, 0),
        new Country("TH", "THB", 7, 0),
        new Country("VN", "VND", 7, 0),
        new Country("ID", "IDR", 7, 0),
        new Country("HK", "HKD", 8, 0),
        new Country("NG", "NGN", 1, 0),
        new Country("UA", "UAH", 2, 0),
    };

    private static final int HOME_WEIGHT_TOTAL =
            Arrays.stream(COUNTRIES).mapToInt(Country::homeWeight).sum();

    private final SimulationConfig config;
    private final DelayModel delays;
    private final long endMillis;
    private final double burstPerTx;
    private final SplittableRandom idRng;
    private final SplittableRandom anomalyRng;
    private final String userIdFormat;

    private final PriorityQueue<Source> sources =
            new PriorityQueue<>(
                    Comparator.comparingLong((Source s) -> s.time).thenComparingLong(s -> s.order));
    private final PriorityQueue<Pending> inFlight =
            new PriorityQueue<>(
                    Comparator.comparingLong((Pending p) -> p.arrivalMillis)
                            .thenComparingLong(p -> p.sequence));

    private long nextOrder;
    private long nextSequence;
    private long emitted;
    private int nextBurst;
    private SimulatedRecord lookahead;

    /** A simulator with the {@linkplain DelayModel#realistic(double) realistic} delay model. */
    public TransactionSimulator(SimulationConfig config) {
        this(config, DelayModel.realistic(config.hoursLateShare()));
    }

    /** A simulator with a given delay model (its hours-late share overrides the config's). */
    public TransactionSimulator(SimulationConfig config, DelayModel delays) {
        this.config = config;
        this.delays = delays;
        long startMillis = config.start().toEpochMilli();
        this.endMillis = config.end().toEpochMilli();
        double s = config.fraudShare();
        this.burstPerTx = s == 0 ? 0 : s / ((1 - s) * MEAN_BURST_SIZE);
        SplittableRandom master = new SplittableRandom(config.seed());
        this.idRng = master.split();
        this.anomalyRng = master.split();
        int width = Math.max(6, Integer.toString(config.users()).length());
        this.userIdFormat = "u-%0" + width + "d";
        for (int i = 0; i < config.users(); i++) {
            User user = new User(i, master.split());
            user.clock = startMillis;
            user.advance();
            if (user.clock < endMillis) {
                push(user, (long) user.clock);
            }
        }
    }

    /** Generates a whole (small) simulation into memory; prefer iterating for large ones. */
    public static List<SimulatedRecord> generateAll(SimulationConfig config) {
        List<SimulatedRecord> all = new ArrayList<>();
        new TransactionSimulator(config).forEachRemaining(all::add);
        return all;
    }

    /** The remaining records as a sequential, ordered stream. */
    public Stream<SimulatedRecord> stream() {
        return StreamSupport.stream(
                Spliterators.spliteratorUnknownSize(
                        this, Spliterator.ORDERED | Spliterator.NONNULL),
                false);
    }

    public SimulationConfig config() {
        return config;
    }

    public DelayModel delayModel() {
        return delays;
    }

    @Override
    public boolean hasNext() {
        if (lookahead == null) {
            lookahead = advance();
        }
        return lookahead != null;
    }

    @Override
    public SimulatedRecord next() {
        if (!hasNext()) {
            throw new NoSuchElementException();
        }
        SimulatedRecord r = lookahead;
        lookahead = null;
        return r;
    }

    private SimulatedRecord advance() {
        while (true) {
            Pending head = inFlight.peek();
            Source source = sources.peek();
            // Every record not generated yet arrives at or after source.time: head is final.
            if (head != null && (source == null || head.arrivalMillis < source.time)) {
                inFlight.poll();
                return emit(head);
            }
            if (source == null) {
                return null;
            }
            sources.poll();
            source.fire();
        }
    }

    private SimulatedRecord emit(Pending p) {
        long line = ++emitted;
        Instant arrival = Instant.ofEpochMilli(p.arrivalMillis);
        boolean retryCopy = p.original != null;
        Label label;
        if (retryCopy) {
            label = p.original.label;
            p.original = null;
        } else {
            label =
                    new Label(
                            p.transactionId,
                            p.userId,
                            Instant.ofEpochMilli(p.eventMillis),
                            arrival,
                            line,
                            p.pattern.isFraud(),
                            p.pattern,
                            p.burstId,
                            p.duplicated,
                            p.futureDated,
                            p.hoursLate,
                            p.malformedKind != null,
                            p.malformedKind);
            p.label = label;
        }
        return new SimulatedRecord(line, arrival, p.transaction, p.payload, label, retryCopy);
    }

    private void push(Source source, long time) {
        source.time = time;
        source.order = nextOrder++;
        sources.add(source);
    }

    // ---- generation of one transaction and its arrival(s) ----

    private void generate(
            User user,
            long trueMillis,
            FraudPattern pattern,
            String burstId,
            String merchantId,
            String deviceId,
            String country,
            long amountMinor) {
        String id = randomUuid(idRng);
        SplittableRandom r = anomalyRng;
        double anomaly = r.nextDouble();
        double dup = r.nextDouble();
        long delay = delays.sampleMillis(r);
        boolean legit = !pattern.isFraud();
        MalformedKind malformed = null;
        long arrival = trueMillis + delay;
        long eventMillis = trueMillis;
        boolean future = false;
        if (legit && anomaly < config.malformedRate()) {
            malformed = MalformedKind.values()[r.nextInt(MalformedKind.values().length)];
        } else if (legit && anomaly < config.malformedRate() + config.futureRate()) {
            future = true;
            // The client's clock is ahead: the written eventTime is hours after the arrival.
            eventMillis = arrival + SKEW_MIN_MS + r.nextLong(SKEW_MAX_MS - SKEW_MIN_MS);
        }
        Transaction tx =
                new Transaction(
                        id,
                        user.id,
                        amountMinor,
                        user.home.currency(),
                        merchantId,
                        deviceId,
                        country,
                        Instant.ofEpochMilli(eventMillis));
        Pending p = new Pending();
        p.sequence = nextSequence++;
        p.arrivalMillis = arrival;
        p.transactionId = id;
        p.userId = user.id;
        p.eventMillis = eventMillis;
        p.pattern = pattern;
        p.burstId = burstId;
        p.futureDated = future;
        p.hoursLate = !future && delays.isHoursLate(delay);
        p.malformedKind = malformed;
        if (malformed != null) {
            p.payload = malformedPayload(tx, Instant.ofEpochMilli(arrival), malformed, r);
        } else {
            p.transaction = tx;
        }
        p.duplicated = malformed == null && !future && dup < config.duplicateRate();
        inFlight.add(p);
        if (p.duplicated) {
            Pending copy = new Pending();
            copy.sequence = nextSequence++;
            copy.arrivalMillis = arrival + logUniform(r, RETRY_GAP_MIN_MS, RETRY_GAP_MAX_MS);
            copy.transaction = Transaction.newBuilder(tx).build();
            copy.original = p;
            inFlight.add(copy);
        }
    }

    private static String malformedPayload(
            Transaction tx, Instant arrival, MalformedKind kind, SplittableRandom r) {
        String line = TransactionJson.toJsonLine(tx, arrival);
        if (kind == MalformedKind.BAD_JSON) {
            // A strict prefix never contains the closing brace (no value contains one).
            return line.substring(0, 1 + r.nextInt(line.length() - 2));
        }
        ObjectNode node = TransactionJson.toObjectNode(tx, arrival);
        switch (kind) {
            case MISSING_FIELD -> node.remove(TransactionJson.FIELDS.get(r.nextInt(8)));
            case NEGATIVE_AMOUNT -> node.put("amountMinor", -Math.max(1, tx.getAmountMinor()));
            case EMPTY_USER_ID -> node.put("userId", "");
            default -> throw new IllegalStateException(kind.name());
        }
        try {
            return StrictJsonLines.MAPPER.writeValueAsString(node);
        } catch (JsonProcessingException e) {
            throw new IllegalStateException("a tree always serializes", e);
        }
    }

    // ---- event-time sources: users and the transactions of fraud bursts ----

    private abstract static class Source {
        long time;
        long order;

        abstract void fire();
    }

    /** A card holder: profile plus the event-time process of their transactions and attacks. */
    private final class User extends Source {
        final String id;
        final Country home;
        final Country travel;
        final String[] devices;
        final int[] merchants;
        final double amountMedian;
        final double eventsPerMsAtPeak;
        final SplittableRandom rng;
        double clock;

        User(int index, SplittableRandom rng) {
            this.rng = rng;
            this.id = String.format(Locale.ROOT, userIdFormat, index + 1);
            this.home = pickHome(rng, null);
            this.travel = pickHome(rng, home);
            int deviceCount = 1 + (rng.nextDouble() < 0.5 ? 0 : rng.nextDouble() < 0.7 ? 1 : 2);
            this.devices = new String[deviceCount];
            for (int i = 0; i < deviceCount; i++) {
                devices[i] = deviceId(rng);
            }
            this.merchants = new int[3 + rng.nextInt(10)];
            for (int i = 0; i < merchants.length; i++) {
                double u = rng.nextDouble();
                merchants[i] = (int) (MERCHANT_POOL * u * u); // popular merchants are shared
            }
            this.amountMedian = 2500 * StrictMath.exp(0.6 * gaussian(rng));
            double activity =
                    StrictMath.exp(
                            ACTIVITY_SIGMA * gaussian(rng) - ACTIVITY_SIGMA * ACTIVITY_SIGMA / 2);
            activity = Math.max(0.02, Math.min(20, activity));
            double txPerMs = config.txPerUserDay() * activity / DAY_MS;
            this.eventsPerMsAtPeak = txPerMs * (1 + burstPerTx) * RHYTHM_MAX;
        }

        /** Moves {@link #clock} to the next event (thinning of the rhythm-modulated process). */
        void advance() {
            while (true) {
                clock += -StrictMath.log(1 - rng.nextDouble()) / eventsPerMsAtPeak;
                if (clock >= endMillis) {
                    return;
                }
                if (rng.nextDouble() * RHYTHM_MAX < rhythm((long) clock, home.utcOffsetHours())) {
                    return;
                }
            }
        }

        @Override
        void fire() {
            long now = time;
            if (rng.nextDouble() * (1 + burstPerTx) < 1) {
                ownTransaction(now);
            } else {
                startAttack(now);
            }
            advance();
            if (clock < endMillis) {
                push(this, (long) clock);
            }
        }

        private void ownTransaction(long now) {
            String device =
                    devices.length == 1 || rng.nextDouble() < 0.8
                            ? devices[0]
                            : devices[1 + rng.nextInt(devices.length - 1)];
            int merchant;
            if (rng.nextDouble() < 0.85) {
                double u = rng.nextDouble();
                merchant = merchants[(int) (merchants.length * u * u)];
            } else {
                merchant = rng.nextInt(MERCHANT_POOL);
            }
            Country country = rng.nextDouble() < 0.97 ? home : travel;
            long amount =
                    clamp(
                            Math.round(amountMedian * StrictMath.exp(0.9 * gaussian(rng))),
                            50,
                            2_000_000);
            generate(
                    this,
                    now,
                    FraudPattern.NORMAL,
                    null,
                    merchantId(merchant),
                    device,
                    country.code(),
                    amount);
        }

        private void startAttack(long start) {
            String burstId = String.format(Locale.ROOT, "b-%06d", ++nextBurst);
            boolean ato = rng.nextDouble() < ATO_SHARE;
            FraudPattern pattern = ato ? FraudPattern.ACCOUNT_TAKEOVER : FraudPattern.CARD_TESTING;
            int size =
                    ato
                            ? ATO_MIN + rng.nextInt(ATO_MAX - ATO_MIN + 1)
                            : CT_MIN + rng.nextInt(CT_MAX - CT_MIN + 1);
            long span =
                    ato
                            ? Duration.ofMinutes(2 + rng.nextInt(14)).toMillis()
                            : Duration.ofMinutes(1 + rng.nextInt(6)).toMillis();
            String[] attackerDevices = new String[ato && rng.nextDouble() < 0.5 ? 2 : 1];
            for (int i = 0; i < attackerDevices.length; i++) {
                attackerDevices[i] = deviceId(rng);
            }
            Country[] attackerCountries = new Country[ato && rng.nextDouble() < 0.5 ? 2 : 1];
            for (int i = 0; i < attackerCountries.length; i++) {
                attackerCountries[i] = pickForeign(rng, home, travel, attackerCountries);
            }
            long[] offsets = new long[size];
            for (int i = 1; i < size; i++) {
                offsets[i] = rng.nextLong(span + 1);
            }
            Arrays.sort(offsets);
            for (int i = 0; i < size; i++) {
                long t = start + offsets[i];
                if (t >= endMillis) {
                    break;
                }
                long amount =
                        ato
                                ? clamp(
                                        Math.round(40_000 * StrictMath.exp(0.6 * gaussian(rng))),
                                        5_000,
                                        500_000)
                                : 100 + rng.nextInt(400);
                BurstTransaction tx =
                        new BurstTransaction(
                                this,
                                pattern,
                                burstId,
                                merchantId(rng.nextInt(MERCHANT_POOL)),
                                attackerDevices[rng.nextInt(attackerDevices.length)],
                                attackerCountries[rng.nextInt(attackerCountries.length)].code(),
                                amount);
                push(tx, t);
            }
        }
    }

    /** One transaction of an attack, waiting for its event time. */
    private final class BurstTransaction extends Source {
        final User user;
        final FraudPattern pattern;
        final String burstId;
        final String merchantId;
        final String deviceId;
        final String country;
        final long amountMinor;

        BurstTransaction(
                User user,
                FraudPattern pattern,
                String burstId,
                String merchantId,
                String deviceId,
                String country,
                long amountMinor) {
            this.user = user;
            this.pattern = pattern;
            this.burstId = burstId;
            this.merchantId = merchantId;
            this.deviceId = deviceId;
            this.country = country;
            this.amountMinor = amountMinor;
        }

        @Override
        void fire() {
            generate(user, time, pattern, burstId, merchantId, deviceId, country, amountMinor);
        }
    }

    /** A generated record waiting for its arrival. Mutable, private to the generator. */
    private static final class Pending {
        long sequence;
        long arrivalMillis;
        Transaction transaction;
        String payload;
        String transactionId;
        String userId;
        long eventMillis;
        FraudPattern pattern;
        String burstId;
        boolean duplicated;
        boolean futureDated;
        boolean hoursLate;
        MalformedKind malformedKind;

        /** For a retry copy: the first copy, whose label is set when it is emitted. */
        Pending original;

        Label label;
    }

    // ---- helpers ----

    /** The daily rhythm at an instant for a UTC offset; mean 1 over a day, in [0.2, 1.8]. */
    static double rhythm(long epochMillis, int utcOffsetHours) {
        long local = Math.floorMod(epochMillis + utcOffsetHours * HOUR_MS, DAY_MS);
        double hour = local / (double) HOUR_MS;
        return 1 + RHYTHM_AMPLITUDE * StrictMath.sin(2 * StrictMath.PI * (hour - 9) / 24);
    }

    private static Country pickHome(SplittableRandom rng, Country exclude) {
        int total = HOME_WEIGHT_TOTAL - (exclude == null ? 0 : exclude.homeWeight());
        int pick = rng.nextInt(total);
        for (Country c : COUNTRIES) {
            if (c == exclude) {
                continue;
            }
            pick -= c.homeWeight();
            if (pick < 0) {
                return c;
            }
        }
        throw new IllegalStateException("weights exhausted");
    }

    private static Country pickForeign(
            SplittableRandom rng, Country home, Country travel, Country[] taken) {
        while (true) {
            Country c = COUNTRIES[rng.nextInt(COUNTRIES.length)];
            if (c != home && c != travel && !Arrays.asList(taken).contains(c)) {
                return c;
            }
        }
    }

    private static String deviceId(SplittableRandom rng) {
        return String.format(Locale.ROOT, "d-%012x", rng.nextLong() & 0xFFFF_FFFF_FFFFL);
    }

    private static String merchantId(int index) {
        return String.format(Locale.ROOT, "m-%05d", index);
    }

    private static String randomUuid(SplittableRandom rng) {
        long msb = (rng.nextLong() & ~0xF000L) | 0x4000L; // version 4
        long lsb = (rng.nextLong() & 0x3FFF_FFFF_FFFF_FFFFL) | 0x8000_0000_0000_0000L; // IETF
        return new UUID(msb, lsb).toString();
    }

    private static double gaussian(SplittableRandom rng) {
        return DelayModel.Gaussian.standard(rng.nextDouble(), rng.nextDouble());
    }

    private static long logUniform(SplittableRandom rng, long min, long max) {
        double lo = StrictMath.log(min);
        double hi = StrictMath.log(max);
        return Math.round(StrictMath.exp(lo + rng.nextDouble() * (hi - lo)));
    }

    private static long clamp(long v, long min, long max) {
        return Math.max(min, Math.min(max, v));
    }
}
