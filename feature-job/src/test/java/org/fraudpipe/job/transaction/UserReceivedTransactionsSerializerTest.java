package org.fraudpipe.job.transaction;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.util.HexFormat;
import org.apache.flink.core.memory.DataInputDeserializer;
import org.apache.flink.core.memory.DataOutputSerializer;
import org.junit.jupiter.api.Test;

/** The per-user state's bytes are a savepoint contract: fixed here, both ways. */
class UserReceivedTransactionsSerializerTest {

    /** {@link #sample()} in format 1. */
    private static final String SAMPLE_FORMAT_1 =
            "01" // format
                    + "80000000000000ff" // evictedThrough
                    + "02" // entries
                    + "0374310100000194214ecd7b00000194214ed0e8872703b960a846076465762dfc01ac41"
                    + "056d2d343203444502030105" // "t1" and its entry
                    + "0374320100000194214ecd7b00000194214ed0e8872703b960a846076465762dfc01ac41"
                    + "056d2d343203444502030105"; // "t2" and its entry

    private static UserReceivedTransactions sample() {
        ReceivedTransaction entry = ReceivedTransactionSerializerTest.sample();
        return UserReceivedTransactions.first(Long.MIN_VALUE + 255, "t1", entry).with("t2", entry);
    }

    @Test
    void writesTheFormat1Bytes() throws IOException {
        DataOutputSerializer out = new DataOutputSerializer(128);
        UserReceivedTransactionsSerializer.INSTANCE.serialize(sample(), out);
        assertThat(HexFormat.of().formatHex(out.getCopyOfBuffer())).isEqualTo(SAMPLE_FORMAT_1);
    }

    @Test
    void readsTheFormat1Bytes() throws IOException {
        DataInputDeserializer in =
                new DataInputDeserializer(HexFormat.of().parseHex(SAMPLE_FORMAT_1));
        assertThat(UserReceivedTransactionsSerializer.INSTANCE.deserialize(in)).isEqualTo(sample());
        assertThat(in.available()).isZero();
    }

    @Test
    void refusesAFormatItDoesNotKnow() {
        byte[] bytes = HexFormat.of().parseHex("02" + SAMPLE_FORMAT_1.substring(2));
        assertThatThrownBy(
                        () ->
                                UserReceivedTransactionsSerializer.INSTANCE.deserialize(
                                        new DataInputDeserializer(bytes)))
                .isInstanceOf(IOException.class)
                .hasMessageContaining("format 2, which this build cannot read");
    }
}
