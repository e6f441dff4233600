package org.fraudpipe.parity.input;

/**
 * The inputs of a parity run are missing or unusable (exit code 2): the message names the path and
 * what to do.
 */
public final class ParityInputException extends Exception {

    private static final long serialVersionUID = 1L;

    public ParityInputException(String message) {
        super(message);
    }

    public ParityInputException(String message, Throwable cause) {
        super(message, cause);
    }
}
