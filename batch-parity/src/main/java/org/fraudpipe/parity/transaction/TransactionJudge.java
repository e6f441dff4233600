package org.fraudpipe.parity.transaction;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.EnumSet;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import org.fraudpipe.job.archive.ArchivePolicy;
import org.fraudpipe.job.features.TrailingFeatures;
import org.fraudpipe.job.ingest.RecordIngestor;
import org.fraudpipe.job.position.ReadPositions;
import org.fraudpipe.parity.Evidence;
import org.fraudpipe.schemas.avro.ArchivedTransaction;
import org.fraudpipe.schemas.avro.DeadLetter;
import org.fraudpipe.schemas.avro.Transaction;
import org.fraudpipe.schemas.avro.TransactionFeatures;
import org.fraudpipe.schemas.avro.TransactionScore;

/**
 * Judges every scored transaction of one user from all the user's evidence: the archived copies
 * (every record received, with the watermark bound the archive proves at its arrival), the dead
 * letters at their positions, the served transaction scores and the labels. Pure: no Flink, no I/O;
 * the ideal scores are added afterwards ({@link TransactionVerdictFunction}).
 *
 * <p><b>Arrival order.</b> The input topic is keyed by user, so all records of one user share one
 * Kafka partition, whose offsets order them exactly: that is the order the job's per-user state saw
 * them in (its keyed operator receives one partition's records in offset order). A user whose
 * records come from two partitions breaks the rule: the order is undefined, and the user's
 * transactions are reported ({@link TransactionCause#ARRIVAL_ORDER_UNKNOWN}), not guessed.
 *
 * <p><b>Which transaction is judged.</b> Per id, x = its first archived copy that the job answers
 * (valid, not quarantined, not dead-lettered): the one the job scored; later copies are retries,
 * answered with x's values. Judged: the ids whose x has an event time in the period, and every id
 * with a served score in the period.
 *
 * <p><b>The rule</b>, for x with event time t and the user's copies in arrival order, W = the
 * copies with event time in {@code (t - T, t]} other than x's id:
 *
 * <ol>
 *   <li>Answers: none for an answerable id is MISSING_SCORE; a score without an answerable copy is
 *       EXTRA_SCORE (fewer or more answers than arrivals too); two answers with other values are
 *       RETRY_CONFLICT. Where the archive records its readers' positions, an answer whose arrival
 *       the window path's reader had not reached (its offset at or after that reader's position) is
 *       NOT_YET_ARCHIVED rather than extra, and an arrival the per-transaction path's reader had
 *       not reached is NOT_YET_SCORED rather than missing: both are the two readers standing at two
 *       positions of one topic, not a loss.
 *   <li>As of arrival: R = {@link TrailingFeatures} over the answerable copies of W received before
 *       x. For a score with {@code historyComplete=false} the job's state had evicted the entries
 *       whose event time + T + allowed lateness was at most its watermark W(x); W(x) is unknown but
 *       at most the bound the archive proves (the largest earlier event time of x's partition −
 *       out-of-orderness − 1 ms, {@link org.fraudpipe.parity.PartitionWatermarkBounds}) and, by the
 *       flag, beyond t + allowed lateness (a bound at or below that contradicts the flag:
 *       UNEXPLAINED). Since eviction removes the entries with the earliest event times first, the
 *       possible answers are R without the k earliest candidates (by event time), for each k; R is
 *       the first of them (least evicted) that equals the answer. Served must equal R, else
 *       UNEXPLAINED.
 *   <li>Ideal: I = {@link TrailingFeatures} over every copy of W in arrival order (quarantined,
 *       dead-lettered and later ones included: the training export's ideal). Served = I: MATCH.
 *   <li>Otherwise the explanation must be exact. Each copy of W the answer could not count is
 *       labelled: QUARANTINED, DEAD_LETTERED, EVICTED, or ARRIVED_LATER (received after x). The
 *       named records: every copy of an id the answer lacks entirely; and, for an id it counted
 *       with another copy's payload, the earlier labelled copies with a different payload
 *       (DUPLICATE). Served must equal I recomputed without the named records, in arrival order;
 *       the causes are their labels. Otherwise UNEXPLAINED.
 * </ol>
 */
public final class TransactionJudge {

    /** Named records kept per verdict (the count says how many there were). */
    public static final int NAMED_LIMIT = 20;

    private final Duration trailing;
    private final long trailingMillis;
    private final long allowedLatenessMillis;
    private final long futureToleranceMillis;
    private final long fromMillis;
    private final long toMillis;
    private final ReadPositions positions;

    /**
     * What was judged of one user.
     *
     * @param verdicts one per judged transaction id, in arrival order of x (score-only ids last)
     * @param facts what the report counts per user rather than per transaction
     */
    public record Judgement(List<TransactionVerdict> verdicts, UserFacts facts) {}

    /**
     * Per user.
     *
     * @param quarantinedInPeriod archived copies in the period the job quarantined (never scored)
     * @param arrivedLaterDelays how late (arrival − event time) each distinct record named
     *     ARRIVED_LATER was, in ms
     * @param partitions the user's partitions when more than one (else empty)
     */
    public record UserFacts(
            String userId,
            int quarantinedInPeriod,
            long[] arrivedLaterDelays,
            List<String> partitions) {

        public boolean severalPartitions() {
            return partitions.size() > 1;
        }
    }

    /**
     * @param policy the job's recorded policy: allowed lateness (the state bound) and future
     *     tolerance (to check quarantine flags)
     * @param trailing T, the trailing window the scores were computed over
     * @param fromMillis the period: transactions with event time in {@code [from, to)} are judged
     *     ({@link Long#MIN_VALUE}, {@link Long#MAX_VALUE}: all)
     */
    public TransactionJudge(
            ArchivePolicy policy, Duration trailing, long fromMillis, long toMillis) {
        this(policy, trailing, fromMillis, toMillis, ReadPositions.NONE);
    }

    /**
     * As {@link #TransactionJudge(ArchivePolicy, Duration, long, long)}, knowing where the job's
     * readers stood when the archive was last committed.
     */
    public TransactionJudge(
            ArchivePolicy policy,
            Duration trailing,
            long fromMillis,
            long toMillis,
            ReadPositions positions) {
        this.positions = Objects.requireNonNull(positions, "positions");
        this.trailing = Objects.requireNonNull(trailing, "trailing");
        this.trailingMillis = trailing.toMillis();
        this.allowedLatenessMillis = policy.allowedLateness().toMillis();
        this.futureToleranceMillis = policy.futureTolerance().toMillis();
        this.fromMillis = fromMillis;
        this.toMillis = toMillis;
    }

    /** One archived copy in arrival order, with what the job made of it. */
    private static final class Copy {
        int index;
        final ArchivedTransaction archived;
        final Transaction tx;
        final long eventTime;
        final long arrival;
        final long watermarkBound;
        final boolean boundProven;
        final boolean quarantined;
        boolean deadLettered;
        final String position;

        Copy(Evidence e) {
            this.archived = e.archived;
            this.tx = e.archived.getTransaction();
            this.eventTime = tx.getEventTime().toEpochMilli();
            this.arrival =
                    RecordIngestor.arrivalTime(
                            e.archived.getRecordTimestamp() == null
                                    ? null
                                    : e.archived.getRecordTimestamp().toEpochMilli(),
                            e.archived.getReceivedAt().toEpochMilli());
            this.watermarkBound = e.watermarkBound;
            this.boundProven = e.boundCaveat == null;
            this.quarantined = e.archived.getQuarantined();
            this.position =
                    position(
                            e.archived.getSourceTopic(),
                            e.archived.getSourcePartition(),
                            e.archived.getSourceOffset());
        }

        /** Whether the job's per-transaction path received it (and so answers it). */
        boolean answerable() {
            return !quarantined && !deadLettered;
        }

        String partition() {
            return archived.getSourceTopic() + "-" + archived.getSourcePartition();
        }
    }

    /** Arrival order within one partition: offsets. */
    private static final Comparator<Copy> OFFSET_ORDER =
            Comparator.comparing((Copy c) -> c.archived.getSourceTopic())
                    .thenComparingInt(c -> c.archived.getSourcePartition())
                    .thenComparingLong(c -> c.archived.getSourceOffset());

    /**
     * A deterministic order for a user on several partitions (reported, never used to judge):
     * receive time, then position.
     */
    private static final Comparator<Copy> RECEIVED_ORDER =
            Comparator.comparing((Copy c) -> c.archived.getReceivedAt())
                    .thenComparing(OFFSET_ORDER);

    /** The order answers are judged in: scoring time (a replay: the arrival answered), values. */
    private static final Comparator<TransactionScore> ANSWER_ORDER =
            Comparator.comparing(TransactionScore::getScoredAt)
                    .thenComparing(s -> answerValue(s).toString());

    /** What two answers must agree on. */
    private record AnswerValue(
            TransactionFeatureVector features,
            boolean historyComplete,
            long trailingWindowMillis,
            double score,
            String decision,
            String model) {}

    private static AnswerValue answerValue(TransactionScore s) {
        return new AnswerValue(
                TransactionFeatureVector.of(s.getFeatures()),
                s.getFeatures().getHistoryComplete(),
                s.getFeatures().getTrailingWindowMillis(),
                s.getScore(),
                s.getDecision().name(),
                s.getModelName() + " " + s.getModelVersion());
    }

    /** Judges every scored transaction of {@code userId}. */
    public Judgement judge(String userId, List<Evidence> evidence) {
        List<Copy> copies = new ArrayList<>();
        Set<String> deadLetterPositions = new HashSet<>();
        Map<String, List<TransactionScore>> answersById = new TreeMap<>();
        Map<String, Boolean> labels = new HashMap<>();
        for (Evidence e : evidence) {
            switch (e.kind) {
                case ARCHIVED -> copies.add(new Copy(e));
                case DEAD_LETTER -> deadLetterPositions.add(position(e.deadLetter));
                case TRANSACTION_SCORE ->
                        answersById
                                .computeIfAbsent(
                                        e.transactionScore.getTransactionId(),
                                        k -> new ArrayList<>())
                                .add(e.transactionScore);
                case LABEL -> labels.put(e.labelledTransactionId, e.fraud);
                default ->
                        throw new IllegalArgumentException(
                                "not per-transaction evidence: " + e + " of " + userId);
            }
        }
        TreeSet<String> partitions = new TreeSet<>();
        copies.forEach(c -> partitions.add(c.partition()));
        boolean ordered = partitions.size() <= 1;
        copies.sort(ordered ? OFFSET_ORDER : RECEIVED_ORDER);
        for (int i = 0; i < copies.size(); i++) {
            Copy c = copies.get(i);
            c.index = i;
            c.deadLettered = deadLetterPositions.contains(c.position);
        }
        answersById.values().forEach(list -> list.sort(ANSWER_ORDER));
        Copies all = new Copies(copies);

        Map<String, List<Copy>> byId = new LinkedHashMap<>();
        int quarantinedInPeriod = 0;
        for (Copy c : copies) {
            byId.computeIfAbsent(c.tx.getTransactionId(), k -> new ArrayList<>()).add(c);
            if (c.quarantined && inPeriod(c.eventTime)) {
                quarantinedInPeriod++;
            }
        }

        List<TransactionVerdict> verdicts = new ArrayList<>();
        Map<String, Long> arrivedLater = new TreeMap<>();
        Set<String> judged = new HashSet<>();
        for (Map.Entry<String, List<Copy>> id : byId.entrySet()) {
            Copy x = firstAnswerable(id.getValue());
            if (x != null && (inPeriod(x.eventTime) || answersById.containsKey(id.getKey()))) {
                judged.add(id.getKey());
                verdicts.add(
                        judgeOne(
                                userId,
                                id.getKey(),
                                id.getValue(),
                                answersById.getOrDefault(id.getKey(), List.of()),
                                labels.get(id.getKey()),
                                all,
                                ordered,
                                partitions,
                                arrivedLater));
            }
        }
        for (Map.Entry<String, List<TransactionScore>> a : answersById.entrySet()) {
            if (!judged.contains(a.getKey())) {
                verdicts.add(
                        judgeOne(
                                userId,
                                a.getKey(),
                                byId.getOrDefault(a.getKey(), List.of()),
                                a.getValue(),
                                labels.get(a.getKey()),
                                all,
                                ordered,
                                partitions,
                                arrivedLater));
            }
        }
        long[] delays = arrivedLater.values().stream().mapToLong(Long::longValue).toArray();
        return new Judgement(
                verdicts,
                new UserFacts(
                        userId,
                        quarantinedInPeriod,
                        delays,
                        ordered ? List.of() : List.copyOf(partitions)));
    }

    private boolean inPeriod(long eventTime) {
        return eventTime >= fromMillis && eventTime < toMillis;
    }

    private static Copy firstAnswerable(List<Copy> copies) {
        for (Copy c : copies) {
            if (c.answerable()) {
                return c;
            }
        }
        return null;
    }

    private TransactionVerdict judgeOne(
            String userId,
            String id,
            List<Copy> idCopies,
            List<TransactionScore> answers,
            Boolean fraud,
            Copies all,
            boolean ordered,
            Set<String> partitions,
            Map<String, Long> arrivedLater) {
        TransactionVerdict v = new TransactionVerdict();
        v.userId = userId;
        v.transactionId = id;
        v.fraud = fraud;
        List<Copy> answerable = new ArrayList<>();
        idCopies.stream().filter(Copy::answerable).forEach(answerable::add);
        Copy x = answerable.isEmpty() ? null : answerable.get(0);
        // Answers to arrivals the archive's reader had not reached, and arrivals the decision
        // path's reader had not reached: set aside before answers and arrivals are counted.
        List<TransactionScore> archivedAnswers = new ArrayList<>();
        List<TransactionScore> unarchived = new ArrayList<>();
        for (TransactionScore s : answers) {
            (notYetArchived(s) ? unarchived : archivedAnswers).add(s);
        }
        List<Copy> unscored = answerable.stream().filter(this::notYetScored).toList();
        v.arrivals = answerable.size();
        v.answers = answers.size();
        v.served = answers.isEmpty() ? null : answers.get(0);
        v.eventTime = x != null ? x.eventTime : answers.get(0).getEventTime().toEpochMilli();
        v.coordinate =
                v.served != null && v.served.getRecordTimestamp() != null
                        ? v.served.getRecordTimestamp().toEpochMilli()
                        : x != null ? x.arrival : v.eventTime;
        EnumSet<TransactionCause> causes = EnumSet.noneOf(TransactionCause.class);
        List<String> notes = new ArrayList<>();

        if (!unarchived.isEmpty()) {
            causes.add(TransactionCause.NOT_YET_ARCHIVED);
            notes.add(notYetArchivedNote(unarchived));
        }
        if (x == null && archivedAnswers.isEmpty()) {
            // Only answers to arrivals past the archive's reader: nothing else to judge.
        } else if (x == null) {
            causes.add(TransactionCause.EXTRA_SCORE);
            notes.add(
                    idCopies.isEmpty()
                            ? "the archive holds no transaction " + id + " of this user"
                            : "its "
                                    + idCopies.size()
                                    + " archived cop(ies) were "
                                    + (idCopies.stream().allMatch(c -> c.quarantined)
                                            ? "quarantined (future-dated)"
                                            : "quarantined or dead-lettered")
                                    + ": the job answers neither");
        } else {
            // The arrivals the decision path had reached, against the answers to arrivals the
            // archive holds.
            int reached = answerable.size() - unscored.size();
            int answered = archivedAnswers.size();
            if (!unscored.isEmpty()) {
                causes.add(TransactionCause.NOT_YET_SCORED);
                notes.add(notYetScoredNote(unscored));
            }
            if (answered == 0 && reached > 0) {
                causes.add(TransactionCause.MISSING_SCORE);
                notes.add("no score for its " + reached + " arrival(s)");
            } else if (answered < reached) {
                causes.add(TransactionCause.MISSING_SCORE);
                notes.add(reached + " arrivals, " + answered + " answer(s): an answer is missing");
            } else if (answered > reached) {
                causes.add(TransactionCause.EXTRA_SCORE);
                notes.add(
                        reached
                                + " arrival(s), "
                                + answered
                                + " answers: more answers than arrivals");
            }
            retryConflict(answers, answerable, x, causes, notes);
            List<Copy> window = all.windowOf(x.eventTime, trailingMillis, id);
            TrailingFeatures.Result ideal = compute(x, window, Set.of());
            v.ideal = idealRecord(x, ideal);
            if (!ordered) {
                causes.add(TransactionCause.ARRIVAL_ORDER_UNKNOWN);
                notes.add(
                        "the user's records came from "
                                + String.join(", ", partitions)
                                + ": the input topic must be keyed by user for an arrival order");
            } else if (v.served != null) {
                judgeFeatures(v, x, window, ideal, causes, notes, arrivedLater);
            }
        }
        if (v.served != null && v.ideal != null) {
            v.differingFeatures =
                    TransactionFeatureVector.of(v.ideal)
                            .differingFrom(TransactionFeatureVector.of(v.served.getFeatures()));
        }
        if (causes.isEmpty()) {
            if (!v.differingFeatures.isEmpty()) {
                throw new IllegalStateException("a difference without a cause: " + v);
            }
            causes.add(TransactionCause.MATCH);
        }
        v.causes = new ArrayList<>(causes);
        v.cause = v.causes.get(0);
        v.note = String.join("; ", notes);
        return v;
    }

    /**
     * Whether the window path's reader (the archive's) had not reached the arrival {@code s}
     * answered; false when unknown (a score without its position, or no position recorded there).
     */
    private boolean notYetArchived(TransactionScore s) {
        return s.getSourcePartition() != null
                && s.getSourceOffset() != null
                && positions.notReached(
                        ReadPositions.Reader.WINDOWS, s.getSourcePartition(), s.getSourceOffset());
    }

    /** Whether the per-transaction path's reader had not reached the archived arrival {@code c}. */
    private boolean notYetScored(Copy c) {
        return c.archived.getSourceTopic().equals(positions.topic())
                && positions.notReached(
                        ReadPositions.Reader.DECISIONS,
                        c.archived.getSourcePartition(),
                        c.archived.getSourceOffset());
    }

    private String notYetArchivedNote(List<TransactionScore> unarchived) {
        TransactionScore s = unarchived.get(0);
        return unarchived.size()
                + " answer(s) to arrivals the archive's reader had not reached: partition "
                + s.getSourcePartition()
                + " offset "
                + s.getSourceOffset()
                + ", the window path's reader at "
                + positions.next(ReadPositions.Reader.WINDOWS, s.getSourcePartition()).getAsLong();
    }

    private String notYetScoredNote(List<Copy> unscored) {
        Copy c = unscored.get(0);
        return unscored.size()
                + " arrival(s) the decision path's reader had not reached: "
                + c.position
                + ", that reader at offset "
                + positions
                        .next(ReadPositions.Reader.DECISIONS, c.archived.getSourcePartition())
                        .getAsLong();
    }

    /** RETRY_CONFLICT if the answers do not all carry the first answer's values. */
    private void retryConflict(
            List<TransactionScore> answers,
            List<Copy> answerable,
            Copy x,
            EnumSet<TransactionCause> causes,
            List<String> notes) {
        if (answers.size() < 2) {
            return;
        }
        AnswerValue first = answerValue(answers.get(0));
        for (TransactionScore other : answers.subList(1, answers.size())) {
            AnswerValue value = answerValue(other);
            if (!value.equals(first)) {
                causes.add(TransactionCause.RETRY_CONFLICT);
                StringBuilder note =
                        new StringBuilder("answered ")
                                .append(answers.size())
                                .append(" times with different values: ")
                                .append(describe(first))
                                .append(" at ")
                                .append(answers.get(0).getScoredAt())
                                .append(", then ")
                                .append(describe(value))
                                .append(" at ")
                                .append(other.getScoredAt());
                // The job answers a retry with the original's values while the original is in its
                // state; it scores it anew only once the original was evicted (its documented
                // limit): at a watermark at or past the original's event time + T + lateness.
                long eviction = saturatedAdd(x.eventTime, trailingMillis + allowedLatenessMillis);
                Copy lateRetry = null;
                for (Copy r : answerable.subList(1, answerable.size())) {
                    if (!r.boundProven || r.watermarkBound >= eviction) {
                        lateRetry = r;
                        break;
                    }
                }
                note.append(
                        lateRetry != null
                                ? ". The retry at "
                                        + lateRetry.position
                                        + " may have arrived after its original left the"
                                        + " state (event time + trailing window + allowed lateness"
                                        + " reached by the watermark): the job's documented limit"
                                : ". Every retry arrived while its original was still in the"
                                        + " state: it should have been answered with the"
                                        + " original's values");
                notes.add(note.toString());
                return;
            }
        }
    }

    private static String describe(AnswerValue a) {
        return "score "
                + a.score()
                + " "
                + a.decision()
                + " ("
                + a.features()
                + (a.historyComplete() ? "" : ", history incomplete")
                + ")";
    }

    /** Served against as of arrival (with the state bound), then against ideal. */
    private void judgeFeatures(
            TransactionVerdict v,
            Copy x,
            List<Copy> window,
            TrailingFeatures.Result idealResult,
            EnumSet<TransactionCause> causes,
            List<String> notes,
            Map<String, Long> arrivedLater) {
        TransactionFeatures servedFeatures = v.served.getFeatures();
        TransactionFeatureVector served = TransactionFeatureVector.of(servedFeatures);
        List<Copy> before = new ArrayList<>();
        for (Copy c : window) {
            if (c.index < x.index && c.answerable()) {
                before.add(c);
            }
        }
        Set<Copy> evicted = Set.of();
        TransactionFeatureVector asOfArrival;
        boolean contradicted = false;
        if (servedFeatures.getHistoryComplete()) {
            asOfArrival = vector(x, compute(x, before, Set.of()));
        } else {
            v.boundProven = x.boundProven;
            long bound = x.boundProven ? x.watermarkBound : Long.MAX_VALUE;
            long keep = trailingMillis + allowedLatenessMillis;
            if (bound <= saturatedAdd(x.eventTime, allowedLatenessMillis)) {
                contradicted = true;
                notes.add(
                        "historyComplete=false says the watermark had passed its event time +"
                                + " allowed lateness ("
                                + Instant.ofEpochMilli(
                                        saturatedAdd(x.eventTime, allowedLatenessMillis))
                                + ") when it arrived, but the archive bounds that watermark at "
                                + (bound == Evidence.NO_BOUND
                                        ? "nothing (no earlier record of its partition)"
                                        : Instant.ofEpochMilli(bound)
                                                + " (the largest earlier event time of its"
                                                + " partition minus the out-of-orderness)"));
                asOfArrival = vector(x, compute(x, before, Set.of()));
            } else {
                // Evictable: entries whose eviction time (event time + T + L) the watermark can
                // have reached. Eviction goes by event time, so the job evicted a prefix of them.
                List<Copy> candidates = new ArrayList<>();
                for (Copy c : before) {
                    if (saturatedAdd(c.eventTime, keep) <= bound) {
                        candidates.add(c);
                    }
                }
                TreeSet<Long> thresholds = new TreeSet<>();
                candidates.forEach(c -> thresholds.add(c.eventTime));
                asOfArrival = vector(x, compute(x, before, Set.of()));
                Set<Copy> chosen = null;
                if (asOfArrival.equals(served)) {
                    chosen = Set.of();
                } else {
                    for (long threshold : thresholds) {
                        Set<Copy> out = new HashSet<>();
                        candidates.stream().filter(c -> c.eventTime <= threshold).forEach(out::add);
                        TransactionFeatureVector r = vector(x, compute(x, before, out));
                        if (r.equals(served)) {
                            chosen = out;
                            asOfArrival = r;
                            break;
                        }
                    }
                }
                if (chosen == null) {
                    notes.add(
                            "with historyComplete=false, no eviction the watermark allows (at most "
                                    + candidates.size()
                                    + " entr(ies) of its trailing window"
                                    + (x.boundProven
                                            ? ", watermark at most " + Instant.ofEpochMilli(bound)
                                            : ", watermark not bounded: partition possibly idle")
                                    + ") gives the served features");
                } else {
                    evicted = chosen;
                }
            }
        }
        v.asOfArrival = asOfArrival;
        v.evicted = evicted.size();
        boolean asOfArrivalHolds = !contradicted && asOfArrival.equals(served);
        if (!asOfArrivalHolds) {
            causes.add(TransactionCause.UNEXPLAINED);
            if (!asOfArrival.equals(served)) {
                notes.add(
                        "served "
                                + served
                                + ", but as of arrival (the "
                                + (before.size() - evicted.size())
                                + " record(s) of its trailing window received before it"
                                + (evicted.isEmpty() ? "" : ", " + evicted.size() + " evicted")
                                + ") "
                                + asOfArrival);
            }
            return;
        }
        TransactionFeatureVector ideal = vector(x, idealResult);
        if (ideal.equals(served)) {
            return;
        }

        // Exact explanation: the copies the answer could not count, by why.
        Map<Copy, TransactionCause> labels = new HashMap<>();
        for (Copy c : window) {
            TransactionCause label = label(c, x, evicted);
            if (label != null) {
                labels.put(c, label);
            }
        }
        Map<String, List<Copy>> byId = new LinkedHashMap<>();
        window.forEach(
                c -> byId.computeIfAbsent(c.tx.getTransactionId(), k -> new ArrayList<>()).add(c));
        Map<Copy, TransactionCause> named = new LinkedHashMap<>();
        for (List<Copy> cs : byId.values()) {
            Copy counted = null;
            for (Copy c : cs) {
                if (!labels.containsKey(c)) {
                    counted = c;
                    break;
                }
            }
            if (counted == null) {
                cs.forEach(c -> named.put(c, labels.get(c)));
            } else {
                for (Copy c : cs) {
                    if (c.index < counted.index && !samePayload(c.tx, counted.tx)) {
                        named.put(c, TransactionCause.DUPLICATE);
                    }
                }
            }
        }
        List<Copy> remaining = new ArrayList<>();
        window.stream().filter(c -> !named.containsKey(c)).forEach(remaining::add);
        TransactionFeatureVector expected = vector(x, compute(x, remaining, Set.of()));
        if (named.isEmpty() || !expected.equals(served)) {
            causes.add(TransactionCause.UNEXPLAINED);
            notes.add(
                    "without the "
                            + named.size()
                            + " record(s) the answer could not count, the ideal recomputation"
                            + " gives "
                            + expected
                            + ", served "
                            + served);
            return;
        }
        List<Copy> ordered = new ArrayList<>(named.keySet());
        ordered.sort(Comparator.comparingInt(c -> c.index));
        v.namedCount = ordered.size();
        for (Copy c : ordered) {
            TransactionCause cause = named.get(c);
            if (cause == TransactionCause.QUARANTINED
                    && !RecordIngestor.isFutureDated(
                            c.eventTime, c.arrival, futureToleranceMillis)) {
                causes.add(TransactionCause.UNEXPLAINED);
                notes.add(
                        "record "
                                + c.tx.getTransactionId()
                                + " at "
                                + c.position
                                + " is archived as quarantined, but its event time is not beyond"
                                + " its arrival plus the future tolerance");
            }
            causes.add(cause);
            if (cause == TransactionCause.ARRIVED_LATER) {
                arrivedLater.put(c.position, c.arrival - c.eventTime);
            }
            if (v.named.size() < NAMED_LIMIT) {
                v.named.add(
                        new NamedRecord(
                                c.tx.getTransactionId(),
                                cause.name(),
                                c.tx.getEventTime(),
                                Instant.ofEpochMilli(c.arrival),
                                c.arrival - c.eventTime,
                                c.arrival - x.arrival,
                                c.position));
            }
        }
    }

    /** Why the answer of x could not count copy {@code c} of its trailing window, or null. */
    private static TransactionCause label(Copy c, Copy x, Set<Copy> evicted) {
        if (c.quarantined) {
            return TransactionCause.QUARANTINED;
        }
        if (c.deadLettered) {
            return TransactionCause.DEAD_LETTERED;
        }
        if (evicted.contains(c)) {
            return TransactionCause.EVICTED;
        }
        if (c.index > x.index) {
            return TransactionCause.ARRIVED_LATER;
        }
        return null;
    }

    /** The payload the feature core keeps of a transaction id (its first arrival's). */
    private static boolean samePayload(Transaction a, Transaction b) {
        return a.getAmountMinor() == b.getAmountMinor()
                && a.getDeviceId().equals(b.getDeviceId())
                && a.getMerchantId().equals(b.getMerchantId())
                && a.getCountry().equals(b.getCountry());
    }

    /** The job's definition over {@code copies} (arrival order) minus {@code without}, x last. */
    private TrailingFeatures.Result compute(Copy x, List<Copy> copies, Set<Copy> without) {
        TrailingFeatures f = TrailingFeatures.of(x.tx, trailing);
        for (Copy c : copies) {
            if (!without.contains(c)) {
                f.add(c.tx);
            }
        }
        return f.result();
    }

    private static TransactionFeatureVector vector(Copy x, TrailingFeatures.Result r) {
        return TransactionFeatureVector.of(r, x.tx.getAmountMinor());
    }

    private TransactionFeatures idealRecord(Copy x, TrailingFeatures.Result r) {
        return r.writeTo(TransactionFeatures.newBuilder())
                .setTransactionId(x.tx.getTransactionId())
                .setUserId(x.tx.getUserId())
                .setEventTime(x.tx.getEventTime())
                .setTrailingWindowMillis(trailingMillis)
                .setAmountMinor(x.tx.getAmountMinor())
                .setHistoryComplete(true)
                .build();
    }

    static String position(String topic, int partition, long offset) {
        return topic + "-" + partition + "@" + offset;
    }

    private static String position(DeadLetter d) {
        return position(d.getSourceTopic(), d.getSourcePartition(), d.getSourceOffset());
    }

    private static long saturatedAdd(long a, long b) {
        long r = a + b;
        return ((a ^ r) & (b ^ r)) < 0 ? Long.MAX_VALUE : r;
    }

    /** A user's copies by event time, for the trailing windows. */
    private static final class Copies {
        private final Copy[] byEventTime;

        Copies(List<Copy> arrivalOrder) {
            byEventTime = arrivalOrder.toArray(Copy[]::new);
            java.util.Arrays.sort(
                    byEventTime,
                    Comparator.comparingLong((Copy c) -> c.eventTime)
                            .thenComparingInt(c -> c.index));
        }

        /** The copies with event time in {@code (t - T, t]} and another id, in arrival order. */
        List<Copy> windowOf(long t, long trailingMillis, String excludedId) {
            long lower = t - trailingMillis;
            int i = firstAbove(lower);
            List<Copy> out = new ArrayList<>();
            for (; i < byEventTime.length && byEventTime[i].eventTime <= t; i++) {
                if (!byEventTime[i].tx.getTransactionId().equals(excludedId)) {
                    out.add(byEventTime[i]);
                }
            }
            out.sort(Comparator.comparingInt(c -> c.index));
            return out;
        }

        private int firstAbove(long lower) {
            int lo = 0;
            int hi = byEventTime.length;
            while (lo < hi) {
                int mid = (lo + hi) >>> 1;
                if (byEventTime[mid].eventTime > lower) {
                    hi = mid;
                } else {
                    lo = mid + 1;
                }
            }
            return lo;
        }
    }
}
