package org.fraudpipe.job.replay;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.connector.file.src.reader.StreamFormat;
import org.apache.flink.core.fs.FSDataInputStream;
import org.fraudpipe.job.ingest.IngestedRecord;
import org.fraudpipe.job.ingest.RecordIngestor;
import org.fraudpipe.job.ingest.SourcePosition;
import org.fraudpipe.schemas.avro.DeadLetter;
import org.fraudpipe.schemas.avro.DeadLetterReason;
import org.fraudpipe.schemas.avro.Transaction;
import org.fraudpipe.schemas.json.TransactionJson;
import org.junit.jupiter.api.Test;

/** The replay file format as Flink's file source drives it: lines in, ingested records out. */
class ReplayFileFormatTest {

    private static final Instant T0 = Instant.parse("2026-11-28T12:00:00Z");
    private static final ReplayFileFormat FORMAT =
            new ReplayFileFormat("tx.jsonl", new RecordIngestor(Duration.ofMinutes(5)));

    /** An in-memory file as Flink hands it to a format. */
    static final class BytesInputStream extends FSDataInputStream {
        private final byte[] bytes;
        private int pos;
        boolean closed;

        BytesInputStream(byte[] bytes) {
            this.bytes = bytes;
        }

        @Override
        public void seek(long desired) {
            pos = (int) desired;
        }

        @Override
        public long getPos() {
            return pos;
        }

        @Override
        public int read() {
            return pos < bytes.length ? bytes[pos++] & 0xff : -1;
        }

        @Override
        public int read(byte[] b, int off, int len) {
            if (pos >= bytes.length) {
                return -1;
            }
            // Small reads, so that lines straddle them.
            int n = Math.min(Math.min(len, 7), bytes.length - pos);
            System.arraycopy(bytes, pos, b, off, n);
            pos += n;
            return n;
        }

        @Override
        public void close() {
            closed = true;
        }
    }

    private static Transaction tx(String id, long amount, Instant eventTime) {
        return new Transaction(id, "u-1", amount, "EUR", "m-1", "d-1", "DE", eventTime);
    }

    private static String line(String id, long amount, Instant eventTime, Instant arrival) {
        return TransactionJson.toJsonLine(tx(id, amount, eventTime), arrival);
    }

    private static List<IngestedRecord> readAll(byte[] file) throws IOException {
        BytesInputStream in = new BytesInputStream(file);
        List<IngestedRecord> out = new ArrayList<>();
        try (StreamFormat.Reader<IngestedRecord> reader =
                FORMAT.createReader(new Configuration(), in, file.length, file.length)) {
            IngestedRecord r;
            while ((r = reader.read()) != null) {
                out.add(r);
            }
        }
        assertThat(in.closed).isTrue();
        return out;
    }

    private static byte[] utf8(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    private static byte[] bytesOf(ByteBuffer b) {
        byte[] out = new byte[b.remaining()];
        b.duplicate().get(out);
        return out;
    }

    @Test
    void isNotSplittableAndProducesIngestedRecords() {
        assertThat(FORMAT.isSplittable()).isFalse();
        assertThat(FORMAT.getProducedType().getTypeClass()).isEqualTo(IngestedRecord.class);
    }

    @Test
    void everyLineIsOneRecordNumberedFromOneWithUnreadableLinesAsDeadLetters() throws Exception {
        String good = line("t1", 100, T0, T0.plusMillis(200));
        String badJson = "{\"transactionId\":\"t2\",";
        String negative = line("t3", -5, T0, T0.plusSeconds(3));
        ByteArrayOutputStream file = new ByteArrayOutputStream();
        file.write(utf8(good + "\n" + badJson + "\n"));
        file.write(new byte[] {'{', (byte) 0xC3, (byte) 0x28, '}', '\n'}); // not UTF-8
        file.write(utf8("\n")); // empty line
        file.write(utf8(negative + "\r\n")); // CRLF is one line end
        file.write(utf8(line("t4", 7, T0.plusSeconds(4), T0.plusSeconds(4)))); // no final \n

        List<IngestedRecord> records = readAll(file.toByteArray());

        assertThat(records).hasSize(6);
        assertThat(records.get(0).transaction.getTransactionId()).isEqualTo("t1");
        assertThat(records.get(0).receivedAt).isEqualTo(T0.plusMillis(200).toEpochMilli());
        assertThat(records.get(5).transaction.getTransactionId()).isEqualTo("t4");
        // A valid line's position, for its archive record: the file, partition 0, its line.
        assertThat(records.get(0).position()).isEqualTo(new SourcePosition("tx.jsonl", 0, 1, null));
        assertThat(records.get(5).position()).isEqualTo(new SourcePosition("tx.jsonl", 0, 6, null));

        DeadLetter json = records.get(1).deadLetter;
        assertThat(json.getReason()).isEqualTo(DeadLetterReason.UNDECODABLE);
        assertThat(json.getSourceTopic()).isEqualTo("tx.jsonl");
        assertThat(json.getSourcePartition()).isZero();
        assertThat(json.getSourceOffset()).isEqualTo(2);
        assertThat(json.getErrorMessage()).startsWith("tx.jsonl:2: not valid JSON");
        assertThat(bytesOf(json.getValue())).isEqualTo(utf8(badJson));
        assertThat(json.getKey()).isNull();
        assertThat(json.getRecordTimestamp()).isNull();
        // No time of its own: the replay's clock, the latest arrival read so far.
        assertThat(json.getDetectedAt()).isEqualTo(T0.plusMillis(200));

        DeadLetter notUtf8 = records.get(2).deadLetter;
        assertThat(notUtf8.getReason()).isEqualTo(DeadLetterReason.UNDECODABLE);
        assertThat(notUtf8.getSourceOffset()).isEqualTo(3);
        assertThat(notUtf8.getErrorMessage()).startsWith("tx.jsonl:3: not valid UTF-8");
        assertThat(bytesOf(notUtf8.getValue()))
                .isEqualTo(new byte[] {'{', (byte) 0xC3, (byte) 0x28, '}'});

        DeadLetter empty = records.get(3).deadLetter;
        assertThat(empty.getSourceOffset()).isEqualTo(4);
        assertThat(empty.getErrorMessage()).startsWith("tx.jsonl:4: empty line");

        DeadLetter invalid = records.get(4).deadLetter;
        assertThat(invalid.getReason()).isEqualTo(DeadLetterReason.INVALID);
        assertThat(invalid.getSourceOffset()).isEqualTo(5);
        assertThat(invalid.getErrorMessage()).startsWith("amountMinor is negative (-5)");
        assertThat(bytesOf(invalid.getValue())).isEqualTo(utf8(negative));
        assertThat(invalid.getDetectedAt()).isEqualTo(T0.plusSeconds(3));
    }

    @Test
    void aDeadLetterBeforeAnyArrivalIsDetectedAtTheEpoch() throws Exception {
        List<IngestedRecord> records = readAll(utf8("oops\n"));

        assertThat(records)
                .singleElement()
                .satisfies(
                        r -> {
                            assertThat(r.deadLetter.getDetectedAt()).isEqualTo(Instant.EPOCH);
                            assertThat(r.receivedAt).isZero();
                        });
    }

    @Test
    void futureDatedIsDecidedAgainstTheArrivalTime() throws Exception {
        Instant arrival = T0;
        String justInside = line("in", 1, arrival.plus(Duration.ofMinutes(5)), arrival);
        String beyond = line("out", 1, arrival.plus(Duration.ofMinutes(5)).plusMillis(1), arrival);

        List<IngestedRecord> records = readAll(utf8(justInside + "\n" + beyond + "\n"));

        assertThat(records.get(0).futureDated).isFalse();
        assertThat(records.get(1).futureDated).isTrue();
        assertThat(records.get(1).isWindowable()).isFalse();
    }

    @Test
    void withoutArrivalTimeTheEventTimeIsTheArrivalSoNothingIsFutureDated() throws Exception {
        Instant farFuture = T0.plus(Duration.ofDays(365));
        String noArrival = line("t", 1, farFuture, null);
        assertThat(noArrival).doesNotContain("arrivalTime");

        List<IngestedRecord> records = readAll(utf8(noArrival + "\nbroken\n"));

        assertThat(records.get(0).futureDated).isFalse();
        assertThat(records.get(0).receivedAt).isEqualTo(farFuture.toEpochMilli());
        // A valid line without arrival time advances the replay's clock by its event time.
        assertThat(records.get(1).deadLetter.getDetectedAt()).isEqualTo(farFuture);
    }

    @Test
    void anInvalidLineWithoutArrivalTimeDoesNotMoveTheClock() throws Exception {
        String valid = line("a", 1, T0, T0.plusSeconds(1));
        String invalidNoArrival = line("b", -1, T0.plus(Duration.ofDays(999)), null);

        List<IngestedRecord> records =
                readAll(utf8(valid + "\n" + invalidNoArrival + "\nbroken\n"));

        assertThat(records.get(1).deadLetter.getReason()).isEqualTo(DeadLetterReason.INVALID);
        assertThat(records.get(2).deadLetter.getDetectedAt()).isEqualTo(T0.plusSeconds(1));
    }

    @Test
    void anEmptyFileHasNoRecordsAndAFinalNewlineNoEmptyLastLine() throws Exception {
        assertThat(readAll(new byte[0])).isEmpty();
        assertThat(readAll(utf8(line("a", 1, T0, T0) + "\n"))).hasSize(1);
    }
}
