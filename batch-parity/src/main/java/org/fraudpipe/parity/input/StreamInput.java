package org.fraudpipe.parity.input;

import java.io.Serializable;
import java.util.List;
import org.apache.flink.core.fs.Path;
import org.fraudpipe.schemas.archive.ArchiveStream;

/**
 * Where one input stream of a parity run is read from: files or directories (read recursively,
 * committed files only) in one format.
 *
 * @param stream which stream it is
 * @param paths what to read; empty: the stream is empty (e.g. no late record was archived)
 * @param format how the files are encoded
 * @param described how the user named it, for the report
 */
public record StreamInput(ArchiveStream stream, List<Path> paths, Format format, String described)
        implements Serializable {

    /** How a stream's files are encoded. */
    public enum Format {
        /** Avro container files: the archive. */
        AVRO,
        /** The replay's JSON Lines output ({@code AvroJson}) or, for transactions, its input. */
        JSON_LINES
    }

    public StreamInput {
        paths = List.copyOf(paths);
    }

    /** The format of a file or directory named on the command line: by its extension. */
    public static Format formatOf(String path) {
        return path.endsWith(".jsonl") || path.endsWith(".json") ? Format.JSON_LINES : Format.AVRO;
    }
}
