package org.fraudpipe.schemas.registry;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.apache.avro.Schema;
import org.apache.avro.SchemaBuilder;
import org.apache.avro.generic.GenericData;
import org.apache.avro.generic.GenericDatumWriter;
import org.apache.avro.generic.GenericRecord;
import org.apache.avro.io.BinaryDecoder;
import org.apache.avro.io.BinaryEncoder;
import org.apache.avro.io.DecoderFactory;
import org.apache.avro.io.EncoderFactory;
import org.apache.avro.specific.SpecificData;
import org.apache.avro.specific.SpecificDatumReader;
import org.apache.avro.specific.SpecificDatumWriter;
import org.apache.avro.specific.SpecificRecord;
import org.apache.kafka.common.serialization.Deserializer;
import org.apache.kafka.common.serialization.Serializer;
import org.fraudpipe.schemas.SampleRecords;
import org.fraudpipe.schemas.Topic;
import org.fraudpipe.schemas.TopicNames;
import org.fraudpipe.schemas.avro.DeadLetterReason;
import org.fraudpipe.schemas.avro.Transaction;
import org.fraudpipe.schemas.avro.WindowKey;
import org.fraudpipe.schemas.wire.ConfluentAvroDeserializer;
import org.fraudpipe.schemas.wire.TopicSerdes;
import org.fraudpipe.schemas.wire.WireFormat;
import org.fraudpipe.schemas.wire.WireFormatException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The project's registry client and serdes against a real third-party Confluent-compatible
 * registry: Apicurio Registry 2.4.2 ({@code /apis/ccompat/v7}), in a JVM of its own. Everything
 * else tests the client against our own reading of Confluent's API (our {@link
 * LocalSchemaRegistryServer}, the fake server); this proves it against somebody else's.
 *
 * <p>One registry serves the whole class, so every test uses subjects of its own (or registers
 * exactly what the others register for the default topic names, which is idempotent).
 */
class ApicurioRegistryIT {

    @RegisterExtension static final ApicurioRegistry APICURIO = new ApicurioRegistry();

    private static final ObjectMapper JSON = new ObjectMapper();
    private static final Schema TX = Transaction.getClassSchema();
    private static final TopicNames TOPICS = TopicNames.defaults();

    /** A client with empty caches, so that every call is answered by the registry itself. */
    private static ConfluentSchemaRegistryClient freshClient() {
        return new ConfluentSchemaRegistryClient(APICURIO.url());
    }

    /** Every subject the pipeline registers for its topics, with the schema it registers. */
    private static Map<String, Schema> projectSubjects() {
        Map<String, Schema> subjects = new LinkedHashMap<>();
        for (Topic topic : Topic.values()) {
            String name = TOPICS.name(topic);
            subjects.put(
                    Topic.valueSubject(name),
                    SpecificData.getForClass(topic.valueClass()).getSchema(topic.valueClass()));
            if (topic.keyFormat() == Topic.KeyFormat.WINDOW_KEY) {
                subjects.put(Topic.keySubject(name), WindowKey.getClassSchema());
            }
        }
        return subjects;
    }

    @Test
    void everyProjectSchemaRegistersThroughTheClientAndItsIdIsStableAndGivesItBack()
            throws Exception {
        SchemaRegistryClient client = TopicSerdes.forRegistry(APICURIO.url()).registry();
        Map<String, Schema> subjects = projectSubjects();
        Map<String, Integer> ids = new LinkedHashMap<>();

        subjects.forEach((subject, schema) -> ids.put(subject, client.register(subject, schema)));

        assertThat(client).isInstanceOf(ConfluentSchemaRegistryClient.class);
        assertThat(subjects)
                .containsOnlyKeys(
                        "transactions-value",
                        "features-key",
                        "features-value",
                        "scores-key",
                        "scores-value",
                        "transactions-late-value",
                        "transactions-dead-letters-value",
                        "transaction-scores-value",
                        "model-releases-value");
        // Ids are global: one per distinct schema, shared by subjects with the same schema.
        assertThat(ids.get("features-key")).isEqualTo(ids.get("scores-key"));
        assertThat(new HashSet<>(ids.values())).hasSize(subjects.size() - 1);
        ConfluentSchemaRegistryClient fresh = freshClient();
        for (Map.Entry<String, Schema> entry : subjects.entrySet()) {
            String subject = entry.getKey();
            Schema schema = entry.getValue();
            int id = ids.get(subject);
            assertThat(fresh.register(subject, schema)).as("again: %s", subject).isEqualTo(id);
            assertThat(freshClient().getSchemaById(id)).as("schema of id %s", id).isEqualTo(schema);
            assertThat(fresh.latestSchema(subject))
                    .isEqualTo(new RegisteredSchema(subject, id, 1, schema));
            HttpResponse<String> raw = APICURIO.get("/schemas/ids/" + id);
            assertThat(raw.statusCode()).isEqualTo(200);
            assertThat(new Schema.Parser().parse(JSON.readTree(raw.body()).get("schema").asText()))
                    .isEqualTo(schema);
        }
    }

    @Test
    void underBackwardAnIncompatibleChangeIsRefusedWithTheClientsExceptionAndACompatibleOneIsNot() {
        String subject = Topic.valueSubject("transactions-backward");
        SchemaRegistryClient client = TopicSerdes.forRegistry(APICURIO.url()).registry();
        int v1 = client.register(subject, TX);
        APICURIO.setCompatibility(subject, "BACKWARD");
        // Cannot read v1 data: the new field has no default.
        Schema incompatible = withField(TX, "channel", Schema.create(Schema.Type.STRING), null);
        Schema compatible = withOptionalStringField(TX, "channel");

        assertThat(client.testCompatibility(subject, incompatible)).isFalse();
        assertThatThrownBy(() -> client.register(subject, incompatible))
                .isInstanceOfSatisfying(
                        IncompatibleSchemaException.class,
                        e -> {
                            assertThat(e.subject()).isEqualTo(subject);
                            assertThat(e.compatibilityLevel()).isEqualTo("BACKWARD");
                            assertThat(e.httpStatus()).isEqualTo(409);
                            assertThat(e.errorCode()).as("Apicurio's error_code").isZero();
                        })
                .hasMessageContaining("'" + subject + "'")
                .hasMessageContaining(APICURIO.url())
                .hasMessageContaining("channel");
        assertThat(client.testCompatibility(subject, compatible)).isTrue();
        int v2 = client.register(subject, compatible);

        assertThat(v2).isNotEqualTo(v1);
        assertThat(freshClient().latestSchema(subject))
                .isEqualTo(new RegisteredSchema(subject, v2, 2, compatible));
    }

    @Test
    void underForwardTheRuleIsTheRegistrysAndTheRefusalSaysSo() {
        String subject = Topic.valueSubject("transactions-forward");
        SchemaRegistryClient client = TopicSerdes.forRegistry(APICURIO.url()).registry();
        client.register(subject, TX);
        APICURIO.setCompatibility(subject, "FORWARD");
        // FORWARD: data of the new schema must be readable with the latest. A new required field
        // is fine (old readers skip it); dropping a required field is not.
        Schema newRequiredField = withField(TX, "channel", Schema.create(Schema.Type.STRING), null);
        Schema withoutCountry = withoutField(TX, "country");

        assertThat(client.testCompatibility(subject, withoutCountry)).isFalse();
        assertThatThrownBy(() -> client.register(subject, withoutCountry))
                .isInstanceOfSatisfying(
                        IncompatibleSchemaException.class,
                        e -> {
                            assertThat(e.subject()).isEqualTo(subject);
                            assertThat(e.compatibilityLevel()).isEqualTo("FORWARD");
                        })
                .hasMessageContaining("'" + subject + "'")
                .hasMessageContaining("FORWARD: data written with the new schema")
                .hasMessageNotContaining("BACKWARD:");
        assertThat(client.register(subject, newRequiredField)).isPositive();
    }

    @Test
    void theProjectsSerializersFrameEveryTopicWithApicuriosIdsAndTheDeserializersReadItBack()
            throws Exception {
        TopicSerdes serdes = TopicSerdes.forRegistry(APICURIO.url());
        List<String> checked = new ArrayList<>();

        for (Topic topic : Topic.values()) {
            String name = TOPICS.name(topic);
            valueRoundTrip(serdes, topic, name, topic.valueClass());
            checked.add(Topic.valueSubject(name));
            if (topic.keyFormat() == Topic.KeyFormat.WINDOW_KEY) {
                roundTrip(
                        serdes.keySerializer(topic, WindowKey.class),
                        serdes.keyDeserializer(topic, WindowKey.class),
                        new ConfluentAvroDeserializer<>(freshClient(), WindowKey.class, true),
                        name,
                        Topic.keySubject(name),
                        SampleRecords.windowKey());
                checked.add(Topic.keySubject(name));
            }
        }

        assertThat(checked).containsExactlyInAnyOrderElementsOf(projectSubjects().keySet());
    }

    private static <T extends SpecificRecord> void valueRoundTrip(
            TopicSerdes serdes, Topic topic, String name, Class<T> valueClass) throws Exception {
        roundTrip(
                serdes.valueSerializer(topic, valueClass),
                serdes.valueDeserializer(topic, valueClass),
                new ConfluentAvroDeserializer<>(freshClient(), valueClass, false),
                name,
                Topic.valueSubject(name),
                SampleRecords.of(valueClass));
    }

    /**
     * Serializes {@code record} to {@code topic}, checks the frame against what Apicurio holds
     * (magic byte, Apicurio's id of the subject's latest version, an Avro body that decodes with
     * the schema Apicurio gives for that id), and deserializes it back: with the deserializer of
     * the same serdes (its client has the schema since it registered it) and with one whose client
     * has empty caches, as a consumer in another JVM, which must get the writer schema from
     * Apicurio by the id in the frame.
     */
    private static <T extends SpecificRecord> void roundTrip(
            Serializer<T> serializer,
            Deserializer<T> deserializer,
            Deserializer<T> elsewhere,
            String topic,
            String subject,
            T record)
            throws Exception {
        byte[] bytes = serializer.serialize(topic, record);

        int registryId = freshClient().latestSchema(subject).id();
        assertThat(bytes[0]).as("magic byte of %s", subject).isEqualTo((byte) 0);
        assertThat(ByteBuffer.wrap(bytes, 1, 4).getInt())
                .as("big-endian id of %s", subject)
                .isEqualTo(registryId)
                .isEqualTo(WireFormat.schemaId(bytes));
        byte[] body = Arrays.copyOfRange(bytes, WireFormat.HEADER_SIZE, bytes.length);
        assertThat(body).as("Avro body of %s", subject).isEqualTo(avroBinary(record));
        JsonNode apicurios = JSON.readTree(APICURIO.get("/schemas/ids/" + registryId).body());
        Schema writer = new Schema.Parser().parse(apicurios.get("schema").asText());
        assertThat(decodeAll(body, writer, record.getSchema(), record.getClass()))
                .as("body decoded with Apicurio's schema of id %s", registryId)
                .isEqualTo(record);
        assertThat(deserializer.deserialize(topic, bytes)).isEqualTo(record);
        assertThat(elsewhere.deserialize(topic, bytes)).isEqualTo(record);
    }

    @Test
    void aRecordOfANewerCompatibleWriterSchemaRegisteredInApicurioIsReadIntoTheProjectsClass()
            throws Exception {
        String topic = "transactions-evolved";
        String subject = Topic.valueSubject(topic);
        TopicSerdes serdes = TopicSerdes.forRegistry(APICURIO.url());
        Transaction current = SampleRecords.transaction("tx-current");
        byte[] currentBytes =
                serdes.valueSerializer(Topic.TRANSACTIONS, Transaction.class)
                        .serialize(topic, current);
        APICURIO.setCompatibility(subject, "BACKWARD");
        // Another producer, with its own client, moved on: an optional field more.
        Schema newer = withOptionalStringField(TX, "channel");
        int newerId = freshClient().register(subject, newer);
        GenericRecord fromNewer = new GenericData.Record(newer);
        for (Schema.Field field : TX.getFields()) {
            fromNewer.put(field.name(), current.get(field.name()));
        }
        fromNewer.put("transactionId", "tx-newer");
        fromNewer.put("eventTime", current.getEventTime().toEpochMilli());
        fromNewer.put("channel", "ECOM");
        byte[] newerBytes = framed(newerId, newer, fromNewer);

        Deserializer<Transaction> consumer =
                serdes.valueDeserializer(Topic.TRANSACTIONS, Transaction.class);

        assertThat(WireFormat.schemaId(newerBytes)).isNotEqualTo(WireFormat.schemaId(currentBytes));
        assertThat(freshClient().latestSchema(subject).version()).isEqualTo(2);
        Transaction expected = Transaction.newBuilder(current).setTransactionId("tx-newer").build();
        assertThat(consumer.deserialize(topic, newerBytes)).isEqualTo(expected);
        assertThat(consumer.deserialize(topic, currentBytes)).isEqualTo(current);
    }

    @Test
    void apicuriosCompatibilityCheckAgreesThatTheCurrentTransactionReadsTheOlderOne()
            throws Exception {
        // The older contract (int amount, a field since removed, another order) is version 1; the
        // project's serializer registers the current class as version 2 under BACKWARD, so
        // Apicurio's own Avro check must agree with ours (ReleasedSchemasCompatibilityTest).
        String topic = "transactions-from-v0";
        String subject = Topic.valueSubject(topic);
        Schema v0 = transactionV0();
        int v0Id = freshClient().register(subject, v0);
        APICURIO.setCompatibility(subject, "BACKWARD");
        TopicSerdes serdes = TopicSerdes.forRegistry(APICURIO.url());
        Transaction current = SampleRecords.transaction("tx-current");
        GenericRecord old = new GenericData.Record(v0);
        old.put("userId", "user-7");
        old.put("transactionId", "tx-old");
        old.put("eventTime", SampleRecords.T0.toEpochMilli());
        old.put("amountMinor", 1_999);
        old.put("currency", "EUR");
        old.put("posEntryMode", "CONTACTLESS");
        old.put("country", "FR");
        old.put("merchantId", "merchant-1");
        old.put("deviceId", "device-9");

        byte[] currentBytes =
                serdes.valueSerializer(Topic.TRANSACTIONS, Transaction.class)
                        .serialize(topic, current);
        Deserializer<Transaction> consumer =
                serdes.valueDeserializer(Topic.TRANSACTIONS, Transaction.class);

        assertThat(freshClient().latestSchema(subject))
                .isEqualTo(new RegisteredSchema(subject, WireFormat.schemaId(currentBytes), 2, TX));
        assertThat(consumer.deserialize(topic, framed(v0Id, v0, old)))
                .isEqualTo(
                        Transaction.newBuilder()
                                .setTransactionId("tx-old")
                                .setUserId("user-7")
                                .setAmountMinor(1_999L)
                                .setCurrency("EUR")
                                .setMerchantId("merchant-1")
                                .setDeviceId("device-9")
                                .setCountry("FR")
                                .setEventTime(SampleRecords.T0)
                                .build());
        assertThat(consumer.deserialize(topic, currentBytes)).isEqualTo(current);
    }

    @Test
    void anUnknownSubjectAndAnUnknownIdMapToTheClientsExceptions() {
        ConfluentSchemaRegistryClient client = freshClient();
        int unknownId = 987_654;
        byte[] framedWithUnknownId = {0, 0, 0x0f, 0x12, 0x06, 2, 'x'};

        assertThatThrownBy(() -> client.latestSchema("no-such-topic-value"))
                .isInstanceOfSatisfying(
                        SubjectNotFoundException.class,
                        e -> {
                            assertThat(e.subject()).isEqualTo("no-such-topic-value");
                            assertThat(e.httpStatus()).isEqualTo(404);
                            assertThat(e.errorCode()).as("Apicurio's error_code").isEqualTo(40402);
                        })
                .hasMessageContaining("'no-such-topic-value'")
                .hasMessageContaining(APICURIO.url());
        assertThatThrownBy(() -> client.getSchemaById(unknownId))
                .isInstanceOfSatisfying(
                        SchemaNotFoundException.class,
                        e -> {
                            assertThat(e.schemaId()).isEqualTo(unknownId);
                            assertThat(e.httpStatus()).isEqualTo(404);
                        })
                .hasMessageContaining("Schema id " + unknownId);
        assertThat(WireFormat.schemaId(framedWithUnknownId)).isEqualTo(unknownId);
        assertThatThrownBy(
                        () ->
                                TopicSerdes.forRegistry(APICURIO.url())
                                        .valueDeserializer(Topic.TRANSACTIONS, Transaction.class)
                                        .deserialize("transactions", framedWithUnknownId))
                .isInstanceOfSatisfying(
                        WireFormatException.class,
                        e -> assertThat(e.reason()).isEqualTo(DeadLetterReason.UNKNOWN_SCHEMA));
        assertThat(client.testCompatibility("no-such-topic-value", TX)).isTrue();
    }

    /**
     * What Apicurio answers differently from our {@link LocalSchemaRegistryServer} (which the
     * client must, and does, cope with; see docs/VERSIONS.md), side by side on the same requests.
     */
    @Test
    void whereApicurioAnswersDifferentlyFromOurLocalRegistry() throws Exception {
        String subject = "differences-value";
        Schema incompatible = withField(TX, "channel", Schema.create(Schema.Type.STRING), null);
        try (LocalSchemaRegistryServer local = LocalSchemaRegistryServer.start(0, null)) {
            Registry ours = new Registry(local.url());
            Registry apicurio = new Registry(APICURIO.url());

            // Compatibility: ours defaults to BACKWARD (as Confluent); Apicurio's default is NONE,
            // so a subject nobody configured takes any change.
            assertThat(ours.get("/config").path("compatibilityLevel").asText())
                    .isEqualTo("BACKWARD");
            assertThat(apicurio.get("/config").path("compatibilityLevel").asText())
                    .isEqualTo("NONE");
            assertThat(ours.register(subject, TX.toString()).status).isEqualTo(200);
            assertThat(apicurio.register(subject, TX.toString()).status).isEqualTo(200);
            assertThat(ours.register(subject, incompatible.toString()).status).isEqualTo(409);
            assertThat(apicurio.register(subject, incompatible.toString()).status).isEqualTo(200);

            // Unknown subject: Confluent and ours say 40401, Apicurio 40402 (version not found).
            Answer oursUnknown = ours.send("GET", "/subjects/nothing-value/versions/latest", null);
            Answer apicurioUnknown =
                    apicurio.send("GET", "/subjects/nothing-value/versions/latest", null);
            assertThat(oursUnknown.status).isEqualTo(404);
            assertThat(oursUnknown.json().path("error_code").asInt()).isEqualTo(40401);
            assertThat(apicurioUnknown.status).isEqualTo(404);
            assertThat(apicurioUnknown.json().path("error_code").asInt()).isEqualTo(40402);

            // Incompatible: both HTTP 409; Confluent and ours say error_code 409, Apicurio 0.
            String strict = "strict-value";
            ours.register(strict, TX.toString());
            apicurio.register(strict, TX.toString());
            APICURIO.setCompatibility(strict, "BACKWARD");
            Answer oursRefusal = ours.register(strict, incompatible.toString());
            Answer apicurioRefusal = apicurio.register(strict, incompatible.toString());
            assertThat(oursRefusal.status).isEqualTo(409);
            assertThat(oursRefusal.json().path("error_code").asInt()).isEqualTo(409);
            assertThat(apicurioRefusal.status).isEqualTo(409);
            assertThat(apicurioRefusal.json().path("error_code").asInt()).isEqualTo(0);

            // No normalisation: ours parses the schema, so other whitespace is the same schema;
            // Apicurio compares the text, so the same schema pretty-printed is a new version.
            String same = "same-value";
            int oursId = ours.register(same, TX.toString()).json().path("id").asInt();
            int apicurioId = apicurio.register(same, TX.toString()).json().path("id").asInt();
            assertThat(ours.register(same, TX.toString(true)).json().path("id").asInt())
                    .isEqualTo(oursId);
            assertThat(apicurio.register(same, TX.toString(true)).json().path("id").asInt())
                    .isNotEqualTo(apicurioId);
            assertThat(apicurio.get("/subjects/" + same + "/versions")).hasSize(2);
            assertThat(apicurio.register(same, TX.toString()).json().path("id").asInt())
                    .as("the exact text again")
                    .isEqualTo(apicurioId);
        }
    }

    // ---------------------------------------------------------------------------------------

    private record Answer(int status, String body) {
        JsonNode json() throws IOException {
            return JSON.readTree(body);
        }
    }

    /** Plain HTTP to a registry's Confluent API, to compare raw answers. */
    private static final class Registry {
        private static final HttpClient HTTP = HttpClient.newHttpClient();
        private final String url;

        Registry(String url) {
            this.url = url;
        }

        Answer register(String subject, String schema) throws Exception {
            return send(
                    "POST",
                    "/subjects/" + ApicurioRegistry.segment(subject) + "/versions",
                    JSON.writeValueAsString(Map.of("schema", schema)));
        }

        JsonNode get(String path) throws Exception {
            Answer answer = send("GET", path, null);
            assertThat(answer.status).as("GET %s%s: %s", url, path, answer.body).isEqualTo(200);
            return answer.json();
        }

        Answer send(String method, String path, String body) throws Exception {
            HttpRequest.Builder request =
                    HttpRequest.newBuilder(URI.create(url + path))
                            .header("Content-Type", ConfluentSchemaRegistryClient.CONTENT_TYPE);
            request.method(
                    method,
                    body == null
                            ? HttpRequest.BodyPublishers.noBody()
                            : HttpRequest.BodyPublishers.ofString(body, StandardCharsets.UTF_8));
            HttpResponse<String> response =
                    HTTP.send(request.build(), HttpResponse.BodyHandlers.ofString());
            return new Answer(response.statusCode(), response.body());
        }
    }

    private static Schema withOptionalStringField(Schema record, String name) {
        return withField(
                record,
                name,
                SchemaBuilder.unionOf().nullType().and().stringType().endUnion(),
                Schema.Field.NULL_DEFAULT_VALUE);
    }

    private static Schema withField(Schema record, String name, Schema type, Object defaultValue) {
        List<Schema.Field> fields = new ArrayList<>();
        for (Schema.Field f : record.getFields()) {
            fields.add(new Schema.Field(f, f.schema()));
        }
        fields.add(new Schema.Field(name, type, null, defaultValue));
        return Schema.createRecord(
                record.getName(), record.getDoc(), record.getNamespace(), false, fields);
    }

    private static Schema withoutField(Schema record, String name) {
        List<Schema.Field> fields = new ArrayList<>();
        for (Schema.Field f : record.getFields()) {
            if (!f.name().equals(name)) {
                fields.add(new Schema.Field(f, f.schema()));
            }
        }
        return Schema.createRecord(
                record.getName(), record.getDoc(), record.getNamespace(), false, fields);
    }

    private static Schema transactionV0() throws IOException {
        try (InputStream in =
                ApicurioRegistryIT.class.getResourceAsStream("/evolution/Transaction-v0.avsc")) {
            return new Schema.Parser().parse(in);
        }
    }

    /** Avro's own binary encoding of {@code record} with its class's schema. */
    @SuppressWarnings("unchecked")
    private static <T extends SpecificRecord> byte[] avroBinary(T record) throws IOException {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        BinaryEncoder encoder = EncoderFactory.get().binaryEncoder(out, null);
        new SpecificDatumWriter<>((Class<T>) record.getClass()).write(record, encoder);
        encoder.flush();
        return out.toByteArray();
    }

    /** Decodes the whole of {@code body} (no byte left over) from {@code writer} to the class. */
    private static Object decodeAll(byte[] body, Schema writer, Schema reader, Class<?> type)
            throws IOException {
        BinaryDecoder decoder = DecoderFactory.get().binaryDecoder(body, null);
        Object record =
                new SpecificDatumReader<>(writer, reader, SpecificData.getForClass(type))
                        .read(null, decoder);
        assertThat(decoder.isEnd()).as("bytes left after the record").isTrue();
        return record;
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
