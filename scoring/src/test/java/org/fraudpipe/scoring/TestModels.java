package org.fraudpipe.scoring;

import ai.onnx.proto.OnnxMl;
import ai.onnx.proto.OnnxMl.GraphProto;
import ai.onnx.proto.OnnxMl.ModelProto;
import ai.onnx.proto.OnnxMl.NodeProto;
import ai.onnx.proto.OnnxMl.TensorProto;
import ai.onnx.proto.OnnxMl.TensorShapeProto;
import ai.onnx.proto.OnnxMl.TypeProto;
import ai.onnx.proto.OnnxMl.ValueInfoProto;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Hand-built ONNX models for signature tests: {@code output = softmax(input x W + b)}, with every
 * name, width, batch dimension and metadata entry chosen by the test. Built with the ONNX protobuf
 * classes that come with Tribuo ({@code ai.onnx.proto.OnnxMl}).
 */
public final class TestModels {

    private TestModels() {}

    /**
     * What to build; {@link #valid()} is a model the scorer accepts for {@link FeatureLayout#V1}.
     */
    public record Spec(
            String inputName,
            long inputBatch,
            int inputWidth,
            String outputName,
            int outputWidth,
            float[] bias,
            Map<String, String> metadata) {

        /** A model that fits the V1 layout and always says 30 % fraud (labels fraud, legit). */
        public static Spec valid() {
            return new Spec(
                    "input",
                    -1,
                    FeatureLayout.V1.size(),
                    "output",
                    2,
                    new float[] {(float) Math.log(0.3), (float) Math.log(0.7)},
                    TestModels.metadata(FeatureLayout.V1.names(), List.of("fraud", "legit")));
        }

        public Spec withInputName(String name) {
            return new Spec(name, inputBatch, inputWidth, outputName, outputWidth, bias, metadata);
        }

        public Spec withInputWidth(int width) {
            return new Spec(inputName, inputBatch, width, outputName, outputWidth, bias, metadata);
        }

        public Spec withInputBatch(long batch) {
            return new Spec(inputName, batch, inputWidth, outputName, outputWidth, bias, metadata);
        }

        public Spec withOutputName(String name) {
            return new Spec(inputName, inputBatch, inputWidth, name, outputWidth, bias, metadata);
        }

        /** Output width {@code width}, equal logits. */
        public Spec withOutputWidth(int width) {
            return new Spec(
                    inputName,
                    inputBatch,
                    inputWidth,
                    outputName,
                    width,
                    new float[width],
                    metadata);
        }

        public Spec withMetadata(Map<String, String> m) {
            return new Spec(inputName, inputBatch, inputWidth, outputName, outputWidth, bias, m);
        }

        public Spec withoutMetadata(String key) {
            Map<String, String> m = new LinkedHashMap<>(metadata);
            m.remove(key);
            return withMetadata(m);
        }

        public Spec withMetadata(String key, String value) {
            Map<String, String> m = new LinkedHashMap<>(metadata);
            m.put(key, value);
            return withMetadata(m);
        }
    }

    /** The required metadata for these features and labels. */
    public static Map<String, String> metadata(List<String> features, List<String> labels) {
        Map<String, String> m = new LinkedHashMap<>();
        m.put(ModelMetadata.NAME, "test-model");
        m.put(ModelMetadata.VERSION, "7");
        m.put(ModelMetadata.FEATURES, String.join(",", features));
        m.put(ModelMetadata.LABELS, String.join(",", labels));
        return m;
    }

    /** The ONNX bytes of {@code spec}. */
    public static byte[] build(Spec spec) {
        int f = spec.inputWidth();
        int l = spec.outputWidth();
        TensorProto.Builder w =
                TensorProto.newBuilder()
                        .setName("W")
                        .setDataType(TensorProto.DataType.FLOAT_VALUE)
                        .addDims(f)
                        .addDims(l);
        for (int i = 0; i < f * l; i++) {
            w.addFloatData(0f);
        }
        TensorProto.Builder b =
                TensorProto.newBuilder()
                        .setName("B")
                        .setDataType(TensorProto.DataType.FLOAT_VALUE)
                        .addDims(l);
        for (float v : spec.bias()) {
            b.addFloatData(v);
        }
        GraphProto graph =
                GraphProto.newBuilder()
                        .setName("test")
                        .addInput(matrix(spec.inputName(), spec.inputBatch(), f))
                        .addOutput(matrix(spec.outputName(), spec.inputBatch(), l))
                        .addInitializer(w)
                        .addInitializer(b)
                        .addNode(
                                NodeProto.newBuilder()
                                        .setOpType("MatMul")
                                        .addInput(spec.inputName())
                                        .addInput("W")
                                        .addOutput("xw"))
                        .addNode(
                                NodeProto.newBuilder()
                                        .setOpType("Add")
                                        .addInput("xw")
                                        .addInput("B")
                                        .addOutput("logits"))
                        .addNode(
                                NodeProto.newBuilder()
                                        .setOpType("Softmax")
                                        .addInput("logits")
                                        .addOutput(spec.outputName())
                                        .addAttribute(
                                                OnnxMl.AttributeProto.newBuilder()
                                                        .setName("axis")
                                                        .setType(
                                                                OnnxMl.AttributeProto.AttributeType
                                                                        .INT)
                                                        .setI(1)))
                        .build();
        ModelProto.Builder model =
                ModelProto.newBuilder()
                        .setIrVersion(7)
                        .setProducerName("fraudpipe-tests")
                        .addOpsetImport(OnnxMl.OperatorSetIdProto.newBuilder().setVersion(13))
                        .setGraph(graph);
        spec.metadata()
                .forEach(
                        (k, v) ->
                                model.addMetadataProps(
                                        OnnxMl.StringStringEntryProto.newBuilder()
                                                .setKey(k)
                                                .setValue(v)));
        return model.build().toByteArray();
    }

    private static ValueInfoProto matrix(String name, long batch, long width) {
        TensorShapeProto.Dimension first =
                batch < 0
                        ? TensorShapeProto.Dimension.newBuilder().setDimParam("batch").build()
                        : TensorShapeProto.Dimension.newBuilder().setDimValue(batch).build();
        return ValueInfoProto.newBuilder()
                .setName(name)
                .setType(
                        TypeProto.newBuilder()
                                .setTensorType(
                                        TypeProto.Tensor.newBuilder()
                                                .setElemType(TensorProto.DataType.FLOAT_VALUE)
                                                .setShape(
                                                        TensorShapeProto.newBuilder()
                                                                .addDim(first)
                                                                .addDim(
                                                                        TensorShapeProto.Dimension
                                                                                .newBuilder()
                                                                                .setDimValue(
                                                                                        width)))))
                .build();
    }
}
