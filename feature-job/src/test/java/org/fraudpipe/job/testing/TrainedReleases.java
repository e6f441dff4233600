package org.fraudpipe.job.testing;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import org.fraudpipe.job.scoring.release.FixedRegistry;
import org.fraudpipe.schemas.avro.AssignmentAction;
import org.fraudpipe.schemas.avro.ModelEvent;
import org.fraudpipe.schemas.avro.ModelKind;
import org.fraudpipe.scoring.DecisionThresholds;
import org.fraudpipe.scoring.FeatureLayout;
import org.fraudpipe.scoring.SyntheticTransactions;
import org.fraudpipe.scoring.TrainedModels;
import org.fraudpipe.scoring.release.ModelRegistry;
import org.fraudpipe.scoring.train.Trainer;
import org.fraudpipe.scoring.train.TrainingSet;

/**
 * Models of other versions than the shipped ones, trained here on the scoring module's synthetic
 * data (each with its test vectors, as {@code ./fraud train} writes them), and a registry history
 * built with the registry's own event builders: what the release tests publish.
 */
public final class TrainedReleases {

    private static final Map<String, byte[]> TRAINED = new ConcurrentHashMap<>();

    private TrainedReleases() {}

    /** A window model (layout V1) named {@code fraud-window}, version {@code version}. */
    public static byte[] windowModel(String version) {
        return TRAINED.computeIfAbsent(
                "WINDOW:" + version,
                k ->
                        Trainer.train(
                                        TrainingSet.of(FeatureLayout.V1, TrainedModels.DATA),
                                        config("fraud-window", version))
                                .onnx());
    }

    /** A per-transaction model named {@code fraud-transaction}, version {@code version}. */
    public static byte[] transactionModel(String version) {
        return TRAINED.computeIfAbsent(
                "TRANSACTION:" + version,
                k ->
                        Trainer.train(
                                        TrainingSet.ofTransactions(
                                                FeatureLayout.TRANSACTION_V1,
                                                SyntheticTransactions.generate(
                                                        version.hashCode(), false)),
                                        config("fraud-transaction", version))
                                .onnx());
    }

    /**
     * The model of {@code kind} and {@code version} ({@link #windowModel}, {@link
     * #transactionModel}).
     */
    public static byte[] model(ModelKind kind, String version) {
        return kind == ModelKind.WINDOW ? windowModel(version) : transactionModel(version);
    }

    private static Trainer.Config config(String name, String version) {
        return new Trainer.Config(
                version.hashCode(),
                3,
                0.2,
                0.25,
                List.of(Trainer.Algorithm.LOGISTIC_REGRESSION),
                name,
                version,
                DecisionThresholds.DEFAULT);
    }

    /**
     * A registry history as the topic would hold it, each event appended by the broker at the
     * instant given: built with {@link ModelRegistry}'s own builders and folded as it goes, so that
     * every event is one the registry applies.
     */
    public static final class History {
        private final ModelRegistry registry = new ModelRegistry();
        private final List<FixedRegistry.Entry> entries = new ArrayList<>();

        /** Publishes {@code onnx} (its metadata's name) as {@code version} of {@code kind}. */
        public History publish(ModelKind kind, String version, byte[] onnx, Instant at) {
            String name = kind == ModelKind.WINDOW ? "fraud-window" : "fraud-transaction";
            return append(registry.release(kind, name, version, onnx, null, 5, at, "test"), at);
        }

        /** Assigns at {@code at}, effective at {@code at + lead}. */
        public History assign(
                ModelKind kind,
                AssignmentAction action,
                String version,
                Instant at,
                Duration lead) {
            return append(registry.assign(kind, action, version, at, lead, "test", "test"), at);
        }

        /** Appends {@code event} as written, whatever the registry makes of it. */
        public History append(ModelEvent event, Instant at) {
            registry.apply(event, at.toEpochMilli());
            entries.add(new FixedRegistry.Entry(event, at.toEpochMilli()));
            return this;
        }

        public List<FixedRegistry.Entry> entries() {
            return List.copyOf(entries);
        }
    }
}
