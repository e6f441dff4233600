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

    private static final String T1 =
            "0374310100000194214ecd7b00000194214ed0e8872703b960a846076465762dfc01ac41"
                    + "056d2d343203444502030105"; // "t1" and its entry
    private static final String T2 =
            "0374320100000194214ecd7b00000194214ed0e8872703b960a846076465762dfc01ac41"
                    + "056d2d343203444502030105"; // "t2" and its entry

    /**
     * {@link #sample()} in format 1, as the first build of the per-user layout wrote it (without
     * {@code keptUntil}: read as its eviction time).
     */
    private static final String SAMPLE_FORMAT_1 =
            "01" // format
                    + "80000000000000ff" // evictedThrough
                    + "02" // held entries
                    + T1
                    + T2;

    /** {@link #sample()} in format 2. */
    private static final String SAMPLE_FORMAT_2 =
            "02" // format
                    + "80000000000000ff" // evictedThrough
                    + "02" // held entries
                    + T1
                    + "8000000000000000" // keptUntil: its eviction time
                    + T2
                    + "8000000000000000"
                    + "00"; // answered-only entries

    /** {@link #withAnsweredOnly()} in format 2. */
    private static final String ANSWERED_ONLY_FORMAT_2 =
            "02" // format
                    + "00000194214ecd70" // evictedThrough
                    + "01" // held entries
                    + T1
                    + "0000019421666690" // keptUntil
                    + "01" // answered-only entries
                    + T2
                    + "000001942164dff0"; // keptUntil

    private static UserReceivedTransactions sample() {
        ReceivedTransaction entry = ReceivedTransactionSerializerTest.sample();
        return UserReceivedTransactions.first(Long.MIN_VALUE + 255, "t1", entry, Long.MIN_VALUE)
                .with("t2", entry, Long.MIN_VALUE);
    }

    private static UserReceivedTransactions withAnsweredOnly() {
        ReceivedTransaction entry = ReceivedTransactionSerializerTest.sample();
        return UserReceivedTransactions.first(1_735_725_600_112L, "t1", entry, 1_735_727_146_640L)
                .withAnsweredOnly("t2", entry, 1_735_727_046_640L);
    }

    @Test
    void writesTheFormat2Bytes() throws IOException {
        assertThat(write(sample())).isEqualTo(SAMPLE_FORMAT_2);
        assertThat(write(withAnsweredOnly())).isEqualTo(ANSWERED_ONLY_FORMAT_2);
    }

    @Test
    void readsTheFormat2Bytes() throws IOException {
        assertThat(read(SAMPLE_FORMAT_2)).isEqualTo(sample());
        UserReceivedTransactions answered = read(ANSWERED_ONLY_FORMAT_2);
        assertThat(answered).isEqualTo(withAnsweredOnly());
        assertThat(answered.held().size()).isEqualTo(1);
        assertThat(answered.answeredOnly().size()).isEqualTo(1);
        assertThat(answered.held().keptUntil(0)).isEqualTo(1_735_727_146_640L);
        assertThat(answered.answeredOnly().keptUntil(0)).isEqualTo(1_735_727_046_640L);
    }

    @Test
    void readsTheFormat1BytesOfTheFirstBuildWithThisLayout() throws IOException {
        assertThat(read(SAMPLE_FORMAT_1)).isEqualTo(sample());
    }

    @Test
    void refusesAFormatItDoesNotKnow() {
        assertThatThrownBy(() -> read("03" + SAMPLE_FORMAT_2.substring(2)))
                .isInstanceOf(IOException.class)
                .hasMessageContaining("format 3, which this build cannot read");
    }

    @Test
    void refusesAValueWithoutEntries() {
        assertThatThrownBy(() -> read("02" + "80000000000000ff" + "00" + "00"))
                .isInstanceOf(IOException.class)
                .hasMessageContaining("no entries");
    }

    private static String write(UserReceivedTransactions value) throws IOException {
        DataOutputSerializer out = new DataOutputSerializer(128);
        UserReceivedTransactionsSerializer.INSTANCE.serialize(value, out);
        return HexFormat.of().formatHex(out.getCopyOfBuffer());
    }

    /** Reads one value from the hex bytes, all of them. */
    private static UserReceivedTransactions read(String hex) throws IOException {
        DataInputDeserializer in = new DataInputDeserializer(HexFormat.of().parseHex(hex));
        UserReceivedTransactions value =
                UserReceivedTransactionsSerializer.INSTANCE.deserialize(in);
        assertThat(in.available()).isZero();
        return value;
    }
}
