package org.fraudpipe.bench.sql;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import org.apache.flink.api.common.serialization.SerializationSchema;
import org.apache.flink.connector.kafka.sink.KafkaRecordSerializationSchema;
import org.apache.flink.types.Row;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.fraudpipe.schemas.Topic;
import org.fraudpipe.schemas.avro.Decision;
import org.fraudpipe.schemas.avro.TransactionFeatures;
import org.fraudpipe.schemas.avro.TransactionScore;
import org.fraudpipe.schemas.wire.ConfluentAvroCodec;
import org.fraudpipe.schemas.wire.TopicSerdes;

/**
 * Writes a per-transaction row of the SQL peer ({@link SqlFeatures#TRANSACTION_COLUMNS}) as the job
 * writes its scores at arrival: key the transaction id (UTF-8), value a Confluent-framed {@link
 * TransactionScore}, so the harness reads both systems' answers with one reader and times them the
 * same way.
 *
 * <p>The peer computes features, not a score: {@code score} is NaN, {@code decision} ALLOW, the
 * model {@value #MODEL}; the novelty flags are false (not computed) and {@code historyComplete}
 * true. {@code recordTimestamp} is the Kafka timestamp of the transaction row, {@code scoredAt} the
 * wall clock when the row is handed to the sink writer: the same two instants the job's latency is
 * measured between.
 */
final class TransactionRowSerializer implements KafkaRecordSerializationSchema<Row> {

    private static final long serialVersionUID = 1L;

    /** The model name the peer's records carry. */
    static final String MODEL = "flink-sql-over (features only)";

    private final String registryUrl;
    private final String topicName;
    private final long trailingMillis;
    private transient ConfluentAvroCodec<TransactionScore> valueCodec;

    TransactionRowSerializer(String registryUrl, String topicName, Duration trailing) {
        this.registryUrl = registryUrl;
        this.topicName = topicName;
        this.trailingMillis = trailing.toMillis();
    }

    @Override
    public void open(
            SerializationSchema.InitializationContext context, KafkaSinkContext sinkContext) {
        valueCodec =
                TopicSerdes.forRegistry(registryUrl)
                        .valueCodec(Topic.TRANSACTION_SCORES, topicName, TransactionScore.class);
    }

    @Override
    public ProducerRecord<byte[], byte[]> serialize(
            Row row, KafkaSinkContext context, Long timestamp) {
        return new ProducerRecord<>(
                topicName,
                null,
                null,
                ((String) row.getField(0)).getBytes(StandardCharsets.UTF_8),
                valueCodec.encode(score(row, trailingMillis, System.currentTimeMillis())));
    }

    /** The record for one row of the per-transaction query. */
    static TransactionScore score(Row row, long trailingMillis, long scoredAt) {
        String id = (String) row.getField(0);
        String user = (String) row.getField(1);
        Instant eventTime = Instant.ofEpochMilli(((Number) row.getField(2)).longValue());
        long kafkaTimestamp = ((Number) row.getField(3)).longValue();
        TransactionFeatures features =
                TransactionFeatures.newBuilder()
                        .setTransactionId(id)
                        .setUserId(user)
                        .setEventTime(eventTime)
                        .setTrailingWindowMillis(trailingMillis)
                        .setTxCount(((Number) row.getField(5)).longValue())
                        .setAmountSum(((Number) row.getField(6)).longValue())
                        .setAmountMax(((Number) row.getField(7)).longValue())
                        .setDistinctDevices(((Number) row.getField(8)).intValue())
                        .setDistinctMerchants(((Number) row.getField(9)).intValue())
                        .setDistinctCountries(((Number) row.getField(10)).intValue())
                        .setAmountMinor(((Number) row.getField(4)).longValue())
                        .setNewDevice(false)
                        .setNewMerchant(false)
                        .setNewCountry(false)
                        .setHistoryComplete(true)
                        .build();
        return TransactionScore.newBuilder()
                .setTransactionId(id)
                .setUserId(user)
                .setEventTime(eventTime)
                .setFeatures(features)
                .setScore(Double.NaN)
                .setDecision(Decision.ALLOW)
                .setModelName(MODEL)
                .setModelVersion("none")
                .setRecordTimestamp(Instant.ofEpochMilli(kafkaTimestamp))
                .setScoredAt(Instant.ofEpochMilli(scoredAt))
                .build();
    }
}
