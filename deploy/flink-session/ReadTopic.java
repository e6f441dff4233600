import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.UUID;
import org.apache.avro.specific.SpecificRecord;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.serialization.Deserializer;
import org.fraudpipe.schemas.Topic;
import org.fraudpipe.schemas.security.ClientProperties;
import org.fraudpipe.schemas.wire.TopicSerdes;

/**
 * Reads one of the pipeline's topics from the beginning as a downstream consumer would
 * (isolation.level=read_committed, Confluent-framed Avro through the schema registry) and prints
 * each record; ends after {@code idle} seconds without records. A renamed topic is recognised by
 * the default name it ends with (e.g. {@code prod.features}). A verification aid for
 * docs/DEPLOY.md, run as a single-file program on the feature-job classpath:
 *
 * <pre>
 * java -cp "$(cat operator-tools/target/runtime.classpath)" deploy/flink-session/ReadTopic.java \
 *     localhost:9092 http://localhost:8081 features [idleSeconds [clientPropertiesFile]]
 * </pre>
 *
 * With a client properties file (the {@code --kafka-config} of the commands, e.g. the reader
 * principal's of {@code ./fraud kafka start --secure}) its settings go to the consumer and the
 * registry client; its {@code group.id}, if any, is the consumer's group.
 */
public class ReadTopic {
    public static void main(String[] args) {
        if (args.length < 3) {
            System.err.println(
                    "usage: ReadTopic BOOTSTRAP REGISTRY_URL TOPIC [IDLE_SECONDS [KAFKA_CONFIG]]"
                            + " (TOPIC: features, transactions-late, transactions-dead-letters, ...)");
            System.exit(2);
        }
        String bootstrap = args[0];
        String registry = args[1];
        String topicName = args[2];
        int idleSeconds = args.length > 3 ? Integer.parseInt(args[3]) : 10;
        ClientProperties client =
                args.length > 4
                        ? ClientProperties.load(java.nio.file.Path.of(args[4]), "KAFKA_CONFIG")
                        : ClientProperties.none();
        // The topic's contract: the one whose default name the given name is or ends with
        // (renamed topics such as prod.features keep it as a suffix).
        Topic topic =
                List.of(Topic.values()).stream()
                        .filter(t -> topicName.endsWith(t.defaultName()))
                        .max(java.util.Comparator.comparingInt(t -> t.defaultName().length()))
                        .orElseThrow(
                                () ->
                                        new IllegalArgumentException(
                                                "cannot tell which of the pipeline's topics "
                                                        + topicName
                                                        + " is: its name must end with a default"
                                                        + " name (features, transactions-late, ...)"));
        TopicSerdes serdes = TopicSerdes.forRegistry(client.registryConfig(registry));
        @SuppressWarnings("unchecked")
        Deserializer<Object> keys =
                (Deserializer<Object>)
                        serdes.keyDeserializer(topic, TopicSerdes.keyClass(topic.keyFormat()));
        @SuppressWarnings("unchecked")
        Deserializer<SpecificRecord> values =
                serdes.valueDeserializer(topic, (Class<SpecificRecord>) topic.valueClass());

        Properties props = client.kafkaProperties(bootstrap);
        props.putIfAbsent(ConsumerConfig.GROUP_ID_CONFIG, "read-topic-" + UUID.randomUUID());
        props.putAll(
                Map.of(
                        ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest",
                        ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, "false",
                        ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed"));
        long count = 0;
        try (KafkaConsumer<byte[], byte[]> consumer =
                new KafkaConsumer<>(
                        props,
                        new org.apache.kafka.common.serialization.ByteArrayDeserializer(),
                        new org.apache.kafka.common.serialization.ByteArrayDeserializer())) {
            consumer.subscribe(List.of(topicName));
            long idleSince = System.nanoTime();
            while (System.nanoTime() - idleSince < Duration.ofSeconds(idleSeconds).toNanos()) {
                for (ConsumerRecord<byte[], byte[]> r : consumer.poll(Duration.ofMillis(500))) {
                    idleSince = System.nanoTime();
                    count++;
                    System.out.printf(
                            "%s-%d@%d key=%s value=%s%n",
                            r.topic(),
                            r.partition(),
                            r.offset(),
                            keys.deserialize(topicName, r.key()),
                            values.deserialize(topicName, r.value()));
                }
            }
        }
        System.out.printf("%d committed records read from %s%n", count, topicName);
    }
}
