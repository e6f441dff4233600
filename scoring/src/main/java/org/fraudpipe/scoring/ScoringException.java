package org.fraudpipe.scoring;

/**
 * ONNX Runtime failed while scoring a batch with a model that loaded fine (native error, out of
 * memory). Unchecked: in the streaming job this fails the task, which restarts from its checkpoint;
 * a scoring failure must never turn into a silently missing score.
 */
public final class ScoringException extends RuntimeException {

    private static final long serialVersionUID = 1L;

    public ScoringException(String message, Throwable cause) {
        super(message, cause);
    }
}
