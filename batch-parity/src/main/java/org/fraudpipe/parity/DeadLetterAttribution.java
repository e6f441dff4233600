package org.fraudpipe.parity;

import org.apache.flink.api.common.functions.OpenContext;
import org.apache.flink.api.common.state.ListState;
import org.apache.flink.api.common.state.ListStateDescriptor;
import org.apache.flink.api.common.state.ValueState;
import org.apache.flink.api.common.state.ValueStateDescriptor;
import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.formats.avro.typeutils.AvroTypeInfo;
import org.apache.flink.streaming.api.functions.co.KeyedCoProcessFunction;
import org.apache.flink.util.Collector;
import org.fraudpipe.schemas.avro.DeadLetter;

/**
 * Attributes dead letters to windows: joins, by source position ({@code topic-partition@offset}),
 * the archived transactions of the period (first input, as ARCHIVED evidence with their window)
 * with the dead letters (second input). A dead letter whose position holds an archived transaction
 * becomes DEAD_LETTER evidence of that transaction's window: the job dead-lettered a record the
 * archive holds as valid. Other dead letters never became transactions and explain no window.
 *
 * <p>BATCH execution mode only (the timer fires after the key's last record, see {@link
 * WindowVerdictFunction}).
 */
final class DeadLetterAttribution
        extends KeyedCoProcessFunction<String, Evidence, DeadLetter, Evidence> {

    private static final long serialVersionUID = 1L;

    private transient ValueState<Evidence> archived;
    private transient ListState<DeadLetter> deadLetters;

    @Override
    public void open(OpenContext context) {
        archived =
                getRuntimeContext()
                        .getState(
                                new ValueStateDescriptor<>(
                                        "archived", TypeInformation.of(Evidence.class)));
        deadLetters =
                getRuntimeContext()
                        .getListState(
                                new ListStateDescriptor<>(
                                        "dead-letters", new AvroTypeInfo<>(DeadLetter.class)));
    }

    @Override
    public void processElement1(Evidence value, Context ctx, Collector<Evidence> out)
            throws Exception {
        archived.update(value);
        ctx.timerService().registerEventTimeTimer(Long.MAX_VALUE);
    }

    @Override
    public void processElement2(DeadLetter value, Context ctx, Collector<Evidence> out)
            throws Exception {
        deadLetters.add(value);
        ctx.timerService().registerEventTimeTimer(Long.MAX_VALUE);
    }

    @Override
    public void onTimer(long timestamp, OnTimerContext ctx, Collector<Evidence> out)
            throws Exception {
        Evidence at = archived.value();
        if (at != null) {
            for (DeadLetter d : deadLetters.get()) {
                out.collect(Evidence.deadLetter(d, at.userId, at.windowStart));
            }
        }
        archived.clear();
        deadLetters.clear();
    }

    /** The join key of a record's source position. */
    static String position(String topic, int partition, long offset) {
        return topic + "-" + partition + "@" + offset;
    }
}
