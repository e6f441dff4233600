package org.fraudpipe.job.kafka;

import java.time.Instant;
import org.apache.flink.api.common.serialization.DeserializationSchema;
import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.connector.kafka.source.reader.deserializer.KafkaRecordDeserializationSchema;
import org.apache.flink.util.Collector;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.fraudpipe.schemas.Topic;
import org.fraudpipe.schemas.avro.ArchivedModelEvent;
import org.fraudpipe.schemas.avro.ModelEvent;
import org.fraudpipe.schemas.wire.ConfluentAvroCodec;
import org.fraudpipe.schemas.wire.TopicSerdes;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Reads the model registry topic for the archive: each record's event with its offset and the
 * broker's append time. A record that cannot be decoded is skipped with an error naming its offset,
 * as every reader of the registry skips it ({@code RegistryFollower}): it never served.
 */
public final class ModelEventDeserializer
        implements KafkaRecordDeserializationSchema<ArchivedModelEvent> {

    private static final long serialVersionUID = 1L;
    private static final Logger LOG = LoggerFactory.getLogger(ModelEventDeserializer.class);

    private final java.util.HashMap<String, String> registryConfig;
    private final String topicName;

    private transient ConfluentAvroCodec<ModelEvent> codec;

    public ModelEventDeserializer(java.util.Map<String, String> registryConfig, String topicName) {
        this.registryConfig = new java.util.HashMap<>(registryConfig);
        this.topicName = topicName;
    }

    @Override
    public void open(DeserializationSchema.InitializationContext context) {
        codec =
                TopicSerdes.forRegistry(registryConfig)
                        .valueCodec(Topic.MODEL_RELEASES, topicName, ModelEvent.class);
    }

    @Override
    public void deserialize(
            ConsumerRecord<byte[], byte[]> record, Collector<ArchivedModelEvent> out) {
        ModelEvent event;
        try {
            event = codec.decode(record.value());
        } catch (RuntimeException e) {
            LOG.error(
                    "model registry {} offset {}: not a model event, skipped by every reader ({})",
                    record.topic(),
                    record.offset(),
                    e.toString());
            return;
        }
        out.collect(
                new ArchivedModelEvent(
                        event,
                        record.topic(),
                        record.offset(),
                        Instant.ofEpochMilli(record.timestamp())));
    }

    @Override
    public TypeInformation<ArchivedModelEvent> getProducedType() {
        return TypeInformation.of(ArchivedModelEvent.class);
    }
}
