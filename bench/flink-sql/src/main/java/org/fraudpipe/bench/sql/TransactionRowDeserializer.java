package org.fraudpipe.bench.sql;

import org.apache.flink.api.common.serialization.DeserializationSchema;
import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.connector.kafka.source.reader.deserializer.KafkaRecordDeserializationSchema;
import org.apache.flink.types.Row;
import org.apache.flink.util.Collector;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.fraudpipe.bench.probe.RunProbe;
import org.fraudpipe.schemas.Topic;
import org.fraudpipe.schemas.avro.Transaction;
import org.fraudpipe.schemas.wire.ConfluentAvroCodec;
import org.fraudpipe.schemas.wire.TopicSerdes;
import org.fraudpipe.schemas.wire.WireFormatException;

/**
 * Reads the transactions topic for the SQL peer: Confluent-framed Avro (the same codec as the job)
 * to a row of {@link SqlFeatures#inputType()}, with the Kafka record timestamp (the broker's append
 * time on the input topic; what the per-transaction latency is measured from, as in the job).
 * Counts every record on the {@link RunProbe}. Records that do not decode are skipped (the
 * benchmark's input has none; a Flink SQL format with {@code ignore-parse-errors} does the same).
 */
final class TransactionRowDeserializer implements KafkaRecordDeserializationSchema<Row> {

    private static final long serialVersionUID = 1L;

    private final String registryUrl;
    private final String topicName;
    private transient ConfluentAvroCodec<Transaction> codec;

    TransactionRowDeserializer(String registryUrl, String topicName) {
        this.registryUrl = registryUrl;
        this.topicName = topicName;
    }

    @Override
    public void open(DeserializationSchema.InitializationContext context) {
        codec =
                TopicSerdes.forRegistry(registryUrl)
                        .valueCodec(Topic.TRANSACTIONS, topicName, Transaction.class);
    }

    @Override
    public void deserialize(ConsumerRecord<byte[], byte[]> record, Collector<Row> out) {
        RunProbe.record();
        Transaction tx;
        try {
            tx = codec.decode(record.value());
        } catch (WireFormatException | NullPointerException bad) {
            return;
        }
        if (RunProbe.isFlushUser(tx.getUserId())) {
            RunProbe.marker();
        }
        out.collect(
                Row.of(
                        tx.getUserId(),
                        tx.getTransactionId(),
                        tx.getAmountMinor(),
                        tx.getDeviceId(),
                        tx.getMerchantId(),
                        tx.getCountry(),
                        tx.getEventTime().toEpochMilli(),
                        record.timestamp()));
    }

    @Override
    public TypeInformation<Row> getProducedType() {
        return SqlFeatures.inputType();
    }
}
