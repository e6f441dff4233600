package org.fraudpipe.schemas.wire;

import org.fraudpipe.schemas.avro.DeadLetterReason;

/**
 * The Confluent wire format: byte 0 is the magic byte {@code 0}, bytes 1-4 the writer schema's
 * registry id as a big-endian signed 32-bit integer, then the Avro binary encoding of the record
 * with exactly that schema (no trailing bytes).
 *
 * <pre>
 * byte 0      bytes 1..4                       bytes 5..
 * 0x00        schema id, big-endian int32      Avro binary body (writer schema = that id)
 * </pre>
 */
public final class WireFormat {
    /** The first byte of every framed record. */
    public static final byte MAGIC_BYTE = 0;

    /** Bytes before the Avro body: magic byte and schema id. */
    public static final int HEADER_SIZE = 5;

    private WireFormat() {}

    /**
     * The writer schema id in the header of {@code framed}.
     *
     * @throws WireFormatException with {@link DeadLetterReason#NOT_CONFLUENT_FRAMED} if the bytes
     *     are null, shorter than the header, or do not start with the magic byte
     */
    public static int schemaId(byte[] framed) {
        return schemaId(framed, null);
    }

    static int schemaId(byte[] framed, String subject) {
        String forSubject = subject == null ? "" : " for subject '" + subject + "'";
        if (framed == null) {
            throw notFramed(subject, "the record" + forSubject + " has no bytes (null)");
        }
        if (framed.length < HEADER_SIZE) {
            throw notFramed(
                    subject,
                    "the record"
                            + forSubject
                            + " has "
                            + framed.length
                            + " bytes ("
                            + hex(framed, 8)
                            + "); a Confluent-framed record has at least "
                            + HEADER_SIZE
                            + " (magic byte 0 and a 4-byte schema id)");
        }
        if (framed[0] != MAGIC_BYTE) {
            throw notFramed(
                    subject,
                    "the record"
                            + forSubject
                            + " starts with "
                            + hex(framed, 8)
                            + ", not the magic byte 00: it was not written by a Confluent Avro"
                            + " serializer"
                            + (framed[0] == '{' ? " (it looks like JSON)" : "")
                            + "; check the producer of this topic");
        }
        return ((framed[1] & 0xff) << 24)
                | ((framed[2] & 0xff) << 16)
                | ((framed[3] & 0xff) << 8)
                | (framed[4] & 0xff);
    }

    /** Writes the header for {@code schemaId} into {@code target} at {@code offset}. */
    static void writeHeader(int schemaId, byte[] target, int offset) {
        target[offset] = MAGIC_BYTE;
        target[offset + 1] = (byte) (schemaId >>> 24);
        target[offset + 2] = (byte) (schemaId >>> 16);
        target[offset + 3] = (byte) (schemaId >>> 8);
        target[offset + 4] = (byte) schemaId;
    }

    /** The first {@code max} bytes as hex, e.g. {@code 7b 22 61 ...}. */
    static String hex(byte[] bytes, int max) {
        StringBuilder out = new StringBuilder();
        for (int i = 0; i < Math.min(bytes.length, max); i++) {
            if (i > 0) {
                out.append(' ');
            }
            out.append(Character.forDigit((bytes[i] >> 4) & 0xf, 16))
                    .append(Character.forDigit(bytes[i] & 0xf, 16));
        }
        if (bytes.length > max) {
            out.append(" ...");
        }
        return bytes.length == 0 ? "no bytes" : out.toString();
    }

    private static WireFormatException notFramed(String subject, String what) {
        return new WireFormatException(
                DeadLetterReason.NOT_CONFLUENT_FRAMED,
                subject,
                WireFormatException.NO_SCHEMA_ID,
                "Not Confluent-framed Avro: " + what + ".",
                null);
    }
}
