package org.fraudpipe.parity.report;

import java.io.Serializable;
import java.math.BigDecimal;
import java.math.MathContext;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * The model releases of one kind of score over the period (issue #30): per release that served,
 * what it served and what skew cost under it; and per champion and challenger that scored side by
 * side (shadow scoring), how far the challenger's scores were from the champion's, which decisions
 * would have flipped, and with labels, how many frauds each let through. Folded like the rest of a
 * partial report (one per judging subtask, then merged).
 */
public final class ReleaseFigures implements Serializable {

    private static final long serialVersionUID = 1L;

    /** Decisions are compared by name: ALLOW lets a transaction or window through. */
    private static final String ALLOW = "ALLOW";

    private final TreeMap<String, Tally> releases = new TreeMap<>();
    private final TreeMap<String, Shadow> shadows = new TreeMap<>();

    /** Running sums of one release or pair. */
    private static class Tally implements Serializable {
        private static final long serialVersionUID = 1L;
        long served;
        long compared;
        long flipped;
        BigDecimal absDeltaSum = BigDecimal.ZERO;
        double maxAbsDelta;

        void delta(double delta, boolean flip) {
            compared++;
            absDeltaSum = absDeltaSum.add(new BigDecimal(Math.abs(delta)));
            maxAbsDelta = Math.max(maxAbsDelta, Math.abs(delta));
            flipped += flip ? 1 : 0;
        }

        void merge(Tally o) {
            served += o.served;
            compared += o.compared;
            flipped += o.flipped;
            absDeltaSum = absDeltaSum.add(o.absDeltaSum);
            maxAbsDelta = Math.max(maxAbsDelta, o.maxAbsDelta);
        }

        double meanAbsDelta() {
            return compared == 0
                    ? 0
                    : absDeltaSum
                            .divide(BigDecimal.valueOf(compared), MathContext.DECIMAL64)
                            .doubleValue();
        }
    }

    private static final class Shadow extends Tally {
        private static final long serialVersionUID = 1L;
        final TreeMap<String, Long> flips = new TreeMap<>();
        long labelledFraudulent;
        long fraudsAllowedByChampion;
        long fraudsAllowedByChallenger;

        @Override
        void merge(Tally other) {
            super.merge(other);
            Shadow o = (Shadow) other;
            o.flips.forEach((k, n) -> flips.merge(k, n, Long::sum));
            labelledFraudulent += o.labelledFraudulent;
            fraudsAllowedByChampion += o.fraudsAllowedByChampion;
            fraudsAllowedByChallenger += o.fraudsAllowedByChallenger;
        }
    }

    /**
     * A record served by {@code release} ({@code name:version}); with its ideal re-scored, the
     * delta and whether the decision flipped ({@code Double.NaN}: not compared).
     */
    public void served(String release, double idealMinusServed, boolean flipped) {
        Tally t = releases.computeIfAbsent(release, r -> new Tally());
        t.served++;
        if (!Double.isNaN(idealMinusServed)) {
            t.delta(idealMinusServed, flipped);
        }
    }

    /**
     * A record scored by {@code champion} and, in the shadow, by {@code challenger}.
     *
     * @param fraud its label, or null without one
     */
    public void shadow(
            String champion,
            double championScore,
            String championDecision,
            String challenger,
            double challengerScore,
            String challengerDecision,
            Boolean fraud) {
        Shadow s = shadows.computeIfAbsent(champion + " | " + challenger, k -> new Shadow());
        s.served++;
        boolean flip = !championDecision.equals(challengerDecision);
        s.delta(challengerScore - championScore, flip);
        if (flip) {
            s.flips.merge(championDecision + "->" + challengerDecision, 1L, Long::sum);
        }
        if (Boolean.TRUE.equals(fraud)) {
            s.labelledFraudulent++;
            s.fraudsAllowedByChampion += ALLOW.equals(championDecision) ? 1 : 0;
            s.fraudsAllowedByChallenger += ALLOW.equals(challengerDecision) ? 1 : 0;
        }
    }

    /** Adds what {@code other} folded. */
    public void merge(ReleaseFigures other) {
        other.releases.forEach((r, t) -> releases.computeIfAbsent(r, k -> new Tally()).merge(t));
        other.shadows.forEach((p, s) -> shadows.computeIfAbsent(p, k -> new Shadow()).merge(s));
    }

    /**
     * One release's figures.
     *
     * @param release {@code name:version} as the scores name it
     * @param served records it served
     * @param compared of those, with an ideal score to compare (the skew priced under it)
     * @param meanAbsDelta mean |ideal - served| over compared
     * @param maxAbsDelta largest |ideal - served|
     * @param flippedDecisions compared records whose decision the ideal features change
     */
    public record ReleaseRow(
            String release,
            long served,
            long compared,
            double meanAbsDelta,
            double maxAbsDelta,
            long flippedDecisions) {}

    /**
     * A champion against the challenger that shadowed it.
     *
     * @param scored records scored by both
     * @param meanAbsDelta mean |challenger - champion|
     * @param maxAbsDelta largest |challenger - champion|
     * @param flippedDecisions records the challenger would have decided otherwise
     * @param flips per {@code CHAMPION->CHALLENGER} decisions
     * @param labelledFraudulent of the scored, labelled fraudulent (0 without labels)
     * @param fraudsAllowedByChampion of those, allowed by the champion
     * @param fraudsAllowedByChallenger of those, that the challenger would have allowed
     */
    public record ShadowRow(
            String champion,
            String challenger,
            long scored,
            double meanAbsDelta,
            double maxAbsDelta,
            long flippedDecisions,
            Map<String, Long> flips,
            long labelledFraudulent,
            long fraudsAllowedByChampion,
            long fraudsAllowedByChallenger) {}

    /** Every release that served, by id. */
    public List<ReleaseRow> releaseRows() {
        List<ReleaseRow> rows = new ArrayList<>();
        releases.forEach(
                (r, t) ->
                        rows.add(
                                new ReleaseRow(
                                        r,
                                        t.served,
                                        t.compared,
                                        t.meanAbsDelta(),
                                        t.maxAbsDelta,
                                        t.flipped)));
        return rows;
    }

    /** Every champion and challenger pair that scored side by side. */
    public List<ShadowRow> shadowRows() {
        List<ShadowRow> rows = new ArrayList<>();
        shadows.forEach(
                (pair, s) -> {
                    String[] p = pair.split(" \\| ", 2);
                    rows.add(
                            new ShadowRow(
                                    p[0],
                                    p[1],
                                    s.served,
                                    s.meanAbsDelta(),
                                    s.maxAbsDelta,
                                    s.flipped,
                                    new TreeMap<>(s.flips),
                                    s.labelledFraudulent,
                                    s.fraudsAllowedByChampion,
                                    s.fraudsAllowedByChallenger));
                });
        return rows;
    }
}
