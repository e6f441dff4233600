package org.fraudpipe.job.replay;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;

/**
 * Splits a byte stream into lines, as bytes, so that a line that is not valid UTF-8 can still be
 * kept byte for byte in a dead letter.
 *
 * <p>A line ends with {@code \n}; one {@code \r} before it is dropped too ({@code \r\n} files read
 * the same). The last line needs no terminator; a stream ending with {@code \n} has no empty last
 * line. Empty lines in between are lines (the replay reports them). A line is held in memory whole:
 * a huge file without line breaks is one huge line (known limit).
 *
 * <p>Not thread-safe; does not close the stream.
 */
final class LineSplitter {

    private static final int BUFFER_SIZE = 64 * 1024;

    private final InputStream in;
    private final byte[] buffer = new byte[BUFFER_SIZE];
    private int position;
    private int limit;
    private boolean endOfStream;

    LineSplitter(InputStream in) {
        this.in = in;
    }

    /** The next line without its terminator, or {@code null} at the end of the stream. */
    byte[] next() throws IOException {
        ByteArrayOutputStream line = null;
        while (true) {
            if (position == limit && !fill()) {
                return line == null ? null : withoutCarriageReturn(line.toByteArray());
            }
            int start = position;
            while (position < limit && buffer[position] != '\n') {
                position++;
            }
            if (line == null) {
                line = new ByteArrayOutputStream(Math.max(128, position - start));
            }
            line.write(buffer, start, position - start);
            if (position < limit) {
                position++; // the '\n'
                return withoutCarriageReturn(line.toByteArray());
            }
        }
    }

    private boolean fill() throws IOException {
        if (endOfStream) {
            return false;
        }
        int n;
        do {
            n = in.read(buffer, 0, buffer.length);
        } while (n == 0);
        if (n < 0) {
            endOfStream = true;
            position = 0;
            limit = 0;
            return false;
        }
        position = 0;
        limit = n;
        return true;
    }

    private static byte[] withoutCarriageReturn(byte[] line) {
        if (line.length > 0 && line[line.length - 1] == '\r') {
            byte[] shorter = new byte[line.length - 1];
            System.arraycopy(line, 0, shorter, 0, shorter.length);
            return shorter;
        }
        return line;
    }
}
