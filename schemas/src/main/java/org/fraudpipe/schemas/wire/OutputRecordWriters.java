package org.fraudpipe.schemas.wire;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import org.apache.avro.Schema;
import org.apache.avro.SchemaNormalization;
import org.apache.avro.io.Encoder;
import org.fraudpipe.schemas.avro.ChallengerScore;
import org.fraudpipe.schemas.avro.FeatureRecord;
import org.fraudpipe.schemas.avro.ScoreRecord;
import org.fraudpipe.schemas.avro.WindowKey;

/**
 * Hand-written Avro binary writers for the records the job writes once per window result: {@link
 * FeatureRecord}, {@link ScoreRecord} (which embeds one) and their {@link WindowKey}. They write
 * the very bytes {@code SpecificDatumWriter} writes (fields in schema order, zig-zag varints,
 * length-prefixed UTF-8, enum indexes, little-endian doubles, timestamps as epoch millis), without
 * its per-field dispatch, boxing and logical-type conversions, which made Avro encoding about a
 * tenth of the window thread's CPU (docs/BENCHMARKS.md).
 *
 * <p>Invariant: a writer is used only for the schema it was written for. {@link #forSchema} checks
 * the schema's parsing fingerprint (which changes with anything that changes the binary encoding:
 * fields, their order and types, enum symbols) and returns null for any other schema, so a schema
 * change falls back to Avro's own writer until this class is updated ({@code
 * OutputRecordWritersTest} fails first: it checks the fingerprints and compares the bytes with
 * Avro's on random records). The system property {@value #DISABLE_PROPERTY}{@code =true} turns them
 * off (Avro's writer for everything), for comparisons and diagnosis.
 */
final class OutputRecordWriters {

    /** Writes one record's Avro binary body (no framing). */
    @FunctionalInterface
    interface Writer<T> {
        void write(T record, Encoder out) throws IOException;
    }

    /** Set to {@code true} to write every record with Avro's {@code SpecificDatumWriter}. */
    static final String DISABLE_PROPERTY = "fraudpipe.avro.generic-writers";

    /** Parsing fingerprints (CRC-64-AVRO) of the schemas the writers below were written for. */
    static final long FEATURE_RECORD_FINGERPRINT = -1570160131830516890L;

    static final long SCORE_RECORD_FINGERPRINT = 512887224938521453L;
    static final long WINDOW_KEY_FINGERPRINT = 806115470600929430L;

    private static final Map<Class<?>, Writer<?>> WRITERS =
            Map.of(
                    FeatureRecord.class,
                    (Writer<FeatureRecord>) OutputRecordWriters::writeFeatureRecord,
                    ScoreRecord.class,
                    (Writer<ScoreRecord>) OutputRecordWriters::writeScoreRecord,
                    WindowKey.class,
                    (Writer<WindowKey>) OutputRecordWriters::writeWindowKey);

    private static final Map<Class<?>, Long> FINGERPRINTS =
            Map.of(
                    FeatureRecord.class, FEATURE_RECORD_FINGERPRINT,
                    ScoreRecord.class, SCORE_RECORD_FINGERPRINT,
                    WindowKey.class, WINDOW_KEY_FINGERPRINT);

    private OutputRecordWriters() {}

    /** The hand-written writer of {@code recordClass} if it matches {@code schema}, else null. */
    @SuppressWarnings("unchecked")
    static <T> Writer<T> forSchema(Class<T> recordClass, Schema schema) {
        Long expected = FINGERPRINTS.get(recordClass);
        if (Boolean.getBoolean(DISABLE_PROPERTY)
                || expected == null
                || expected != fingerprint(schema)) {
            return null;
        }
        return (Writer<T>) WRITERS.get(recordClass);
    }

    static long fingerprint(Schema schema) {
        return SchemaNormalization.parsingFingerprint64(schema);
    }

    /**
     * An Avro string (length, then UTF-8 bytes) through {@link String#getBytes}, an intrinsic for
     * ASCII, where Avro 1.12's {@code BinaryEncoder.writeString} encodes char by char.
     */
    private static void writeString(String s, Encoder out) throws IOException {
        out.writeBytes(s.getBytes(StandardCharsets.UTF_8));
    }

    static void writeWindowKey(WindowKey k, Encoder out) throws IOException {
        writeString(k.getUserId(), out);
        out.writeLong(k.getWindowStart().toEpochMilli());
    }

    static void writeFeatureRecord(FeatureRecord f, Encoder out) throws IOException {
        writeString(f.getUserId(), out);
        out.writeLong(f.getWindowStart().toEpochMilli());
        out.writeLong(f.getWindowEnd().toEpochMilli());
        out.writeLong(f.getTxCount());
        out.writeLong(f.getAmountSum());
        out.writeLong(f.getAmountMax());
        out.writeInt(f.getDistinctDevices());
        out.writeInt(f.getDistinctMerchants());
        out.writeInt(f.getDistinctCountries());
        out.writeInt(f.getRevision());
        out.writeEnum(f.getTiming().ordinal());
        out.writeInt(f.getLateRecordsIncluded());
        out.writeLong(f.getEmittedAt().toEpochMilli());
        out.writeLong(f.getWatermark().toEpochMilli());
    }

    static void writeScoreRecord(ScoreRecord s, Encoder out) throws IOException {
        writeString(s.getUserId(), out);
        out.writeLong(s.getWindowStart().toEpochMilli());
        out.writeLong(s.getWindowEnd().toEpochMilli());
        writeFeatureRecord(s.getFeatures(), out);
        out.writeDouble(s.getScore());
        out.writeEnum(s.getDecision().ordinal());
        writeString(s.getModelName(), out);
        writeString(s.getModelVersion(), out);
        out.writeInt(s.getRevision());
        out.writeEnum(s.getTiming().ordinal());
        out.writeLong(s.getScoredAt().toEpochMilli());
        ChallengerScore c = s.getChallenger();
        if (c == null) {
            out.writeIndex(0);
        } else {
            out.writeIndex(1);
            writeString(c.getModelName(), out);
            writeString(c.getModelVersion(), out);
            out.writeDouble(c.getScore());
            out.writeEnum(c.getDecision().ordinal());
        }
    }
}
