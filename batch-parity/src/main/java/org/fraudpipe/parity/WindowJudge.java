package org.fraudpipe.parity;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.EnumSet;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Collectors;
import org.fraudpipe.job.archive.ArchivePolicy;
import org.fraudpipe.job.features.FeatureAggregator;
import org.fraudpipe.job.ingest.RecordIngestor;
import org.fraudpipe.job.window.FeatureWindowSpec;
import org.fraudpipe.job.window.ProcessingTimeSource;
import org.fraudpipe.schemas.avro.ArchivedTransaction;
import org.fraudpipe.schemas.avro.DeadLetter;
import org.fraudpipe.schemas.avro.FeatureRecord;
import org.fraudpipe.schemas.avro.LateReason;
import org.fraudpipe.schemas.avro.LateRecord;
import org.fraudpipe.schemas.avro.ScoreRecord;
import org.fraudpipe.schemas.avro.Transaction;

/**
 * Decides the {@link WindowVerdict} of one (user, window) from all its {@link Evidence}. Pure: no
 * Flink, no I/O; the scores are added afterwards by {@link VerdictScoring}.
 *
 * <p>The rule, with A = the window's archived records (every copy received, in arrival order), I =
 * the ideal features (batch, over A) and S = the served value an upsert reader holds: the last pane
 * in write order (Kafka offsets when served values are read from Kafka; in the archive, emission
 * time then revision, see {@link #ARCHIVE_WRITE_ORDER}):
 *
 * <ol>
 *   <li>Each late record takes one archived copy with the same transaction (TOO_LATE: LATE_DROPPED,
 *       FUTURE_DATED: QUARANTINED); each dead letter takes the archived copy at its source position
 *       (DEAD_LETTERED). Together they are the explaining copies E. A late record or dead letter
 *       with no archived copy means the archive lost a record the job received: UNEXPLAINED,
 *       whatever the features say. Labels are checked, not trusted: a TOO_LATE label must be too
 *       late under the archived policy at its stated watermark, and that watermark at most what the
 *       archive proves the job can have had ({@link PartitionWatermarkBounds}); a FUTURE_DATED
 *       label must satisfy the job's own rule ({@link RecordIngestor#isFutureDated(long, long,
 *       long)}) against the archived arrival. A label the archive contradicts is UNEXPLAINED.
 *   <li>Served values must never go backwards in write order: a pane or score after one with a
 *       higher revision, or with the same revision and other values, is REVISION_REGRESSED. When
 *       served values come from Kafka, the topic's last value is compared with the archive's:
 *       LOST_IN_KAFKA, EXTRA_IN_KAFKA.
 *   <li>I = S: MATCH.
 *   <li>Otherwise the explanation must be exact: X = the features over A - E in arrival order (the
 *       order the job saw them, so its rule for duplicates applies). S absent: the causes of E if A
 *       - E is empty, else MISSING_IN_STREAM. A empty but S present: EXTRA_IN_STREAM. X = S: the
 *       causes of E, plus DUPLICATE if arrival order changes the value of A (conflicting
 *       duplicates). Anything else: UNEXPLAINED.
 * </ol>
 */
public final class WindowJudge {

    /** Arrival order of archived records: received time, then Kafka partition and offset. */
    static final Comparator<ArchivedTransaction> ARRIVAL_ORDER =
            Comparator.comparing(ArchivedTransaction::getReceivedAt)
                    .thenComparing(ArchivedTransaction::getSourceTopic)
                    .thenComparingInt(ArchivedTransaction::getSourcePartition)
                    .thenComparingLong(ArchivedTransaction::getSourceOffset);

    /**
     * Write order of the archive's panes: emission time (the processing time of the firing), then
     * revision. Assumes the clocks of the TaskManagers that emit one window's panes (one subtask,
     * and after a failover perhaps another machine) do not run backwards by more than the time
     * between two of its panes; a restart takes seconds, so a pane emitted after a recovery is
     * later. Equal times (a replay stamps panes with the watermark) are ordered by revision, the
     * order in which one subtask emits them. Kafka offsets are exact and need no assumption.
     */
    static final Comparator<FeatureRecord> ARCHIVE_WRITE_ORDER =
            Comparator.comparing(FeatureRecord::getEmittedAt)
                    .thenComparingInt(FeatureRecord::getRevision);

    /** The same for scores: scoring time, then revision. */
    static final Comparator<ScoreRecord> ARCHIVE_SCORE_ORDER =
            Comparator.comparing(ScoreRecord::getScoredAt)
                    .thenComparingInt(ScoreRecord::getRevision);

    private static final Comparator<Evidence> KAFKA_ORDER =
            Comparator.comparingInt((Evidence e) -> e.kafkaPartition)
                    .thenComparingLong(e -> e.kafkaOffset);

    private final long windowSizeMillis;
    private final FeatureWindowSpec windows;
    private final long futureToleranceMillis;
    private final boolean servedFromKafka;

    /**
     * @param policy the job's event-time policy (window size; late and quarantine labels are
     *     checked against it)
     * @param servedFromKafka whether served values are read from the compacted topics (the
     *     archive's copy is then compared with them)
     */
    public WindowJudge(ArchivePolicy policy, boolean servedFromKafka) {
        this.windows = policy.windows(ProcessingTimeSource.WATERMARK);
        this.windowSizeMillis = policy.windowSize().toMillis();
        this.futureToleranceMillis = policy.futureTolerance().toMillis();
        this.servedFromKafka = servedFromKafka;
    }

    /** The verdict for the window of {@code userId} starting at {@code windowStart}. */
    public WindowVerdict judge(String userId, long windowStart, List<Evidence> evidence) {
        FeatureRecord ideal = null;
        List<FeatureRecord> served = new ArrayList<>();
        List<ScoreRecord> scores = new ArrayList<>();
        List<Evidence> kafkaServed = new ArrayList<>();
        List<Evidence> kafkaScores = new ArrayList<>();
        List<Evidence> archivedEvidence = new ArrayList<>();
        List<LateRecord> late = new ArrayList<>();
        List<DeadLetter> deadLetters = new ArrayList<>();
        for (Evidence e : evidence) {
            switch (e.kind) {
                case IDEAL -> {
                    if (ideal != null) {
                        throw new IllegalStateException(
                                "two ideal results for " + userId + "@" + windowStart);
                    }
                    ideal = e.features;
                }
                case SERVED -> served.add(e.features);
                case SCORE -> scores.add(e.score);
                case KAFKA_SERVED -> kafkaServed.add(e);
                case KAFKA_SCORE -> kafkaScores.add(e);
                case ARCHIVED -> archivedEvidence.add(e);
                case LATE -> late.add(e.late);
                case DEAD_LETTER -> deadLetters.add(e.deadLetter);
                case TRANSACTION_SCORE, LABEL ->
                        throw new IllegalArgumentException(
                                "per-transaction evidence in a window's: " + e);
            }
        }
        archivedEvidence.sort(Comparator.comparing(e -> e.archived, ARRIVAL_ORDER));
        List<ArchivedTransaction> archived = new ArrayList<>(archivedEvidence.size());
        archivedEvidence.forEach(e -> archived.add(e.archived));
        served.sort(ARCHIVE_WRITE_ORDER);
        scores.sort(ARCHIVE_SCORE_ORDER);
        kafkaServed.sort(KAFKA_ORDER);
        kafkaScores.sort(KAFKA_ORDER);

        WindowVerdict v = new WindowVerdict();
        v.userId = userId;
        v.windowStart = windowStart;
        v.windowEnd = windowStart + windowSizeMillis;
        v.ideal = ideal;
        v.archivedRecords = archived.size();
        v.conflictingDuplicates = conflictingDuplicates(archived);
        List<String> notes = new ArrayList<>();
        EnumSet<Cause> alarms = EnumSet.noneOf(Cause.class);

        // 2. What an upsert reader holds, and whether it ever went backwards.
        List<FeatureRecord> kafkaPanes = new ArrayList<>();
        kafkaServed.forEach(e -> kafkaPanes.add(e.features));
        List<ScoreRecord> kafkaScoreRecords = new ArrayList<>();
        kafkaScores.forEach(e -> kafkaScoreRecords.add(e.score));
        regression(
                "archived panes",
                revisionsOf(served, FeatureRecord::getRevision, WindowJudge::paneValue),
                notes,
                alarms);
        regression(
                "archived scores",
                revisionsOf(scores, ScoreRecord::getRevision, WindowJudge::scoreValue),
                notes,
                alarms);
        FeatureRecord archiveLast = last(served);
        ScoreRecord archiveLastScore = last(scores);
        if (servedFromKafka) {
            regression(
                    "panes in Kafka",
                    revisionsOf(kafkaPanes, FeatureRecord::getRevision, WindowJudge::paneValue),
                    notes,
                    alarms);
            regression(
                    "scores in Kafka",
                    revisionsOf(
                            kafkaScoreRecords, ScoreRecord::getRevision, WindowJudge::scoreValue),
                    notes,
                    alarms);
            compareWithKafka(
                    "pane",
                    archiveLast,
                    last(kafkaPanes),
                    served,
                    WindowJudge::paneValue,
                    FeatureRecord::getRevision,
                    notes,
                    alarms);
            compareWithKafka(
                    "score",
                    archiveLastScore,
                    last(kafkaScoreRecords),
                    scores,
                    WindowJudge::scoreValue,
                    ScoreRecord::getRevision,
                    notes,
                    alarms);
            v.served = last(kafkaPanes);
            v.servedScore = last(kafkaScoreRecords);
            v.servedPanes = kafkaPanes.size();
        } else {
            v.served = archiveLast;
            v.servedScore = archiveLastScore;
            v.servedPanes = served.size();
        }
        if (v.served != null
                && v.servedScore != null
                && v.servedScore.getRevision() != v.served.getRevision()) {
            notes.add(
                    "the last score is of revision "
                            + v.servedScore.getRevision()
                            + ", the last pane is revision "
                            + v.served.getRevision());
        }

        // 1. The explaining copies, their labels checked against the archive.
        Explained explained = explain(archivedEvidence, late, deadLetters, notes);
        v.lateDropped = explained.count(Cause.LATE_DROPPED);
        v.quarantined = explained.count(Cause.QUARANTINED);
        v.deadLettered = explained.count(Cause.DEAD_LETTERED);
        v.contradictedLabels = explained.contradicted;
        v.uncheckedLabels = explained.unchecked;
        v.lateByMillis =
                late.stream()
                        .filter(l -> l.getReason() == LateReason.TOO_LATE)
                        .mapToLong(LateRecord::getLateByMillis)
                        .sorted()
                        .toArray();
        if (explained.orphans > 0) {
            notes.add(
                    explained.orphans
                            + " late or dead-lettered record(s) of this window are not in the"
                            + " transactions archive: the archive lost records the job received");
        }

        FeatureVector idealVector = ideal == null ? null : FeatureVector.of(ideal);
        FeatureVector servedVector = v.served == null ? null : FeatureVector.of(v.served);
        v.differingFeatures =
                String.join(
                        ",",
                        (idealVector == null ? FeatureVector.EMPTY : idealVector)
                                .differingFrom(
                                        servedVector == null ? FeatureVector.EMPTY : servedVector));
        if (idealVector == null && servedVector == null) {
            // Only late records or dead letters: the features agree (both empty).
            v.differingFeatures = "";
        }

        EnumSet<Cause> causes = EnumSet.noneOf(Cause.class);
        if (idealVector != null && idealVector.equals(servedVector)) {
            causes.add(Cause.MATCH);
        } else if (idealVector == null && servedVector == null) {
            causes.add(Cause.MATCH); // nothing to compare; orphans (below) decide
        } else {
            List<ArchivedTransaction> remaining = explained.remaining(archived);
            FeatureVector expected = featuresInArrivalOrder(remaining);
            if (servedVector == null) {
                if (remaining.isEmpty()) {
                    causes.addAll(explained.causes());
                    addDuplicateIfItMatters(causes, archived, idealVector);
                } else {
                    causes.add(Cause.MISSING_IN_STREAM);
                }
            } else if (idealVector == null) {
                causes.add(Cause.EXTRA_IN_STREAM);
            } else if (expected.equals(servedVector)) {
                causes.addAll(explained.causes());
                addDuplicateIfItMatters(causes, archived, idealVector);
                if (causes.isEmpty() && alarms.isEmpty()) {
                    throw new IllegalStateException(
                            "served equals the arrival-order value of all records but differs"
                                    + " from the ideal, and no duplicate conflicts: "
                                    + userId
                                    + "@"
                                    + windowStart);
                }
            } else {
                causes.add(Cause.UNEXPLAINED);
                notes.add(
                        "without the "
                                + (archived.size() - remaining.size())
                                + " explaining record(s) the recomputation gives "
                                + expected
                                + ", served "
                                + servedVector);
            }
        }
        if (explained.orphans > 0 || explained.contradicted > 0) {
            causes.add(Cause.UNEXPLAINED);
        }
        causes.addAll(alarms);
        if (causes.size() > 1) {
            causes.remove(Cause.MATCH);
        }
        v.cause = causes.iterator().next();
        v.causes = causes.stream().map(Enum::name).collect(Collectors.joining(","));
        v.note = String.join("; ", notes);
        return v;
    }

    /** A pane's value as an upsert reader sees it: its features (pane bookkeeping aside). */
    private static Object paneValue(FeatureRecord r) {
        return FeatureVector.of(r);
    }

    /** A score's value: what was scored and what came of it. */
    private static Object scoreValue(ScoreRecord r) {
        return List.of(
                FeatureVector.of(r.getFeatures()),
                r.getScore(),
                r.getDecision().name(),
                r.getModelVersion());
    }

    private static <T> List<Map.Entry<Integer, Object>> revisionsOf(
            List<T> inWriteOrder,
            java.util.function.ToIntFunction<T> revision,
            java.util.function.Function<T, Object> value) {
        List<Map.Entry<Integer, Object>> out = new ArrayList<>(inWriteOrder.size());
        for (T r : inWriteOrder) {
            out.add(Map.entry(revision.applyAsInt(r), value.apply(r)));
        }
        return out;
    }

    /**
     * REVISION_REGRESSED if, in write order, a record follows one of a higher revision, or one of
     * the same revision with another value (an equal copy is harmless under upsert).
     */
    private static void regression(
            String what,
            List<Map.Entry<Integer, Object>> inWriteOrder,
            List<String> notes,
            EnumSet<Cause> alarms) {
        int highest = Integer.MIN_VALUE;
        Object valueAtHighest = null;
        for (Map.Entry<Integer, Object> r : inWriteOrder) {
            int revision = r.getKey();
            if (revision < highest
                    || (revision == highest && !r.getValue().equals(valueAtHighest))) {
                alarms.add(Cause.REVISION_REGRESSED);
                notes.add(
                        what
                                + ": revision "
                                + revision
                                + (revision == highest ? " with other values" : "")
                                + " written after revision "
                                + highest);
                return;
            }
            highest = revision;
            valueAtHighest = r.getValue();
        }
    }

    /**
     * The topic's last value against the archive's: LOST_IN_KAFKA when the archive's last (served
     * as far as the archive knows) is not what the topic ends with, EXTRA_IN_KAFKA when the topic
     * ends with something the archive never held.
     */
    private static <T> void compareWithKafka(
            String what,
            T archiveLast,
            T kafkaLast,
            List<T> archived,
            java.util.function.Function<T, Object> value,
            java.util.function.ToIntFunction<T> revision,
            List<String> notes,
            EnumSet<Cause> alarms) {
        if (archiveLast == null && kafkaLast == null) {
            return;
        }
        if (kafkaLast == null) {
            alarms.add(Cause.LOST_IN_KAFKA);
            notes.add(
                    "the archive's last "
                            + what
                            + " (revision "
                            + revision.applyAsInt(archiveLast)
                            + ") is not in Kafka: the topic has nothing for the window");
            return;
        }
        boolean kafkaLastArchived = false;
        for (T a : archived) {
            if (revision.applyAsInt(a) == revision.applyAsInt(kafkaLast)
                    && value.apply(a).equals(value.apply(kafkaLast))) {
                kafkaLastArchived = true;
            }
        }
        if (!kafkaLastArchived) {
            alarms.add(Cause.EXTRA_IN_KAFKA);
            notes.add(
                    "Kafka's last "
                            + what
                            + " (revision "
                            + revision.applyAsInt(kafkaLast)
                            + ") is no "
                            + what
                            + " of the archive");
        } else if (revision.applyAsInt(archiveLast) != revision.applyAsInt(kafkaLast)
                || !value.apply(archiveLast).equals(value.apply(kafkaLast))) {
            alarms.add(Cause.LOST_IN_KAFKA);
            notes.add(
                    "the archive's last "
                            + what
                            + " (revision "
                            + revision.applyAsInt(archiveLast)
                            + ") is not Kafka's last (revision "
                            + revision.applyAsInt(kafkaLast)
                            + ")");
        }
    }

    private static <T> T last(List<T> inWriteOrder) {
        return inWriteOrder.isEmpty() ? null : inWriteOrder.get(inWriteOrder.size() - 1);
    }

    private static FeatureVector featuresInArrivalOrder(List<ArchivedTransaction> arrivalOrder) {
        List<Transaction> txs = new ArrayList<>(arrivalOrder.size());
        for (ArchivedTransaction a : arrivalOrder) {
            txs.add(a.getTransaction());
        }
        return FeatureVector.of(FeatureAggregator.compute(txs));
    }

    /** DUPLICATE is a cause when the job's first-arrival rule gives another value than batch's. */
    private static void addDuplicateIfItMatters(
            EnumSet<Cause> causes, List<ArchivedTransaction> archived, FeatureVector ideal) {
        if (ideal != null && !featuresInArrivalOrder(archived).equals(ideal)) {
            causes.add(Cause.DUPLICATE);
        }
    }

    private static int conflictingDuplicates(List<ArchivedTransaction> archived) {
        Map<String, Set<Transaction>> payloads = new HashMap<>();
        for (ArchivedTransaction a : archived) {
            payloads.computeIfAbsent(a.getTransaction().getTransactionId(), k -> new HashSet<>())
                    .add(a.getTransaction());
        }
        return (int) payloads.values().stream().filter(s -> s.size() > 1).count();
    }

    private Explained explain(
            List<Evidence> archived,
            List<LateRecord> late,
            List<DeadLetter> deadLetters,
            List<String> notes) {
        Cause[] byCopy = new Cause[archived.size()];
        int orphans = 0;
        int contradicted = 0;
        int unchecked = 0;
        for (DeadLetter d : deadLetters) {
            int i = find(archived, byCopy, e -> samePosition(e.archived, d));
            if (i < 0) {
                orphans++;
            } else {
                byCopy[i] = Cause.DEAD_LETTERED;
            }
        }
        for (LateRecord l : late) {
            Transaction tx = l.getTransaction();
            Cause cause =
                    l.getReason() == LateReason.FUTURE_DATED
                            ? Cause.QUARANTINED
                            : Cause.LATE_DROPPED;
            // The copy the label fits, if any copy does (retries are equal copies).
            int i =
                    find(
                            archived,
                            byCopy,
                            e ->
                                    e.archived.getTransaction().equals(tx)
                                            && contradiction(l, e) == null);
            if (i < 0) {
                i = find(archived, byCopy, e -> e.archived.getTransaction().equals(tx));
                if (i < 0) {
                    orphans++;
                    continue;
                }
                contradicted++;
                notes.add(
                        l.getReason()
                                + " label of "
                                + tx.getTransactionId()
                                + " contradicted by the archive: "
                                + contradiction(l, archived.get(i)));
                cause = Cause.UNEXPLAINED;
            } else if (l.getReason() == LateReason.TOO_LATE
                    && archived.get(i).boundCaveat != null) {
                unchecked++;
                notes.add(
                        "TOO_LATE label of "
                                + tx.getTransactionId()
                                + " not checkable: "
                                + archived.get(i).boundCaveat);
            }
            byCopy[i] = cause;
        }
        return new Explained(byCopy, orphans, contradicted, unchecked);
    }

    /**
     * What the archive says against a late record's label for this archived copy, or null if the
     * label is consistent with it.
     */
    private String contradiction(LateRecord l, Evidence copy) {
        long eventTime = l.getTransaction().getEventTime().toEpochMilli();
        ArchivedTransaction a = copy.archived;
        if (l.getReason() == LateReason.FUTURE_DATED) {
            long arrival =
                    RecordIngestor.arrivalTime(
                            epochMillis(a.getRecordTimestamp()), epochMillis(a.getReceivedAt()));
            return RecordIngestor.isFutureDated(eventTime, arrival, futureToleranceMillis)
                    ? null
                    : "event time "
                            + l.getTransaction().getEventTime()
                            + " is not beyond its arrival "
                            + java.time.Instant.ofEpochMilli(arrival)
                            + " plus the future tolerance";
        }
        if (l.getWatermark() == null) {
            return "it names no watermark";
        }
        long w = l.getWatermark().toEpochMilli();
        if (!windows.isTooLate(eventTime, w)) {
            return "at watermark "
                    + l.getWatermark()
                    + " its window still accepted records (window end + allowed lateness is "
                    + java.time.Instant.ofEpochMilli(
                            windows.cleanupTime(windows.assignment().endOf(eventTime)) + 1)
                    + ")";
        }
        if (copy.boundCaveat == null && w > copy.watermarkBound) {
            return "watermark "
                    + l.getWatermark()
                    + " is beyond what its partition allowed when it arrived ("
                    + (copy.watermarkBound == Evidence.NO_BOUND
                            ? "no earlier record"
                            : java.time.Instant.ofEpochMilli(copy.watermarkBound).toString())
                    + ": the largest earlier event time of partition "
                    + a.getSourcePartition()
                    + " minus the out-of-orderness)";
        }
        return null;
    }

    private static Long epochMillis(java.time.Instant t) {
        return t == null ? null : t.toEpochMilli();
    }

    private static int find(
            List<Evidence> archived,
            Cause[] taken,
            java.util.function.Predicate<Evidence> matches) {
        for (int i = 0; i < archived.size(); i++) {
            if (taken[i] == null && matches.test(archived.get(i))) {
                return i;
            }
        }
        return -1;
    }

    private static boolean samePosition(ArchivedTransaction a, DeadLetter d) {
        return a.getSourcePartition() == d.getSourcePartition()
                && a.getSourceOffset() == d.getSourceOffset()
                && a.getSourceTopic().equals(d.getSourceTopic());
    }

    /** Which archived copies (by index in arrival order) a late record or dead letter explains. */
    private record Explained(Cause[] byCopy, int orphans, int contradicted, int unchecked) {

        int count(Cause cause) {
            int n = 0;
            for (Cause c : byCopy) {
                if (c == cause) {
                    n++;
                }
            }
            return n;
        }

        EnumSet<Cause> causes() {
            EnumSet<Cause> out = EnumSet.noneOf(Cause.class);
            for (Cause c : byCopy) {
                if (c != null) {
                    out.add(c);
                }
            }
            return out;
        }

        List<ArchivedTransaction> remaining(List<ArchivedTransaction> archived) {
            List<ArchivedTransaction> out = new ArrayList<>();
            for (int i = 0; i < archived.size(); i++) {
                if (byCopy[i] == null) {
                    out.add(archived.get(i));
                }
            }
            return out;
        }
    }
}
