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
import org.fraudpipe.job.features.FeatureAggregator;
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
 * the ideal features (batch, over A) and S = the last served revision:
 *
 * <ol>
 *   <li>Each late record takes one archived copy with the same transaction (TOO_LATE: LATE_DROPPED,
 *       FUTURE_DATED: QUARANTINED); each dead letter takes the archived copy at its source position
 *       (DEAD_LETTERED). Together they are the explaining copies E. A late record or dead letter
 *       with no archived copy means the archive lost a record the job received: UNEXPLAINED,
 *       whatever the features say.
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

    private final long windowSizeMillis;

    /**
     * @param windowSizeMillis the tumbling window size, for windows only known from their start
     */
    public WindowJudge(long windowSizeMillis) {
        this.windowSizeMillis = windowSizeMillis;
    }

    /** The verdict for the window of {@code userId} starting at {@code windowStart}. */
    public WindowVerdict judge(String userId, long windowStart, List<Evidence> evidence) {
        FeatureRecord ideal = null;
        List<FeatureRecord> served = new ArrayList<>();
        List<ScoreRecord> scores = new ArrayList<>();
        List<ArchivedTransaction> archived = new ArrayList<>();
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
                case ARCHIVED -> archived.add(e.archived);
                case LATE -> late.add(e.late);
                case DEAD_LETTER -> deadLetters.add(e.deadLetter);
            }
        }
        archived.sort(ARRIVAL_ORDER);

        WindowVerdict v = new WindowVerdict();
        v.userId = userId;
        v.windowStart = windowStart;
        v.windowEnd = windowStart + windowSizeMillis;
        v.ideal = ideal;
        v.servedPanes = served.size();
        v.archivedRecords = archived.size();
        v.conflictingDuplicates = conflictingDuplicates(archived);
        List<String> notes = new ArrayList<>();
        v.served = lastRevision(served);
        boolean conflictingPanes = hasConflictingPanes(served, v.served);
        if (conflictingPanes) {
            notes.add(
                    "conflicting served panes: revision "
                            + v.served.getRevision()
                            + " was served more than once with different values");
        }
        v.servedScore = v.served == null ? null : scoreOf(v.served.getRevision(), scores, notes);

        // 1. The explaining copies.
        Explained explained = explain(archived, late, deadLetters);
        v.lateDropped = explained.count(Cause.LATE_DROPPED);
        v.quarantined = explained.count(Cause.QUARANTINED);
        v.deadLettered = explained.count(Cause.DEAD_LETTERED);
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
                if (causes.isEmpty()) {
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
        if (explained.orphans > 0 || conflictingPanes) {
            causes.add(Cause.UNEXPLAINED);
        }
        if (causes.size() > 1) {
            causes.remove(Cause.MATCH);
        }
        v.cause = causes.iterator().next();
        v.causes = causes.stream().map(Enum::name).collect(Collectors.joining(","));
        v.note = String.join("; ", notes);
        return v;
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

    private static FeatureRecord lastRevision(List<FeatureRecord> served) {
        FeatureRecord last = null;
        for (FeatureRecord r : served) {
            if (last == null || r.getRevision() > last.getRevision()) {
                last = r;
            }
        }
        return last;
    }

    /**
     * Whether the last revision was served twice with different values (an exactly-once breach; an
     * equal copy is harmless under upsert).
     */
    private static boolean hasConflictingPanes(List<FeatureRecord> served, FeatureRecord last) {
        for (FeatureRecord r : served) {
            if (r.getRevision() == last.getRevision()
                    && !FeatureVector.of(r).equals(FeatureVector.of(last))) {
                return true;
            }
        }
        return false;
    }

    private static ScoreRecord scoreOf(int revision, List<ScoreRecord> scores, List<String> notes) {
        ScoreRecord found = null;
        for (ScoreRecord s : scores) {
            if (s.getRevision() == revision) {
                found = s;
            }
        }
        if (found == null && !scores.isEmpty()) {
            notes.add("no score archived for the last served revision " + revision);
        }
        return found;
    }

    private static Explained explain(
            List<ArchivedTransaction> archived,
            List<LateRecord> late,
            List<DeadLetter> deadLetters) {
        Cause[] byCopy = new Cause[archived.size()];
        int orphans = 0;
        for (DeadLetter d : deadLetters) {
            int i = find(archived, byCopy, a -> samePosition(a, d));
            if (i < 0) {
                orphans++;
            } else {
                byCopy[i] = Cause.DEAD_LETTERED;
            }
        }
        for (LateRecord l : late) {
            Transaction tx = l.getTransaction();
            int i = find(archived, byCopy, a -> a.getTransaction().equals(tx));
            if (i < 0) {
                orphans++;
            } else {
                byCopy[i] =
                        l.getReason() == LateReason.FUTURE_DATED
                                ? Cause.QUARANTINED
                                : Cause.LATE_DROPPED;
            }
        }
        return new Explained(byCopy, orphans);
    }

    private static int find(
            List<ArchivedTransaction> archived,
            Cause[] taken,
            java.util.function.Predicate<ArchivedTransaction> matches) {
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
    private record Explained(Cause[] byCopy, int orphans) {

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
