package org.fraudpipe.schemas;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.net.URISyntaxException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.apache.avro.Schema;
import org.apache.avro.specific.SpecificData;
import org.fraudpipe.schemas.registry.AvroCompatibility;
import org.junit.jupiter.api.Test;

/**
 * The FULL_TRANSITIVE guard of the data contract, the level of every registry subject (issue #15
 * item 8): every schema ever released (a copy of the .avsc files under {@code
 * src/test/resources/released/<version>/}) must still be readable by the current generated class of
 * the same full name, because Kafka topics and archives keep data written with it (BACKWARD); and
 * it must read data written with the current class, because consumers still on that release read
 * what the job writes now, and the registry refuses a schema that breaks either (FORWARD). Removing
 * or renaming a released type fails the guard too.
 */
class ReleasedSchemasCompatibilityTest {

    @Test
    void theCurrentSchemaOfEveryReleasedTypeCanReadDataWrittenWithTheReleasedOne()
            throws Exception {
        Path released = resourceDir("/released");
        try (Stream<Path> versions = Files.list(released)) {
            assertThat(versions.filter(Files::isDirectory))
                    .as("released contract versions under %s", released)
                    .isNotEmpty();
        }

        List<String> problems = problems(released);

        assertThat(problems)
                .as(
                        "released schemas the current contract can no longer read (evolve with"
                                + " defaults, see schemas/README.md)")
                .isEmpty();
    }

    @Test
    void theGuardReportsAnIncompatibleChangeAndARemovedTypeButNotACompatibleChange()
            throws Exception {
        List<String> problems = problems(resourceDir("/compat-guard-selftest"));

        assertThat(problems).hasSize(3);
        assertThat(problems)
                .anySatisfy(
                        p ->
                                assertThat(p)
                                        .contains("9.9.9/WindowKey.avsc")
                                        .contains("cannot read data written with the current")
                                        .contains("READER_FIELD_MISSING_DEFAULT_VALUE")
                                        .contains("region"));
        assertThat(problems)
                .anySatisfy(
                        p ->
                                assertThat(p)
                                        .contains("9.9.9/Transaction.avsc")
                                        .contains("READER_FIELD_MISSING_DEFAULT_VALUE")
                                        .contains("country"))
                .anySatisfy(
                        p ->
                                assertThat(p)
                                        .contains("9.9.9/Refund.avsc")
                                        .contains("org.fraudpipe.schemas.avro.Refund")
                                        .contains("no current counterpart"));
    }

    /** One line per released schema the current classes cannot read, naming version and file. */
    static List<String> problems(Path releasedRoot) throws IOException {
        List<String> problems = new ArrayList<>();
        List<Path> versions;
        try (Stream<Path> list = Files.list(releasedRoot)) {
            versions = list.filter(Files::isDirectory).sorted().toList();
        }
        for (Path version : versions) {
            Map<Path, Schema> released = parseAll(version);
            released.forEach(
                    (file, writer) -> {
                        String where = version.getFileName() + "/" + file.getFileName();
                        Schema reader = currentSchema(writer.getFullName());
                        if (reader == null) {
                            problems.add(
                                    where
                                            + ": "
                                            + writer.getFullName()
                                            + " has no current counterpart (a released type was"
                                            + " removed or renamed; data written with it can no"
                                            + " longer be read)");
                            return;
                        }
                        List<String> incompatibilities =
                                AvroCompatibility.readerIncompatibilities(reader, writer);
                        if (!incompatibilities.isEmpty()) {
                            problems.add(
                                    where
                                            + ": current "
                                            + writer.getFullName()
                                            + " cannot read it: "
                                            + String.join("; ", incompatibilities));
                        }
                        List<String> forward =
                                AvroCompatibility.readerIncompatibilities(writer, reader);
                        if (!forward.isEmpty()) {
                            problems.add(
                                    where
                                            + ": it cannot read data written with the current "
                                            + writer.getFullName()
                                            + " (a consumer still on this release could not read"
                                            + " it, and a registry subject at FULL_TRANSITIVE"
                                            + " refuses it): "
                                            + String.join("; ", forward));
                        }
                    });
        }
        return problems;
    }

    /**
     * Parses every .avsc of one version directory; files may refer to types of other files in the
     * same directory, in any order.
     */
    private static Map<Path, Schema> parseAll(Path dir) throws IOException {
        List<Path> pending;
        try (Stream<Path> list = Files.list(dir)) {
            pending =
                    new ArrayList<>(
                            list.filter(p -> p.getFileName().toString().endsWith(".avsc"))
                                    .sorted()
                                    .toList());
        }
        Map<Path, Schema> parsed = new LinkedHashMap<>();
        Map<Path, String> errors = new LinkedHashMap<>();
        boolean progress = true;
        while (!pending.isEmpty() && progress) {
            progress = false;
            for (Path file : List.copyOf(pending)) {
                try {
                    Schema schema =
                            new Schema.Parser()
                                    .addTypes(parsed.values())
                                    .parse(Files.readString(file));
                    parsed.put(file, schema);
                    pending.remove(file);
                    errors.remove(file);
                    progress = true;
                } catch (RuntimeException e) {
                    errors.put(file, e.getMessage());
                }
            }
        }
        assertThat(errors).as("released schemas that do not parse in %s", dir).isEmpty();
        return parsed;
    }

    private static Schema currentSchema(String fullName) {
        try {
            return SpecificData.get().getSchema(Class.forName(fullName));
        } catch (ClassNotFoundException e) {
            return null;
        }
    }

    private static Path resourceDir(String name) throws URISyntaxException {
        return Path.of(ReleasedSchemasCompatibilityTest.class.getResource(name).toURI());
    }
}
