package org.fraudpipe.sim;

import java.time.Duration;
import java.time.Instant;
import java.util.Objects;

/**
 * Everything that determines a simulation. Two runs with equal configurations produce identical
 * records, byte for byte; nothing else (wall clock, locale, hash order, platform) is read.
 *
 * <p>Validation messages name the {@code ./fraud simulate} option of each field, since that is
 * where users set them.
 *
 * @param users number of card holders, {@code >= 1} ({@code --users})
 * @param start event time of the beginning of the traffic, millisecond precision ({@code --start})
 * @param duration event-time span: transactions happen in {@code [start, start + duration)}; their
 *     arrival may be later ({@code --duration})
 * @param seed seed of every random choice ({@code --seed})
 * @param txPerUserDay mean number of legitimate transactions of a user per day, over all users
 *     ({@code --tx-per-user-day})
 * @param fraudShare expected share of fraudulent transactions among all generated transaction ids,
 *     in {@code [0, 0.5]} ({@code --fraud-share})
 * @param duplicateRate probability that a valid, not future-dated transaction is sent twice (a
 *     producer retry) ({@code --duplicate-rate})
 * @param futureRate probability that a legitimate transaction carries an eventTime hours ahead of
 *     its arrival (device clock skew) ({@code --future-rate})
 * @param hoursLateShare share of arrivals that are hours late (offline mobile clients) ({@code
 *     --hours-late-share})
 * @param malformedRate probability that a legitimate transaction is replaced by a malformed payload
 *     ({@code --malformed-rate})
 */
public record SimulationConfig(
        int users,
        Instant start,
        Duration duration,
        long seed,
        double txPerUserDay,
        double fraudShare,
        double duplicateRate,
        double futureRate,
        double hoursLateShare,
        double malformedRate) {

    /** Default {@code --start}: a fixed instant, so runs never depend on the wall clock. */
    public static final Instant DEFAULT_START = Instant.parse("2026-11-28T00:00:00Z");

    public SimulationConfig {
        Objects.requireNonNull(start, "start");
        Objects.requireNonNull(duration, "duration");
        if (users < 1) {
            throw new IllegalArgumentException("--users must be >= 1, got " + users);
        }
        if (start.getNano() % 1_000_000 != 0) {
            throw new IllegalArgumentException(
                    "--start must have at most millisecond precision, got " + start);
        }
        if (duration.isNegative() || duration.toMillis() < 1) {
            throw new IllegalArgumentException("--duration must be at least 1 ms, got " + duration);
        }
        if (!(txPerUserDay > 0 && txPerUserDay <= 10_000)) {
            throw new IllegalArgumentException(
                    "--tx-per-user-day must be in (0, 10000], got " + txPerUserDay);
        }
        requireShare("--fraud-share", fraudShare, 0.5);
        requireShare("--duplicate-rate", duplicateRate, 0.5);
        requireShare("--future-rate", futureRate, 0.5);
        requireShare("--hours-late-share", hoursLateShare, 0.5);
        requireShare("--malformed-rate", malformedRate, 0.5);
    }

    private static void requireShare(String option, double value, double max) {
        if (!(value >= 0 && value <= max)) {
            throw new IllegalArgumentException(
                    option + " must be in [0, " + max + "], got " + value);
        }
    }

    /** A builder starting from the defaults of {@code ./fraud simulate}. */
    public static Builder builder() {
        return new Builder();
    }

    /** The end of the event-time span (exclusive). */
    public Instant end() {
        return start.plus(duration);
    }

    /** Builder with the defaults of {@code ./fraud simulate}. */
    public static final class Builder {
        private int users = 1000;
        private Instant start = DEFAULT_START;
        private Duration duration = Duration.ofHours(1);
        private long seed = 1;
        private double txPerUserDay = 20;
        private double fraudShare = 0.01;
        private double duplicateRate = 0.005;
        private double futureRate = 0.0005;
        private double hoursLateShare = DelayModel.DEFAULT_HOURS_LATE_SHARE;
        private double malformedRate = 0;

        private Builder() {}

        public Builder users(int users) {
            this.users = users;
            return this;
        }

        public Builder start(Instant start) {
            this.start = start;
            return this;
        }

        public Builder duration(Duration duration) {
            this.duration = duration;
            return this;
        }

        public Builder seed(long seed) {
            this.seed = seed;
            return this;
        }

        public Builder txPerUserDay(double txPerUserDay) {
            this.txPerUserDay = txPerUserDay;
            return this;
        }

        public Builder fraudShare(double fraudShare) {
            this.fraudShare = fraudShare;
            return this;
        }

        public Builder duplicateRate(double duplicateRate) {
            this.duplicateRate = duplicateRate;
            return this;
        }

        public Builder futureRate(double futureRate) {
            this.futureRate = futureRate;
            return this;
        }

        public Builder hoursLateShare(double hoursLateShare) {
            this.hoursLateShare = hoursLateShare;
            return this;
        }

        public Builder malformedRate(double malformedRate) {
            this.malformedRate = malformedRate;
            return this;
        }

        /** Validates and builds; throws {@link IllegalArgumentException} naming the option. */
        public SimulationConfig build() {
            return new SimulationConfig(
                    users,
                    start,
                    duration,
                    seed,
                    txPerUserDay,
                    fraudShare,
                    duplicateRate,
                    futureRate,
                    hoursLateShare,
                    malformedRate);
        }
    }
}
