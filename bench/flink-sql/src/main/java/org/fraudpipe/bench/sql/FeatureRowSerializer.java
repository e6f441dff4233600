package org.fraudpipe.bench.sql;

import java.time.Instant;
import org.apache.flink.api.common.serialization.SerializationSchema;
import org.apache.flink.connector.kafka.sink.KafkaRecordSerializationSchema;
import org.apache.flink.types.Row;
import org.apache.flink.types.RowKind;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.fraudpipe.schemas.Topic;
import org.fraudpipe.schemas.avro.FeatureRecord;
import org.fraudpipe.schemas.avro.Timing;
import org.fraudpipe.schemas.avro.WindowKey;
import org.fraudpipe.schemas.wire.ConfluentAvroCodec;
import org.fraudpipe.schemas.wire.TopicSerdes;

/**
 * Writes a feature row of the SQL peer as the job writes its features: key a Confluent-framed
 * {@link WindowKey}, value a Confluent-framed {@link FeatureRecord}, so the harness reads every
 * system's output with one reader and each pays the same output encoding.
 *
 * <p>The SQL query has little pane information: {@code revision} is 0 for a window's first result
 * (an insert) and 1 for any later correction (an update after a late row: the count of corrections
 * is not known), {@code timing} ON_TIME, {@code lateRecordsIncluded} 0, {@code emittedAt} and
 * {@code watermark} the write time. Readers take the last record per key (offset order), which is
 * the query's current value; the live benchmark times a window's first result (revision 0).
 */
final class FeatureRowSerializer implements KafkaRecordSerializationSchema<Row> {

    private static final long serialVersionUID = 1L;

    private final String registryUrl;
    private final String topicName;
    private transient ConfluentAvroCodec<FeatureRecord> valueCodec;
    private transient ConfluentAvroCodec<WindowKey> keyCodec;

    FeatureRowSerializer(String registryUrl, String topicName) {
        this.registryUrl = registryUrl;
        this.topicName = topicName;
    }

    @Override
    public void open(
            SerializationSchema.InitializationContext context, KafkaSinkContext sinkContext) {
        TopicSerdes serdes = TopicSerdes.forRegistry(registryUrl);
        valueCodec = serdes.valueCodec(Topic.FEATURES, topicName, FeatureRecord.class);
        keyCodec = serdes.windowKeyCodec(Topic.FEATURES, topicName);
    }

    @Override
    public ProducerRecord<byte[], byte[]> serialize(
            Row row, KafkaSinkContext context, Long timestamp) {
        String user = (String) row.getField(0);
        Instant start = Instant.ofEpochMilli(SqlFeatures.millis(row.getField(1)));
        Instant end = Instant.ofEpochMilli(SqlFeatures.millis(row.getField(2)));
        Instant now = Instant.ofEpochMilli(System.currentTimeMillis());
        FeatureRecord value =
                new FeatureRecord(
                        user,
                        start,
                        end,
                        ((Number) row.getField(3)).longValue(),
                        ((Number) row.getField(4)).longValue(),
                        ((Number) row.getField(5)).longValue(),
                        ((Number) row.getField(6)).intValue(),
                        ((Number) row.getField(7)).intValue(),
                        ((Number) row.getField(8)).intValue(),
                        row.getKind() == RowKind.INSERT ? 0 : 1,
                        Timing.ON_TIME,
                        0,
                        now,
                        now);
        return new ProducerRecord<>(
                topicName,
                null,
                null,
                keyCodec.encode(new WindowKey(user, start)),
                valueCodec.encode(value));
    }
}
