package org.fraudpipe.scoring;

/**
 * A model could not be loaded: missing, unreadable, not ONNX, or not compatible with the feature
 * layout. Thrown at load, never later: a scorer that exists can score. The message names the model
 * (path or resource) and the problem.
 */
public final class ModelLoadException extends Exception {

    private static final long serialVersionUID = 1L;

    private final String source;
    private final String problem;

    public ModelLoadException(String source, String problem) {
        this(source, problem, null);
    }

    public ModelLoadException(String source, String problem, Throwable cause) {
        super("cannot load model " + source + ": " + problem, cause);
        this.source = source;
        this.problem = problem;
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
