package org.fraudpipe.tools.model;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.fraudpipe.local.KafkaTestBroker;
import org.fraudpipe.schemas.Topic;
import org.fraudpipe.schemas.avro.AssignmentAction;
import org.fraudpipe.schemas.avro.ModelKind;
import org.fraudpipe.schemas.avro.ModelRole;
import org.fraudpipe.schemas.security.ClientProperties;
import org.fraudpipe.scoring.OnnxScorer;
import org.fraudpipe.scoring.release.ModelRegistry;
import org.fraudpipe.tools.FraudCli;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code ./fraud model} against a real broker and the model registry topic as {@code ./fraud kafka
 * start} creates it: a release checked and published, listed, shadowed, promoted, rolled back, and
 * read back by a second reader that folds the same history; a corrupt file and one that misfits the
 * layout refused before anything is published.
 */
class ModelCommandIT {

    @RegisterExtension static final KafkaTestBroker KAFKA = new KafkaTestBroker(2);

    private static final String REGISTRY = "mock://model-command-it";

    @TempDir Path tmp;

    private record Run(int exit, String out) {}

    private Run fraud(String... args) {
        ByteArrayOutputStream stdout = new ByteArrayOutputStream();
        var cl = FraudCli.commandLine();
        cl.setOut(new PrintWriter(stdout, true, StandardCharsets.UTF_8));
        cl.setErr(new PrintWriter(stdout, true, StandardCharsets.UTF_8));
        List<String> all = new ArrayList<>(List.of("model"));
        all.add(args[0]);
        all.addAll(Arrays.asList(args).subList(1, args.length));
        all.addAll(
                List.of(
                        "--bootstrap-servers",
                        KAFKA.bootstrapServers(),
                        "--schema-registry-url",
                        REGISTRY));
        int exit = cl.execute(all.toArray(String[]::new));
        return new Run(exit, stdout.toString(StandardCharsets.UTF_8));
    }

    /** A trained model of the transaction layout, with its vectors: the shipped default. */
    private Path model(String name, byte[] bytes) throws Exception {
        Path dir = Files.createDirectories(tmp.resolve(name));
        Path file = dir.resolve("fraud-model.onnx");
        Files.write(file, bytes);
        Files.writeString(dir.resolve("MODEL_CARD.md"), "# card of " + name + "\n");
        return file;
    }

    @Test
    void aReleaseIsPublishedAssignedAndRolledBackAsEveryReaderSeesIt() throws Exception {
        byte[] shipped = OnnxScorer.resourceBytes(OnnxScorer.DEFAULT_TRANSACTION_MODEL_RESOURCE);
        Path v1 = model("v1", shipped);

        Run published = fraud("publish", "--kind", "transaction", "--model", v1.toString());
        assertThat(published.exit()).as(published.out()).isZero();
        assertThat(published.out())
                .contains("fits the transaction layout (11 columns), 16 test vectors reproduced")
                .contains("TRANSACTION release ")
                .contains(" published (offset 0");

        Run again = fraud("publish", "--kind", "transaction", "--model", v1.toString());
        assertThat(again.exit()).isEqualTo(1);
        assertThat(again.out()).contains("is already published (the same file): nothing to do");

        String version = versionOf(published.out());
        Run shadow =
                fraud("shadow", "--kind", "transaction", "--version", version, "--lead", "15s");
        assertThat(shadow.exit()).as(shadow.out()).isZero();
        assertThat(shadow.out()).contains("TRANSACTION SHADOW of CHALLENGER to " + version);

        Run promote =
                fraud(
                        "promote",
                        "--kind",
                        "transaction",
                        "--version",
                        version,
                        "--note",
                        "first champion");
        assertThat(promote.exit()).as(promote.out()).isZero();
        Run rollback = fraud("rollback", "--kind", "transaction");
        assertThat(rollback.exit()).isEqualTo(1);
        assertThat(rollback.out()).contains("no TRANSACTION champion before " + version);

        Run list = fraud("list");
        assertThat(list.exit()).isZero();
        assertThat(list.out())
                .contains("transaction models: 1 released")
                .contains("window models: 0 released")
                .contains("SHADOW")
                .contains("PROMOTE")
                .contains("\"first champion\"");

        // A second reader, as the job will be, folds the same history to the same roles.
        ModelRegistry reader = new ModelRegistry();
        try (RegistryTopic topic =
                new RegistryTopic(
                        KAFKA.bootstrapServers(),
                        REGISTRY,
                        ClientProperties.none(),
                        Topic.MODEL_RELEASES.defaultName())) {
            List<RegistryTopic.Entry> entries = topic.readAll(reader);
            assertThat(entries).hasSize(3);
            assertThat(entries).allMatch(e -> e.outcome() instanceof ModelRegistry.Applied);
        }
        ModelRegistry.Release release =
                reader.release(ModelKind.TRANSACTION, version).orElseThrow();
        assertThat(release.onnx()).isEqualTo(shipped);
        assertThat(release.card()).isEqualTo("# card of v1\n");
        assertThat(reader.assignments(ModelKind.TRANSACTION, ModelRole.CHAMPION))
                .singleElement()
                .satisfies(a -> assertThat(a.action()).isEqualTo(AssignmentAction.PROMOTE));
        assertThat(reader.holder(ModelKind.TRANSACTION, ModelRole.CHAMPION, Long.MAX_VALUE))
                .hasValueSatisfying(r -> assertThat(r.version()).isEqualTo(version));
    }

    @Test
    void aCorruptReleaseAndOneThatMisfitsTheLayoutAreRefusedBeforeAnythingIsPublished()
            throws Exception {
        byte[] shipped = OnnxScorer.resourceBytes(OnnxScorer.DEFAULT_TRANSACTION_MODEL_RESOURCE);
        byte[] corrupt = Arrays.copyOf(shipped, shipped.length - 100);
        Path bad = model("corrupt", corrupt);

        Run refused = fraud("publish", "--kind", "transaction", "--model", bad.toString());
        Run misfit =
                fraud(
                        "publish",
                        "--kind",
                        "window",
                        "--model",
                        model("misfit", shipped).toString());

        assertThat(refused.exit()).isEqualTo(1);
        assertThat(refused.out()).contains("model: refused (NOT_LOADABLE)");
        assertThat(misfit.exit()).isEqualTo(1);
        assertThat(misfit.out()).contains("model: refused (LAYOUT_MISFIT)");
        ModelRegistry reader = new ModelRegistry();
        try (RegistryTopic topic =
                new RegistryTopic(
                        KAFKA.bootstrapServers(),
                        REGISTRY,
                        ClientProperties.none(),
                        Topic.MODEL_RELEASES.defaultName())) {
            topic.readAll(reader);
        }
        assertThat(reader.releases(ModelKind.WINDOW)).isEmpty();
        assertThat(reader.releases(ModelKind.TRANSACTION))
                .noneMatch(r -> r.sha256().equals(ModelRegistry.sha256(corrupt)));
    }

    private static String versionOf(String out) {
        int at = out.indexOf("TRANSACTION release ") + "TRANSACTION release ".length();
        return out.substring(at, out.indexOf(' ', at));
    }
}
