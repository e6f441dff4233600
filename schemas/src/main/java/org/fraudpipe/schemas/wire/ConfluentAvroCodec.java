package org.fraudpipe.schemas.wire;

import java.io.IOException;
import java.io.OutputStream;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentMap;
import org.apache.avro.Schema;
import org.apache.avro.io.BinaryDecoder;
import org.apache.avro.io.BinaryEncoder;
import org.apache.avro.io.DecoderFactory;
import org.apache.avro.io.EncoderFactory;
import org.apache.avro.specific.SpecificData;
import org.apache.avro.specific.SpecificDatumReader;
import org.apache.avro.specific.SpecificDatumWriter;
import org.apache.avro.specific.SpecificRecord;
import org.fraudpipe.schemas.avro.DeadLetterReason;
import org.fraudpipe.schemas.registry.AvroCompatibility;
import org.fraudpipe.schemas.registry.NotAvroSchemaException;
import org.fraudpipe.schemas.registry.RegisteredSchema;
import org.fraudpipe.schemas.registry.SchemaNotFoundException;
import org.fraudpipe.schemas.registry.SchemaRegistryClient;
import org.fraudpipe.schemas.registry.SubjectNotFoundException;

/**
 * Encodes and decodes one generated Avro class in the Confluent {@link WireFormat} for one subject.
 *
 * <p><b>Encoding</b> writes with the class's own schema, registered under the subject on first use
 * (like Confluent's default {@code auto.register.schemas=true}); the id is then cached for the life
 * of the codec. The job's per-pane outputs ({@code FeatureRecord}, {@code ScoreRecord}, {@code
 * WindowKey}) are written by hand-written writers that produce the same bytes ({@link
 * OutputRecordWriters}); everything else by Avro's {@code SpecificDatumWriter}.
 *
 * <p><b>Decoding</b> reads the writer schema id from the header, fetches the writer schema once per
 * id, checks once per id that the class's schema can read it ({@link AvroCompatibility}), and
 * resolves writer to reader ({@code SpecificDatumReader(writer, reader)}): a record written with an
 * older version of the schema decodes into the current class. Every way the bytes can be bad throws
 * {@link WireFormatException} with its {@link DeadLetterReason}; a registry that cannot be reached
 * throws {@link org.fraudpipe.schemas.registry.SchemaRegistryException} (not a data problem: do not
 * dead-letter the record).
 *
 * <p><b>Threads.</b> A codec is safe to use from any number of threads at once (Kafka serializers
 * are shared by the application's threads; Flink uses one per task). Shared state is immutable or
 * concurrent (the writer id, the per-writer-id resolution); all mutable Avro machinery (output
 * buffer, encoder, decoder, datum readers and writer) is confined to the calling thread through a
 * {@link ThreadLocal}, created on a thread's first call and reused for every record after it. So
 * per record an encode allocates only the returned array, and a decode the record itself plus
 * Avro's small per-input source object (its {@code BinaryDecoder} cannot be re-pointed without
 * one); the reader of the thread's last writer id is found without a map lookup.
 */
public final class ConfluentAvroCodec<T extends SpecificRecord> {

    private static final int INITIAL_BUFFER = 256;
    private static final int MAX_RETAINED_BUFFER = 1 << 20;

    private final SchemaRegistryClient registry;
    private final String subject;
    private final Class<T> recordClass;
    private final SpecificData model;
    private final Schema readerSchema;
    private final ThreadLocal<Workspace<T>> workspaces;

    /**
     * A hand-written writer for the class's schema, or null: Avro's {@code SpecificDatumWriter}.
     */
    private final OutputRecordWriters.Writer<T> fastWriter;

    private final ConcurrentMap<Integer, Resolution> resolutions = new ConcurrentHashMap<>();
    private volatile int writerSchemaId = WireFormatException.NO_SCHEMA_ID;

    /** What decoding needs to know about one writer schema id; immutable. */
    private record Resolution(Schema writerSchema, String incompatibility) {}

    /**
     * @param registry where schemas are registered and looked up
     * @param subject the subject, e.g. {@code transactions-value} ({@link
     *     org.fraudpipe.schemas.Topic#valueSubject})
     * @param recordClass the generated class: its schema is the writer schema when encoding and the
     *     reader schema when decoding
     */
    public ConfluentAvroCodec(SchemaRegistryClient registry, String subject, Class<T> recordClass) {
        this.registry = Objects.requireNonNull(registry, "registry");
        this.subject = Objects.requireNonNull(subject, "subject");
        this.recordClass = Objects.requireNonNull(recordClass, "recordClass");
        this.model = SpecificData.getForClass(recordClass);
        this.readerSchema = model.getSchema(recordClass);
        this.workspaces = ThreadLocal.withInitial(() -> new Workspace<>(readerSchema, model));
        this.fastWriter = OutputRecordWriters.forSchema(recordClass, readerSchema);
    }

    public SchemaRegistryClient registry() {
        return registry;
    }

    public String subject() {
        return subject;
    }

    public Class<T> recordClass() {
        return recordClass;
    }

    /** The class's schema: the writer schema of {@link #encode}, the reader of {@link #decode}. */
    public Schema schema() {
        return readerSchema;
    }

    /**
     * The id {@link #encode} writes: the class's schema registered under the subject (registered on
     * the first call, cached after).
     *
     * @throws org.fraudpipe.schemas.registry.IncompatibleSchemaException if the subject's latest
     *     version cannot be read with the class's schema
     */
    public int writerSchemaId() {
        int id = writerSchemaId;
        if (id == WireFormatException.NO_SCHEMA_ID) {
            id = registry.register(subject, readerSchema);
            writerSchemaId = id;
        }
        return id;
    }

    /**
     * The framed bytes of {@code record}: magic byte, writer schema id, Avro binary body.
     *
     * @throws IllegalArgumentException if the record does not match its schema (e.g. a required
     *     field is null)
     */
    public byte[] encode(T record) {
        if (record == null) {
            throw new NullPointerException("cannot encode a null " + recordClass.getSimpleName());
        }
        int id = writerSchemaId();
        Workspace<T> ws = workspaces.get();
        try {
            ws.out.reset();
            ws.out.writeHeader(id);
            if (fastWriter != null) {
                fastWriter.write(record, ws.encoder);
            } else {
                ws.writer.write(record, ws.encoder);
            }
            ws.encoder.flush();
            return ws.out.toByteArray();
        } catch (IOException | RuntimeException e) {
            // The encoder may hold half a record: start the next one from a clean workspace.
            workspaces.remove();
            throw new IllegalArgumentException(
                    "Cannot encode "
                            + recordClass.getSimpleName()
                            + " for subject '"
                            + subject
                            + "' (schema id "
                            + id
                            + "): "
                            + e
                            + ". The record does not match its schema (a required field is null"
                            + " or has a value of the wrong type); fix the code that built it.",
                    e);
        }
    }

    /**
     * The record in {@code framed}, resolved from its writer schema to the class's schema.
     *
     * @throws WireFormatException if the bytes are not a record of this subject (see its reasons)
     * @throws org.fraudpipe.schemas.registry.SchemaRegistryException if the registry cannot be
     *     asked for the writer schema
     */
    public T decode(byte[] framed) {
        int id = WireFormat.schemaId(framed, subject);
        Workspace<T> ws = workspaces.get();
        SpecificDatumReader<T> reader =
                ws.lastReader != null && ws.lastReaderId == id ? ws.lastReader : reader(ws, id);
        ws.binary =
                DecoderFactory.get()
                        .binaryDecoder(
                                framed,
                                WireFormat.HEADER_SIZE,
                                framed.length - WireFormat.HEADER_SIZE,
                                ws.binary);
        BoundedDecoder in = ws.bounded.reset(ws.binary);
        T record;
        int trailing;
        try {
            record = reader.read(null, in);
            trailing = in.remaining();
        } catch (IOException | RuntimeException e) {
            throw undecodable(id, framed.length, e.toString(), e);
        }
        if (trailing != 0) {
            throw undecodable(
                    id,
                    framed.length,
                    trailing + " bytes are left over after the record (trailing garbage)",
                    null);
        }
        return record;
    }

    /**
     * Resolves the subject's latest version now, the writer schema its records most likely name,
     * and makes this thread's reader for it: the first record then decodes without a registry round
     * trip (a fresh job's first records waited for it). Nothing to do for a subject without
     * versions; a latest version the class cannot read is left to {@link #decode} to report.
     *
     * @throws org.fraudpipe.schemas.registry.SchemaRegistryException if the registry cannot be
     *     asked
     */
    public void prepareLatest() {
        RegisteredSchema latest;
        try {
            latest = registry.latestSchema(subject);
        } catch (SubjectNotFoundException nothingYet) {
            return;
        }
        if (resolve(latest.id()).incompatibility() == null) {
            reader(workspaces.get(), latest.id());
        }
    }

    /** The thread's reader for writer schema {@code id}; remembered as the thread's last one. */
    private SpecificDatumReader<T> reader(Workspace<T> ws, int id) {
        Resolution resolution = resolve(id);
        if (resolution.incompatibility() != null) {
            throw new WireFormatException(
                    DeadLetterReason.INCOMPATIBLE_SCHEMA,
                    subject,
                    id,
                    resolution.incompatibility(),
                    null);
        }
        SpecificDatumReader<T> reader =
                ws.readers.computeIfAbsent(
                        id,
                        i ->
                                new SpecificDatumReader<>(
                                        resolution.writerSchema(), readerSchema, model));
        ws.lastReaderId = id;
        ws.lastReader = reader;
        return reader;
    }

    private Resolution resolve(int id) {
        Resolution resolution = resolutions.get(id);
        if (resolution != null) {
            return resolution;
        }
        Schema writer;
        try {
            writer = registry.getSchemaById(id);
        } catch (NotAvroSchemaException e) {
            throw new WireFormatException(
                    DeadLetterReason.INCOMPATIBLE_SCHEMA,
                    subject,
                    id,
                    "Incompatible writer schema: the record for subject '"
                            + subject
                            + "' names schema id "
                            + id
                            + ", which is not an Avro schema "
                            + readerSchema.getFullName()
                            + " can read. "
                            + e.getMessage(),
                    e);
        } catch (SchemaNotFoundException e) {
            throw new WireFormatException(
                    DeadLetterReason.UNKNOWN_SCHEMA,
                    subject,
                    id,
                    "Unknown writer schema: the record for subject '"
                            + subject
                            + "' names schema id "
                            + id
                            + ", which the registry at "
                            + registry.url()
                            + " does not have. It was written against another registry, or is"
                            + " not Confluent-framed Avro at all.",
                    e);
        }
        List<String> problems = AvroCompatibility.readerIncompatibilities(readerSchema, writer);
        String incompatibility =
                problems.isEmpty()
                        ? null
                        : "Incompatible writer schema: the record for subject '"
                                + subject
                                + "' was written with schema id "
                                + id
                                + " ("
                                + writer.getFullName()
                                + "), which "
                                + readerSchema.getFullName()
                                + " cannot read: "
                                + String.join("; ", problems)
                                + ". The producer broke the contract: its schema must stay"
                                + " BACKWARD compatible (see schemas/README.md).";
        resolution = new Resolution(writer, incompatibility);
        Resolution raced = resolutions.putIfAbsent(id, resolution);
        return raced != null ? raced : resolution;
    }

    private WireFormatException undecodable(int id, int length, String problem, Throwable cause) {
        return new WireFormatException(
                DeadLetterReason.UNDECODABLE,
                subject,
                id,
                "Undecodable record: "
                        + length
                        + " bytes for subject '"
                        + subject
                        + "' with writer schema id "
                        + id
                        + " do not decode as "
                        + readerSchema.getFullName()
                        + ": "
                        + problem
                        + ". The bytes are corrupt or were not written with that schema.",
                cause);
    }

    @Override
    public String toString() {
        return "ConfluentAvroCodec["
                + recordClass.getSimpleName()
                + ", subject="
                + subject
                + ", registry="
                + registry.url()
                + "]";
    }

    /** The per-thread mutable machinery of one codec. */
    private static final class Workspace<T> {
        final ByteSink out = new ByteSink();
        final BinaryEncoder encoder = EncoderFactory.get().binaryEncoder(out, null);
        final SpecificDatumWriter<T> writer;
        final BoundedDecoder bounded = new BoundedDecoder();
        final Map<Integer, SpecificDatumReader<T>> readers = new HashMap<>();
        int lastReaderId = WireFormatException.NO_SCHEMA_ID;
        SpecificDatumReader<T> lastReader;
        BinaryDecoder binary;

        Workspace(Schema schema, SpecificData model) {
            this.writer = new SpecificDatumWriter<>(schema, model);
        }
    }

    /** An unsynchronized growable byte buffer that does not keep huge arrays around. */
    private static final class ByteSink extends OutputStream {
        private byte[] buf = new byte[INITIAL_BUFFER];
        private int count;

        void reset() {
            count = 0;
            if (buf.length > MAX_RETAINED_BUFFER) {
                buf = new byte[INITIAL_BUFFER];
            }
        }

        void writeHeader(int schemaId) {
            ensure(WireFormat.HEADER_SIZE);
            WireFormat.writeHeader(schemaId, buf, count);
            count += WireFormat.HEADER_SIZE;
        }

        @Override
        public void write(int b) {
            ensure(1);
            buf[count++] = (byte) b;
        }

        @Override
        public void write(byte[] bytes, int offset, int length) {
            ensure(length);
            System.arraycopy(bytes, offset, buf, count, length);
            count += length;
        }

        byte[] toByteArray() {
            return Arrays.copyOf(buf, count);
        }

        private void ensure(int more) {
            if (count + more > buf.length) {
                buf = Arrays.copyOf(buf, Math.max(buf.length * 2, count + more));
            }
        }
    }
}
