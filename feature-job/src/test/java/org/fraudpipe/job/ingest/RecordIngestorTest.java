package org.fraudpipe.job.ingest;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.api.java.typeutils.PojoTypeInfo;
import org.fraudpipe.schemas.avro.DeadLetter;
import org.fraudpipe.schemas.avro.DeadLetterReason;
import org.fraudpipe.schemas.avro.Transaction;
import org.fraudpipe.schemas.registry.SchemaRegistryUnavailableException;
import org.fraudpipe.schemas.wire.WireFormatException;
import org.junit.jupiter.api.Test;

class RecordIngestorTest {

    static final Instant T0 = Instant.parse("2026-11-28T12:00:00Z");
    static final SourcePosition POS = new SourcePosition("transactions", 2, 41, T0);
    static final byte[] KEY = "u1".getBytes(StandardCharsets.UTF_8);
    static final byte[] VALUE = {0, 0, 0, 0, 1, 42};

    final RecordIngestor ingestor = new RecordIngestor(Duration.ofMinutes(5));

    static Transaction tx(Instant eventTime) {
        return Transaction.newBuilder()
                .setTransactionId("t1")
                .setUserId("u1")
                .setAmountMinor(1250)
                .setCurrency("EUR")
                .setMerchantId("m1")
                .setDeviceId("d1")
                .setCountry("DE")
                .setEventTime(eventTime)
                .build();
    }

    @Test
    void aValidTransactionPassesWithItsArrivalTimeAndPosition() {
        long arrival = T0.toEpochMilli() + 1_500;
        IngestedRecord r = ingestor.ingest(POS, KEY, VALUE, arrival, bytes -> tx(T0));
        assertThat(r.transaction).isEqualTo(tx(T0));
        assertThat(r.deadLetter).isNull();
        assertThat(r.futureDated).isFalse();
        assertThat(r.isWindowable()).isTrue();
        assertThat(r.timestamp()).isEqualTo(T0.toEpochMilli());
        assertThat(r.receivedAt).isEqualTo(arrival);
        assertThat(r.position()).isEqualTo(POS);
    }

    @Test
    void aDeadLetterCarriesItsPositionToo() {
        Transaction negative = tx(T0);
        negative.setAmountMinor(-5);
        IngestedRecord r = ingestor.ingest(POS, KEY, VALUE, T0.toEpochMilli(), bytes -> negative);
        assertThat(r.deadLetter).isNotNull();
        assertThat(r.position()).isEqualTo(POS);
        SourcePosition withoutTimestamp = new SourcePosition("tx.jsonl", 0, 7, null);
        assertThat(
                        RecordIngestor.deadLetter(
                                        withoutTimestamp,
                                        null,
                                        VALUE,
                                        0,
                                        DeadLetterReason.UNDECODABLE,
                                        "x")
                                .position())
                .isEqualTo(withoutTimestamp);
    }

    @Test
    void anIngestedRecordIsAFlinkPojoWithItsPosition() {
        // A generic (Kryo) type would still work but slowly and without schema evolution; the
        // nullable record timestamp must not make Flink give up on the POJO.
        assertThat(TypeInformation.of(IngestedRecord.class)).isInstanceOf(PojoTypeInfo.class);
        PojoTypeInfo<IngestedRecord> pojo =
                (PojoTypeInfo<IngestedRecord>) TypeInformation.of(IngestedRecord.class);
        assertThat(pojo.getFieldIndex("recordTimestamp")).isNotNegative();
        assertThat(pojo.getFieldIndex("sourceOffset")).isNotNegative();
    }

    @Test
    void undecodableBytesBecomeADeadLetterWithPositionBytesAndReason() {
        IngestedRecord r =
                ingestor.ingest(
                        POS,
                        KEY,
                        VALUE,
                        T0.toEpochMilli(),
                        bytes -> {
                            throw new WireFormatException(
                                    DeadLetterReason.UNKNOWN_SCHEMA,
                                    "transactions-value",
                                    1,
                                    "schema id 1 is not in the registry",
                                    null);
                        });
        DeadLetter d = r.deadLetter;
        assertThat(r.transaction).isNull();
        assertThat(r.isWindowable()).isFalse();
        assertThat(d.getReason()).isEqualTo(DeadLetterReason.UNKNOWN_SCHEMA);
        assertThat(d.getErrorMessage()).contains("schema id 1");
        assertThat(d.getSourceTopic()).isEqualTo("transactions");
        assertThat(d.getSourcePartition()).isEqualTo(2);
        assertThat(d.getSourceOffset()).isEqualTo(41);
        assertThat(d.getRecordTimestamp()).isEqualTo(T0);
        assertThat(d.getKey()).isEqualTo(ByteBuffer.wrap(KEY));
        assertThat(d.getValue()).isEqualTo(ByteBuffer.wrap(VALUE));
        assertThat(POS.key()).isEqualTo("transactions-2@41");
    }

    @Test
    void anUnexpectedDecoderFailureIsStillADeadLetterNotACrash() {
        IngestedRecord r =
                ingestor.ingest(
                        POS,
                        null,
                        null,
                        T0.toEpochMilli(),
                        bytes -> {
                            throw new NullPointerException("boom");
                        });
        assertThat(r.deadLetter.getReason()).isEqualTo(DeadLetterReason.OTHER);
        assertThat(r.deadLetter.getErrorMessage()).contains("boom");
        assertThat(r.deadLetter.getKey()).isNull();
        assertThat(r.deadLetter.getValue()).isNull();
    }

    @Test
    void anInvalidTransactionIsDeadLetteredWithTheRuleItBroke() {
        Transaction negative = tx(T0);
        negative.setAmountMinor(-5);
        IngestedRecord r = ingestor.ingest(POS, KEY, VALUE, T0.toEpochMilli(), bytes -> negative);
        assertThat(r.deadLetter.getReason()).isEqualTo(DeadLetterReason.INVALID);
        assertThat(r.deadLetter.getErrorMessage()).contains("amountMinor is negative (-5)");
    }

    @Test
    void eventTimeBeyondArrivalPlusToleranceIsFutureDated() {
        long arrival = T0.toEpochMilli();
        IngestedRecord atTolerance =
                ingestor.ingest(POS, KEY, VALUE, arrival, b -> tx(T0.plus(Duration.ofMinutes(5))));
        IngestedRecord beyond =
                ingestor.ingest(
                        POS,
                        KEY,
                        VALUE,
                        arrival,
                        b -> tx(T0.plus(Duration.ofMinutes(5)).plusMillis(1)));
        assertThat(atTolerance.futureDated).isFalse();
        assertThat(beyond.futureDated).isTrue();
        assertThat(beyond.isWindowable()).isFalse();
    }

    @Test
    void futureDatedIsJudgedAgainstTheKafkaRecordTimestampNotWhenTheJobReadsIt() {
        // Appended at T0 by a client whose clock ran two hours ahead; read live, and again when a
        // backlog is reprocessed ten hours later: the same fate both times.
        SourcePosition appendedAtT0 = new SourcePosition("transactions", 3, 42, T0);
        Transaction ahead = tx(T0.plus(Duration.ofHours(2)));
        long live = T0.toEpochMilli() + 50;
        long reprocessed = T0.plus(Duration.ofHours(10)).toEpochMilli();

        IngestedRecord liveRun = ingestor.ingest(appendedAtT0, KEY, VALUE, live, b -> ahead);
        IngestedRecord backlog = ingestor.ingest(appendedAtT0, KEY, VALUE, reprocessed, b -> ahead);

        assertThat(liveRun.futureDated).isTrue();
        assertThat(backlog.futureDated).isTrue();
        assertThat(backlog.arrivalTime()).isEqualTo(T0.toEpochMilli());
        assertThat(backlog.receivedAt).isEqualTo(reprocessed);
    }

    @Test
    void withoutARecordTimestampTheTimeTheRecordWasReadStandsForItsArrival() {
        SourcePosition noTimestamp = new SourcePosition("tx.jsonl", 0, 7, null);
        long arrival = T0.toEpochMilli();
        IngestedRecord beyond =
                ingestor.ingest(
                        noTimestamp,
                        KEY,
                        VALUE,
                        arrival,
                        b -> tx(T0.plus(Duration.ofMinutes(5)).plusMillis(1)));
        assertThat(beyond.futureDated).isTrue();
        assertThat(beyond.arrivalTime()).isEqualTo(arrival);
    }

    @Test
    void aRegistryOutageIsNotBadDataAndFailsInsteadOfDeadLettering() {
        assertThatThrownBy(
                        () ->
                                ingestor.ingest(
                                        POS,
                                        KEY,
                                        VALUE,
                                        T0.toEpochMilli(),
                                        bytes -> {
                                            throw new SchemaRegistryUnavailableException(
                                                    "http://registry:8081",
                                                    "schema 1",
                                                    "connection refused",
                                                    null);
                                        }))
                .isInstanceOf(SchemaRegistryUnavailableException.class);
    }
}
