package org.fraudpipe.parity;

import static org.assertj.core.api.Assertions.assertThat;
import static org.fraudpipe.parity.ParityFixtures.W;
import static org.fraudpipe.parity.ParityFixtures.archived;
import static org.fraudpipe.parity.ParityFixtures.deadLetter;
import static org.fraudpipe.parity.ParityFixtures.idealOf;
import static org.fraudpipe.parity.ParityFixtures.late;
import static org.fraudpipe.parity.ParityFixtures.servedOf;
import static org.fraudpipe.parity.ParityFixtures.tx;

import java.util.ArrayList;
import java.util.List;
import org.fraudpipe.schemas.avro.ArchivedTransaction;
import org.fraudpipe.schemas.avro.FeatureRecord;
import org.fraudpipe.schemas.avro.LateReason;
import org.fraudpipe.schemas.avro.Transaction;
import org.junit.jupiter.api.Test;

class WindowJudgeTest {

    private final WindowJudge judge = new WindowJudge(ParityFixtures.SIZE);

    private final Transaction a = tx("a", "u1", W.plusSeconds(10), 1_000, "d1");
    private final Transaction b = tx("b", "u1", W.plusSeconds(20), 5_000, "d2");
    private final Transaction c = tx("c", "u1", W.plusSeconds(30), 300, "d1");
    private final List<ArchivedTransaction> abc =
            List.of(
                    archived(a, 1, W.plusSeconds(11)),
                    archived(b, 2, W.plusSeconds(21)),
                    archived(c, 3, W.plusSeconds(900)));

    /** Evidence of the window: ideal over {@code archived}, the given served panes, extras. */
    private WindowVerdict judge(
            List<ArchivedTransaction> archived, List<FeatureRecord> served, Evidence... extra) {
        List<Evidence> evidence = new ArrayList<>();
        if (!archived.isEmpty()) {
            evidence.add(Evidence.ideal(idealOf(archived)));
        }
        long start = W.toEpochMilli();
        archived.forEach(x -> evidence.add(Evidence.archived(x, start)));
        served.forEach(s -> evidence.add(Evidence.served(s)));
        evidence.addAll(List.of(extra));
        return judge.judge("u1", start, evidence);
    }

    @Test
    void lastServedRevisionEqualToIdealIsAMatch() {
        WindowVerdict v =
                judge(abc, List.of(servedOf(List.of(a, b), 0), servedOf(List.of(a, b, c), 1)));
        assertThat(v.cause).isEqualTo(Cause.MATCH);
        assertThat(v.differingFeatures).isEmpty();
        assertThat(v.servedPanes).isEqualTo(2);
        assertThat(v.served.getRevision()).isEqualTo(1);
        assertThat(v.note).isEmpty();
    }

    @Test
    void aTooLateRecordExplainsExactlyWhatItsAbsenceChanged() {
        WindowVerdict v =
                judge(
                        abc,
                        List.of(servedOf(List.of(a, b), 0)),
                        Evidence.late(late(c, LateReason.TOO_LATE, 870_000)));
        assertThat(v.cause).isEqualTo(Cause.LATE_DROPPED);
        assertThat(v.causes).isEqualTo("LATE_DROPPED");
        assertThat(v.differingFeatures).isEqualTo("txCount,amountSum,distinctMerchants");
        assertThat(v.lateDropped).isEqualTo(1);
        assertThat(v.lateByMillis).containsExactly(870_000L);
    }

    @Test
    void aLateRecordThatDoesNotAccountForTheWholeDifferenceLeavesItUnexplained() {
        // c was too late, but b is also missing from what was served: c alone does not explain it.
        WindowVerdict v =
                judge(
                        abc,
                        List.of(servedOf(List.of(a), 0)),
                        Evidence.late(late(c, LateReason.TOO_LATE, 870_000)));
        assertThat(v.cause).isEqualTo(Cause.UNEXPLAINED);
        assertThat(v.note).contains("without the 1 explaining record(s)");
    }

    @Test
    void aQuarantinedRecordExplainsAsQuarantined() {
        WindowVerdict v =
                judge(
                        abc,
                        List.of(servedOf(List.of(a, c), 0)),
                        Evidence.late(late(b, LateReason.FUTURE_DATED, -7_200_000)));
        assertThat(v.cause).isEqualTo(Cause.QUARANTINED);
        assertThat(v.quarantined).isEqualTo(1);
        assertThat(v.lateByMillis).isEmpty();
    }

    @Test
    void aDeadLetterAtAnArchivedPositionExplainsAsDeadLettered() {
        long start = W.toEpochMilli();
        WindowVerdict v =
                judge(
                        abc,
                        List.of(servedOf(List.of(a, c), 0)),
                        Evidence.deadLetter(deadLetter(2), "u1", start));
        assertThat(v.cause).isEqualTo(Cause.DEAD_LETTERED);
        assertThat(v.deadLettered).isEqualTo(1);
    }

    @Test
    void severalCausesAreAllListedMainCauseFirst() {
        long start = W.toEpochMilli();
        WindowVerdict v =
                judge(
                        abc,
                        List.of(servedOf(List.of(a), 0)),
                        Evidence.late(late(c, LateReason.TOO_LATE, 870_000)),
                        Evidence.deadLetter(deadLetter(2), "u1", start));
        assertThat(v.causes).isEqualTo("LATE_DROPPED,DEAD_LETTERED");
        assertThat(v.cause).isEqualTo(Cause.LATE_DROPPED);
    }

    @Test
    void aWindowWhoseRecordsWereAllTooLateIsLateDroppedNotMissing() {
        List<ArchivedTransaction> onlyC = List.of(abc.get(2));
        WindowVerdict v =
                judge(onlyC, List.of(), Evidence.late(late(c, LateReason.TOO_LATE, 870_000)));
        assertThat(v.cause).isEqualTo(Cause.LATE_DROPPED);
        assertThat(v.served).isNull();
        assertThat(v.servedPanes).isZero();
    }

    @Test
    void aWindowNeverServedWithoutExplanationIsMissingInStream() {
        WindowVerdict v = judge(abc, List.of());
        assertThat(v.cause).isEqualTo(Cause.MISSING_IN_STREAM);
        assertThat(Cause.MISSING_IN_STREAM.isExplained()).isFalse();
    }

    @Test
    void aServedWindowWithoutArchivedTransactionsIsExtraInStream() {
        WindowVerdict v = judge(List.of(), List.of(servedOf(List.of(a), 0)));
        assertThat(v.cause).isEqualTo(Cause.EXTRA_IN_STREAM);
        assertThat(v.ideal).isNull();
        assertThat(v.differingFeatures).contains("txCount");
    }

    @Test
    void aTamperedServedValueIsUnexplained() {
        FeatureRecord tampered = servedOf(List.of(a, b, c), 0);
        tampered.setAmountSum(tampered.getAmountSum() + 1);
        WindowVerdict v = judge(abc, List.of(tampered));
        assertThat(v.cause).isEqualTo(Cause.UNEXPLAINED);
        assertThat(v.differingFeatures).isEqualTo("amountSum");
    }

    @Test
    void conflictingDuplicatesExplainAsDuplicateWhenArrivalOrderDecides() {
        // Same id "a", two payloads: the later event time arrived first, so streaming kept it;
        // batch (event-time order) keeps the earlier one.
        Transaction aEarly = tx("a", "u1", W.plusSeconds(5), 1_000, "d1");
        Transaction aLate = tx("a", "u1", W.plusSeconds(50), 9_000, "d9");
        List<ArchivedTransaction> archived =
                List.of(
                        archived(aLate, 1, W.plusSeconds(51)),
                        archived(aEarly, 2, W.plusSeconds(52)));
        WindowVerdict v = judge(archived, List.of(servedOf(List.of(aLate, aEarly), 0)));
        assertThat(v.cause).isEqualTo(Cause.DUPLICATE);
        assertThat(v.conflictingDuplicates).isEqualTo(1);
        assertThat(v.differingFeatures).isEqualTo("amountSum,amountMax");
    }

    @Test
    void aRetryCopyThatWasTooLateChangesNothing() {
        ArchivedTransaction retry = archived(b, 9, W.plusSeconds(2_000));
        List<ArchivedTransaction> archived = new ArrayList<>(abc);
        archived.add(retry);
        WindowVerdict v =
                judge(
                        archived,
                        List.of(servedOf(List.of(a, b, c), 0)),
                        Evidence.late(late(b, LateReason.TOO_LATE, 1_000_000)));
        assertThat(v.cause).isEqualTo(Cause.MATCH);
        assertThat(v.lateByMillis).containsExactly(1_000_000L);
    }

    @Test
    void aLateRecordTheArchiveDoesNotHoldIsUnexplainedEvenWhenFeaturesMatch() {
        Transaction unknown = tx("zz", "u1", W.plusSeconds(40), 7, "d7");
        WindowVerdict v =
                judge(
                        abc,
                        List.of(servedOf(List.of(a, b, c), 0)),
                        Evidence.late(late(unknown, LateReason.TOO_LATE, 900_000)));
        assertThat(v.cause).isEqualTo(Cause.UNEXPLAINED);
        assertThat(v.differingFeatures).isEmpty();
        assertThat(v.note).contains("archive lost records");
    }

    @Test
    void theSameRevisionServedTwiceWithDifferentValuesIsUnexplained() {
        WindowVerdict v =
                judge(abc, List.of(servedOf(List.of(a, b, c), 0), servedOf(List.of(a, b), 0)));
        assertThat(v.cause).isEqualTo(Cause.UNEXPLAINED);
        assertThat(v.note).contains("conflicting served panes");
    }
}
