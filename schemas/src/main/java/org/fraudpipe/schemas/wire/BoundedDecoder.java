package org.fraudpipe.schemas.wire;

import java.io.EOFException;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import org.apache.avro.AvroRuntimeException;
import org.apache.avro.io.BinaryDecoder;
import org.apache.avro.io.Decoder;
import org.apache.avro.util.Utf8;

/**
 * A {@link Decoder} over a byte-array {@link BinaryDecoder} that refuses lengths and item counts
 * larger than the bytes that are left, before anything is allocated.
 *
 * <p>Avro's own decoder allocates whatever length a string, bytes, array or map header declares (up
 * to 2 GB) and only then finds out the input is shorter: one corrupted or hostile record could take
 * the whole task down with an {@link OutOfMemoryError} instead of going to the dead-letter topic.
 * Here such a record fails with an {@link EOFException} at once. An array or map item takes at
 * least one byte for every schema this pipeline uses, so counts are bounded the same way (arrays of
 * {@code null} or of empty records would be rejected; no contract has them).
 *
 * <p>Not thread-safe: one per thread, re-pointed with {@link #reset} for each record.
 */
final class BoundedDecoder extends Decoder {
    private static final int MAX_RETAINED_SCRATCH = 64 * 1024;

    private BinaryDecoder in;
    private byte[] scratch = new byte[256];

    BoundedDecoder reset(BinaryDecoder in) {
        this.in = in;
        return this;
    }

    /** Bytes not consumed yet. */
    int remaining() throws IOException {
        return in.inputStream().available();
    }

    private int checkLength(long length, String what) throws IOException {
        if (length < 0) {
            throw new AvroRuntimeException(
                    "Malformed data: " + what + " with negative length " + length);
        }
        int remaining = remaining();
        if (length > remaining) {
            throw new EOFException(
                    what + " declares " + length + " bytes but only " + remaining + " are left");
        }
        return (int) length;
    }

    private long checkCount(long count, String what) throws IOException {
        int remaining = remaining();
        if (count > remaining) {
            throw new EOFException(
                    what
                            + " declares "
                            + count
                            + " items but only "
                            + remaining
                            + " bytes are left");
        }
        return count;
    }

    @Override
    public void readNull() throws IOException {
        in.readNull();
    }

    @Override
    public boolean readBoolean() throws IOException {
        return in.readBoolean();
    }

    @Override
    public int readInt() throws IOException {
        return in.readInt();
    }

    @Override
    public long readLong() throws IOException {
        return in.readLong();
    }

    @Override
    public float readFloat() throws IOException {
        return in.readFloat();
    }

    @Override
    public double readDouble() throws IOException {
        return in.readDouble();
    }

    @Override
    public Utf8 readString(Utf8 old) throws IOException {
        int length = checkLength(in.readLong(), "a string");
        Utf8 result = old != null ? old : new Utf8();
        result.setByteLength(length);
        in.readFixed(result.getBytes(), 0, length);
        return result;
    }

    @Override
    public String readString() throws IOException {
        int length = checkLength(in.readLong(), "a string");
        if (length == 0) {
            return "";
        }
        byte[] bytes = scratch;
        if (length > bytes.length) {
            bytes = new byte[Math.max(length, 2 * bytes.length)];
            if (bytes.length <= MAX_RETAINED_SCRATCH) {
                scratch = bytes;
            }
        }
        in.readFixed(bytes, 0, length);
        return new String(bytes, 0, length, StandardCharsets.UTF_8);
    }

    @Override
    public void skipString() throws IOException {
        in.skipString();
    }

    @Override
    public ByteBuffer readBytes(ByteBuffer old) throws IOException {
        int length = checkLength(in.readLong(), "a bytes value");
        ByteBuffer result =
                old != null && old.hasArray() && !old.isReadOnly() && length <= old.capacity()
                        ? old.clear()
                        : ByteBuffer.allocate(length);
        in.readFixed(result.array(), result.arrayOffset(), length);
        result.limit(length);
        return result;
    }

    @Override
    public void skipBytes() throws IOException {
        in.skipBytes();
    }

    @Override
    public void readFixed(byte[] bytes, int start, int length) throws IOException {
        in.readFixed(bytes, start, length);
    }

    @Override
    public void skipFixed(int length) throws IOException {
        in.skipFixed(length);
    }

    @Override
    public int readEnum() throws IOException {
        return in.readEnum();
    }

    @Override
    public long readArrayStart() throws IOException {
        return checkCount(in.readArrayStart(), "an array block");
    }

    @Override
    public long arrayNext() throws IOException {
        return checkCount(in.arrayNext(), "an array block");
    }

    @Override
    public long skipArray() throws IOException {
        return in.skipArray();
    }

    @Override
    public long readMapStart() throws IOException {
        return checkCount(in.readMapStart(), "a map block");
    }

    @Override
    public long mapNext() throws IOException {
        return checkCount(in.mapNext(), "a map block");
    }

    @Override
    public long skipMap() throws IOException {
        return in.skipMap();
    }

    @Override
    public int readIndex() throws IOException {
        return in.readIndex();
    }
}
