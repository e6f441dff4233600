package org.fraudpipe.scoring.train;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import ai.onnx.proto.OnnxMl;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;
import org.fraudpipe.schemas.avro.FeatureRecord;
import org.fraudpipe.scoring.FeatureLayout;
import org.fraudpipe.scoring.ModelMetadata;
import org.fraudpipe.scoring.OnnxScorer;
import org.fraudpipe.scoring.TrainedModels;
import org.fraudpipe.scoring.data.LabelledWindow;
import org.fraudpipe.scoring.train.UserSplit.Part;
import org.junit.jupiter.api.Test;

class TrainerTest {

    private static final FeatureLayout<FeatureRecord> LAYOUT = FeatureLayout.V1;

    private static List<TrainingResult> both() {
        return List.of(TrainedModels.logistic(), TrainedModels.factorizationMachine());
    }

    @Test
    void trainingOnASeparableSyntheticSetReachesAHoldoutAucAboveNinety() {
        for (TrainingResult r : both()) {
            assertThat(r.holdoutAuc()).as(r.algorithm().id()).isGreaterThan(0.9);
            assertThat(r.candidates()).hasSize(1);
            assertThat(r.candidates().get(0).validationAuc()).isGreaterThan(0.9);
        }
    }

    @Test
    void onnxRuntimeScoresEqualTribuoPredictionsOnTheHoldoutWithin1e5() throws Exception {
        for (TrainingResult r : both()) {
            UserSplit split = new UserSplit(0.2, 0.25, r.config().seed());
            List<LabelledWindow> holdout =
                    TrainedModels.DATA.stream()
                            .filter(w -> split.partOf(w.features().getUserId()) == Part.HOLDOUT)
                            .toList();
            assertThat(holdout).hasSizeGreaterThan(100);
            List<TrainingSet.Row> rows = TrainingSet.of(LAYOUT, holdout).rows();
            double[] tribuo = Trainer.fraudProbabilities(r.model(), LAYOUT, rows);
            // Serve the same windows through the full serving path (records -> layout -> ORT).
            List<FeatureRecord> records = new ArrayList<>();
            Map<String, FeatureRecord> byKey =
                    holdout.stream()
                            .collect(
                                    Collectors.toMap(
                                            w ->
                                                    w.features().getUserId()
                                                            + w.features().getWindowStart(),
                                            LabelledWindow::features));
            for (TrainingSet.Row row : rows) {
                records.add(byKey.get(row.userId() + row.start()));
            }
            try (OnnxScorer<FeatureRecord> scorer =
                    OnnxScorer.fromBytes(r.onnx(), "test", LAYOUT)) {
                double[] onnx = scorer.score(records);
                for (int i = 0; i < onnx.length; i++) {
                    assertThat(Math.abs(onnx[i] - tribuo[i]))
                            .as("%s row %d", r.algorithm().id(), i)
                            .isLessThanOrEqualTo(1e-5);
                }
            }
            assertThat(r.maxOnnxTribuoDifference()).isLessThanOrEqualTo(1e-5);
        }
    }

    @Test
    void tribuoFeatureIdsAreTheLayoutColumns() {
        for (TrainingResult r : both()) {
            for (int i = 0; i < LAYOUT.size(); i++) {
                assertThat(r.model().getFeatureIDMap().getID(LAYOUT.names().get(i))).isEqualTo(i);
            }
        }
    }

    @Test
    void exportedModelCarriesFraudpipeMetadataAndNoTribuoProvenance() throws Exception {
        OnnxMl.ModelProto proto = OnnxMl.ModelProto.parseFrom(TrainedModels.logistic().onnx());
        Map<String, String> meta =
                proto.getMetadataPropsList().stream()
                        .collect(
                                Collectors.toMap(
                                        OnnxMl.StringStringEntryProto::getKey,
                                        OnnxMl.StringStringEntryProto::getValue));
        assertThat(meta)
                .containsEntry(ModelMetadata.NAME, "synthetic")
                .containsEntry(ModelMetadata.VERSION, "t1")
                .containsEntry(ModelMetadata.FEATURES, LAYOUT.namesAsMetadata())
                .containsEntry(ModelMetadata.WINDOW_SIZE, "PT10M")
                .containsEntry(Trainer.ALGORITHM_KEY, "logistic-regression")
                .doesNotContainKey("TRIBUO_PROVENANCE");
        assertThat(meta.get(ModelMetadata.LABELS).split(","))
                .containsExactlyInAnyOrder("fraud", "legit");
        assertThat(proto.getGraph().getInput(0).getName()).isEqualTo(OnnxScorer.INPUT_NAME);
        assertThat(proto.getOpsetImport(0).getVersion()).isEqualTo(13);
    }

    @Test
    void sameDataAndSeedGiveByteIdenticalModels() {
        TrainingResult again =
                Trainer.train(
                        TrainingSet.of(LAYOUT, TrainedModels.DATA),
                        TrainedModels.config(Trainer.Algorithm.LOGISTIC_REGRESSION));
        assertThat(again.onnx()).isEqualTo(TrainedModels.logistic().onnx());
    }

    @Test
    void autoPicksTheAlgorithmWithTheBetterValidationAuc() {
        TrainingResult r =
                Trainer.train(
                        TrainingSet.of(LAYOUT, TrainedModels.DATA),
                        TrainedModels.config(Trainer.Algorithm.values()));
        assertThat(r.candidates()).hasSize(2);
        Trainer.Candidate best =
                r.candidates().get(0).validationAuc() >= r.candidates().get(1).validationAuc()
                        ? r.candidates().get(0)
                        : r.candidates().get(1);
        assertThat(r.algorithm()).isEqualTo(best.algorithm());
        assertThat(r.metadata().custom())
                .containsEntry(Trainer.ALGORITHM_KEY, best.algorithm().id());
    }

    @Test
    void aPartOfTheSplitWithoutFraudFailsAndSaysWhatToDo() {
        // Only one user keeps fraudulent windows: at most one part can have any.
        String keep = TrainedModels.DATA.get(0).features().getUserId();
        List<LabelledWindow> data =
                TrainedModels.DATA.stream()
                        .map(
                                w ->
                                        new LabelledWindow(
                                                w.features(),
                                                w.fraud() && w.features().getUserId().equals(keep)))
                        .toList();
        List<LabelledWindow> withFraud = new ArrayList<>(data);
        if (withFraud.stream().noneMatch(LabelledWindow::fraud)) {
            withFraud.set(0, new LabelledWindow(data.get(0).features(), true));
        }
        assertThatThrownBy(
                        () ->
                                Trainer.train(
                                        TrainingSet.of(LAYOUT, withFraud),
                                        TrainedModels.config(
                                                Trainer.Algorithm.LOGISTIC_REGRESSION)))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("each need both classes")
                .hasMessageContaining("simulate more users or more fraud");
    }

    @Test
    void trainingSetRejectsRepeatedWindowsMixedSizesAndASingleClass() {
        LabelledWindow w = TrainedModels.DATA.get(0);
        assertThatThrownBy(() -> TrainingSet.of(LAYOUT, List.of(w, w)))
                .hasMessageContaining("appears twice");
        assertThatThrownBy(() -> TrainingSet.of(LAYOUT, List.of(w)))
                .hasMessageContaining("needs fraudulent and legitimate windows");
        FeatureRecord longer =
                FeatureRecord.newBuilder(TrainedModels.DATA.get(1).features())
                        .setWindowEnd(
                                TrainedModels.DATA.get(1).features().getWindowEnd().plusSeconds(60))
                        .build();
        assertThatThrownBy(
                        () ->
                                TrainingSet.of(
                                        LAYOUT,
                                        List.of(
                                                new LabelledWindow(w.features(), true),
                                                new LabelledWindow(longer, false))))
                .hasMessageContaining("same size");
    }
}
