package org.fraudpipe.parity.report;

import java.io.Serializable;
import java.math.BigDecimal;
import java.math.MathContext;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.TreeSet;
import org.fraudpipe.parity.transaction.TransactionCause;
import org.fraudpipe.parity.transaction.TransactionFeatureVector;
import org.fraudpipe.parity.transaction.TransactionJudge;
import org.fraudpipe.parity.transaction.TransactionVerdict;
import org.fraudpipe.schemas.avro.TransactionScore;

/**
 * Folds per-transaction verdicts into a {@link TransactionSection}, on the TaskManagers: each
 * subtask of the judging operator folds the users it judged into one builder and hands it on once,
 * serialized ({@link #toBytes}); the client merges the few partial builders ({@link #merge}). So
 * what reaches the client is bounded by the example limits, the buckets and the number of subtasks,
 * never by the number of transactions.
 *
 * <p>Deterministic: counts and histograms add up, sums of deltas are exact, and examples are the
 * first of a total order (merging keeps the first N of the union), so the section is the same
 * whatever users went to which subtask and in which order the partials arrive.
 */
public final class TransactionReportBuilder implements Serializable {

    private static final long serialVersionUID = 1L;

    /** Examples kept per cause (other than MATCH). */
    public static final int EXAMPLES_PER_CAUSE = 5;

    /** Differing transactions listed as the worst. */
    public static final int WORST = 20;

    /** Users on several partitions named in the report. */
    static final int PARTITION_EXAMPLES = 10;

    /** The order of examples: user, event time, id. */
    record FindingKey(String userId, long eventTime, String transactionId)
            implements Comparable<FindingKey>, Serializable {
        @Override
        public int compareTo(FindingKey o) {
            int c = userId.compareTo(o.userId);
            if (c == 0) {
                c = Long.compare(eventTime, o.eventTime);
            }
            return c != 0 ? c : transactionId.compareTo(o.transactionId);
        }
    }

    /** Worst first: largest |score delta|, then largest feature distance, then by key. */
    record WorstKey(double absDelta, double distance, FindingKey key)
            implements Comparable<WorstKey>, Serializable {
        @Override
        public int compareTo(WorstKey o) {
            int c = Double.compare(o.absDelta, absDelta);
            if (c == 0) {
                c = Double.compare(o.distance, distance);
            }
            return c != 0 ? c : key.compareTo(o.key);
        }
    }

    private final boolean labelsGiven;
    private final EnumMap<TransactionCause, Long> byCause = new EnumMap<>(TransactionCause.class);
    private final TreeMap<String, TreeMap<FindingKey, TransactionFinding>> examples =
            new TreeMap<>();
    private final TreeMap<WorstKey, TransactionFinding> worst = new TreeMap<>();
    private final Histogram arrivedLaterDelay = Histogram.arrivalDelay();
    private final Histogram scoreDelta = Histogram.scoreDelta();
    private final ReleaseFigures releases = new ReleaseFigures();
    private final TreeMap<String, Long> flips = new TreeMap<>();
    private final TreeMap<String, Long> neverScoredDecisions = new TreeMap<>();
    private final TreeMap<String, Long> fraudFlips = new TreeMap<>();
    private final TreeMap<String, Long> legitimateFlips = new TreeMap<>();
    private final TreeSet<String> servedModels = new TreeSet<>();
    private final TreeSet<Long> trailingWindows = new TreeSet<>();
    private final TreeSet<String> severalPartitionUsers = new TreeSet<>();
    private final TreeSet<String> offThresholdExamples = new TreeSet<>();
    private BigDecimal absDeltaSum = BigDecimal.ZERO;
    private double maxAbsDelta;
    private long compared;
    private long differing;
    private long scoreCompared;
    private long neverScored;
    private long users;
    private long arrivals;
    private long answers;
    private long retries;
    private long quarantinedInPeriod;
    private long historyIncomplete;
    private long historyIncompleteUnproven;
    private long evictedRecords;
    private long arrivedLaterRecords;
    private long usersOnSeveralPartitions;
    private long offThresholds;
    private long labelled;
    private long unlabelled;
    private long fraudulent;
    private long fraudsAllowed;
    private long fraudsLetThrough;

    /**
     * @param labelsGiven whether the run was given fraud labels
     */
    public TransactionReportBuilder(boolean labelsGiven) {
        this.labelsGiven = labelsGiven;
        for (TransactionCause c : TransactionCause.values()) {
            byCause.put(c, 0L);
        }
    }

    /** Adds what one user's judgement says beyond its verdicts. */
    public TransactionReportBuilder addUser(TransactionJudge.UserFacts facts, boolean judged) {
        if (judged) {
            users++;
        }
        quarantinedInPeriod += facts.quarantinedInPeriod();
        for (long delay : facts.arrivedLaterDelays()) {
            arrivedLaterDelay.add(delay);
            arrivedLaterRecords++;
        }
        if (facts.severalPartitions()) {
            usersOnSeveralPartitions++;
            severalPartitionUsers.add(
                    facts.userId() + " (" + String.join(", ", facts.partitions()) + ")");
            while (severalPartitionUsers.size() > PARTITION_EXAMPLES) {
                severalPartitionUsers.pollLast();
            }
        }
        return this;
    }

    /** Adds an answer whose decision the thresholds do not give for its score. */
    public TransactionReportBuilder addOffThreshold(String example) {
        offThresholds++;
        offThresholdExamples.add(example);
        while (offThresholdExamples.size() > 3) {
            offThresholdExamples.pollLast();
        }
        return this;
    }

    /** The model that served an answer ({@code name:version}) over which trailing window. */
    public TransactionReportBuilder addServedModel(String model, long trailingWindowMillis) {
        servedModels.add(model);
        trailingWindows.add(trailingWindowMillis);
        return this;
    }

    /** Adds one transaction's verdict. */
    public TransactionReportBuilder add(TransactionVerdict v) {
        byCause.merge(v.cause, 1L, Long::sum);
        arrivals += v.arrivals;
        answers += v.answers;
        retries += Math.max(0, v.arrivals - 1);
        evictedRecords += v.evicted;
        if (v.served != null && !v.served.getFeatures().getHistoryComplete()) {
            historyIncomplete++;
            if (!v.boundProven) {
                historyIncompleteUnproven++;
            }
        }
        boolean bothSides = v.served != null && v.ideal != null;
        if (bothSides) {
            compared++;
            if (!v.differingFeatures.isEmpty()) {
                differing++;
            }
        }
        FindingKey key = new FindingKey(v.userId, v.eventTime, v.transactionId);
        TransactionFinding finding = null;
        if (v.cause != TransactionCause.MATCH) {
            finding = TransactionFinding.of(v);
            TreeMap<FindingKey, TransactionFinding> kept =
                    examples.computeIfAbsent(v.cause.name(), c -> new TreeMap<>());
            kept.put(key, finding);
            trim(kept, EXAMPLES_PER_CAUSE);
        }
        if (v.cause != TransactionCause.MATCH && (bothSides || !v.cause.isExplained())) {
            double distance =
                    bothSides
                            ? TransactionFeatureVector.of(v.ideal)
                                    .distanceTo(TransactionFeatureVector.of(v.served.getFeatures()))
                            : 0;
            worst.put(
                    new WorstKey(v.hasScoreDelta() ? Math.abs(v.scoreDelta()) : 0, distance, key),
                    finding);
            trim(worst, WORST);
        }
        if (v.served != null) {
            TransactionScore s = v.served;
            releases.served(
                    s.getModelName() + ":" + s.getModelVersion(),
                    v.hasScoreDelta() ? v.scoreDelta() : Double.NaN,
                    v.hasScoreDelta() && v.flip() != null);
            if (s.getChallenger() != null) {
                releases.shadow(
                        s.getModelName() + ":" + s.getModelVersion(),
                        s.getScore(),
                        s.getDecision().name(),
                        s.getChallenger().getModelName()
                                + ":"
                                + s.getChallenger().getModelVersion(),
                        s.getChallenger().getScore(),
                        s.getChallenger().getDecision().name(),
                        v.fraud);
            }
        }
        if (v.hasScoreDelta()) {
            scoreCompared++;
            double delta = v.scoreDelta();
            scoreDelta.add(delta);
            absDeltaSum = absDeltaSum.add(new BigDecimal(Math.abs(delta)));
            maxAbsDelta = Math.max(maxAbsDelta, Math.abs(delta));
            String flip = v.flip();
            if (flip != null) {
                flips.merge(flip, 1L, Long::sum);
            }
            if (v.fraud == null) {
                unlabelled++;
            } else {
                labelled++;
                if (v.fraud) {
                    fraudulent++;
                    boolean allowed = v.served.getDecision().name().equals("ALLOW");
                    if (allowed) {
                        fraudsAllowed++;
                        if (!"ALLOW".equals(v.idealDecision)) {
                            fraudsLetThrough++;
                        }
                    }
                    if (flip != null) {
                        fraudFlips.merge(flip, 1L, Long::sum);
                    }
                } else if (flip != null) {
                    legitimateFlips.merge(flip, 1L, Long::sum);
                }
            }
        } else if (v.served == null && v.idealDecision != null) {
            neverScored++;
            neverScoredDecisions.merge(v.idealDecision, 1L, Long::sum);
        }
        return this;
    }

    private static <K, V> void trim(TreeMap<K, V> map, int limit) {
        while (map.size() > limit) {
            map.pollLastEntry();
        }
    }

    /** Adds everything {@code other} folded (another subtask's users). */
    public TransactionReportBuilder merge(TransactionReportBuilder other) {
        other.byCause.forEach((c, n) -> byCause.merge(c, n, Long::sum));
        other.examples.forEach(
                (c, kept) -> {
                    TreeMap<FindingKey, TransactionFinding> mine =
                            examples.computeIfAbsent(c, k -> new TreeMap<>());
                    mine.putAll(kept);
                    trim(mine, EXAMPLES_PER_CAUSE);
                });
        worst.putAll(other.worst);
        trim(worst, WORST);
        arrivedLaterDelay.merge(other.arrivedLaterDelay);
        scoreDelta.merge(other.scoreDelta);
        releases.merge(other.releases);
        other.flips.forEach((k, n) -> flips.merge(k, n, Long::sum));
        other.neverScoredDecisions.forEach((k, n) -> neverScoredDecisions.merge(k, n, Long::sum));
        other.fraudFlips.forEach((k, n) -> fraudFlips.merge(k, n, Long::sum));
        other.legitimateFlips.forEach((k, n) -> legitimateFlips.merge(k, n, Long::sum));
        servedModels.addAll(other.servedModels);
        trailingWindows.addAll(other.trailingWindows);
        severalPartitionUsers.addAll(other.severalPartitionUsers);
        while (severalPartitionUsers.size() > PARTITION_EXAMPLES) {
            severalPartitionUsers.pollLast();
        }
        offThresholdExamples.addAll(other.offThresholdExamples);
        while (offThresholdExamples.size() > 3) {
            offThresholdExamples.pollLast();
        }
        absDeltaSum = absDeltaSum.add(other.absDeltaSum);
        maxAbsDelta = Math.max(maxAbsDelta, other.maxAbsDelta);
        compared += other.compared;
        differing += other.differing;
        scoreCompared += other.scoreCompared;
        neverScored += other.neverScored;
        users += other.users;
        arrivals += other.arrivals;
        answers += other.answers;
        retries += other.retries;
        quarantinedInPeriod += other.quarantinedInPeriod;
        historyIncomplete += other.historyIncomplete;
        historyIncompleteUnproven += other.historyIncompleteUnproven;
        evictedRecords += other.evictedRecords;
        arrivedLaterRecords += other.arrivedLaterRecords;
        usersOnSeveralPartitions += other.usersOnSeveralPartitions;
        offThresholds += other.offThresholds;
        labelled += other.labelled;
        unlabelled += other.unlabelled;
        fraudulent += other.fraudulent;
        fraudsAllowed += other.fraudsAllowed;
        fraudsLetThrough += other.fraudsLetThrough;
        return this;
    }

    /** The models ({@code name:version}) that served the judged answers. */
    public TreeSet<String> servedModels() {
        return new TreeSet<>(servedModels);
    }

    /** The trailing windows (ms) the judged answers were computed over. */
    public TreeSet<Long> trailingWindows() {
        return new TreeSet<>(trailingWindows);
    }

    /** Answers whose decision the run's thresholds would not give their score. */
    public long offThresholds() {
        return offThresholds;
    }

    /** Some of them, described. */
    public List<String> offThresholdExamples() {
        return List.copyOf(offThresholdExamples);
    }

    /**
     * The section.
     *
     * @param checked whether scores at arrival were checked at all
     * @param notChecked why not (when not checked)
     * @param modelVersion the checker's model, {@code name:version} (empty: not re-scored)
     */
    public TransactionSection section(boolean checked, String notChecked, String modelVersion) {
        long judged = byCause.values().stream().mapToLong(Long::longValue).sum();
        long matched = byCause.get(TransactionCause.MATCH);
        long alarms = 0;
        long explained = 0;
        for (Map.Entry<TransactionCause, Long> e : byCause.entrySet()) {
            if (!e.getKey().isExplained()) {
                alarms += e.getValue();
            } else if (e.getKey() != TransactionCause.MATCH) {
                explained += e.getValue();
            }
        }
        Map<String, Long> causes = new LinkedHashMap<>();
        byCause.forEach((c, n) -> causes.put(c.name(), n));
        Map<String, List<TransactionFinding>> exampleFindings = new LinkedHashMap<>();
        for (TransactionCause c : TransactionCause.values()) {
            TreeMap<FindingKey, TransactionFinding> kept = examples.get(c.name());
            if (kept != null) {
                exampleFindings.put(c.name(), List.copyOf(kept.values()));
            }
        }
        long flipped = flips.values().stream().mapToLong(Long::longValue).sum();
        double meanAbsDelta =
                scoreCompared == 0
                        ? 0
                        : absDeltaSum
                                .divide(BigDecimal.valueOf(scoreCompared), MathContext.DECIMAL64)
                                .doubleValue();
        return new TransactionSection(
                checked,
                checked ? "" : notChecked,
                new TransactionSection.Counts(
                        judged,
                        matched,
                        explained,
                        alarms,
                        compared,
                        differing,
                        compared == 0 ? 0 : (double) differing / compared),
                causes,
                new TransactionSection.Records(
                        users,
                        arrivals,
                        answers,
                        retries,
                        quarantinedInPeriod,
                        historyIncomplete,
                        historyIncompleteUnproven,
                        evictedRecords,
                        arrivedLaterRecords,
                        usersOnSeveralPartitions,
                        new ArrayList<>(severalPartitionUsers),
                        offThresholds),
                arrivedLaterDelay.buckets(),
                new TransactionSection.Skew(
                        modelVersion,
                        scoreCompared,
                        neverScored,
                        meanAbsDelta,
                        maxAbsDelta,
                        flipped,
                        scoreCompared == 0 ? 0 : (double) flipped / scoreCompared,
                        new TreeMap<>(flips),
                        new TreeMap<>(neverScoredDecisions),
                        scoreDelta.buckets(),
                        new TransactionSection.Labels(
                                labelsGiven,
                                labelled,
                                unlabelled,
                                fraudulent,
                                fraudsAllowed,
                                fraudsLetThrough,
                                new TreeMap<>(fraudFlips),
                                new TreeMap<>(legitimateFlips)),
                        releases.releaseRows(),
                        releases.shadowRows()),
                exampleFindings,
                List.copyOf(worst.values()));
    }

    /** This builder as bytes (what a subtask hands on). */
    public byte[] toBytes() {
        return PartialReports.toBytes(this);
    }

    /** A builder from {@link #toBytes}. */
    public static TransactionReportBuilder fromBytes(byte[] bytes) {
        return PartialReports.fromBytes(bytes, TransactionReportBuilder.class);
    }
}
