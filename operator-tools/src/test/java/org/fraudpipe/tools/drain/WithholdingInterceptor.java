package org.fraudpipe.tools.drain;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.kafka.clients.consumer.ConsumerInterceptor;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.ConsumerRecords;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.clients.producer.ProducerInterceptor;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.TopicPartition;

/**
 * Holds one of the job's readers back at a fixed offset, deterministically: a Kafka consumer
 * interceptor (the job's {@code --kafka-config} names it, so both readers' consumers load it) that,
 * in the consumers whose client id has the chosen reader's prefix ({@code <group>-<reader>-}),
 * withholds every record at or past {@link #from} from what {@code poll} returns. That reader's
 * source then never hands on a record past that offset, however long the test waits, while the
 * other reader reads everything: the two positions a window-close burst or a slow fetcher leaves
 * behind by chance, here by construction.
 *
 * <p>The client file configures the job's producers too: for them it is a pass-through.
 *
 * <p>Configured through static fields before the job starts (the MiniCluster runs in the test's
 * JVM): one test at a time.
 */
public final class WithholdingInterceptor
        implements ConsumerInterceptor<byte[], byte[]>, ProducerInterceptor<byte[], byte[]> {

    /** The client-id prefix of the reader to hold back ({@code KafkaIO.clientIdPrefix}). */
    static volatile String heldPrefix;

    /** The first offset withheld, on every partition. */
    static volatile long from = Long.MAX_VALUE;

    private boolean holds;

    @Override
    public void configure(Map<String, ?> configs) {
        Object clientId = configs.get("client.id");
        String prefix = heldPrefix;
        holds = prefix != null && clientId != null && clientId.toString().startsWith(prefix + "-");
    }

    @Override
    public ConsumerRecords<byte[], byte[]> onConsume(ConsumerRecords<byte[], byte[]> records) {
        if (!holds) {
            return records;
        }
        Map<TopicPartition, List<ConsumerRecord<byte[], byte[]>>> kept = new HashMap<>();
        for (TopicPartition tp : records.partitions()) {
            List<ConsumerRecord<byte[], byte[]>> before = new ArrayList<>();
            for (ConsumerRecord<byte[], byte[]> r : records.records(tp)) {
                if (r.offset() < from) {
                    before.add(r);
                }
            }
            if (!before.isEmpty()) {
                kept.put(tp, before);
            }
        }
        Map<TopicPartition, OffsetAndMetadata> next = new HashMap<>(records.nextOffsets());
        return new ConsumerRecords<>(kept, next);
    }

    @Override
    public ProducerRecord<byte[], byte[]> onSend(ProducerRecord<byte[], byte[]> record) {
        return record;
    }

    @Override
    public void onAcknowledgement(RecordMetadata metadata, Exception exception) {}

    @Override
    public void onCommit(Map<TopicPartition, OffsetAndMetadata> offsets) {}

    @Override
    public void close() {}
}
