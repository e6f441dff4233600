package org.fraudpipe.schemas.registry;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import org.apache.avro.Schema;
import org.fraudpipe.schemas.avro.FeatureRecord;
import org.fraudpipe.schemas.avro.Transaction;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Contract of the local schema registry: our {@link ConfluentSchemaRegistryClient} (what the job,
 * the simulator and the serdes use) against it, over real HTTP, plus persistence across restarts.
 */
class LocalSchemaRegistryServerTest {
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final Schema TX = Transaction.getClassSchema();
    private static final Schema TX_V2 =
            ConfluentSchemaRegistryClientTest.withOptionalField(TX, "channel");

    @TempDir Path dir;

    private LocalSchemaRegistryServer server;

    @AfterEach
    void stop() {
        if (server != null) {
            server.close();
        }
    }

    private ConfluentSchemaRegistryClient start(Path journal) throws IOException {
        server = LocalSchemaRegistryServer.start(0, journal);
        // A fresh client per server: nothing answered from a client-side cache.
        return new ConfluentSchemaRegistryClient(server.url());
    }

    @Test
    void registerIsIdempotentAndIdsAreGlobalAcrossSubjects() throws IOException {
        ConfluentSchemaRegistryClient client = start(null);

        int id = client.register("transactions-value", TX);

        assertThat(id).isEqualTo(1);
        assertThat(
                        new ConfluentSchemaRegistryClient(server.url())
                                .register("transactions-value", TX))
                .isEqualTo(id);
        assertThat(client.register("archive-value", TX)).isEqualTo(id);
        assertThat(client.latestSchema("transactions-value").version()).isEqualTo(1);
    }

    @Test
    void schemaByIdAndLatestVersionAreServed() throws IOException {
        ConfluentSchemaRegistryClient client = start(null);
        int v1 = client.register("transactions-value", TX);
        int v2 = client.register("transactions-value", TX_V2);

        ConfluentSchemaRegistryClient reader = new ConfluentSchemaRegistryClient(server.url());
        assertThat(reader.getSchemaById(v1)).isEqualTo(TX);
        assertThat(reader.getSchemaById(v2)).isEqualTo(TX_V2);
        RegisteredSchema latest = reader.latestSchema("transactions-value");
        assertThat(latest.subject()).isEqualTo("transactions-value");
        assertThat(latest.id()).isEqualTo(v2).isEqualTo(2);
        assertThat(latest.version()).isEqualTo(2);
        assertThat(latest.schema()).isEqualTo(TX_V2);
    }

    @Test
    void incompatibleRegistrationIs409AndAddsNoVersion() throws IOException {
        ConfluentSchemaRegistryClient client = start(null);
        client.register("transactions-value", TX);

        assertThatThrownBy(
                        () -> client.register("transactions-value", FeatureRecord.getClassSchema()))
                .isInstanceOfSatisfying(
                        IncompatibleSchemaException.class,
                        e -> {
                            assertThat(e.httpStatus()).isEqualTo(409);
                            assertThat(e.errorCode()).isEqualTo(409);
                            assertThat(e.subject()).isEqualTo("transactions-value");
                        })
                .hasMessageContaining("incompatible with an earlier schema")
                .hasMessageContaining("(BACKWARD)")
                .hasMessageContaining("cannot read data written with version 1");
        assertThat(client.latestSchema("transactions-value").version()).isEqualTo(1);
    }

    @Test
    void registeringAnOlderVersionAgainReturnsItsIdEvenIfTheLatestCouldNotReadIt()
            throws IOException {
        ConfluentSchemaRegistryClient client = start(null);
        int v1 = client.register("transactions-value", TX);
        client.register("transactions-value", TX_V2);

        assertThat(
                        new ConfluentSchemaRegistryClient(server.url())
                                .register("transactions-value", TX))
                .isEqualTo(v1);
    }

    @Test
    void unknownSubjectIs40401AndUnknownIdIs40403() throws IOException {
        ConfluentSchemaRegistryClient client = start(null);

        assertThatThrownBy(() -> client.latestSchema("nobody-value"))
                .isInstanceOfSatisfying(
                        SubjectNotFoundException.class,
                        e -> assertThat(e.errorCode()).isEqualTo(40401));
        assertThatThrownBy(() -> client.getSchemaById(42))
                .isInstanceOfSatisfying(
                        SchemaNotFoundException.class,
                        e -> {
                            assertThat(e.errorCode()).isEqualTo(40403);
                            assertThat(e.httpStatus()).isEqualTo(404);
                        });
    }

    @Test
    void compatibilityIsTestedAgainstTheLatestVersion() throws IOException {
        ConfluentSchemaRegistryClient client = start(null);

        assertThat(client.testCompatibility("transactions-value", TX))
                .as("nothing registered: nothing to be incompatible with")
                .isTrue();
        client.register("transactions-value", TX);
        assertThat(client.testCompatibility("transactions-value", TX_V2)).isTrue();
        assertThat(client.testCompatibility("transactions-value", FeatureRecord.getClassSchema()))
                .isFalse();
    }

    @Test
    void subjectsWithSlashesSpacesAndPlusSignsRoundTrip() throws IOException {
        ConfluentSchemaRegistryClient client = start(null);
        String subject = "team a/tx+value";

        int id = client.register(subject, TX);

        assertThat(client.latestSchema(subject).id()).isEqualTo(id);
        assertThat(server.backend().latestSchema(subject).subject()).isEqualTo(subject);
    }

    @Test
    void idsAndVersionsSurviveARestartWithTheJournal() throws IOException {
        Path journal = dir.resolve("schemas.jsonl");
        ConfluentSchemaRegistryClient client = start(journal);
        int tx = client.register("transactions-value", TX);
        int features = client.register("features-value", FeatureRecord.getClassSchema());
        int txV2 = client.register("transactions-value", TX_V2);
        client.register("transactions-value", TX_V2); // no new version, no new line
        server.close();
        assertThat(Files.readAllLines(journal, StandardCharsets.UTF_8)).hasSize(3);

        ConfluentSchemaRegistryClient restarted = start(journal);

        assertThat(restarted.getSchemaById(tx)).isEqualTo(TX);
        assertThat(restarted.getSchemaById(features)).isEqualTo(FeatureRecord.getClassSchema());
        RegisteredSchema latest = restarted.latestSchema("transactions-value");
        assertThat(latest.id()).isEqualTo(txV2);
        assertThat(latest.version()).isEqualTo(2);
        assertThat(restarted.register("archive-value", TX)).isEqualTo(tx);
        assertThat(
                        restarted.register(
                                "scores-value",
                                ConfluentSchemaRegistryClientTest.withOptionalField(TX, "x")))
                .as("numbering continues after the replayed ids")
                .isEqualTo(4);
    }

    @Test
    void aSubjectsLevelIsSetAndReadOverHttpAndRegistrationsFollowIt() throws Exception {
        ConfluentSchemaRegistryClient client = start(null);
        client.register("transactions-value", TX);

        assertThat(client.compatibilityLevel("transactions-value"))
                .isEqualTo(CompatibilityLevel.BACKWARD);
        client.setCompatibilityLevel("transactions-value", CompatibilityLevel.FULL_TRANSITIVE);
        client.setCompatibilityLevel("features-value", CompatibilityLevel.FORWARD);

        assertThat(client.compatibilityLevel("transactions-value"))
                .isEqualTo(CompatibilityLevel.FULL_TRANSITIVE);
        assertThat(client.compatibilityLevel("features-value"))
                .as("set before the subject has versions")
                .isEqualTo(CompatibilityLevel.FORWARD);
        assertThat(client.compatibilityLevel("scores-value"))
                .isEqualTo(CompatibilityLevel.BACKWARD);
        // Dropping a field the latest version needs: fine under the BACKWARD default, not now.
        Schema withoutDeviceId = SchemaChanges.without(TX, "deviceId");
        assertThat(client.testCompatibility("transactions-value", withoutDeviceId)).isFalse();
        assertThatThrownBy(() -> client.register("transactions-value", withoutDeviceId))
                .isInstanceOfSatisfying(
                        IncompatibleSchemaException.class,
                        e -> assertThat(e.compatibilityLevel()).isEqualTo("FULL_TRANSITIVE"))
                .hasMessageContaining("(FULL_TRANSITIVE)")
                .hasMessageContaining("version 1 cannot read data written with the new schema")
                .hasMessageContaining("deviceId");
        assertThat(client.register("transactions-value", TX_V2)).isEqualTo(2);
    }

    @Test
    void theConfigEndpointsAnswerAsConfluentDoes() throws Exception {
        start(null);

        HttpResponse<String> notConfigured = get("/config/transactions-value");
        assertThat(notConfigured.statusCode()).isEqualTo(404);
        assertThat(JSON.readTree(notConfigured.body()).path("error_code").asInt()).isEqualTo(40408);
        assertThat(get("/config/transactions-value?defaultToGlobal=true").body())
                .isEqualTo("{\"compatibilityLevel\":\"BACKWARD\"}");

        HttpResponse<String> set =
                put("/config/transactions-value", "{\"compatibility\":\"full_transitive\"}");
        assertThat(set.statusCode()).isEqualTo(200);
        assertThat(set.body()).isEqualTo("{\"compatibility\":\"FULL_TRANSITIVE\"}");
        assertThat(get("/config/transactions-value").body())
                .isEqualTo("{\"compatibilityLevel\":\"FULL_TRANSITIVE\"}");
        assertThat(get("/config").body())
                .as("the global level stays")
                .isEqualTo("{\"compatibilityLevel\":\"BACKWARD\"}");

        HttpResponse<String> invalid =
                put("/config/transactions-value", "{\"compatibility\":\"STRICT\"}");
        assertThat(invalid.statusCode()).isEqualTo(422);
        assertThat(JSON.readTree(invalid.body()).path("error_code").asInt()).isEqualTo(42203);
        assertThat(JSON.readTree(invalid.body()).path("message").asText())
                .contains("STRICT")
                .contains("FULL_TRANSITIVE");
        assertThat(get("/config/transactions-value").body()).contains("FULL_TRANSITIVE");
    }

    @Test
    void levelsSurviveARestartInTheOrderTheyWereSetAmongRegistrations() throws IOException {
        Path journal = dir.resolve("schemas.jsonl");
        ConfluentSchemaRegistryClient client = start(journal);
        Schema withoutDeviceId = SchemaChanges.without(TX, "deviceId");
        // Accepted under BACKWARD (version 2), then the level changes: a third version like it
        // is refused from then on, and must stay refused after a restart.
        client.register("transactions-value", TX);
        client.register("transactions-value", withoutDeviceId);
        client.setCompatibilityLevel("transactions-value", CompatibilityLevel.FULL_TRANSITIVE);
        client.setCompatibilityLevel("transactions-value", CompatibilityLevel.FULL_TRANSITIVE);
        client.setCompatibilityLevel("features-value", CompatibilityLevel.FORWARD_TRANSITIVE);
        server.close();
        assertThat(Files.readAllLines(journal, StandardCharsets.UTF_8))
                .as("two versions, two level changes; setting the same level again adds no line")
                .hasSize(4);

        ConfluentSchemaRegistryClient restarted = start(journal);

        assertThat(restarted.compatibilityLevel("transactions-value"))
                .isEqualTo(CompatibilityLevel.FULL_TRANSITIVE);
        assertThat(restarted.compatibilityLevel("features-value"))
                .isEqualTo(CompatibilityLevel.FORWARD_TRANSITIVE);
        assertThat(restarted.latestSchema("transactions-value").version()).isEqualTo(2);
        Schema withoutCountry = SchemaChanges.without(withoutDeviceId, "country");
        assertThatThrownBy(() -> restarted.register("transactions-value", withoutCountry))
                .isInstanceOfSatisfying(
                        IncompatibleSchemaException.class,
                        e -> assertThat(e.compatibilityLevel()).isEqualTo("FULL_TRANSITIVE"));
    }

    @Test
    void aCorruptJournalStopsTheStartNamingTheLine() throws IOException {
        Path journal = dir.resolve("schemas.jsonl");
        Files.writeString(
                journal,
                "{\"subject\":\"transactions-value\",\"schema\":"
                        + JSON.writeValueAsString(TX.toString())
                        + ",\"id\":1}\nnot json\n");

        assertThatThrownBy(() -> LocalSchemaRegistryServer.start(0, journal))
                .isInstanceOf(IOException.class)
                .hasMessageContaining("corrupt at line 2")
                .hasMessageContaining(journal.toString());
    }

    @Test
    void answersAreConfluentShapedJsonForInspectionAndErrors() throws Exception {
        ConfluentSchemaRegistryClient client = start(null);
        client.register("transactions-value", TX);
        client.register("features-value", FeatureRecord.getClassSchema());

        HttpResponse<String> subjects = get("/subjects");
        assertThat(subjects.statusCode()).isEqualTo(200);
        assertThat(subjects.headers().firstValue("Content-Type"))
                .hasValue(ConfluentSchemaRegistryClient.CONTENT_TYPE);
        assertThat(JSON.readTree(subjects.body()).toString())
                .isEqualTo("[\"features-value\",\"transactions-value\"]");
        assertThat(JSON.readTree(get("/subjects/transactions-value/versions").body()).toString())
                .isEqualTo("[1]");
        assertThat(JSON.readTree(get("/config").body()).path("compatibilityLevel").asText())
                .isEqualTo("BACKWARD");

        HttpResponse<String> unknown = get("/no/such/path");
        assertThat(unknown.statusCode()).isEqualTo(404);
        assertThat(JSON.readTree(unknown.body()).path("error_code").asInt()).isEqualTo(404);

        HttpResponse<String> protobuf =
                post(
                        "/subjects/x-value/versions",
                        "{\"schemaType\":\"PROTOBUF\",\"schema\":\"syntax = \\\"proto3\\\";\"}");
        assertThat(protobuf.statusCode()).isEqualTo(422);
        JsonNode error = JSON.readTree(protobuf.body());
        assertThat(error.path("error_code").asInt()).isEqualTo(42201);
        assertThat(JSON.readTree(get("/subjects").body()).size())
                .as("a rejected registration adds no subject")
                .isEqualTo(2);
    }

    private HttpResponse<String> get(String path) throws Exception {
        return HttpClient.newHttpClient()
                .send(
                        HttpRequest.newBuilder(URI.create(server.url() + path)).GET().build(),
                        HttpResponse.BodyHandlers.ofString());
    }

    private HttpResponse<String> put(String path, String body) throws Exception {
        return HttpClient.newHttpClient()
                .send(
                        HttpRequest.newBuilder(URI.create(server.url() + path))
                                .header("Content-Type", ConfluentSchemaRegistryClient.CONTENT_TYPE)
                                .PUT(HttpRequest.BodyPublishers.ofString(body))
                                .build(),
                        HttpResponse.BodyHandlers.ofString());
    }

    private HttpResponse<String> post(String path, String body) throws Exception {
        return HttpClient.newHttpClient()
                .send(
                        HttpRequest.newBuilder(URI.create(server.url() + path))
                                .header("Content-Type", ConfluentSchemaRegistryClient.CONTENT_TYPE)
                                .POST(HttpRequest.BodyPublishers.ofString(body))
                                .build(),
                        HttpResponse.BodyHandlers.ofString());
    }
}
