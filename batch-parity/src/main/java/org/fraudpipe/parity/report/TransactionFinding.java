package org.fraudpipe.parity.report;

import java.io.Serializable;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import org.fraudpipe.parity.transaction.NamedRecord;
import org.fraudpipe.parity.transaction.TransactionCause;
import org.fraudpipe.parity.transaction.TransactionFeatureVector;
import org.fraudpipe.parity.transaction.TransactionVerdict;

/**
 * One scored transaction as the report shows it: the verdict without the raw records, features as
 * name/value maps (null where a side is absent), the records its causes name with how late they
 * were.
 *
 * @param asOfArrival the recomputation the served features were checked against (null if none)
 * @param historyComplete the served answer's flag (null if never scored)
 * @param evicted records of its trailing window the state bound had evicted (its answer said
 *     historyComplete=false)
 * @param arrivals archived copies the job should have answered
 * @param answers archived answers
 * @param namedCount how many records the causes named ({@code named} keeps the first {@value
 *     org.fraudpipe.parity.transaction.TransactionJudge#NAMED_LIMIT})
 */
public record TransactionFinding(
        String userId,
        String transactionId,
        Instant eventTime,
        String cause,
        List<String> causes,
        List<String> differingFeatures,
        Map<String, Object> served,
        Map<String, Object> asOfArrival,
        Map<String, Object> ideal,
        Boolean historyComplete,
        int evicted,
        int arrivals,
        int answers,
        Double servedScore,
        Double idealScore,
        String servedDecision,
        String idealDecision,
        Boolean fraud,
        int namedCount,
        List<NamedRecord> named,
        String note)
        implements Serializable {

    static TransactionFinding of(TransactionVerdict v) {
        return new TransactionFinding(
                v.userId,
                v.transactionId,
                Instant.ofEpochMilli(v.eventTime),
                v.cause.name(),
                v.causes.stream().map(TransactionCause::name).toList(),
                List.copyOf(v.differingFeatures),
                v.served == null
                        ? null
                        : TransactionFeatureVector.of(v.served.getFeatures()).asMap(),
                v.asOfArrival == null ? null : v.asOfArrival.asMap(),
                v.ideal == null ? null : TransactionFeatureVector.of(v.ideal).asMap(),
                v.served == null ? null : v.served.getFeatures().getHistoryComplete(),
                v.evicted,
                v.arrivals,
                v.answers,
                v.served == null ? null : v.served.getScore(),
                Double.isNaN(v.idealScore) ? null : v.idealScore,
                v.served == null ? null : v.served.getDecision().name(),
                v.idealDecision,
                v.fraud,
                v.namedCount,
                List.copyOf(v.named),
                v.note);
    }
}
