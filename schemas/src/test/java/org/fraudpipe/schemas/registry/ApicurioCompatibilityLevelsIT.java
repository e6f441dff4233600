package org.fraudpipe.schemas.registry;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.avro.Schema;
import org.apache.avro.generic.GenericData;
import org.apache.avro.generic.GenericDatumWriter;
import org.apache.avro.generic.GenericRecord;
import org.apache.avro.io.BinaryEncoder;
import org.apache.avro.io.EncoderFactory;
import org.fraudpipe.schemas.SampleRecords;
import org.fraudpipe.schemas.Topic;
import org.fraudpipe.schemas.TopicNames;
import org.fraudpipe.schemas.avro.DeadLetterReason;
import org.fraudpipe.schemas.avro.Transaction;
import org.fraudpipe.schemas.wire.ConfluentAvroCodec;
import org.fraudpipe.schemas.wire.TopicSerdes;
import org.fraudpipe.schemas.wire.WireFormatException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Compatibility levels against a real third-party registry (Apicurio Registry 2.4.2's Confluent
 * API), and what they mean for the streaming job reading producers' data (issue #15 item 8): under
 * BACKWARD a producer's schema change can make every new record a dead letter; under
 * FULL_TRANSITIVE, the level the project sets, the registry refuses that change and accepts those
 * the job can read.
 *
 * <p>One registry serves the class: every test uses subjects of its own.
 */
class ApicurioCompatibilityLevelsIT {

    @RegisterExtension static final ApicurioRegistry APICURIO = new ApicurioRegistry();

    private static final ObjectMapper JSON = new ObjectMapper();
    private static final Schema TX = Transaction.getClassSchema();
    private static final AtomicInteger SUBJECTS = new AtomicInteger();

    /** A client with empty caches, so that every call is answered by the registry itself. */
    private static ConfluentSchemaRegistryClient freshClient() {
        return new ConfluentSchemaRegistryClient(APICURIO.url());
    }

    @Test
    void theClientReadsTheEffectiveLevelAndSetsASubjectsOwnAsApicurioKeepsThem() throws Exception {
        ConfluentSchemaRegistryClient client = freshClient();
        String unknown = "levels-unknown-value";
        String registered = "levels-registered-value";
        client.register(registered, TX);

        // Apicurio's global default is NONE; it answers 404 for the config of a subject it does
        // not know, so the client falls back to the global level.
        assertThat(APICURIO.get("/config/" + unknown).statusCode()).isEqualTo(404);
        assertThat(client.compatibilityLevel(unknown)).isEqualTo(CompatibilityLevel.NONE);
        assertThat(client.compatibilityLevel(registered)).isEqualTo(CompatibilityLevel.NONE);

        client.setCompatibilityLevel(unknown, CompatibilityLevel.FULL_TRANSITIVE);
        client.setCompatibilityLevel(registered, CompatibilityLevel.FORWARD);

        assertThat(freshClient().compatibilityLevel(unknown))
                .as("set before the subject has versions")
                .isEqualTo(CompatibilityLevel.FULL_TRANSITIVE);
        assertThat(freshClient().compatibilityLevel(registered))
                .isEqualTo(CompatibilityLevel.FORWARD);
        assertThat(
                        JSON.readTree(APICURIO.get("/config/" + registered).body())
                                .path("compatibilityLevel")
                                .asText())
                .isEqualTo("FORWARD");
        assertThat(
                        JSON.readTree(APICURIO.get("/config").body())
                                .path("compatibilityLevel")
                                .asText())
                .as("the global level is untouched")
                .isEqualTo("NONE");
        // Apicurio's one quirk here: NONE cannot be set on a subject it does not know (404),
        // every other level can.
        assertThatThrownBy(
                        () ->
                                client.setCompatibilityLevel(
                                        "levels-never-registered-value", CompatibilityLevel.NONE))
                .isInstanceOfSatisfying(
                        SchemaRegistryException.class,
                        e -> assertThat(e.httpStatus()).isEqualTo(404));
        // A level set before the first version applies once the subject exists.
        client.register(unknown, TX);
        assertThatThrownBy(() -> client.register(unknown, SchemaChanges.without(TX, "deviceId")))
                .isInstanceOfSatisfying(
                        IncompatibleSchemaException.class,
                        e -> assertThat(e.compatibilityLevel()).isEqualTo("FULL_TRANSITIVE"));
    }

    /**
     * The same table as {@link CompatibilityLevelsTest}: Apicurio accepts and refuses exactly what
     * our registry does, under every level, so what the local registry teaches holds in production.
     */
    @Test
    void apicurioAcceptsAndRefusesEveryChangeUnderEveryLevelAsOurRegistryDoes() {
        List<String> disagreements = new ArrayList<>();
        int checked = 0;
        for (CompatibilityLevelsTest.Change change : CompatibilityLevelsTest.changes()) {
            for (CompatibilityLevel level : CompatibilityLevel.values()) {
                String subject = "table-" + SUBJECTS.incrementAndGet() + "-value";
                ConfluentSchemaRegistryClient client = freshClient();
                // Under Apicurio's global NONE (no test of this class changes it).
                for (Schema version : change.before()) {
                    client.register(subject, version);
                }
                client.setCompatibilityLevel(subject, level);
                boolean expected = change.accepting().contains(level);
                boolean accepted;
                try {
                    client.register(subject, change.next());
                    accepted = true;
                } catch (IncompatibleSchemaException e) {
                    assertThat(e.compatibilityLevel()).isEqualTo(level.name());
                    accepted = false;
                }
                if (accepted != expected) {
                    disagreements.add(
                            change
                                    + " under "
                                    + level
                                    + ": Apicurio "
                                    + (accepted ? "accepted" : "refused"));
                }
                assertThat(freshClient().latestSchema(subject).version())
                        .isEqualTo(change.before().size() + (accepted ? 1 : 0));
                checked++;
            }
        }

        assertThat(checked).isEqualTo(CompatibilityLevelsTest.changes().size() * 7);
        assertThat(disagreements).isEmpty();
    }

    @Test
    void underBackwardAProducerDroppingAFieldIsAcceptedAndEveryRecordOfItIsADeadLetter()
            throws Exception {
        // The issue as it was seen: transactions at BACKWARD, a producer drops a field.
        String topic = "transactions-at-backward";
        String subject = Topic.valueSubject(topic);
        TopicSerdes serdes = TopicSerdes.forRegistry(APICURIO.url());
        serdes.valueSerializer(Topic.TRANSACTIONS, Transaction.class)
                .serialize(topic, SampleRecords.transaction("tx-1"));
        freshClient().setCompatibilityLevel(subject, CompatibilityLevel.BACKWARD);
        Schema withoutDeviceId = SchemaChanges.without(TX, "deviceId");

        int id = freshClient().register(subject, withoutDeviceId);
        byte[] record = framed(id, withoutDeviceId, SampleRecords.transaction("tx-2"));

        assertThat(freshClient().latestSchema(subject).version()).isEqualTo(2);
        assertThatThrownBy(() -> jobsCodec(topic).decode(record))
                .isInstanceOfSatisfying(
                        WireFormatException.class,
                        e ->
                                assertThat(e.reason())
                                        .isEqualTo(DeadLetterReason.INCOMPATIBLE_SCHEMA));
    }

    @Test
    void underFullTransitiveAProducersAddedFieldIsRegisteredAndTheJobReadsItsRecords()
            throws Exception {
        String topic = "transactions";
        String subject = Topic.valueSubject(topic);
        ConfluentSchemaRegistryClient admin = freshClient();
        admin.setCompatibilityLevel(
                subject, TopicNames.defaults().subjectCompatibility().get(subject));
        Transaction current = SampleRecords.transaction("tx-current");
        byte[] currentBytes =
                TopicSerdes.forRegistry(APICURIO.url())
                        .valueSerializer(Topic.TRANSACTIONS, Transaction.class)
                        .serialize(topic, current);
        // A producer moved on: a field more, with a default (FULL: the job ignores it, and a
        // reader on the new schema can read the older records).
        Schema newer = SchemaChanges.withOptionalString(TX, "channel");

        assertThat(admin.compatibilityLevel(subject)).isEqualTo(CompatibilityLevel.FULL_TRANSITIVE);
        int newerId = freshClient().register(subject, newer);
        GenericRecord fromNewer = asGeneric(newer, SampleRecords.transaction("tx-newer"));
        fromNewer.put("channel", "ECOM");
        byte[] newerBytes = framed(newerId, newer, fromNewer);

        assertThat(freshClient().latestSchema(subject))
                .isEqualTo(new RegisteredSchema(subject, newerId, 2, newer));
        ConfluentAvroCodec<Transaction> job = jobsCodec(topic);
        assertThat(job.decode(newerBytes)).isEqualTo(SampleRecords.transaction("tx-newer"));
        assertThat(job.decode(currentBytes)).isEqualTo(current);
    }

    @Test
    void underFullTransitiveDroppingAFieldTheJobNeedsIsRefusedBeforeAnyRecordIsWritten() {
        String topic = "transactions-full-transitive";
        String subject = Topic.valueSubject(topic);
        freshClient().setCompatibilityLevel(subject, CompatibilityLevel.FULL_TRANSITIVE);
        int jobsId = TopicSerdes.forRegistry(APICURIO.url()).registry().register(subject, TX);
        Schema withoutDeviceId = SchemaChanges.without(TX, "deviceId");
        ConfluentSchemaRegistryClient producer = freshClient();

        assertThat(producer.testCompatibility(subject, withoutDeviceId)).isFalse();
        // A producer's serializer registers (or looks up) its schema before it sends anything: the
        // refusal stops it there.
        assertThatThrownBy(() -> producer.register(subject, withoutDeviceId))
                .isInstanceOfSatisfying(
                        IncompatibleSchemaException.class,
                        e -> {
                            assertThat(e.subject()).isEqualTo(subject);
                            assertThat(e.compatibilityLevel()).isEqualTo("FULL_TRANSITIVE");
                            assertThat(e.httpStatus()).isEqualTo(409);
                        })
                .hasMessageContaining("'" + subject + "'")
                .hasMessageContaining(
                        "FULL_TRANSITIVE: BACKWARD and FORWARD against every earlier version")
                .hasMessageContaining("deviceId");
        assertThat(freshClient().latestSchema(subject))
                .isEqualTo(new RegisteredSchema(subject, jobsId, 1, TX));
    }

    @Test
    void fullTransitiveChecksEveryVersionWhereFullChecksOnlyTheLatest() {
        // Version 2 gave deviceId a default; a third without it is FULL with version 2 only.
        Schema defaulted = SchemaChanges.withDefault(TX, "deviceId", "unknown");
        Schema withoutDeviceId = SchemaChanges.without(TX, "deviceId");
        String full = "full-latest-only-value";
        String transitive = "full-every-version-value";
        ConfluentSchemaRegistryClient client = freshClient();
        for (String subject : List.of(full, transitive)) {
            client.register(subject, TX);
            client.register(subject, defaulted);
        }
        client.setCompatibilityLevel(full, CompatibilityLevel.FULL);
        client.setCompatibilityLevel(transitive, CompatibilityLevel.FULL_TRANSITIVE);

        assertThat(client.register(full, withoutDeviceId)).isPositive();
        assertThatThrownBy(() -> client.register(transitive, withoutDeviceId))
                .isInstanceOfSatisfying(
                        IncompatibleSchemaException.class,
                        e -> assertThat(e.compatibilityLevel()).isEqualTo("FULL_TRANSITIVE"));
        assertThat(freshClient().latestSchema(full).version()).isEqualTo(3);
        assertThat(freshClient().latestSchema(transitive).version()).isEqualTo(2);
    }

    // ---------------------------------------------------------------------------------------

    /** The codec the job decodes its input with (its Kafka deserializer wraps it). */
    private static ConfluentAvroCodec<Transaction> jobsCodec(String topic) {
        return TopicSerdes.forRegistry(APICURIO.url())
                .valueCodec(Topic.TRANSACTIONS, topic, Transaction.class);
    }

    /** {@code tx}'s fields in a record of {@code schema} (fields {@code schema} lacks dropped). */
    private static GenericRecord asGeneric(Schema schema, Transaction tx) {
        GenericRecord record = new GenericData.Record(schema);
        for (Schema.Field field : schema.getFields()) {
            if (TX.getField(field.name()) != null) {
                Object value = tx.get(field.name());
                record.put(
                        field.name(),
                        value instanceof java.time.Instant t ? (Object) t.toEpochMilli() : value);
            }
        }
        return record;
    }

    private static byte[] framed(int id, Schema schema, Transaction tx) throws IOException {
        return framed(id, schema, asGeneric(schema, tx));
    }

    private static byte[] framed(int id, Schema schema, GenericRecord record) throws IOException {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        out.write(new byte[] {0, (byte) (id >>> 24), (byte) (id >>> 16), (byte) (id >>> 8)});
        out.write(id & 0xff);
        BinaryEncoder encoder = EncoderFactory.get().binaryEncoder(out, null);
        new GenericDatumWriter<GenericRecord>(schema).write(record, encoder);
        encoder.flush();
        return out.toByteArray();
    }
}
