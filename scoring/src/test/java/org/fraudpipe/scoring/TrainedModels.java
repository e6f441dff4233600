package org.fraudpipe.scoring;

import java.util.List;
import org.fraudpipe.scoring.data.LabelledWindow;
import org.fraudpipe.scoring.train.Trainer;
import org.fraudpipe.scoring.train.TrainingResult;
import org.fraudpipe.scoring.train.TrainingSet;

/** Models trained once per test JVM on {@link SyntheticWindows} (well under a second each). */
public final class TrainedModels {

    private static TrainingResult logistic;
    private static TrainingResult fm;

    private TrainedModels() {}

    public static final List<LabelledWindow> DATA = SyntheticWindows.generate(150, 12, 7);

    public static Trainer.Config config(Trainer.Algorithm... algorithms) {
        return new Trainer.Config(
                11,
                5,
                0.2,
                0.25,
                List.of(algorithms),
                "synthetic",
                "t1",
                DecisionThresholds.DEFAULT);
    }

    public static synchronized TrainingResult logistic() {
        if (logistic == null) {
            logistic =
                    Trainer.train(
                            TrainingSet.of(FeatureLayout.V1, DATA),
                            config(Trainer.Algorithm.LOGISTIC_REGRESSION));
        }
        return logistic;
    }

    public static synchronized TrainingResult factorizationMachine() {
        if (fm == null) {
            fm =
                    Trainer.train(
                            TrainingSet.of(FeatureLayout.V1, DATA),
                            config(Trainer.Algorithm.FACTORIZATION_MACHINE));
        }
        return fm;
    }
}
