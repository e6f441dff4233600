package org.fraudpipe.scoring;

import ai.onnxruntime.NodeInfo;
import ai.onnxruntime.OnnxJavaType;
import ai.onnxruntime.OnnxTensor;
import ai.onnxruntime.OnnxValue;
import ai.onnxruntime.OrtEnvironment;
import ai.onnxruntime.OrtException;
import ai.onnxruntime.OrtSession;
import ai.onnxruntime.TensorInfo;
import ai.onnxruntime.ValueInfo;
import java.io.IOException;
import java.io.InputStream;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.FloatBuffer;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.locks.ReentrantReadWriteLock;
import org.fraudpipe.schemas.avro.FeatureRecord;
import org.fraudpipe.schemas.avro.TransactionFeatures;

/**
 * Scores records of one {@link FeatureLayout} with an ONNX model in ONNX Runtime: the fraud
 * probability of each window ({@link FeatureLayout#V1}) or transaction ({@link
 * FeatureLayout#TRANSACTION_V1}).
 *
 * <p><b>Load-time contract</b> (violations throw {@link ModelLoadException} naming the model and
 * the mismatch, so a wrong model never reaches traffic): the model has exactly one input {@value
 * #INPUT_NAME}, float32 of shape {@code [batch, F]} with a dynamic batch and {@code F} = the
 * layout's size; exactly one output {@value #OUTPUT_NAME}, float32 {@code [batch, L]} with {@code
 * L} = the number of labels in its metadata; its metadata ({@link ModelMetadata}) names the model,
 * its version, its labels (one of them {@value ModelMetadata#FRAUD_LABEL}) and its features, which
 * must equal the layout's names column by column (columns are counted from 0).
 *
 * <p><b>Score</b> = the output probability of the {@value ModelMetadata#FRAUD_LABEL} column (label
 * order from the metadata), not an argmax.
 *
 * <p><b>Concurrency.</b> Safe for concurrent use: ONNX Runtime's {@code OrtSession.run} is
 * thread-safe, and each thread writes its rows into its own direct {@link FloatBuffer} (a
 * thread-local owned by this scorer). Invariant: a thread's buffer is only ever touched by that
 * thread, and the tensor that wraps it (ONNX Runtime reads a direct buffer in place, without a
 * copy) is closed before the call returns, so no native reference to the buffer outlives a call.
 * {@link #close()} waits for running calls (read/write lock); calls after close fail with {@link
 * IllegalStateException}. Buffers grow to at most {@value #MAX_ROWS_PER_RUN} rows; larger batches
 * are scored in chunks of that size.
 *
 * <p>The scorer uses the process-wide {@link OrtEnvironment} and one single-threaded session
 * (intra- and inter-op threads 1: the caller's threads, e.g. the job's parallelism, are the
 * concurrency; a linear model gains nothing from ONNX Runtime's own pools). Closing the scorer
 * closes its session, never the shared environment.
 */
public final class OnnxScorer<R> implements AutoCloseable {

    /** Name of the model's input, as Tribuo exports it. */
    public static final String INPUT_NAME = "input";

    /** Name of the model's output (probabilities per label), as Tribuo exports it. */
    public static final String OUTPUT_NAME = "output";

    /**
     * Classpath resource of the shipped default model (the window path's, {@link
     * FeatureLayout#V1}).
     */
    public static final String DEFAULT_MODEL_RESOURCE = "models/default/fraud-model.onnx";

    /**
     * Classpath resource of the shipped default per-transaction model ({@link
     * FeatureLayout#TRANSACTION_V1}).
     */
    public static final String DEFAULT_TRANSACTION_MODEL_RESOURCE =
            "models/transaction/fraud-model.onnx";

    /** Largest number of rows sent to ONNX Runtime in one run. */
    public static final int MAX_ROWS_PER_RUN = 4096;

    private static final Set<String> OUTPUTS = Set.of(OUTPUT_NAME);

    private final OrtEnvironment env;
    private final OrtSession session;
    private final String source;
    private final FeatureLayout<R> layout;
    private final ModelMetadata metadata;
    private final int width;
    private final int labelCount;
    private final int fraudColumn;
    private final ThreadLocal<FloatBuffer> buffers;
    private final ReentrantReadWriteLock lifecycle = new ReentrantReadWriteLock();
    private boolean closed;

    private OnnxScorer(
            OrtEnvironment env,
            OrtSession session,
            String source,
            FeatureLayout<R> layout,
            ModelMetadata metadata) {
        this.env = env;
        this.session = session;
        this.source = source;
        this.layout = layout;
        this.metadata = metadata;
        this.width = layout.size();
        this.labelCount = metadata.labels().size();
        this.fraudColumn = metadata.fraudColumn();
        this.buffers = ThreadLocal.withInitial(() -> allocate(64));
    }

    /** Loads a model file for the current layout ({@link FeatureLayout#V1}). */
    public static OnnxScorer<FeatureRecord> load(Path modelFile) throws ModelLoadException {
        return load(modelFile, FeatureLayout.V1);
    }

    /** Loads a model file and checks it against {@code layout}. */
    public static <R> OnnxScorer<R> load(Path modelFile, FeatureLayout<R> layout)
            throws ModelLoadException {
        String source = modelFile.toString();
        if (Files.isDirectory(modelFile)) {
            throw new ModelLoadException(source, "it is a directory, not an ONNX model file");
        }
        byte[] bytes;
        try {
            bytes = Files.readAllBytes(modelFile);
        } catch (NoSuchFileException e) {
            throw new ModelLoadException(source, "no such file", e);
        } catch (IOException e) {
            throw new ModelLoadException(source, "cannot read it: " + e, e);
        }
        return fromBytes(bytes, source, layout);
    }

    /** Loads the default model shipped in this module's jar ({@value #DEFAULT_MODEL_RESOURCE}). */
    public static OnnxScorer<FeatureRecord> loadDefault() throws ModelLoadException {
        return fromResource(DEFAULT_MODEL_RESOURCE, FeatureLayout.V1);
    }

    /**
     * Loads the default per-transaction model shipped in this module's jar ({@value
     * #DEFAULT_TRANSACTION_MODEL_RESOURCE}).
     */
    public static OnnxScorer<TransactionFeatures> loadDefaultTransactionModel()
            throws ModelLoadException {
        return fromResource(DEFAULT_TRANSACTION_MODEL_RESOURCE, FeatureLayout.TRANSACTION_V1);
    }

    /** The bytes of a model shipped in this module's jar. */
    public static byte[] resourceBytes(String resource) throws ModelLoadException {
        String source = "classpath:" + resource;
        try (InputStream in = OnnxScorer.class.getClassLoader().getResourceAsStream(resource)) {
            if (in == null) {
                throw new ModelLoadException(
                        source, "no such resource (is the scoring jar on the classpath?)");
            }
            return in.readAllBytes();
        } catch (IOException e) {
            throw new ModelLoadException(source, "cannot read it: " + e, e);
        }
    }

    private static <R> OnnxScorer<R> fromResource(String resource, FeatureLayout<R> layout)
            throws ModelLoadException {
        return fromBytes(resourceBytes(resource), "classpath:" + resource, layout);
    }

    /**
     * Loads a model from its bytes.
     *
     * @param source how to name the model in messages (a path or resource)
     */
    public static <R> OnnxScorer<R> fromBytes(byte[] model, String source, FeatureLayout<R> layout)
            throws ModelLoadException {
        Objects.requireNonNull(layout, "layout");
        if (model.length == 0) {
            throw new ModelLoadException(source, "the file is empty");
        }
        OrtEnvironment env = environment();
        OrtSession session;
        try (OrtSession.SessionOptions options = new OrtSession.SessionOptions()) {
            options.setIntraOpNumThreads(1);
            options.setInterOpNumThreads(1);
            session = env.createSession(model, options);
        } catch (OrtException e) {
            throw new ModelLoadException(
                    source, "not a valid ONNX model (ONNX Runtime: " + e.getMessage() + ")", e);
        }
        try {
            ModelMetadata metadata = validate(session, layout);
            return new OnnxScorer<>(env, session, source, layout, metadata);
        } catch (IllegalArgumentException | OrtException e) {
            closeQuietly(session);
            throw new ModelLoadException(ModelLoadException.Kind.MISFIT, source, e.getMessage(), e);
        } catch (RuntimeException | Error e) {
            closeQuietly(session);
            throw e;
        }
    }

    /**
     * The process-wide ONNX Runtime environment, created on first use on a thread with a {@value
     * #INIT_STACK_BYTES}-byte stack.
     *
     * <p>Why: creating the environment (ONNX Runtime 1.29.0, Linux x64) recurses deeply in native
     * code and needs more than 1 MB of stack. On a thread with the JVM's default 1 MB stack (the
     * {@code main} thread of {@code java}, and Flink's task threads) it overflows the stack and the
     * JVM dies with SIGSEGV, without an {@code hs_err} file. Creating sessions and running them do
     * not need the deep stack (tested on 1 MB threads).
     */
    static OrtEnvironment environment() {
        return EnvironmentHolder.ENV;
    }

    static final long INIT_STACK_BYTES = 16L << 20;

    private static final class EnvironmentHolder {
        static final OrtEnvironment ENV = createEnvironment();
    }

    // Not in EnvironmentHolder: the init thread runs a lambda of the class that creates it, and a
    // lambda of a class still being initialized would wait for that initialization: a deadlock.
    private static OrtEnvironment createEnvironment() {
        OrtEnvironment[] env = new OrtEnvironment[1];
        Throwable[] failure = new Throwable[1];
        Thread init =
                new Thread(
                        null,
                        () -> {
                            try {
                                env[0] = OrtEnvironment.getEnvironment();
                            } catch (Throwable t) {
                                failure[0] = t;
                            }
                        },
                        "onnxruntime-init",
                        INIT_STACK_BYTES);
        init.setDaemon(true);
        init.start();
        boolean interrupted = false;
        while (true) {
            try {
                init.join();
                break;
            } catch (InterruptedException e) {
                interrupted = true;
            }
        }
        if (interrupted) {
            Thread.currentThread().interrupt();
        }
        if (failure[0] != null) {
            throw new IllegalStateException(
                    "ONNX Runtime could not start: " + failure[0], failure[0]);
        }
        // Its own shutdown hook would release it under a running session on Ctrl-C or SIGTERM.
        OrtShutdown.keepEnvironmentUntilExit();
        return env[0];
    }

    /** Checks the session's signature and metadata against the layout; returns the metadata. */
    private static ModelMetadata validate(OrtSession session, FeatureLayout<?> layout)
            throws OrtException {
        Map<String, NodeInfo> inputs = session.getInputInfo();
        if (inputs.size() != 1) {
            throw new IllegalArgumentException(
                    "model has "
                            + inputs.size()
                            + " inputs "
                            + inputs.keySet()
                            + ", expected exactly one, `"
                            + INPUT_NAME
                            + "` float[batch, "
                            + layout.size()
                            + "]");
        }
        NodeInfo input = inputs.values().iterator().next();
        if (!INPUT_NAME.equals(input.getName())) {
            throw new IllegalArgumentException(
                    "model input is named `"
                            + input.getName()
                            + "` but the scorer feeds `"
                            + INPUT_NAME
                            + "` (the name Tribuo's ONNX export gives it)");
        }
        long[] inShape = floatMatrixShape("input `" + INPUT_NAME + "`", input.getInfo());
        if (inShape[0] >= 0) {
            throw new IllegalArgumentException(
                    "model input `"
                            + INPUT_NAME
                            + "` has a fixed batch size of "
                            + inShape[0]
                            + "; the scorer needs a dynamic batch dimension ([-1, "
                            + layout.size()
                            + "])");
        }
        if (inShape[1] != layout.size()) {
            throw new IllegalArgumentException(
                    "model input `"
                            + INPUT_NAME
                            + "` has "
                            + inShape[1]
                            + " feature columns but the layout has "
                            + layout.size()
                            + " "
                            + layout.names());
        }

        Map<String, NodeInfo> outputs = session.getOutputInfo();
        NodeInfo output = outputs.get(OUTPUT_NAME);
        if (outputs.size() != 1 || output == null) {
            throw new IllegalArgumentException(
                    "model outputs are "
                            + outputs.keySet()
                            + ", expected exactly one, `"
                            + OUTPUT_NAME
                            + "` float[batch, labels] of probabilities");
        }
        long[] outShape = floatMatrixShape("output `" + OUTPUT_NAME + "`", output.getInfo());

        ModelMetadata metadata =
                ModelMetadata.fromCustomMetadata(session.getMetadata().getCustomMetadata());
        if (outShape[1] != metadata.labels().size()) {
            throw new IllegalArgumentException(
                    "model output `"
                            + OUTPUT_NAME
                            + "` has shape "
                            + Arrays.toString(outShape)
                            + " but the metadata declares "
                            + metadata.labels().size()
                            + " labels "
                            + metadata.labels());
        }
        List<String> declared = metadata.featureNames();
        List<String> expected = layout.names();
        for (int i = 0; i < Math.min(declared.size(), expected.size()); i++) {
            if (!declared.get(i).equals(expected.get(i))) {
                throw new IllegalArgumentException(
                        "model expects feature `"
                                + declared.get(i)
                                + "` at column "
                                + i
                                + " but the layout has `"
                                + expected.get(i)
                                + "` there (model features "
                                + declared
                                + ", layout "
                                + expected
                                + ")");
            }
        }
        if (declared.size() != expected.size()) {
            throw new IllegalArgumentException(
                    "model declares "
                            + declared.size()
                            + " features "
                            + declared
                            + " but the layout has "
                            + expected.size()
                            + " "
                            + expected);
        }
        return metadata;
    }

    private static long[] floatMatrixShape(String what, ValueInfo info) {
        if (!(info instanceof TensorInfo tensor)) {
            throw new IllegalArgumentException(
                    "model " + what + " is not a tensor but " + info.getClass().getSimpleName());
        }
        if (tensor.type != OnnxJavaType.FLOAT) {
            throw new IllegalArgumentException(
                    "model " + what + " has element type " + tensor.type + ", expected FLOAT");
        }
        long[] shape = tensor.getShape();
        if (shape.length != 2) {
            throw new IllegalArgumentException(
                    "model "
                            + what
                            + " has shape "
                            + Arrays.toString(shape)
                            + ", expected a matrix [batch, columns]");
        }
        return shape;
    }

    /** The model's metadata (name, version, features, labels). */
    public ModelMetadata metadata() {
        return metadata;
    }

    /** The layout the model was checked against. */
    public FeatureLayout<R> layout() {
        return layout;
    }

    /** Where the model came from (path or resource), for messages. */
    public String source() {
        return source;
    }

    /** The fraud probability of one record (a window, a transaction). */
    public double score(R record) {
        return score(List.of(record))[0];
    }

    /** The fraud probabilities of these records, in order; one ONNX run per 4096 rows. */
    public double[] score(List<? extends R> records) {
        int n = records.size();
        double[] scores = new double[n];
        for (int from = 0; from < n; from += MAX_ROWS_PER_RUN) {
            int to = Math.min(n, from + MAX_ROWS_PER_RUN);
            FloatBuffer in = inputBuffer(to - from);
            for (R record : records.subList(from, to)) {
                layout.writeTo(record, in);
            }
            in.flip();
            run(in, to - from, scores, from);
        }
        return scores;
    }

    /**
     * The fraud probabilities of feature vectors already in layout order: {@code rows} vectors of
     * {@link FeatureLayout#size()} floats each, row after row.
     */
    public double[] scoreVectors(float[] vectors, int rows) {
        if (rows < 0 || (long) rows * width != vectors.length) {
            throw new IllegalArgumentException(
                    vectors.length + " floats are not " + rows + " rows of " + width + " features");
        }
        double[] scores = new double[rows];
        for (int from = 0; from < rows; from += MAX_ROWS_PER_RUN) {
            int to = Math.min(rows, from + MAX_ROWS_PER_RUN);
            FloatBuffer in = inputBuffer(to - from);
            in.put(vectors, from * width, (to - from) * width);
            in.flip();
            run(in, to - from, scores, from);
        }
        return scores;
    }

    private void run(FloatBuffer in, int rows, double[] scores, int offset) {
        if (rows == 0) {
            return;
        }
        lifecycle.readLock().lock();
        try {
            if (closed) {
                throw new IllegalStateException("scorer of model " + source + " is closed");
            }
            try (OnnxTensor tensor = OnnxTensor.createTensor(env, in, new long[] {rows, width});
                    OrtSession.Result result = session.run(Map.of(INPUT_NAME, tensor), OUTPUTS)) {
                OnnxValue value = result.get(0);
                FloatBuffer probabilities = ((OnnxTensor) value).getFloatBuffer();
                for (int r = 0; r < rows; r++) {
                    scores[offset + r] = probabilities.get(r * labelCount + fraudColumn);
                }
            }
        } catch (OrtException e) {
            throw new ScoringException(
                    "model "
                            + metadata.id()
                            + " ("
                            + source
                            + ") failed to score "
                            + rows
                            + " rows: "
                            + e.getMessage(),
                    e);
        } finally {
            lifecycle.readLock().unlock();
        }
    }

    /** This thread's input buffer, cleared, with room for {@code rows} rows. */
    private FloatBuffer inputBuffer(int rows) {
        FloatBuffer buffer = buffers.get();
        if (buffer.capacity() < rows * width) {
            int capacityRows = Math.min(MAX_ROWS_PER_RUN, Integer.highestOneBit(rows - 1) << 1);
            buffer = allocate(Math.max(rows, capacityRows));
            buffers.set(buffer);
        }
        buffer.clear();
        return buffer;
    }

    private FloatBuffer allocate(int rows) {
        return ByteBuffer.allocateDirect(rows * width * Float.BYTES)
                .order(ByteOrder.nativeOrder())
                .asFloatBuffer();
    }

    /** Closes the session after running calls have finished; idempotent. */
    @Override
    public void close() {
        lifecycle.writeLock().lock();
        try {
            if (!closed) {
                closed = true;
                buffers.remove();
                closeQuietly(session);
            }
        } finally {
            lifecycle.writeLock().unlock();
        }
    }

    private static void closeQuietly(OrtSession session) {
        try {
            session.close();
        } catch (OrtException e) {
            // Nothing to recover: the native session is gone either way.
        }
    }

    @Override
    public String toString() {
        return "OnnxScorer{" + metadata.id() + ", " + source + "}";
    }
}
