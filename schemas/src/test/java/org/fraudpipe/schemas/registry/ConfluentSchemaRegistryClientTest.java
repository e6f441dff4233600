package org.fraudpipe.schemas.registry;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.apache.avro.Schema;
import org.apache.avro.SchemaBuilder;
import org.fraudpipe.schemas.avro.FeatureRecord;
import org.fraudpipe.schemas.avro.Transaction;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** Contract of {@link ConfluentSchemaRegistryClient} against a server speaking Confluent's API. */
class ConfluentSchemaRegistryClientTest {
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final Schema TX = Transaction.getClassSchema();

    private FakeConfluentRegistryServer server;
    private ConfluentSchemaRegistryClient client;

    @BeforeEach
    void start() throws Exception {
        server = new FakeConfluentRegistryServer();
        client = new ConfluentSchemaRegistryClient(server.url());
    }

    @AfterEach
    void stop() {
        server.close();
    }

    @Test
    void registerPostsTheSchemaAsJsonStringToSubjectVersionsWithTheRegistryContentType()
            throws Exception {
        int id = client.register("transactions-value", TX);

        assertThat(id).isEqualTo(1);
        FakeConfluentRegistryServer.Request request = server.lastRequest();
        assertThat(request.method()).isEqualTo("POST");
        assertThat(request.rawPath()).isEqualTo("/subjects/transactions-value/versions");
        assertThat(request.contentType()).isEqualTo("application/vnd.schemaregistry.v1+json");
        assertThat(request.accept()).startsWith("application/vnd.schemaregistry.v1+json");
        JsonNode body = JSON.readTree(request.body());
        assertThat(body.size()).isEqualTo(1);
        assertThat(body.get("schema").isTextual()).isTrue();
        assertThat(new Schema.Parser().parse(body.get("schema").textValue())).isEqualTo(TX);
        assertThat(server.backend().latestSchema("transactions-value").schema()).isEqualTo(TX);
    }

    @Test
    void registerAsksOncePerSubjectAndSchemaThenAnswersFromCache() {
        int first = client.register("transactions-value", TX);
        int again = client.register("transactions-value", TX);
        int otherSubject = client.register("archive-value", TX);

        assertThat(again).isEqualTo(first);
        assertThat(otherSubject).isEqualTo(first);
        assertThat(server.requests()).hasSize(2);
    }

    @Test
    void subjectNamesAreEncodedAsOnePathSegment() {
        String subject = "team a/tx+value";

        client.register(subject, TX);
        RegisteredSchema latest = client.latestSchema(subject);

        assertThat(server.requests().get(0).rawPath())
                .isEqualTo("/subjects/team%20a%2Ftx%2Bvalue/versions");
        assertThat(server.requests().get(1).rawPath())
                .isEqualTo("/subjects/team%20a%2Ftx%2Bvalue/versions/latest");
        assertThat(latest.subject()).isEqualTo(subject);
        assertThat(server.backend().subjects()).containsExactly(subject);
    }

    @Test
    void getSchemaByIdGetsSchemasIdsOnceThenAnswersFromCache() {
        int id = server.backend().register("transactions-value", TX);

        Schema first = client.getSchemaById(id);
        Schema second = client.getSchemaById(id);

        assertThat(first).isEqualTo(TX);
        assertThat(second).isSameAs(first);
        assertThat(server.requests())
                .singleElement()
                .satisfies(
                        r -> {
                            assertThat(r.method()).isEqualTo("GET");
                            assertThat(r.rawPath()).isEqualTo("/schemas/ids/" + id);
                        });
    }

    @Test
    void schemaOfAnIdJustRegisteredNeedsNoRequest() {
        int id = client.register("transactions-value", TX);

        assertThat(client.getSchemaById(id)).isEqualTo(TX);
        assertThat(server.requests()).hasSize(1);
    }

    @Test
    void concurrentFirstLookupsOfOneIdMakeOneRequest() throws Exception {
        int id = server.backend().register("transactions-value", TX);
        int threads = 8;
        CountDownLatch start = new CountDownLatch(1);
        ExecutorService pool = Executors.newFixedThreadPool(threads);
        try {
            List<Future<Schema>> results = new ArrayList<>();
            for (int i = 0; i < threads; i++) {
                Callable<Schema> lookup =
                        () -> {
                            start.await();
                            return client.getSchemaById(id);
                        };
                results.add(pool.submit(lookup));
            }
            start.countDown();
            for (Future<Schema> result : results) {
                assertThat(result.get()).isEqualTo(TX);
            }
        } finally {
            pool.shutdownNow();
        }
        assertThat(server.requests()).hasSize(1);
    }

    @Test
    void latestSchemaReturnsSubjectVersionIdAndSchemaAndAlwaysAsks() {
        Schema v2 = withOptionalField(TX, "channel");
        server.backend().register("transactions-value", TX);
        int id2 = server.backend().register("transactions-value", v2);

        RegisteredSchema latest = client.latestSchema("transactions-value");
        client.latestSchema("transactions-value");

        assertThat(latest).isEqualTo(new RegisteredSchema("transactions-value", id2, 2, v2));
        assertThat(server.requests()).hasSize(2);
        assertThat(server.lastRequest().method()).isEqualTo("GET");
        assertThat(server.lastRequest().rawPath())
                .isEqualTo("/subjects/transactions-value/versions/latest");
        client.getSchemaById(id2);
        assertThat(server.requests()).as("latest fills the id cache").hasSize(2);
    }

    @Test
    void testCompatibilityPostsToCompatibilityOfLatestAndReturnsTheVerdict() throws Exception {
        server.backend().register("transactions-value", TX);

        boolean compatible =
                client.testCompatibility("transactions-value", withOptionalField(TX, "channel"));
        FakeConfluentRegistryServer.Request request = server.lastRequest();
        boolean incompatible =
                client.testCompatibility("transactions-value", FeatureRecord.getClassSchema());

        assertThat(compatible).isTrue();
        assertThat(incompatible).isFalse();
        assertThat(request.method()).isEqualTo("POST");
        assertThat(request.rawPath())
                .isEqualTo("/compatibility/subjects/transactions-value/versions/latest");
        assertThat(request.contentType()).isEqualTo("application/vnd.schemaregistry.v1+json");
        assertThat(JSON.readTree(request.body()).get("schema").textValue())
                .isEqualTo(withOptionalField(TX, "channel").toString());
    }

    @Test
    void testCompatibilityWithASubjectThatHasNoVersionsIsTrue() {
        assertThat(client.testCompatibility("nothing-here-value", TX)).isTrue();
        server.answerNext(200, "{\"is_compatible\":true}");
        assertThat(client.testCompatibility("nothing-here-value", TX)).isTrue();
    }

    @Test
    void theEffectiveLevelIsAskedOfTheSubjectWithDefaultToGlobal() {
        server.answerNext(200, "{\"compatibilityLevel\":\"FULL_TRANSITIVE\"}");

        assertThat(client.compatibilityLevel("team a/tx-value"))
                .isEqualTo(CompatibilityLevel.FULL_TRANSITIVE);
        assertThat(server.requests()).hasSize(1);
        assertThat(server.lastRequest().method()).isEqualTo("GET");
        assertThat(server.lastRequest().rawPath()).isEqualTo("/config/team%20a%2Ftx-value");
        assertThat(server.lastRequest().rawQuery()).isEqualTo("defaultToGlobal=true");
    }

    @Test
    void aSubjectTheRegistryHasNoLevelForGetsTheGlobalLevel() {
        // Confluent before defaultToGlobal (40408), Apicurio for a subject it does not know
        // (40401): a 404, then the global level.
        server.answerNext(
                404,
                "{\"message\":\"No artifact with ID 'tx-value' in group 'null' was found.\","
                        + "\"error_code\":40401}");
        server.answerNext(200, "{\"compatibilityLevel\":\"NONE\"}");

        assertThat(client.compatibilityLevel("tx-value")).isEqualTo(CompatibilityLevel.NONE);
        assertThat(server.lastRequest().rawPath()).isEqualTo("/config");
        assertThat(server.requests()).hasSize(2);
    }

    @Test
    void aRegistryThatDoesNotTellTheLevelThrowsWithItsStatusAndNeverGuessesTheGlobalOne() {
        server.answerNext(403, "{\"error_code\":40301,\"message\":\"User cannot access config\"}");

        assertThatThrownBy(() -> client.compatibilityLevel("tx-value"))
                .isExactlyInstanceOf(SchemaRegistryException.class)
                .satisfies(
                        e -> assertThat(((SchemaRegistryException) e).httpStatus()).isEqualTo(403))
                .hasMessageContaining("GET /config/tx-value?defaultToGlobal=true")
                .hasMessageContaining("User cannot access config");
        assertThat(server.requests())
                .as("a 403 on the subject must not be answered with the global level")
                .hasSize(1);

        server.answerNext(404, "{\"error_code\":404,\"message\":\"HTTP 404 Not Found\"}");
        server.answerNext(404, "{\"error_code\":404,\"message\":\"HTTP 404 Not Found\"}");
        assertThatThrownBy(() -> client.compatibilityLevel("tx-value"))
                .isExactlyInstanceOf(SchemaRegistryException.class)
                .satisfies(
                        e -> assertThat(((SchemaRegistryException) e).httpStatus()).isEqualTo(404))
                .hasMessageContaining("GET /config ");

        server.answerNext(200, "{\"compatibilityLevel\":\"STRICT\"}");
        assertThatThrownBy(() -> client.compatibilityLevel("tx-value"))
                .isExactlyInstanceOf(SchemaRegistryException.class)
                .hasMessageContaining("'STRICT'")
                .hasMessageContaining("FULL_TRANSITIVE");
    }

    @Test
    void setCompatibilityLevelPutsTheLevelAsConfluentsBody() throws Exception {
        server.answerNext(200, "{\"compatibility\":\"FULL_TRANSITIVE\"}");

        client.setCompatibilityLevel("transactions-value", CompatibilityLevel.FULL_TRANSITIVE);

        FakeConfluentRegistryServer.Request request = server.lastRequest();
        assertThat(request.method()).isEqualTo("PUT");
        assertThat(request.rawPath()).isEqualTo("/config/transactions-value");
        assertThat(request.contentType()).isEqualTo(ConfluentSchemaRegistryClient.CONTENT_TYPE);
        assertThat(JSON.readTree(request.body()))
                .isEqualTo(JSON.readTree("{\"compatibility\":\"FULL_TRANSITIVE\"}"));

        server.answerNext(403, "{\"error_code\":40301,\"message\":\"User cannot write config\"}");
        assertThatThrownBy(
                        () ->
                                client.setCompatibilityLevel(
                                        "transactions-value", CompatibilityLevel.FULL))
                .isExactlyInstanceOf(SchemaRegistryException.class)
                .hasMessageContaining("HTTP 403")
                .hasMessageContaining("PUT /config/transactions-value");
    }

    @Test
    void unknownSubjectGivesSubjectNotFoundWith40401AndWhatToDo() {
        assertThatThrownBy(() -> client.latestSchema("no-such-topic-value"))
                .isInstanceOfSatisfying(
                        SubjectNotFoundException.class,
                        e -> {
                            assertThat(e.httpStatus()).isEqualTo(404);
                            assertThat(e.errorCode()).isEqualTo(40401);
                            assertThat(e.subject()).isEqualTo("no-such-topic-value");
                        })
                .hasMessageContaining("no-such-topic-value")
                .hasMessageContaining(server.url())
                .hasMessageContaining("register the schema first")
                .hasMessageContaining("schema.registry.url");
    }

    @Test
    void unknownSubjectAnsweredAsApicurioDoesGivesSubjectNotFoundWithTheRegistrysCode() {
        server.answerNext(
                404,
                "{\"message\":\"No version 'latest' found for artifact with ID"
                        + " 'no-such-topic-value' in group 'null'.\",\"error_code\":40402}");

        assertThatThrownBy(() -> client.latestSchema("no-such-topic-value"))
                .isInstanceOfSatisfying(
                        SubjectNotFoundException.class,
                        e -> {
                            assertThat(e.httpStatus()).isEqualTo(404);
                            assertThat(e.errorCode()).isEqualTo(40402);
                            assertThat(e.subject()).isEqualTo("no-such-topic-value");
                        })
                .hasMessageContaining("No version 'latest' found")
                .hasMessageContaining("register the schema first");
    }

    @Test
    void unknownIdGivesSchemaNotFoundWith40403AndWhatToDo() {
        assertThatThrownBy(() -> client.getSchemaById(77))
                .isInstanceOfSatisfying(
                        SchemaNotFoundException.class,
                        e -> {
                            assertThat(e.httpStatus()).isEqualTo(404);
                            assertThat(e.errorCode()).isEqualTo(40403);
                            assertThat(e.schemaId()).isEqualTo(77);
                        })
                .hasMessageContaining("Schema id 77")
                .hasMessageContaining(server.url())
                .hasMessageContaining("same schema.registry.url");
    }

    @Test
    void unknownIdIsRememberedForTheTtlSoBogusIdsCannotFloodTheRegistry() {
        assertThatThrownBy(() -> client.getSchemaById(77))
                .isInstanceOf(SchemaNotFoundException.class);
        assertThatThrownBy(() -> client.getSchemaById(77))
                .isInstanceOf(SchemaNotFoundException.class)
                .hasMessageContaining("not asked again yet");
        assertThat(server.requests()).hasSize(1);

        ConfluentSchemaRegistryClient noTtl =
                new ConfluentSchemaRegistryClient(
                        server.url(),
                        null,
                        Duration.ofSeconds(2),
                        Duration.ofSeconds(2),
                        Duration.ZERO);
        assertThatThrownBy(() -> noTtl.getSchemaById(77))
                .isInstanceOf(SchemaNotFoundException.class);
        assertThatThrownBy(() -> noTtl.getSchemaById(77))
                .isInstanceOf(SchemaNotFoundException.class);
        assertThat(server.requests()).hasSize(3);
    }

    @Test
    void anIdOfAProtobufOrUnparseableSchemaGivesNotAvroSchema() {
        server.answerNext(200, "{\"schemaType\":\"PROTOBUF\",\"schema\":\"syntax = 1;\"}");
        server.answerNext(200, "{\"schema\":\"{not avro\"}");

        assertThatThrownBy(() -> client.getSchemaById(5))
                .isInstanceOfSatisfying(
                        NotAvroSchemaException.class, e -> assertThat(e.schemaId()).isEqualTo(5))
                .hasMessageContaining("PROTOBUF")
                .hasMessageContaining("check the producer");
        assertThatThrownBy(() -> client.getSchemaById(6))
                .isInstanceOf(NotAvroSchemaException.class)
                .hasMessageContaining("Avro cannot parse it");
    }

    @Test
    void incompatibleRegistrationGivesIncompatibleSchemaWith409() {
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
                .hasMessageContaining("transactions-value")
                .hasMessageContaining("incompatible with an earlier schema")
                .hasMessageContaining("add fields only with defaults");
    }

    @Test
    void incompatibleRegistrationNamesTheLevelTheRegistryHasForTheSubject() {
        // Apicurio's refusal under FORWARD: HTTP 409, error_code 0, no level in the message.
        server.answerNext(
                409,
                "{\"message\":\"Incompatible artifact: transactions-value [AVRO], num of"
                        + " incompatible diffs: {1}, list of diff types: [country at /fields/6]"
                        + " Causes: country at /fields/6\",\"error_code\":0}");
        server.answerNext(200, "{\"compatibilityLevel\":\"FORWARD\"}");

        assertThatThrownBy(() -> client.register("transactions-value", TX))
                .isInstanceOfSatisfying(
                        IncompatibleSchemaException.class,
                        e -> {
                            assertThat(e.subject()).isEqualTo("transactions-value");
                            assertThat(e.compatibilityLevel()).isEqualTo("FORWARD");
                            assertThat(e.httpStatus()).isEqualTo(409);
                            assertThat(e.errorCode()).as("what the registry said").isZero();
                        })
                .hasMessageContaining("'transactions-value'")
                .hasMessageContaining(
                        "FORWARD: data written with the new schema must be readable with the"
                                + " latest")
                .hasMessageContaining("country at /fields/6")
                .hasMessageNotContaining("BACKWARD:");
        assertThat(server.requests()).hasSize(2);
        assertThat(server.lastRequest().method()).isEqualTo("GET");
        assertThat(server.lastRequest().rawPath()).isEqualTo("/config/transactions-value");
    }

    @Test
    void incompatibleRegistrationFallsBackToTheGlobalLevelThenToNoLevel() {
        String noSubjectLevel =
                "{\"error_code\":40408,\"message\":\"Subject 'transactions-value' does not have"
                        + " subject-level compatibility configured\"}";
        server.answerNext(409, "{\"error_code\":409,\"message\":\"incompatible\"}");
        server.answerNext(404, noSubjectLevel);
        server.answerNext(200, "{\"compatibilityLevel\":\"FULL\"}");
        server.answerNext(409, "{\"error_code\":409,\"message\":\"incompatible\"}");
        server.answerNext(404, noSubjectLevel);
        server.answerNext(404, "{\"error_code\":404,\"message\":\"HTTP 404 Not Found\"}");

        assertThatThrownBy(() -> client.register("transactions-value", TX))
                .isInstanceOfSatisfying(
                        IncompatibleSchemaException.class,
                        e -> assertThat(e.compatibilityLevel()).isEqualTo("FULL"))
                .hasMessageContaining("FULL: BACKWARD and FORWARD against the latest");
        assertThat(server.lastRequest().rawPath()).isEqualTo("/config");
        assertThatThrownBy(() -> client.register("transactions-value", TX))
                .isInstanceOfSatisfying(
                        IncompatibleSchemaException.class,
                        e -> assertThat(e.compatibilityLevel()).isNull())
                .hasMessageContaining(
                        "under the compatibility level the registry has for the subject")
                .hasMessageContaining("add fields only with defaults");
        assertThat(server.requests()).hasSize(6);
    }

    @Test
    void serverErrorGivesRegistryExceptionWithStatusErrorCodeAndTheRegistrysMessage() {
        server.answerNext(
                500, "{\"error_code\":50001,\"message\":\"Error in the backend data store\"}");

        assertThatThrownBy(() -> client.register("transactions-value", TX))
                .isExactlyInstanceOf(SchemaRegistryException.class)
                .satisfies(
                        e -> {
                            SchemaRegistryException r = (SchemaRegistryException) e;
                            assertThat(r.httpStatus()).isEqualTo(500);
                            assertThat(r.errorCode()).isEqualTo(50001);
                        })
                .hasMessageContaining("HTTP 500")
                .hasMessageContaining("error_code 50001")
                .hasMessageContaining("Error in the backend data store")
                .hasMessageContaining("POST /subjects/transactions-value/versions")
                .hasMessageContaining("check its logs");
    }

    @Test
    void failedLookupsAreNotCachedSoTheNextCallAsksAgain() {
        int id = server.backend().register("transactions-value", TX);
        server.answerNext(503, "<html>upstream unavailable</html>");

        assertThatThrownBy(() -> client.getSchemaById(id))
                .isExactlyInstanceOf(SchemaRegistryException.class)
                .hasMessageContaining("HTTP 503")
                .hasMessageContaining("<html>upstream unavailable</html>");
        assertThat(client.getSchemaById(id)).isEqualTo(TX);
        assertThat(server.requests()).hasSize(2);
    }

    @Test
    void rejectedCredentialsSayToSetBasicAuthUserInfo() {
        server.answerNext(401, "{\"error_code\":401,\"message\":\"Unauthorized\"}");

        assertThatThrownBy(() -> client.latestSchema("transactions-value"))
                .isExactlyInstanceOf(SchemaRegistryException.class)
                .hasMessageContaining("HTTP 401")
                .hasMessageContaining("basic.auth.user.info");
    }

    @Test
    void basicAuthUserInfoIsSentAsBasicAuthorization() {
        ConfluentSchemaRegistryClient withAuth =
                new ConfluentSchemaRegistryClient(
                        server.url(), "fraud:s3cret", Duration.ofSeconds(2), Duration.ofSeconds(2));

        withAuth.register("transactions-value", TX);

        assertThat(server.lastRequest().authorization())
                .isEqualTo(
                        "Basic "
                                + Base64.getEncoder()
                                        .encodeToString(
                                                "fraud:s3cret".getBytes(StandardCharsets.UTF_8)));
        assertThat(withAuth.url()).doesNotContain("s3cret");
    }

    @Test
    void credentialsInTheUrlAreUsedForBasicAuthAndKeptOutOfTheUrl() {
        String url = server.url().replace("http://", "http://fraud:s3cret@");
        ConfluentSchemaRegistryClient withAuth = new ConfluentSchemaRegistryClient(url);

        withAuth.register("transactions-value", TX);

        assertThat(server.lastRequest().authorization()).startsWith("Basic ");
        assertThat(withAuth.url()).isEqualTo(server.url());
    }

    @Test
    void baseUrlWithAPathPrefixIsKept() throws Exception {
        try (FakeConfluentRegistryServer apicurio =
                new FakeConfluentRegistryServer("/apis/ccompat/v7")) {
            ConfluentSchemaRegistryClient prefixed =
                    new ConfluentSchemaRegistryClient(apicurio.url() + "/");

            int id = prefixed.register("transactions-value", TX);
            prefixed.getSchemaById(id);
            ConfluentSchemaRegistryClient fresh = new ConfluentSchemaRegistryClient(apicurio.url());
            assertThat(fresh.getSchemaById(id)).isEqualTo(TX);

            assertThat(apicurio.requests().get(0).rawPath())
                    .isEqualTo("/apis/ccompat/v7/subjects/transactions-value/versions");
            assertThat(apicurio.lastRequest().rawPath())
                    .isEqualTo("/apis/ccompat/v7/schemas/ids/" + id);
        }
    }

    @Test
    void answerOutsideTheApiSaysToCheckTheUrlRoot() {
        server.answerNext(404, "<html>Not Found</html>");

        assertThatThrownBy(() -> client.getSchemaById(1))
                .isExactlyInstanceOf(SchemaRegistryException.class)
                .hasMessageContaining("HTTP 404")
                .hasMessageContaining("API root");
    }

    @Test
    void malformedSuccessAnswerIsReportedNotMisread() {
        server.answerNext(200, "{\"unexpected\":true}");

        assertThatThrownBy(() -> client.register("transactions-value", TX))
                .isExactlyInstanceOf(SchemaRegistryException.class)
                .hasMessageContaining("no integer 'id'");
    }

    @Test
    void stoppedRegistryGivesUnavailableNamingTheUrlAndWhatToCheck() throws Exception {
        int freePort;
        try (ServerSocket socket = new ServerSocket(0)) {
            freePort = socket.getLocalPort();
        }
        String url = "http://127.0.0.1:" + freePort;
        ConfluentSchemaRegistryClient stopped = new ConfluentSchemaRegistryClient(url);

        assertThatThrownBy(() -> stopped.getSchemaById(1))
                .isInstanceOfSatisfying(
                        SchemaRegistryUnavailableException.class,
                        e -> {
                            assertThat(e.httpStatus())
                                    .isEqualTo(SchemaRegistryException.NO_HTTP_STATUS);
                            assertThat(e.registryUrl()).isEqualTo(url);
                        })
                .hasMessageContaining("Cannot reach the schema registry at " + url)
                .hasMessageContaining("GET /schemas/ids/1")
                .hasMessageContaining("schema.registry.url")
                .hasMessageContaining("is running");
    }

    @Test
    void registryThatStopsMidwayGivesUnavailable() {
        String url = server.url();
        server.close();

        assertThatThrownBy(() -> client.register("transactions-value", TX))
                .isInstanceOf(SchemaRegistryUnavailableException.class)
                .hasMessageContaining(url);
    }

    @Test
    void registryThatDoesNotAnswerInTimeGivesUnavailable() {
        ConfluentSchemaRegistryClient impatient =
                new ConfluentSchemaRegistryClient(
                        server.url(), null, Duration.ofSeconds(2), Duration.ofMillis(300));
        server.hangNext();

        assertThatThrownBy(() -> impatient.getSchemaById(1))
                .isInstanceOf(SchemaRegistryUnavailableException.class)
                .hasMessageContaining("did not answer within 300 ms");
    }

    static Schema withOptionalField(Schema record, String name) {
        List<Schema.Field> fields = new ArrayList<>();
        for (Schema.Field f : record.getFields()) {
            fields.add(new Schema.Field(f, f.schema()));
        }
        fields.add(
                new Schema.Field(
                        name,
                        SchemaBuilder.unionOf().nullType().and().stringType().endUnion(),
                        null,
                        Schema.Field.NULL_DEFAULT_VALUE));
        return Schema.createRecord(
                record.getName(), record.getDoc(), record.getNamespace(), false, fields);
    }
}
