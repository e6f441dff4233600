package org.fraudpipe.job.kafka;

import java.time.Instant;
import org.apache.flink.api.common.serialization.DeserializationSchema;
import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.connector.kafka.source.reader.deserializer.KafkaRecordDeserializationSchema;
import org.apache.flink.util.Collector;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.common.record.TimestampType;
import org.fraudpipe.job.ingest.IngestedRecord;
import org.fraudpipe.job.ingest.RecordIngestor;
import org.fraudpipe.job.ingest.SourcePosition;
import org.fraudpipe.schemas.Topic;
import org.fraudpipe.schemas.avro.Transaction;
import org.fraudpipe.schemas.wire.ConfluentAvroCodec;
import org.fraudpipe.schemas.wire.TopicSerdes;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Reads the transactions topic: Confluent-framed Avro, decoded with writer/reader schema
 * resolution, validated and classified by {@link RecordIngestor}. Emits exactly one {@link
 * IngestedRecord} per Kafka record and never throws for bad data, so a poison pill can never
 * restart-loop the job.
 *
 * <p>{@link IngestedRecord#receivedAt} is the wall clock when the record is deserialized, i.e.
 * processing time; the future-dated rule judges against the record's Kafka timestamp instead
 * ({@link IngestedRecord#arrivalTime()}). Every ingested record keeps its Kafka topic, partition,
 * offset and record timestamp ({@link SourcePosition}): a dead letter's, or a valid transaction's
 * archive record's.
 */
public final class KafkaTransactionDeserializer
        implements KafkaRecordDeserializationSchema<IngestedRecord> {

    private static final long serialVersionUID = 1L;

    private final java.util.HashMap<String, String> registryConfig;
    private final String topicName;
    private final RecordIngestor ingestor;
    private static final Logger LOG = LoggerFactory.getLogger(KafkaTransactionDeserializer.class);

    private transient ConfluentAvroCodec<Transaction> codec;

    public KafkaTransactionDeserializer(
            java.util.Map<String, String> registryConfig,
            String topicName,
            RecordIngestor ingestor) {
        this.registryConfig = new java.util.HashMap<>(registryConfig);
        this.topicName = topicName;
        this.ingestor = ingestor;
    }

    @Override
    public void open(DeserializationSchema.InitializationContext context) {
        codec =
                TopicSerdes.forRegistry(registryConfig)
                        .valueCodec(Topic.TRANSACTIONS, topicName, Transaction.class);
        try {
            codec.prepareLatest(); // the registry round trip here, not on the first record
        } catch (RuntimeException e) {
            // Only a head start: the first record of each schema id asks the registry anyway.
            LOG.warn(
                    "could not resolve the latest schema of {} ahead of its records ({}); the"
                            + " first record asks the registry",
                    codec.subject(),
                    e.toString());
        }
    }

    @Override
    public void deserialize(ConsumerRecord<byte[], byte[]> record, Collector<IngestedRecord> out) {
        SourcePosition position =
                new SourcePosition(
                        record.topic(),
                        record.partition(),
                        record.offset(),
                        record.timestampType() == TimestampType.NO_TIMESTAMP_TYPE
                                ? null
                                : Instant.ofEpochMilli(record.timestamp()));
        out.collect(
                ingestor.ingest(
                        position,
                        record.key(),
                        record.value(),
                        System.currentTimeMillis(),
                        codec::decode));
    }

    @Override
    public TypeInformation<IngestedRecord> getProducedType() {
        return TypeInformation.of(IngestedRecord.class);
    }
}
