package org.fraudpipe.sim;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Properties;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.junit.jupiter.api.Test;

class TransactionPublisherTest {

    @Test
    void producerSettingsAskForAcksAllIdempotenceAndByteArrays() {
        Properties p = TransactionPublisher.producerProperties("localhost:9092");
        assertThat(p)
                .containsEntry(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, "localhost:9092")
                .containsEntry(ProducerConfig.ACKS_CONFIG, "all")
                .containsEntry(ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, "true")
                .containsEntry(ProducerConfig.MAX_IN_FLIGHT_REQUESTS_PER_CONNECTION, "1")
                .containsEntry(
                        ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG,
                        ByteArraySerializer.class.getName());
        assertThat(Integer.parseInt((String) p.get(ProducerConfig.LINGER_MS_CONFIG)))
                .isBetween(1, 20);
    }
}
