package org.fraudpipe.scoring.data;

import java.io.IOException;

/** A line of a labelled-features file is not the format; the message names file and line. */
public final class FeatureFileException extends IOException {

    private static final long serialVersionUID = 1L;

    public FeatureFileException(String source, long line, String problem) {
        super((source == null ? "" : source + ":") + line + ": " + problem);
    }
}
