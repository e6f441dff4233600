package org.fraudpipe.tools.demo;

import java.io.IOException;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Consumer;
import org.fraudpipe.schemas.avro.ModelKind;
import org.fraudpipe.scoring.ModelLoadException;
import org.fraudpipe.scoring.OnnxScorer;
import org.fraudpipe.tools.FraudCli;

/**
 * What the demo does half-way through its traffic: it ships the challenger models that come with
 * the scoring jar ({@code models/challenger/}, next week's retrain: {@code
 * scoring/train-challenger-models.sh}) as a data scientist would, with {@code ./fraud model
 * publish} and {@code ./fraud model shadow} (the same commands, run in this JVM, their output
 * shown). From their effective time on, both jobs score beside the champions; the parity report at
 * the end compares them.
 */
final class DemoChallenger {

    /** The challenger models in the scoring jar, by kind. */
    static final String WINDOW_RESOURCE = "models/challenger/window/";

    static final String TRANSACTION_RESOURCE = "models/challenger/transaction/";

    /** What the shadow assignments give: the least the registry allows plus the round trip. */
    static final String LEAD = "15s";

    private DemoChallenger() {}

    /**
     * Publishes and shadows both challengers against the demo's broker.
     *
     * @param dir where the model files are written for the commands to read
     * @param connection {@code --bootstrap-servers}, {@code --schema-registry-url} and, secured,
     *     {@code --kafka-config} with the model publisher's client file
     * @param say where the commands' output lines go
     * @return the challengers' ids ({@code name:version}); throws if a command failed
     */
    static List<String> publishAndShadow(Path dir, List<String> connection, Consumer<String> say)
            throws IOException, ModelLoadException {
        List<String> ids = new ArrayList<>();
        for (ModelKind kind : ModelKind.values()) {
            String resource = kind == ModelKind.WINDOW ? WINDOW_RESOURCE : TRANSACTION_RESOURCE;
            Path modelDir = Files.createDirectories(dir.resolve(kind.name().toLowerCase()));
            Path model = modelDir.resolve("fraud-model.onnx");
            byte[] bytes = OnnxScorer.resourceBytes(resource + "fraud-model.onnx");
            Files.write(model, bytes);
            Files.write(
                    modelDir.resolve("MODEL_CARD.md"),
                    OnnxScorer.resourceBytes(resource + "MODEL_CARD.md"));
            String version;
            String name;
            try (OnnxScorer<?> scorer =
                    OnnxScorer.fromBytes(
                            bytes,
                            resource,
                            org.fraudpipe.scoring.release.ModelRegistry.layout(kind))) {
                version = scorer.metadata().version();
                name = scorer.metadata().name();
            }
            String k = kind.name().toLowerCase();
            run(say, connection, "publish", "--kind", k, "--model", model.toString());
            run(
                    say,
                    connection,
                    "shadow",
                    "--kind",
                    k,
                    "--version",
                    version,
                    "--lead",
                    LEAD,
                    "--note",
                    "the demo's challenger, half-way");
            ids.add(name + ":" + version);
        }
        return ids;
    }

    /** Runs {@code ./fraud model <args>} in this JVM; its output, indented, to {@code say}. */
    private static void run(Consumer<String> say, List<String> connection, String... args) {
        List<String> all = new ArrayList<>(List.of("model"));
        all.addAll(List.of(args));
        all.addAll(connection);
        say.accept("  ./fraud model " + String.join(" ", args));
        StringWriter out = new StringWriter();
        var cl = FraudCli.commandLine();
        cl.setOut(new PrintWriter(out, true));
        cl.setErr(new PrintWriter(out, true));
        int exit = cl.execute(all.toArray(String[]::new));
        for (String line : out.toString().strip().split("\n")) {
            if (!line.isBlank()) {
                say.accept("    " + line);
            }
        }
        if (exit != 0) {
            throw new IllegalStateException(
                    "./fraud model " + args[0] + " ended with exit code " + exit);
        }
    }
}
