package org.fraudpipe.parity.transaction;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.apache.flink.api.common.functions.OpenContext;
import org.apache.flink.api.common.state.ListState;
import org.apache.flink.api.common.state.ListStateDescriptor;
import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.streaming.api.functions.KeyedProcessFunction;
import org.apache.flink.util.Collector;
import org.fraudpipe.job.archive.ArchivePolicy;
import org.fraudpipe.job.position.ReadPositions;
import org.fraudpipe.job.scoring.BatchScorer;
import org.fraudpipe.job.transaction.ArrivalFeatures;
import org.fraudpipe.job.transaction.TransactionScorer;
import org.fraudpipe.parity.Evidence;
import org.fraudpipe.parity.SortKeys;
import org.fraudpipe.parity.report.TransactionReportBuilder;
import org.fraudpipe.schemas.avro.TransactionScore;
import org.fraudpipe.scoring.DecisionThresholds;

/**
 * Gathers every {@link Evidence} of one user, judges the user's scored transactions ({@link
 * TransactionJudge}), re-scores their ideal features with the serving per-transaction model (one
 * batch per user) and folds the verdicts into this subtask's {@link TransactionReportBuilder}.
 * Emits nothing per user: {@link TransactionJudgeOperator} emits the subtask's partial report once,
 * when its input ends, so that no verdict leaves the TaskManager.
 *
 * <p>Keyed by the user's {@link SortKeys#user fingerprint}: a key's evidence is regrouped by the
 * exact user, each judged on its own. Runs in BATCH execution mode only: a key's records arrive
 * together and the timer registered at {@code Long.MAX_VALUE} fires once, after the key's last
 * record. Memory: one user's evidence (a user's day fits in a TaskManager; the whole day need not)
 * and the bounded partial report.
 */
public final class TransactionVerdictFunction extends KeyedProcessFunction<Long, Evidence, byte[]> {

    private static final long serialVersionUID = 1L;

    private final ArchivePolicy policy;
    private final Duration trailing;
    private final long fromMillis;
    private final long toMillis;
    private final TransactionScorer.Factory scorerFactory;
    private final DecisionThresholds thresholds;
    private final boolean labelsGiven;
    private final ReadPositions positions;

    private transient ListState<Evidence> evidence;
    private transient TransactionJudge judge;
    private transient TransactionScorer scorer;
    private transient TransactionReportBuilder report;

    /**
     * @param scorerFactory the serving per-transaction model to re-score ideal features with, or
     *     null for none
     * @param thresholds the per-transaction decision thresholds the job ran with (each answer's
     *     decision is checked against them), or null when not re-scoring
     */
    public TransactionVerdictFunction(
            ArchivePolicy policy,
            Duration trailing,
            long fromMillis,
            long toMillis,
            TransactionScorer.Factory scorerFactory,
            DecisionThresholds thresholds,
            boolean labelsGiven,
            ReadPositions positions) {
        this.positions = positions;
        this.policy = policy;
        this.trailing = trailing;
        this.fromMillis = fromMillis;
        this.toMillis = toMillis;
        this.scorerFactory = scorerFactory;
        this.thresholds = thresholds;
        this.labelsGiven = labelsGiven;
    }

    @Override
    public void open(OpenContext context) {
        evidence =
                getRuntimeContext()
                        .getListState(
                                new ListStateDescriptor<>(
                                        "transaction-evidence",
                                        TypeInformation.of(Evidence.class)));
        judge = new TransactionJudge(policy, trailing, fromMillis, toMillis, positions);
        scorer =
                scorerFactory == null
                        ? null
                        : scorerFactory.create(
                                org.fraudpipe.job.scoring.ScorerContext.of(
                                        getRuntimeContext(), getRuntimeContext().getMetricGroup()));
        report = new TransactionReportBuilder(labelsGiven);
    }

    @Override
    public void processElement(Evidence value, Context ctx, Collector<byte[]> out)
            throws Exception {
        evidence.add(value);
        ctx.timerService().registerEventTimeTimer(Long.MAX_VALUE);
    }

    @Override
    public void onTimer(long timestamp, OnTimerContext ctx, Collector<byte[]> out)
            throws Exception {
        List<Evidence> all = new ArrayList<>();
        evidence.get().forEach(all::add);
        evidence.clear();
        for (List<Evidence> user : SortKeys.groups(all, e -> e.userId)) {
            judgeUser(user.get(0).userId, user);
        }
    }

    private void judgeUser(String userId, List<Evidence> all) {
        TransactionJudge.Judgement judgement = judge.judge(userId, all);
        for (Evidence e : all) {
            if (e.kind == Evidence.Kind.TRANSACTION_SCORE) {
                checkAnswer(e.transactionScore);
            }
        }
        if (scorer != null) {
            scoreIdeals(judgement.verdicts());
        }
        report.addUser(judgement.facts(), !judgement.verdicts().isEmpty());
        judgement.verdicts().forEach(report::add);
    }

    /** Which model served, over which trailing window, and whether its decision fits. */
    private void checkAnswer(TransactionScore s) {
        report.addServedModel(
                s.getModelName() + ":" + s.getModelVersion(),
                s.getFeatures().getTrailingWindowMillis());
        if (thresholds != null && thresholds.decide(s.getScore()) != s.getDecision()) {
            report.addOffThreshold(
                    s.getTransactionId()
                            + ": score "
                            + s.getScore()
                            + " served as "
                            + s.getDecision()
                            + ", the thresholds give "
                            + thresholds.decide(s.getScore()));
        }
    }

    private void scoreIdeals(List<TransactionVerdict> verdicts) {
        List<TransactionVerdict> scored = new ArrayList<>();
        List<ArrivalFeatures> batch = new ArrayList<>();
        for (TransactionVerdict v : verdicts) {
            if (v.ideal != null) {
                ArrivalFeatures a = new ArrivalFeatures();
                a.features = v.ideal;
                // Scored by the release that served it: at the served transaction's coordinate.
                a.recordTimestamp = org.fraudpipe.job.transaction.ReceivedTransaction.NO_TIMESTAMP;
                a.coordinate = v.coordinate;
                a.arrivalRecordTimestamp = BatchScorer.NO_TIMESTAMP;
                a.receivedAt = v.eventTime;
                scored.add(v);
                batch.add(a);
            }
        }
        if (batch.isEmpty()) {
            return;
        }
        List<TransactionScore> scores = scorer.score(batch, 0L);
        for (int i = 0; i < scored.size(); i++) {
            scored.get(i).idealScore = scores.get(i).getScore();
            scored.get(i).idealDecision = scores.get(i).getDecision().name();
        }
    }

    /** This subtask's partial report, serialized: what {@link TransactionJudgeOperator} emits. */
    byte[] partial() {
        return report.toBytes();
    }

    @Override
    public void close() {
        if (scorer != null) {
            scorer.close();
        }
    }
}
