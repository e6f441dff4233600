package org.fraudpipe.job.transaction;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.util.HexFormat;
import org.apache.flink.core.memory.DataInputDeserializer;
import org.apache.flink.core.memory.DataOutputSerializer;
import org.junit.jupiter.api.Test;

/** The per-transaction state's bytes are a savepoint contract: fixed here, both ways. */
class ReceivedTransactionSerializerTest {

    /** {@link #sample()} as the first build with scores at arrival wrote it (format 1). */
    private static final String SAMPLE_FORMAT_1 =
            "0100000194214ecd7b00000194214ed0e8872703b960a846076465762dfc01ac41056d2d3432034445"
                    + "02030105";

    /** Non-ASCII device id: multi-byte chars in Flink's StringValue encoding. */
    static ReceivedTransaction sample() {
        return new ReceivedTransaction(
                1_735_725_600_123L,
                4_999L,
                "dev-\u00fc\u20ac",
                "m-42",
                "DE",
                1_735_725_601_000L,
                3,
                12_345L,
                9_000L,
                2,
                3,
                1,
                5);
    }

    @Test
    void writesTheFormat1Bytes() throws IOException {
        DataOutputSerializer out = new DataOutputSerializer(64);
        ReceivedTransactionSerializer.INSTANCE.serialize(sample(), out);
        assertThat(HexFormat.of().formatHex(out.getCopyOfBuffer())).isEqualTo(SAMPLE_FORMAT_1);
    }

    @Test
    void readsTheFormat1Bytes() throws IOException {
        DataInputDeserializer in =
                new DataInputDeserializer(HexFormat.of().parseHex(SAMPLE_FORMAT_1));
        assertThat(ReceivedTransactionSerializer.INSTANCE.deserialize(in)).isEqualTo(sample());
        assertThat(in.available()).isZero();
    }
}
