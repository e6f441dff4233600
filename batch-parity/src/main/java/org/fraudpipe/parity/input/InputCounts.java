package org.fraudpipe.parity.input;

import java.io.IOException;
import java.io.InputStream;
import org.apache.avro.file.DataFileStream;
import org.apache.avro.generic.GenericDatumReader;
import org.apache.flink.core.fs.FileStatus;
import org.apache.flink.core.fs.FileSystem;
import org.apache.flink.core.fs.Path;

/**
 * How many records a {@link StreamInput} holds, for the progress of {@code ./fraud parity}: Avro
 * container files by their block headers (each block says how many records it holds; the records
 * are skipped, not decoded), JSON Lines files by their lines. Reads what the run reads: files and
 * directories recursively, committed files only (names starting with {@code .} or {@code _} are
 * skipped, as the sources skip them).
 */
public final class InputCounts {

    private InputCounts() {}

    /** The records of {@code input}. */
    public static long records(StreamInput input) throws IOException {
        long n = 0;
        for (Path p : input.paths()) {
            n += records(p, input.format());
        }
        return n;
    }

    private static long records(Path path, StreamInput.Format format) throws IOException {
        FileSystem fs = path.getFileSystem();
        FileStatus status = fs.getFileStatus(path);
        if (!status.isDir()) {
            return format == StreamInput.Format.AVRO ? avroRecords(fs, path) : lines(fs, path);
        }
        long n = 0;
        FileStatus[] children = fs.listStatus(path);
        if (children != null) {
            for (FileStatus child : children) {
                String name = child.getPath().getName();
                if (!name.startsWith(".") && !name.startsWith("_")) {
                    n += records(child.getPath(), format);
                }
            }
        }
        return n;
    }

    static long avroRecords(FileSystem fs, Path file) throws IOException {
        long n = 0;
        try (InputStream in = fs.open(file);
                DataFileStream<Object> blocks =
                        new DataFileStream<>(in, new GenericDatumReader<>())) {
            while (blocks.hasNext()) {
                n += blocks.getBlockCount();
                blocks.nextBlock();
            }
        }
        return n;
    }

    static long lines(FileSystem fs, Path file) throws IOException {
        long lines = 0;
        int last = '\n';
        byte[] buffer = new byte[1 << 16];
        try (InputStream in = fs.open(file)) {
            int n;
            while ((n = in.read(buffer)) > 0) {
                for (int i = 0; i < n; i++) {
                    if (buffer[i] == '\n') {
                        lines++;
                    }
                }
                last = buffer[n - 1];
            }
        }
        return last == '\n' ? lines : lines + 1;
    }
}
