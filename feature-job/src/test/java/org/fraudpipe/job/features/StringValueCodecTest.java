package org.fraudpipe.job.features;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Random;
import org.apache.flink.core.memory.DataInputDeserializer;
import org.apache.flink.core.memory.DataOutputSerializer;
import org.apache.flink.types.StringValue;
import org.junit.jupiter.api.Test;

/** {@link StringValueCodec} writes and reads exactly Flink's {@link StringValue} encoding. */
class StringValueCodecTest {

    /** Strings of every encoded width: ASCII, Latin-1, BMP, surrogates, long lengths, null. */
    private static List<String> samples() {
        List<String> out =
                new ArrayList<>(
                        Arrays.asList(
                                null,
                                "",
                                "a",
                                "tx-1",
                                "dev-\u00fc",
                                "\u007f\u0080\u00ff",
                                "\u3fff\u4000\uffff",
                                "m-\ud83d\ude00",
                                "x".repeat(126),
                                "x".repeat(127),
                                "x".repeat(16_383),
                                "\u00e9".repeat(300)));
        Random random = new Random(42);
        for (int i = 0; i < 500; i++) {
            int n = random.nextInt(40);
            char[] chars = new char[n];
            for (int k = 0; k < n; k++) {
                chars[k] =
                        switch (random.nextInt(4)) {
                            case 0 -> (char) random.nextInt(0x80);
                            case 1 -> (char) random.nextInt(0x100);
                            case 2 -> (char) random.nextInt(0x4000);
                            default -> (char) random.nextInt(0x10000);
                        };
            }
            out.add(new String(chars));
        }
        return out;
    }

    @Test
    void writesTheBytesOfStringValue() throws IOException {
        for (String s : samples()) {
            DataOutputSerializer ours = new DataOutputSerializer(16);
            DataOutputSerializer flinks = new DataOutputSerializer(16);
            StringValueCodec.write(s, ours);
            StringValue.writeString(s, flinks);
            assertThat(ours.getCopyOfBuffer()).as("%s", s).isEqualTo(flinks.getCopyOfBuffer());
        }
    }

    @Test
    void readsWhatStringValueWroteAndNoByteMore() throws IOException {
        DataOutputSerializer out = new DataOutputSerializer(1024);
        List<String> samples = samples();
        for (String s : samples) {
            StringValue.writeString(s, out);
            out.writeInt(0x5a5a5a5a);
        }
        DataInputDeserializer in = new DataInputDeserializer(out.getCopyOfBuffer());
        for (String s : samples) {
            assertThat(StringValueCodec.read(in)).isEqualTo(s);
            assertThat(in.readInt()).as("the bytes after %s", s).isEqualTo(0x5a5a5a5a);
        }
        assertThat(in.available()).isZero();
    }
}
