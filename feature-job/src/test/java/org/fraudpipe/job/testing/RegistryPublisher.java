package org.fraudpipe.job.testing;

import java.time.Duration;
import java.time.Instant;
import java.util.Properties;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.serialization.StringSerializer;
import org.fraudpipe.job.config.JobConfig;
import org.fraudpipe.schemas.Topic;
import org.fraudpipe.schemas.avro.AssignmentAction;
import org.fraudpipe.schemas.avro.ModelEvent;
import org.fraudpipe.schemas.avro.ModelKind;
import org.fraudpipe.schemas.wire.TopicSerdes;
import org.fraudpipe.scoring.release.ModelRegistry;

/**
 * Publishes to a deployment's model registry topic as {@code ./fraud model} does: events built by
 * {@link ModelRegistry}'s own builders, folded with the broker's append time of their record, each
 * one asserted to be applied (an event the registry ignores would make a test prove nothing). No
 * release check here: a test may publish what the command would refuse, as a publisher that skipped
 * it could.
 */
public final class RegistryPublisher implements AutoCloseable {

    private final ModelRegistry registry = new ModelRegistry();
    private final KafkaProducer<String, ModelEvent> producer;
    private final String topic;

    public RegistryPublisher(JobConfig config) {
        Properties p = config.kafkaClient().kafkaProperties(config.bootstrapServers());
        p.put(ProducerConfig.ACKS_CONFIG, "all");
        p.put(ProducerConfig.MAX_REQUEST_SIZE_CONFIG, Topic.MODEL_EVENT_MAX_BYTES);
        topic = config.topics().name(Topic.MODEL_RELEASES);
        producer =
                new KafkaProducer<>(
                        p,
                        new StringSerializer(),
                        TopicSerdes.forRegistry(config.registryConfig())
                                .valueSerializer(Topic.MODEL_RELEASES, ModelEvent.class));
    }

    /** Publishes {@code onnx} as {@code version} of {@code kind}. */
    public void publish(ModelKind kind, String version, byte[] onnx) throws Exception {
        String name = kind == ModelKind.WINDOW ? "fraud-window" : "fraud-transaction";
        send(registry.release(kind, name, version, onnx, null, 5, Instant.now(), "test"));
    }

    /**
     * Assigns a role, effective {@code lead} after now (the publisher's clock); returns when it
     * takes effect.
     */
    public Instant assign(ModelKind kind, AssignmentAction action, String version, Duration lead)
            throws Exception {
        ModelEvent e = registry.assign(kind, action, version, Instant.now(), lead, "test", "test");
        send(e);
        return e.getAssignment().getEffectiveFrom();
    }

    private void send(ModelEvent e) throws Exception {
        RecordMetadata m =
                producer.send(new ProducerRecord<>(topic, 0, ModelRegistry.key(e), e)).get();
        ModelRegistry.Outcome outcome = registry.apply(e, m.timestamp());
        if (!(outcome instanceof ModelRegistry.Applied)) {
            throw new AssertionError("the registry ignored the test's event: " + outcome);
        }
    }

    @Override
    public void close() {
        producer.close();
    }
}
