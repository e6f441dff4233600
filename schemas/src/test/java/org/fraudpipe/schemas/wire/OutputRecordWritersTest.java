package org.fraudpipe.schemas.wire;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.time.Instant;
import java.util.SplittableRandom;
import org.apache.avro.io.BinaryEncoder;
import org.apache.avro.io.EncoderFactory;
import org.apache.avro.specific.SpecificDatumWriter;
import org.apache.avro.specific.SpecificRecord;
import org.fraudpipe.schemas.avro.ChallengerScore;
import org.fraudpipe.schemas.avro.Decision;
import org.fraudpipe.schemas.avro.FeatureRecord;
import org.fraudpipe.schemas.avro.ScoreRecord;
import org.fraudpipe.schemas.avro.Timing;
import org.fraudpipe.schemas.avro.Transaction;
import org.fraudpipe.schemas.avro.WindowKey;
import org.junit.jupiter.api.Test;

/**
 * The hand-written writers write exactly Avro's bytes, and are used for exactly the schemas they
 * were written for. If a schema changed, the fingerprint test fails: update the writer (and its
 * fingerprint) together with the schema.
 */
class OutputRecordWritersTest {

    private static final SplittableRandom RNG = new SplittableRandom(11);

    @Test
    void writersAreInUseForTheCurrentSchemas() {
        assertThat(OutputRecordWriters.fingerprint(FeatureRecord.getClassSchema()))
                .isEqualTo(OutputRecordWriters.FEATURE_RECORD_FINGERPRINT);
        assertThat(OutputRecordWriters.fingerprint(ScoreRecord.getClassSchema()))
                .isEqualTo(OutputRecordWriters.SCORE_RECORD_FINGERPRINT);
        assertThat(OutputRecordWriters.fingerprint(WindowKey.getClassSchema()))
                .isEqualTo(OutputRecordWriters.WINDOW_KEY_FINGERPRINT);
        assertThat(OutputRecordWriters.forSchema(FeatureRecord.class, FeatureRecord.SCHEMA$))
                .isNotNull();
    }

    @Test
    void anotherSchemaOrClassFallsBackToAvro() {
        assertThat(OutputRecordWriters.forSchema(FeatureRecord.class, WindowKey.SCHEMA$)).isNull();
        assertThat(OutputRecordWriters.forSchema(Transaction.class, Transaction.SCHEMA$)).isNull();
    }

    @Test
    void writeTheSameBytesAsAvroOnRandomRecords() throws IOException {
        for (int i = 0; i < 2000; i++) {
            FeatureRecord f = feature();
            assertSameBytes(f, OutputRecordWriters::writeFeatureRecord);
            assertSameBytes(
                    new WindowKey(f.getUserId(), f.getWindowStart()),
                    OutputRecordWriters::writeWindowKey);
            assertSameBytes(
                    new ScoreRecord(
                            f.getUserId(),
                            f.getWindowStart(),
                            f.getWindowEnd(),
                            f,
                            RNG.nextDouble(),
                            Decision.values()[RNG.nextInt(Decision.values().length)],
                            text(),
                            text(),
                            f.getRevision(),
                            f.getTiming(),
                            instant(),
                            RNG.nextBoolean()
                                    ? null
                                    : new ChallengerScore(
                                            text(),
                                            text(),
                                            RNG.nextDouble(),
                                            Decision.values()[
                                                    RNG.nextInt(Decision.values().length)])),
                    OutputRecordWriters::writeScoreRecord);
        }
    }

    @Test
    void theCodecEncodesWithThemAndDecodesItsOwnBytes() {
        TopicSerdesHolder serdes = new TopicSerdesHolder();
        FeatureRecord f = feature();
        assertThat(serdes.features.decode(serdes.features.encode(f))).isEqualTo(f);
    }

    /** A codec over an in-process registry. */
    private static final class TopicSerdesHolder {
        final ConfluentAvroCodec<FeatureRecord> features =
                TopicSerdes.forRegistry("mock://output-record-writers-test")
                        .valueCodec(
                                org.fraudpipe.schemas.Topic.FEATURES,
                                "features",
                                FeatureRecord.class);
    }

    private static <T extends SpecificRecord> void assertSameBytes(
            T record, OutputRecordWriters.Writer<T> writer) throws IOException {
        ByteArrayOutputStream avro = new ByteArrayOutputStream();
        BinaryEncoder e1 = EncoderFactory.get().binaryEncoder(avro, null);
        @SuppressWarnings("unchecked")
        SpecificDatumWriter<T> datumWriter =
                new SpecificDatumWriter<>((Class<T>) record.getClass());
        datumWriter.write(record, e1);
        e1.flush();
        ByteArrayOutputStream ours = new ByteArrayOutputStream();
        BinaryEncoder e2 = EncoderFactory.get().binaryEncoder(ours, null);
        writer.write(record, e2);
        e2.flush();
        assertThat(ours.toByteArray()).as(record.toString()).isEqualTo(avro.toByteArray());
    }

    private static FeatureRecord feature() {
        return new FeatureRecord(
                text(),
                instant(),
                instant(),
                number(),
                number(),
                number(),
                (int) number(),
                (int) number(),
                (int) number(),
                (int) number(),
                Timing.values()[RNG.nextInt(Timing.values().length)],
                (int) number(),
                instant(),
                instant());
    }

    /** Small, large, negative and extreme values: every varint length. */
    private static long number() {
        return switch (RNG.nextInt(5)) {
            case 0 -> RNG.nextInt(128);
            case 1 -> RNG.nextLong();
            case 2 -> -RNG.nextInt(1 << 20);
            case 3 -> RNG.nextBoolean() ? Integer.MAX_VALUE : Integer.MIN_VALUE;
            default -> RNG.nextInt();
        };
    }

    private static Instant instant() {
        return Instant.ofEpochMilli(RNG.nextLong(-1L << 45, 1L << 45));
    }

    /** ASCII, accents, symbols outside the BMP, and the empty string. */
    private static String text() {
        String[] parts = {"u-000042", "é", "\uD83D\uDCB3", "", "m-01234", "漢字"};
        StringBuilder sb = new StringBuilder();
        for (int i = RNG.nextInt(4); i > 0; i--) {
            sb.append(parts[RNG.nextInt(parts.length)]);
        }
        return sb.toString();
    }
}
