package org.fraudpipe.sim;

import java.time.Duration;
import java.util.SplittableRandom;

/**
 * Arrival-delay distribution of card transactions: how long after its event time a transaction
 * reaches the transactions topic.
 *
 * <p>A two-part mixture:
 *
 * <ul>
 *   <li>with probability {@code 1 - hoursLateShare}: network and broker delay, log-normal with the
 *       given median and shape, clamped to {@code baseCap} (a partition that lags for minutes);
 *   <li>with probability {@code hoursLateShare}: a mobile client that was offline, log-uniform
 *       between {@code hoursLateMin} and {@code hoursLateMax} (10 min .. 6 h by default).
 * </ul>
 *
 * <p>Invariants: every sample is {@code >= 0} ms; a sample is "hours late" ({@link
 * #isHoursLate(long)}) if and only if it came from the second part, because {@code baseCap <
 * hoursLateMin}. The default calibration ({@link #realistic()}) gives for the whole mixture: p50
 * about 0.2 s, p95 about 2.5 s, p99 about 8 s; the tail above p99.7 is the hours-late part. It is
 * calibrated for an hours-late share of 0.3 %; a share between 0.2 % and 0.5 % moves p99 between
 * about 7.4 s and 9.5 s.
 *
 * <p>Sampling uses only {@link SplittableRandom#nextDouble()} and {@link StrictMath}, so the same
 * random stream gives the same delays on every JVM and platform.
 */
public final class DelayModel {

    /** Default share of hours-late (offline mobile) arrivals. */
    public static final double DEFAULT_HOURS_LATE_SHARE = 0.003;

    /** Default lower bound of an hours-late delay. */
    public static final Duration DEFAULT_HOURS_LATE_MIN = Duration.ofMinutes(10);

    /** Default upper bound of an hours-late delay. */
    public static final Duration DEFAULT_HOURS_LATE_MAX = Duration.ofHours(6);

    // Log-normal fitted so that the mixture (with 0.3 % hours-late) has p95 = 2.5 s and p99 = 8 s:
    // the base quantiles are then 0.95/0.997 and 0.99/0.997 (z = 1.673 and 2.457), so
    // sigma = ln(8 / 2.5) / (2.457 - 1.673) and median = 2.5 s / exp(1.673 * sigma).
    private static final double DEFAULT_SIGMA = 1.484;
    private static final double DEFAULT_MEDIAN_MILLIS = 209.0;
    private static final long DEFAULT_BASE_CAP_MILLIS = Duration.ofMinutes(3).toMillis();

    private final double baseMedianMillis;
    private final double baseSigma;
    private final long baseCapMillis;
    private final double hoursLateShare;
    private final long hoursLateMinMillis;
    private final long hoursLateMaxMillis;

    /**
     * @param baseMedian median of the network part
     * @param baseSigma shape (standard deviation of the log) of the network part, {@code >= 0}
     * @param baseCap largest delay of the network part, below {@code hoursLateMin}
     * @param hoursLateShare probability of an hours-late arrival, in {@code [0, 1]}
     * @param hoursLateMin smallest hours-late delay
     * @param hoursLateMax largest hours-late delay, {@code >= hoursLateMin}
     */
    public DelayModel(
            Duration baseMedian,
            double baseSigma,
            Duration baseCap,
            double hoursLateShare,
            Duration hoursLateMin,
            Duration hoursLateMax) {
        if (baseMedian.isNegative() || baseMedian.isZero()) {
            throw new IllegalArgumentException("baseMedian must be > 0, got " + baseMedian);
        }
        if (!(baseSigma >= 0)) {
            throw new IllegalArgumentException("baseSigma must be >= 0, got " + baseSigma);
        }
        if (!(hoursLateShare >= 0 && hoursLateShare <= 1)) {
            throw new IllegalArgumentException(
                    "hoursLateShare must be in [0, 1], got " + hoursLateShare);
        }
        if (baseCap.compareTo(hoursLateMin) >= 0 || baseCap.compareTo(baseMedian) < 0) {
            throw new IllegalArgumentException(
                    "baseCap must be in [baseMedian, hoursLateMin), got " + baseCap);
        }
        if (hoursLateMax.compareTo(hoursLateMin) < 0) {
            throw new IllegalArgumentException(
                    "hoursLateMax " + hoursLateMax + " is below hoursLateMin " + hoursLateMin);
        }
        this.baseMedianMillis = baseMedian.toMillis();
        this.baseSigma = baseSigma;
        this.baseCapMillis = baseCap.toMillis();
        this.hoursLateShare = hoursLateShare;
        this.hoursLateMinMillis = hoursLateMin.toMillis();
        this.hoursLateMaxMillis = hoursLateMax.toMillis();
    }

    /** The default calibration with the default hours-late share. */
    public static DelayModel realistic() {
        return realistic(DEFAULT_HOURS_LATE_SHARE);
    }

    /** The default calibration with another hours-late share (see the class comment). */
    public static DelayModel realistic(double hoursLateShare) {
        return new DelayModel(
                Duration.ofMillis((long) DEFAULT_MEDIAN_MILLIS),
                DEFAULT_SIGMA,
                Duration.ofMillis(DEFAULT_BASE_CAP_MILLIS),
                hoursLateShare,
                DEFAULT_HOURS_LATE_MIN,
                DEFAULT_HOURS_LATE_MAX);
    }

    /** One delay in milliseconds, {@code >= 0}. Consumes exactly three doubles of {@code rng}. */
    public long sampleMillis(SplittableRandom rng) {
        double pick = rng.nextDouble();
        double u1 = rng.nextDouble();
        double u2 = rng.nextDouble();
        if (pick < hoursLateShare) {
            double logMin = StrictMath.log(hoursLateMinMillis);
            double logMax = StrictMath.log(hoursLateMaxMillis);
            long d = (long) StrictMath.exp(logMin + u1 * (logMax - logMin));
            return Math.max(hoursLateMinMillis, Math.min(hoursLateMaxMillis, d));
        }
        double z = Gaussian.standard(u1, u2);
        double d = baseMedianMillis * StrictMath.exp(baseSigma * z);
        return Math.min(baseCapMillis, Math.round(d));
    }

    /** Whether a delay drawn from this model came from its hours-late part. */
    public boolean isHoursLate(long delayMillis) {
        return delayMillis >= hoursLateMinMillis;
    }

    /** Probability of an hours-late arrival. */
    public double hoursLateShare() {
        return hoursLateShare;
    }

    /** Smallest hours-late delay; every smaller delay is a network delay. */
    public Duration hoursLateMin() {
        return Duration.ofMillis(hoursLateMinMillis);
    }

    /** Platform-independent standard normal samples (Box-Muller with {@link StrictMath}). */
    static final class Gaussian {
        private Gaussian() {}

        /** A standard normal value from two uniforms in {@code [0, 1)}. */
        static double standard(double u1, double u2) {
            double r = StrictMath.sqrt(-2.0 * StrictMath.log(1.0 - u1));
            return r * StrictMath.cos(2.0 * StrictMath.PI * u2);
        }
    }
}
