package org.fraudpipe.schemas.json;

import java.io.IOException;

/**
 * A line of a JSON Lines file is not a valid record of its format. The message starts with {@code
 * <source>:<line>:} (or {@code line <n>:} without a source) and says what is wrong and what was
 * expected.
 */
public final class ReplayFormatException extends IOException {
    private final long lineNumber;

    public ReplayFormatException(String source, long lineNumber, String problem) {
        super(prefix(source, lineNumber) + problem);
        this.lineNumber = lineNumber;
    }

    private static String prefix(String source, long lineNumber) {
        return source == null ? "line " + lineNumber + ": " : source + ":" + lineNumber + ": ";
    }

    /** 1-based line number of the offending line. */
    public long lineNumber() {
        return lineNumber;
    }
}
