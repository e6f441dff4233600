package org.fraudpipe.job.features;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import org.apache.flink.core.memory.DataInputView;
import org.apache.flink.core.memory.DataOutputView;
import org.apache.flink.types.StringValue;

/**
 * Flink's {@link StringValue} string encoding, byte for byte, written and read a string at a time
 * instead of a byte at a time: the feature accumulator's strings are read and written on every
 * record and every firing with RocksDB, and {@code StringValue} makes one interface call per byte
 * (and a thread-local lookup per read), 12 % of the window task's samples in a profile. Also the
 * per-transaction path's state ({@code ReceivedTransactionSerializer}).
 *
 * <p>The encoding (the savepoint format of {@link FeatureAccumulatorSerializer}, never to change):
 * {@code length + 1} as an unsigned varint (7 bits per byte, least significant group first, high
 * bit set on every byte but the last; 0 means null), then each UTF-16 char as such a varint (one
 * byte for chars below 0x80). {@code StringValueCodecTest} checks equality with {@code StringValue}
 * both ways.
 */
public final class StringValueCodec {

    private StringValueCodec() {}

    /** Writes {@code s} (null allowed) as {@link StringValue#writeString} does. */
    public static void write(String s, DataOutputView out) throws IOException {
        if (s == null) {
            out.write(0);
            return;
        }
        int n = s.length();
        if (n == Integer.MAX_VALUE) {
            throw new IllegalArgumentException("CharSequence is too long.");
        }
        byte[] buf = new byte[5 + 3 * n];
        int p = putVarint(buf, 0, n + 1);
        for (int i = 0; i < n; i++) {
            char c = s.charAt(i);
            if (c < 0x80) {
                buf[p++] = (byte) c;
            } else {
                p = putVarint(buf, p, c);
            }
        }
        out.write(buf, 0, p);
    }

    /** Reads a string written by {@link #write} or {@link StringValue#writeString}. */
    public static String read(DataInputView in) throws IOException {
        int lengthPlusOne = readVarint(in);
        if (lengthPlusOne == 0) {
            return null;
        }
        int n = lengthPlusOne - 1;
        // Every char takes at least one byte: the next n bytes are all this string's.
        byte[] bytes = new byte[n];
        in.readFully(bytes);
        int ascii = 0;
        while (ascii < n && bytes[ascii] >= 0) {
            ascii++;
        }
        if (ascii == n) {
            return new String(bytes, StandardCharsets.ISO_8859_1);
        }
        char[] chars = new char[n];
        for (int i = 0; i < ascii; i++) {
            chars[i] = (char) bytes[i];
        }
        int pos = ascii;
        for (int k = ascii; k < n; k++) {
            int b = pos < n ? bytes[pos++] & 0xff : in.readUnsignedByte();
            int c = b & 0x7f;
            for (int shift = 7; b >= 0x80; shift += 7) {
                b = pos < n ? bytes[pos++] & 0xff : in.readUnsignedByte();
                c |= (b & 0x7f) << shift;
            }
            chars[k] = (char) c;
        }
        return new String(chars);
    }

    private static int putVarint(byte[] buf, int p, int value) {
        while (value >= 0x80) {
            buf[p++] = (byte) (value | 0x80);
            value >>>= 7;
        }
        buf[p++] = (byte) value;
        return p;
    }

    private static int readVarint(DataInputView in) throws IOException {
        int b = in.readUnsignedByte();
        int value = b & 0x7f;
        for (int shift = 7; b >= 0x80; shift += 7) {
            b = in.readUnsignedByte();
            value |= (b & 0x7f) << shift;
        }
        return value;
    }
}
