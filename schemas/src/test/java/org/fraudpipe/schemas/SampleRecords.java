package org.fraudpipe.schemas;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.List;
import org.apache.avro.specific.SpecificRecord;
import org.fraudpipe.schemas.avro.AssignmentAction;
import org.fraudpipe.schemas.avro.DeadLetter;
import org.fraudpipe.schemas.avro.DeadLetterReason;
import org.fraudpipe.schemas.avro.Decision;
import org.fraudpipe.schemas.avro.FeatureRecord;
import org.fraudpipe.schemas.avro.LateReason;
import org.fraudpipe.schemas.avro.LateRecord;
import org.fraudpipe.schemas.avro.ModelAssignment;
import org.fraudpipe.schemas.avro.ModelEvent;
import org.fraudpipe.schemas.avro.ModelKind;
import org.fraudpipe.schemas.avro.ModelRelease;
import org.fraudpipe.schemas.avro.ModelRole;
import org.fraudpipe.schemas.avro.ScoreRecord;
import org.fraudpipe.schemas.avro.Timing;
import org.fraudpipe.schemas.avro.Transaction;
import org.fraudpipe.schemas.avro.TransactionFeatures;
import org.fraudpipe.schemas.avro.TransactionScore;
import org.fraudpipe.schemas.avro.WindowKey;

/** One realistic instance of every record type of the contract, for tests. */
public final class SampleRecords {
    private SampleRecords() {}

    public static final Instant T0 = Instant.parse("2024-03-01T10:00:00Z");

    public static Transaction transaction(String id) {
        return Transaction.newBuilder()
                .setTransactionId(id)
                .setUserId("user-42")
                .setAmountMinor(12_345L)
                .setCurrency("EUR")
                .setMerchantId("merchant-7")
                .setDeviceId("device-3")
                .setCountry("DE")
                .setEventTime(T0.plusMillis(1_234))
                .build();
    }

    public static FeatureRecord features() {
        return FeatureRecord.newBuilder()
                .setUserId("user-42")
                .setWindowStart(T0)
                .setWindowEnd(T0.plusSeconds(600))
                .setTxCount(5)
                .setAmountSum(50_000L)
                .setAmountMax(20_000L)
                .setDistinctDevices(2)
                .setDistinctMerchants(3)
                .setDistinctCountries(1)
                .setRevision(1)
                .setTiming(Timing.LATE)
                .setLateRecordsIncluded(1)
                .setEmittedAt(T0.plusSeconds(700))
                .setWatermark(T0.plusSeconds(650))
                .build();
    }

    public static ScoreRecord score() {
        FeatureRecord features = features();
        return ScoreRecord.newBuilder()
                .setUserId(features.getUserId())
                .setWindowStart(features.getWindowStart())
                .setWindowEnd(features.getWindowEnd())
                .setFeatures(features)
                .setScore(0.8125)
                .setDecision(Decision.REVIEW)
                .setModelName("logreg")
                .setModelVersion("2024-02-28")
                .setRevision(features.getRevision())
                .setTiming(features.getTiming())
                .setScoredAt(T0.plusSeconds(701))
                .build();
    }

    public static LateRecord late() {
        return LateRecord.newBuilder()
                .setTransaction(transaction("tx-late"))
                .setReason(LateReason.TOO_LATE)
                .setWindowStart(T0)
                .setWindowEnd(T0.plusSeconds(600))
                .setWatermark(T0.plusSeconds(1_300))
                .setLateByMillis(1_298_766L)
                .setDetectedAt(T0.plusSeconds(1_301))
                .build();
    }

    public static LateRecord lateWithoutWatermark() {
        LateRecord late = late();
        late.setWatermark(null);
        return late;
    }

    public static DeadLetter deadLetter() {
        return DeadLetter.newBuilder()
                .setSourceTopic("transactions")
                .setSourcePartition(3)
                .setSourceOffset(1_000_001L)
                .setRecordTimestamp(T0)
                .setKey(ByteBuffer.wrap("user-42".getBytes(StandardCharsets.UTF_8)))
                .setValue(ByteBuffer.wrap(new byte[] {0x7b, 0x00, (byte) 0xff}))
                .setReason(DeadLetterReason.NOT_CONFLUENT_FRAMED)
                .setErrorMessage("Not Confluent-framed Avro")
                .setDetectedAt(T0.plusSeconds(1))
                .build();
    }

    public static DeadLetter deadLetterWithoutOptionals() {
        return DeadLetter.newBuilder()
                .setSourceTopic("transactions")
                .setSourcePartition(0)
                .setSourceOffset(0L)
                .setReason(DeadLetterReason.UNDECODABLE)
                .setErrorMessage("truncated")
                .setDetectedAt(T0)
                .build();
    }

    public static TransactionFeatures transactionFeatures() {
        return TransactionFeatures.newBuilder()
                .setTransactionId("tx-9")
                .setUserId("user-42")
                .setEventTime(T0.plusSeconds(42))
                .setTrailingWindowMillis(600_000L)
                .setTxCount(3)
                .setAmountSum(30_000L)
                .setAmountMax(12_345L)
                .setDistinctDevices(2)
                .setDistinctMerchants(2)
                .setDistinctCountries(1)
                .setAmountMinor(12_345L)
                .setNewDevice(true)
                .setNewMerchant(false)
                .setNewCountry(false)
                .setHistoryComplete(true)
                .build();
    }

    public static TransactionScore transactionScore() {
        TransactionFeatures features = transactionFeatures();
        return TransactionScore.newBuilder()
                .setTransactionId(features.getTransactionId())
                .setUserId(features.getUserId())
                .setEventTime(features.getEventTime())
                .setFeatures(features)
                .setScore(0.03125)
                .setDecision(Decision.ALLOW)
                .setModelName("fraud-transaction")
                .setModelVersion("2024-02-28")
                .setRecordTimestamp(T0.plusSeconds(43))
                .setScoredAt(T0.plusSeconds(43).plusMillis(7))
                .build();
    }

    public static TransactionScore transactionScoreWithoutRecordTimestamp() {
        TransactionScore score = transactionScore();
        score.setRecordTimestamp(null);
        return score;
    }

    public static WindowKey windowKey() {
        return WindowKey.newBuilder().setUserId("user-42").setWindowStart(T0).build();
    }

    public static ModelEvent modelRelease() {
        return ModelEvent.newBuilder()
                .setKind(ModelKind.TRANSACTION)
                .setVersion("2026-12-04-abc")
                .setPublishedAt(T0)
                .setPublishedBy("ana")
                .setRelease(
                        ModelRelease.newBuilder()
                                .setModelName("fraud-transaction")
                                .setOnnx(java.nio.ByteBuffer.wrap(new byte[] {8, 1, 18, 0}))
                                .setOnnxSha256("00")
                                .setCard(null)
                                .setOneRowMicros(12)
                                .build())
                .build();
    }

    public static ModelEvent modelAssignment() {
        return ModelEvent.newBuilder()
                .setKind(ModelKind.WINDOW)
                .setVersion("")
                .setPublishedAt(T0)
                .setPublishedBy("ana")
                .setAssignment(
                        ModelAssignment.newBuilder()
                                .setRole(ModelRole.CHALLENGER)
                                .setAction(AssignmentAction.WITHDRAW)
                                .setOnnxSha256("")
                                .setEffectiveFrom(T0.plusSeconds(30))
                                .build())
                .build();
    }

    /** At least one instance of every record type, including null optionals. */
    public static List<SpecificRecord> all() {
        return List.of(
                transaction("tx-1"),
                features(),
                score(),
                late(),
                lateWithoutWatermark(),
                deadLetter(),
                deadLetterWithoutOptionals(),
                transactionFeatures(),
                transactionScore(),
                transactionScoreWithoutRecordTimestamp(),
                modelRelease(),
                modelAssignment(),
                windowKey());
    }

    /** A sample of {@code type}. */
    @SuppressWarnings("unchecked")
    public static <T extends SpecificRecord> T of(Class<T> type) {
        return (T)
                all().stream()
                        .filter(type::isInstance)
                        .findFirst()
                        .orElseThrow(() -> new IllegalArgumentException("no sample of " + type));
    }
}
