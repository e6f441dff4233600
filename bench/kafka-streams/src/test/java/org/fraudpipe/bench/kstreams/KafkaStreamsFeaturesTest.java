package org.fraudpipe.bench.kstreams;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.HashMap;
import java.util.Map;
import java.util.Properties;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.apache.kafka.streams.StreamsConfig;
import org.apache.kafka.streams.TestInputTopic;
import org.apache.kafka.streams.TestOutputTopic;
import org.apache.kafka.streams.TopologyTestDriver;
import org.fraudpipe.schemas.Topic;
import org.fraudpipe.schemas.avro.FeatureRecord;
import org.fraudpipe.schemas.avro.Transaction;
import org.fraudpipe.schemas.avro.WindowKey;
import org.fraudpipe.schemas.registry.SchemaRegistries;
import org.fraudpipe.schemas.registry.SchemaRegistryClient;
import org.fraudpipe.schemas.wire.ConfluentAvroCodec;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The Kafka Streams peer on the hand-checked input of the SQL peer's test: distinct ids, a producer
 * retry, a late record within the grace that corrects its window, one too late that does not.
 */
class KafkaStreamsFeaturesTest {

    private static final long MIN = 60_000;
    private static final String REGISTRY = "mock://kstreams-features-test";

    @TempDir Path stateDir;

    private static Transaction tx(String user, String id, long amount, String device, long t) {
        return new Transaction(
                id, user, amount, "EUR", "m-" + device, device, "DE", Instant.ofEpochMilli(t));
    }

    @Test
    void computesDistinctIdFeaturesWithinTheGrace() throws Exception {
        Duration grace =
                KafkaStreamsFeatures.graceFor(Duration.ofMinutes(2), Duration.ofSeconds(5));
        Properties p = new Properties();
        p.put(StreamsConfig.APPLICATION_ID_CONFIG, "kstreams-features-test");
        p.put(StreamsConfig.BOOTSTRAP_SERVERS_CONFIG, "unused:9092");
        p.put(StreamsConfig.STATE_DIR_CONFIG, Files.createDirectories(stateDir).toString());
        SchemaRegistryClient registry =
                SchemaRegistries.forConfig(Map.of(SchemaRegistries.URL_CONFIG, REGISTRY));
        ConfluentAvroCodec<Transaction> txCodec =
                new ConfluentAvroCodec<>(registry, Topic.valueSubject("in"), Transaction.class);
        ConfluentAvroCodec<FeatureRecord> featureCodec =
                new ConfluentAvroCodec<>(registry, Topic.valueSubject("out"), FeatureRecord.class);
        ConfluentAvroCodec<WindowKey> keyCodec =
                new ConfluentAvroCodec<>(registry, Topic.keySubject("out"), WindowKey.class);
        Map<String, FeatureRecord> last = new HashMap<>();
        try (TopologyTestDriver driver =
                new TopologyTestDriver(
                        KafkaStreamsFeatures.topology(
                                "in", "out", REGISTRY, Duration.ofMinutes(10), grace),
                        p)) {
            TestInputTopic<String, byte[]> in =
                    driver.createInputTopic(
                            "in", new StringSerializer(), new ByteArraySerializer());
            TestOutputTopic<byte[], byte[]> out =
                    driver.createOutputTopic(
                            "out", new ByteArrayDeserializer(), new ByteArrayDeserializer());
            for (Transaction t :
                    new Transaction[] {
                        tx("u1", "a", 100, "d1", 1 * MIN),
                        tx("u1", "b", 250, "d2", 3 * MIN),
                        tx("u1", "a", 100, "d1", 1 * MIN), // producer retry
                        tx("u2", "c", 70, "d9", 4 * MIN),
                        tx("u1", "e", 30, "d1", 11 * MIN),
                        tx("u1", "f", 500, "d3", 9 * MIN), // within the grace: counted
                        tx("u2", "g", 1, "d9", 13 * MIN), // stream time passes 12 min 5 s
                        tx("u1", "h", 999, "d4", 2 * MIN) // too late: dropped
                    }) {
                in.pipeInput(t.getUserId(), txCodec.encode(t));
            }
            out.readKeyValuesToList()
                    .forEach(
                            kv -> {
                                WindowKey k = keyCodec.decode(kv.key);
                                last.put(
                                        k.getUserId() + "@" + k.getWindowStart().toEpochMilli(),
                                        featureCodec.decode(kv.value));
                            });
        }
        FeatureRecord u1 = last.get("u1@0");
        assertThat(u1.getTxCount()).isEqualTo(3);
        assertThat(u1.getAmountSum()).isEqualTo(850);
        assertThat(u1.getAmountMax()).isEqualTo(500);
        assertThat(u1.getDistinctDevices()).isEqualTo(3);
        assertThat(u1.getDistinctMerchants()).isEqualTo(3);
        assertThat(u1.getDistinctCountries()).isEqualTo(1);
        assertThat(last.get("u2@0").getTxCount()).isEqualTo(1);
        assertThat(last).containsKeys("u1@" + 10 * MIN, "u2@" + 10 * MIN);
    }

    @Test
    void aggregateBytesRoundTrip() {
        WindowAggregate agg = new WindowAggregate();
        agg.add(tx("u", "x", 5, "d", 0)).add(tx("u", "y", 7, "é", 0)).add(tx("u", "x", 9, "z", 0));
        WindowAggregate back = WindowAggregate.fromBytes(agg.toBytes());
        assertThat(back.features()).containsExactly(2, 12, 7, 2, 2, 1);
        assertThat(back.recordsSeen()).isEqualTo(3);
    }
}
