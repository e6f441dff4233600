package org.fraudpipe.parity;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import org.fraudpipe.job.archive.ArchivePolicy;
import org.fraudpipe.job.features.FeatureAggregator;
import org.fraudpipe.job.features.FeatureValues;
import org.fraudpipe.schemas.avro.ArchivedTransaction;
import org.fraudpipe.schemas.avro.DeadLetter;
import org.fraudpipe.schemas.avro.DeadLetterReason;
import org.fraudpipe.schemas.avro.FeatureRecord;
import org.fraudpipe.schemas.avro.LateReason;
import org.fraudpipe.schemas.avro.LateRecord;
import org.fraudpipe.schemas.avro.Timing;
import org.fraudpipe.schemas.avro.Transaction;

/** Records for parity tests: one user's 10-minute window at 2026-11-28T12:00Z and its evidence. */
final class ParityFixtures {

    static final long SIZE = 600_000L;
    static final String TOPIC = "transactions";
    static final Instant W = Instant.parse("2026-11-28T12:00:00Z");

    /** The job's defaults: 10m windows, 2m lateness, 5s bound, 1m idleness, 5m future tolerance. */
    static final ArchivePolicy POLICY =
            new ArchivePolicy(
                    Duration.ofMinutes(10),
                    Duration.ofMinutes(2),
                    Duration.ofSeconds(5),
                    Duration.ofMinutes(1),
                    Duration.ofMinutes(5));

    private ParityFixtures() {}

    static Transaction tx(String id, String user, Instant eventTime, long amount, String device) {
        return Transaction.newBuilder()
                .setTransactionId(id)
                .setUserId(user)
                .setAmountMinor(amount)
                .setCurrency("EUR")
                .setMerchantId("m-" + id)
                .setDeviceId(device)
                .setCountry("DE")
                .setEventTime(eventTime)
                .build();
    }

    /** Archived at partition 0, {@code offset}, received {@code receivedAt}. */
    static ArchivedTransaction archived(Transaction tx, long offset, Instant receivedAt) {
        return ArchivedTransaction.newBuilder()
                .setTransaction(tx)
                .setSourceTopic(TOPIC)
                .setSourcePartition(0)
                .setSourceOffset(offset)
                .setRecordTimestamp(receivedAt)
                .setReceivedAt(receivedAt)
                .setQuarantined(false)
                .build();
    }

    static FeatureRecord features(
            String user, long windowStart, FeatureValues v, int revision, Instant emittedAt) {
        return v.writeTo(FeatureRecord.newBuilder())
                .setUserId(user)
                .setWindowStart(Instant.ofEpochMilli(windowStart))
                .setWindowEnd(Instant.ofEpochMilli(windowStart + SIZE))
                .setRevision(revision)
                .setTiming(revision == 0 ? Timing.ON_TIME : Timing.LATE)
                .setLateRecordsIncluded(0)
                .setEmittedAt(emittedAt)
                .setWatermark(emittedAt)
                .build();
    }

    /** The ideal result as Flink BATCH computes it: records in event-time order. */
    static FeatureRecord idealOf(List<ArchivedTransaction> archived) {
        List<Transaction> byEventTime = new ArrayList<>();
        archived.forEach(a -> byEventTime.add(a.getTransaction()));
        byEventTime.sort(Comparator.comparing(Transaction::getEventTime));
        Transaction first = byEventTime.get(0);
        long start = first.getEventTime().toEpochMilli() / SIZE * SIZE;
        return features(
                first.getUserId(),
                start,
                FeatureAggregator.compute(byEventTime),
                0,
                Instant.ofEpochMilli(Long.MAX_VALUE));
    }

    /** A served pane with the values of {@code counted} (arrival order). */
    static FeatureRecord servedOf(List<Transaction> counted, int revision) {
        Transaction first = counted.get(0);
        long start = first.getEventTime().toEpochMilli() / SIZE * SIZE;
        return features(
                first.getUserId(),
                start,
                FeatureAggregator.compute(counted),
                revision,
                Instant.ofEpochMilli(start + SIZE));
    }

    static LateRecord late(Transaction tx, LateReason reason, long lateBy) {
        long start = tx.getEventTime().toEpochMilli() / SIZE * SIZE;
        return LateRecord.newBuilder()
                .setTransaction(tx)
                .setReason(reason)
                .setWindowStart(Instant.ofEpochMilli(start))
                .setWindowEnd(Instant.ofEpochMilli(start + SIZE))
                .setWatermark(tx.getEventTime().plusMillis(lateBy))
                .setLateByMillis(lateBy)
                .setDetectedAt(tx.getEventTime().plusMillis(lateBy))
                .build();
    }

    static DeadLetter deadLetter(long offset) {
        return DeadLetter.newBuilder()
                .setSourceTopic(TOPIC)
                .setSourcePartition(0)
                .setSourceOffset(offset)
                .setRecordTimestamp(W)
                .setReason(DeadLetterReason.INVALID)
                .setErrorMessage("rejected")
                .setDetectedAt(W)
                .build();
    }
}
