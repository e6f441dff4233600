package org.fraudpipe.job.archive;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.ByteBuffer;
import java.time.Instant;
import org.apache.avro.specific.SpecificRecord;
import org.apache.flink.core.io.SimpleVersionedSerializer;
import org.apache.flink.streaming.api.functions.sink.filesystem.BucketAssigner;
import org.fraudpipe.schemas.archive.ArchiveStream;
import org.fraudpipe.schemas.avro.ArchivedTransaction;
import org.fraudpipe.schemas.avro.DeadLetter;
import org.fraudpipe.schemas.avro.DeadLetterReason;
import org.fraudpipe.schemas.avro.Decision;
import org.fraudpipe.schemas.avro.FeatureRecord;
import org.fraudpipe.schemas.avro.LateReason;
import org.fraudpipe.schemas.avro.LateRecord;
import org.fraudpipe.schemas.avro.ScoreRecord;
import org.fraudpipe.schemas.avro.Timing;
import org.fraudpipe.schemas.avro.Transaction;
import org.junit.jupiter.api.Test;

/** Each stream's records land in the hour partition of their own time, never of the write. */
class ArchiveBucketAssignerTest {

    /** A context whose times are all far from the records' own: they must not matter. */
    private static final BucketAssigner.Context WRITE_TIME =
            new BucketAssigner.Context() {
                @Override
                public long currentProcessingTime() {
                    return Instant.parse("2030-01-01T05:00:00Z").toEpochMilli();
                }

                @Override
                public long currentWatermark() {
                    return Instant.parse("2029-06-01T07:00:00Z").toEpochMilli();
                }

                @Override
                public Long timestamp() {
                    return Instant.parse("2028-03-03T09:00:00Z").toEpochMilli();
                }
            };

    static Transaction tx(String eventTime) {
        return new Transaction("t1", "u1", 100L, "EUR", "m1", "d1", "DE", Instant.parse(eventTime));
    }

    static FeatureRecord pane(String windowStart) {
        Instant start = Instant.parse(windowStart);
        Instant end = start.plusSeconds(600);
        return FeatureRecord.newBuilder()
                .setUserId("u1")
                .setWindowStart(start)
                .setWindowEnd(end)
                .setTxCount(1)
                .setAmountSum(100)
                .setAmountMax(100)
                .setDistinctDevices(1)
                .setDistinctMerchants(1)
                .setDistinctCountries(1)
                .setRevision(1)
                .setTiming(Timing.LATE)
                .setLateRecordsIncluded(1)
                // Emitted in the next hour: the partition is still the window start's.
                .setEmittedAt(end.plusSeconds(3600))
                .setWatermark(end.plusSeconds(3600))
                .build();
    }

    private static <T extends SpecificRecord> String bucket(ArchiveStream stream, T record) {
        return new ArchiveBucketAssigner<T>(stream).getBucketId(record, WRITE_TIME);
    }

    @Test
    void aTransactionIsInTheHourOfItsEventTimeNotOfItsArrival() {
        ArchivedTransaction received =
                ArchivedTransaction.newBuilder()
                        .setTransaction(tx("2026-11-28T12:59:59.999Z"))
                        .setSourceTopic("transactions")
                        .setSourcePartition(0)
                        .setSourceOffset(1)
                        .setReceivedAt(Instant.parse("2026-11-28T15:00:00Z"))
                        .setRecordTimestamp(Instant.parse("2026-11-28T15:00:00Z"))
                        .build();
        assertThat(bucket(ArchiveStream.TRANSACTIONS, received))
                .isEqualTo("date=2026-11-28/hour=12");
        received.getTransaction().setEventTime(Instant.parse("2026-11-29T00:00:00Z"));
        assertThat(bucket(ArchiveStream.TRANSACTIONS, received))
                .isEqualTo("date=2026-11-29/hour=00");
    }

    @Test
    void featuresAndScoresAreInTheHourOfTheirWindowStartWhateverTheRevision() {
        FeatureRecord late = pane("2026-11-28T23:50:00Z");
        assertThat(bucket(ArchiveStream.FEATURES, late)).isEqualTo("date=2026-11-28/hour=23");
        ScoreRecord score =
                ScoreRecord.newBuilder()
                        .setUserId("u1")
                        .setWindowStart(late.getWindowStart())
                        .setWindowEnd(late.getWindowEnd())
                        .setFeatures(late)
                        .setScore(0.1)
                        .setDecision(Decision.ALLOW)
                        .setModelName("m")
                        .setModelVersion("1")
                        .setRevision(1)
                        .setTiming(Timing.LATE)
                        .setScoredAt(late.getEmittedAt())
                        .build();
        assertThat(bucket(ArchiveStream.SCORES, score)).isEqualTo("date=2026-11-28/hour=23");
    }

    @Test
    void aLateRecordIsInTheHourOfItsTransactionsEventTime() {
        LateRecord late =
                LateRecord.newBuilder()
                        .setTransaction(tx("2026-11-28T07:15:00Z"))
                        .setReason(LateReason.TOO_LATE)
                        .setWindowStart(Instant.parse("2026-11-28T07:10:00Z"))
                        .setWindowEnd(Instant.parse("2026-11-28T07:20:00Z"))
                        .setWatermark(Instant.parse("2026-11-28T09:00:00Z"))
                        .setLateByMillis(6_000_000)
                        .setDetectedAt(Instant.parse("2026-11-28T09:00:00Z"))
                        .build();
        assertThat(bucket(ArchiveStream.LATE, late)).isEqualTo("date=2026-11-28/hour=07");
    }

    @Test
    void aDeadLetterIsInTheHourOfItsArrival() {
        DeadLetter letter =
                DeadLetter.newBuilder()
                        .setSourceTopic("transactions")
                        .setSourcePartition(1)
                        .setSourceOffset(9)
                        .setRecordTimestamp(Instant.parse("2026-11-28T04:59:00Z"))
                        .setValue(ByteBuffer.wrap(new byte[] {1}))
                        .setReason(DeadLetterReason.UNDECODABLE)
                        .setErrorMessage("x")
                        .setDetectedAt(Instant.parse("2026-11-28T05:01:00Z"))
                        .build();
        assertThat(bucket(ArchiveStream.DEAD_LETTERS, letter)).isEqualTo("date=2026-11-28/hour=04");
    }

    @Test
    void aRecordOfAnotherStreamIsRefusedAndBucketIdsSurviveTheirSerializer() throws Exception {
        assertThatThrownBy(() -> bucket(ArchiveStream.TRANSACTIONS, pane("2026-11-28T12:00:00Z")))
                .isInstanceOf(IllegalArgumentException.class);
        SimpleVersionedSerializer<String> serializer =
                new ArchiveBucketAssigner<FeatureRecord>(ArchiveStream.FEATURES).getSerializer();
        String id = "date=2026-11-28/hour=23";
        assertThat(serializer.deserialize(serializer.getVersion(), serializer.serialize(id)))
                .isEqualTo(id);
    }
}
