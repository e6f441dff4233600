package org.fraudpipe.job.archive;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import org.apache.flink.util.Collector;
import org.fraudpipe.job.ingest.IngestedRecord;
import org.fraudpipe.job.ingest.RecordIngestor;
import org.fraudpipe.job.ingest.SourcePosition;
import org.fraudpipe.schemas.avro.ArchivedTransaction;
import org.fraudpipe.schemas.avro.DeadLetterReason;
import org.fraudpipe.schemas.avro.Transaction;
import org.junit.jupiter.api.Test;

class ReceivedTransactionsTest {

    static final Instant T0 = Instant.parse("2026-11-28T12:00:00Z");
    final RecordIngestor ingestor = new RecordIngestor(Duration.ofMinutes(5));

    static Transaction tx(String id, Instant eventTime) {
        return new Transaction(id, "u1", 1250L, "EUR", "m1", "d1", "DE", eventTime);
    }

    private static List<ArchivedTransaction> flatMap(IngestedRecord... records) {
        List<ArchivedTransaction> out = new ArrayList<>();
        Collector<ArchivedTransaction> collector =
                new Collector<>() {
                    @Override
                    public void collect(ArchivedTransaction record) {
                        out.add(record);
                    }

                    @Override
                    public void close() {}
                };
        for (IngestedRecord r : records) {
            new ReceivedTransactions().flatMap(r, collector);
        }
        return out;
    }

    @Test
    void aKafkaRecordIsArchivedWithItsPositionTimestampAndArrival() {
        SourcePosition pos = new SourcePosition("transactions", 2, 41, T0.plusMillis(7));
        long arrival = T0.plusSeconds(3).toEpochMilli();
        IngestedRecord r = ingestor.ingestDecoded(pos, null, new byte[0], tx("t1", T0), arrival);

        ArchivedTransaction a = ReceivedTransactions.toArchived(r);

        assertThat(a.getTransaction()).isEqualTo(tx("t1", T0));
        assertThat(a.getSourceTopic()).isEqualTo("transactions");
        assertThat(a.getSourcePartition()).isEqualTo(2);
        assertThat(a.getSourceOffset()).isEqualTo(41);
        assertThat(a.getRecordTimestamp()).isEqualTo(T0.plusMillis(7));
        assertThat(a.getReceivedAt()).isEqualTo(T0.plusSeconds(3));
        assertThat(a.getQuarantined()).isFalse();
    }

    @Test
    void aReplayLineHasNoRecordTimestampAndItsLineAsOffset() {
        SourcePosition pos = new SourcePosition("tx.jsonl", 0, 13, null);
        IngestedRecord r =
                ingestor.ingestDecoded(pos, null, new byte[0], tx("t1", T0), T0.toEpochMilli());

        ArchivedTransaction a = ReceivedTransactions.toArchived(r);

        assertThat(a.getSourceTopic()).isEqualTo("tx.jsonl");
        assertThat(a.getSourcePartition()).isZero();
        assertThat(a.getSourceOffset()).isEqualTo(13);
        assertThat(a.getRecordTimestamp()).isNull();
        assertThat(a.getReceivedAt()).isEqualTo(T0);
    }

    @Test
    void aFutureDatedTransactionIsArchivedFlaggedQuarantined() {
        SourcePosition pos = new SourcePosition("transactions", 0, 1, null);
        IngestedRecord future =
                ingestor.ingestDecoded(
                        pos,
                        null,
                        new byte[0],
                        tx("f", T0.plus(Duration.ofHours(1))),
                        0L + T0.toEpochMilli());
        assertThat(future.futureDated).isTrue();

        assertThat(flatMap(future))
                .singleElement()
                .satisfies(
                        a -> {
                            assertThat(a.getQuarantined()).isTrue();
                            assertThat(a.getTransaction().getTransactionId()).isEqualTo("f");
                        });
    }

    @Test
    void deadLettersAreNotArchivedAsReceivedTransactionsButEveryValidRecordIsOnce() {
        SourcePosition p1 = new SourcePosition("transactions", 0, 1, null);
        SourcePosition p2 = new SourcePosition("transactions", 0, 2, null);
        SourcePosition p3 = new SourcePosition("transactions", 0, 3, null);
        IngestedRecord valid =
                ingestor.ingestDecoded(p1, null, null, tx("a", T0), T0.toEpochMilli());
        IngestedRecord retry =
                ingestor.ingestDecoded(p3, null, null, tx("a", T0), T0.toEpochMilli());
        IngestedRecord dead =
                RecordIngestor.deadLetter(
                        p2,
                        null,
                        new byte[] {1},
                        T0.toEpochMilli(),
                        DeadLetterReason.UNDECODABLE,
                        "x");

        assertThat(flatMap(valid, dead, retry))
                .extracting(ArchivedTransaction::getSourceOffset)
                .containsExactly(1L, 3L);
        assertThatThrownBy(() -> ReceivedTransactions.toArchived(dead))
                .isInstanceOf(IllegalArgumentException.class);
    }
}
