package org.fraudpipe.scoring;

/**
 * A model could not be loaded: missing, unreadable, not ONNX, or not compatible with the feature
 * layout. Thrown at load, never later: a scorer that exists can score. The message names the model
 * (path or resource) and the problem.
 */
public final class ModelLoadException extends Exception {

    private static final long serialVersionUID = 1L;

    /** What kind of problem it is. */
    public enum Kind {
        /** Missing, unreadable, empty, or not an ONNX model ONNX Runtime can load. */
        UNREADABLE,
        /**
         * A loadable ONNX model that does not fit the feature layout: its input, output or metadata
         * (names, features, labels) are not what the layout needs.
         */
        MISFIT
    }

    private final String source;
    private final String problem;
    private final Kind kind;

    public ModelLoadException(String source, String problem) {
        this(source, problem, null);
    }

    public ModelLoadException(String source, String problem, Throwable cause) {
        this(Kind.UNREADABLE, source, problem, cause);
    }

    public ModelLoadException(Kind kind, String source, String problem, Throwable cause) {
        super("cannot load model " + source + ": " + problem, cause);
        this.kind = kind;
        this.source = source;
        this.problem = problem;
    }

    /** What kind of problem it is. */
    public Kind kind() {
        return kind;
    }

    /** The path or resource of the model. */
    public String source() {
        return source;
    }

    /** What is wrong, without the source. */
    public String problem() {
        return problem;
    }
}
