package org.fraudpipe.parity.transaction;

import java.util.ArrayList;
import java.util.List;
import org.fraudpipe.schemas.avro.TransactionFeatures;
import org.fraudpipe.schemas.avro.TransactionScore;

/**
 * The per-transaction check's finding for one scored transaction id of one user: what was served
 * (the first answer), its as-of-arrival and ideal recomputations, the cause of their differences
 * with the records it names, and the score-level cost. Built by {@link TransactionJudge}; the ideal
 * score is added by {@link TransactionVerdictFunction}. Never leaves its TaskManager: verdicts are
 * folded there into a report ({@link TransactionReportBuilder}).
 *
 * <p>Invariants: {@link #cause} is the first of {@link #causes} in {@link TransactionCause} order;
 * {@code MATCH} iff nothing differs and every answer and arrival is accounted for; {@link
 * #idealScore} is {@code NaN} when not scored (no ideal features, or no model).
 */
public final class TransactionVerdict {

    public String userId;
    public String transactionId;

    /** The scored transaction's event time, epoch millis. */
    public long eventTime;

    /**
     * The transaction's coordinate, which decides the release that scores it (its first arrival's
     * Kafka timestamp, or in a replay its arrival time): the ideal is re-scored by that release,
     * the one that served.
     */
    public long coordinate;

    public TransactionCause cause;

    /** Every cause found, in {@link TransactionCause} order. */
    public List<TransactionCause> causes = new ArrayList<>();

    /** The first answer (what a consumer acted on); null if the transaction was never scored. */
    public TransactionScore served;

    /** The as-of-arrival recomputation the served features were checked against; null if none. */
    public TransactionFeatureVector asOfArrival;

    /** The ideal recomputation; null when the archive holds no valid copy of the transaction. */
    public TransactionFeatures ideal;

    /** Names of the values where served and ideal differ (empty if equal or a side is absent). */
    public List<String> differingFeatures = new ArrayList<>();

    /** The records the causes name (at most {@link TransactionJudge#NAMED_LIMIT} kept). */
    public List<NamedRecord> named = new ArrayList<>();

    /** How many records the causes named, also beyond the kept ones. */
    public int namedCount;

    /** Archived copies of the id the job should have answered (valid, not future-dated). */
    public int arrivals;

    /** Answers archived for the id (transaction scores). */
    public int answers;

    /**
     * For a score with {@code historyComplete=false}: how many records of its trailing window the
     * as-of-arrival recomputation had to evict to equal it (the state bound); 0 otherwise.
     */
    public int evicted;

    /**
     * Whether the archive could bound the watermark at the arrival ({@code historyComplete=false}
     * only): false when the partition may have been idle before it, or it arrived past what the run
     * read; the eviction is then checked against any watermark.
     */
    public boolean boundProven = true;

    /** The fraud label of the transaction, or null if the input carries none for it. */
    public Boolean fraud;

    /** The ideal features scored by the checker's model; NaN if not scored. */
    public double idealScore = Double.NaN;

    /** The decision for {@link #idealScore}; null if not scored. */
    public String idealDecision;

    /** What a person should know beyond the cause (empty if nothing). */
    public String note = "";

    public TransactionVerdict() {}

    /** Whether served and ideal scores are both present (same model: checked for the run). */
    public boolean hasScoreDelta() {
        return served != null && !Double.isNaN(idealScore);
    }

    /** Ideal minus served score; NaN unless {@link #hasScoreDelta()}. */
    public double scoreDelta() {
        return hasScoreDelta() ? idealScore - served.getScore() : Double.NaN;
    }

    /** Whether the ideal decision differs from the served one. */
    public boolean decisionFlipped() {
        return hasScoreDelta() && !served.getDecision().name().equals(idealDecision);
    }

    /** {@code SERVED->IDEAL} decisions, e.g. {@code ALLOW->BLOCK}; null unless flipped. */
    public String flip() {
        return decisionFlipped() ? served.getDecision().name() + "->" + idealDecision : null;
    }

    @Override
    public String toString() {
        return "TransactionVerdict{"
                + userId
                + "/"
                + transactionId
                + " "
                + causes
                + (differingFeatures.isEmpty() ? "" : " differ: " + differingFeatures)
                + (note.isEmpty() ? "" : " (" + note + ")")
                + "}";
    }
}
