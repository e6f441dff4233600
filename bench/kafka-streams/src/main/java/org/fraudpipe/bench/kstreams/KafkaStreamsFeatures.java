package org.fraudpipe.bench.kstreams;

import java.time.Duration;
import java.time.Instant;
import java.util.Map;
import org.apache.kafka.common.serialization.Deserializer;
import org.apache.kafka.common.serialization.Serde;
import org.apache.kafka.common.serialization.Serdes;
import org.apache.kafka.common.serialization.Serializer;
import org.apache.kafka.common.utils.Bytes;
import org.apache.kafka.streams.KeyValue;
import org.apache.kafka.streams.StreamsBuilder;
import org.apache.kafka.streams.Topology;
import org.apache.kafka.streams.kstream.Consumed;
import org.apache.kafka.streams.kstream.Grouped;
import org.apache.kafka.streams.kstream.Materialized;
import org.apache.kafka.streams.kstream.Produced;
import org.apache.kafka.streams.kstream.TimeWindows;
import org.apache.kafka.streams.kstream.Windowed;
import org.apache.kafka.streams.processor.TimestampExtractor;
import org.apache.kafka.streams.state.WindowStore;
import org.fraudpipe.bench.probe.RunProbe;
import org.fraudpipe.schemas.Topic;
import org.fraudpipe.schemas.avro.FeatureRecord;
import org.fraudpipe.schemas.avro.Timing;
import org.fraudpipe.schemas.avro.Transaction;
import org.fraudpipe.schemas.avro.WindowKey;
import org.fraudpipe.schemas.registry.SchemaRegistries;
import org.fraudpipe.schemas.registry.SchemaRegistryClient;
import org.fraudpipe.schemas.wire.ConfluentAvroCodec;

/**
 * The Kafka Streams peer's topology: the job's six window features as a Kafka Streams user writes
 * them.
 *
 * <pre>
 *   transactions (key userId, Confluent Avro value; timestamp = eventTime)
 *     -> groupByKey (already partitioned by user: no repartition topic)
 *     -> windowedBy(TimeWindows.ofSizeAndGrace(window, grace)) -> aggregate (RocksDB window store)
 *     -> toStream -> (WindowKey, FeatureRecord) -> output topic (upserts)
 * </pre>
 *
 * <p>Lateness: Kafka Streams has no watermark; a record is dropped when its window's end plus the
 * grace is at or before the task's stream time (the largest timestamp seen). Flink drops it when
 * the watermark (largest timestamp seen minus the out-of-orderness bound minus 1 ms) reaches the
 * window's end minus 1 ms plus the allowed lateness. The two rules agree when {@code grace =
 * allowedLateness + outOfOrderness}, which is what {@link #graceFor} gives. They still differ in
 * what "largest timestamp seen" means: one task here (one partition), the minimum over all source
 * partitions in Flink, emitted periodically.
 *
 * <p>Emission: Kafka Streams' default, an update per window as its record cache is flushed (at
 * every commit, or when the cache is full): the last update of a window is its final value, as the
 * job's last revision is.
 */
public final class KafkaStreamsFeatures {

    /**
     * Name of the window store (its changelog topic is {@code <application.id>-<name>-changelog}).
     */
    public static final String STORE = "user-window-features";

    private KafkaStreamsFeatures() {}

    /** Kafka Streams' grace that drops exactly what Flink's allowed lateness drops. */
    public static Duration graceFor(Duration allowedLateness, Duration outOfOrderness) {
        return allowedLateness.plus(outOfOrderness);
    }

    /**
     * The topology.
     *
     * @param registryUrl the schema registry (or {@code mock://...} in tests)
     */
    public static Topology topology(
            String inputTopic,
            String outputTopic,
            String registryUrl,
            Duration window,
            Duration grace) {
        SchemaRegistryClient registry =
                SchemaRegistries.forConfig(Map.of(SchemaRegistries.URL_CONFIG, registryUrl));
        ConfluentAvroCodec<Transaction> txCodec =
                new ConfluentAvroCodec<>(
                        registry, Topic.valueSubject(inputTopic), Transaction.class);
        ConfluentAvroCodec<FeatureRecord> featureCodec =
                new ConfluentAvroCodec<>(
                        registry, Topic.valueSubject(outputTopic), FeatureRecord.class);
        ConfluentAvroCodec<WindowKey> keyCodec =
                new ConfluentAvroCodec<>(registry, Topic.keySubject(outputTopic), WindowKey.class);
        Serde<Transaction> txSerde =
                Serdes.serdeFrom(
                        (Serializer<Transaction>) (topic, tx) -> txCodec.encode(tx),
                        (Deserializer<Transaction>)
                                (topic, bytes) -> bytes == null ? null : txCodec.decode(bytes));
        Serde<WindowAggregate> aggregateSerde =
                Serdes.serdeFrom(
                        (Serializer<WindowAggregate>)
                                (topic, agg) -> agg == null ? null : agg.toBytes(),
                        (Deserializer<WindowAggregate>)
                                (topic, bytes) ->
                                        bytes == null ? null : WindowAggregate.fromBytes(bytes));
        TimestampExtractor eventTime =
                (record, partitionTime) ->
                        record.value() instanceof Transaction tx
                                ? tx.getEventTime().toEpochMilli()
                                : partitionTime;

        StreamsBuilder builder = new StreamsBuilder();
        builder.stream(
                        inputTopic,
                        Consumed.with(Serdes.String(), txSerde).withTimestampExtractor(eventTime))
                .peek(
                        (user, tx) -> {
                            RunProbe.record();
                            if (RunProbe.isFlushUser(user)) {
                                RunProbe.marker();
                            }
                        })
                .groupByKey(Grouped.with(Serdes.String(), txSerde))
                .windowedBy(TimeWindows.ofSizeAndGrace(window, grace))
                .aggregate(
                        WindowAggregate::new,
                        (user, tx, agg) -> agg.add(tx),
                        Materialized.<String, WindowAggregate, WindowStore<Bytes, byte[]>>as(STORE)
                                .withKeySerde(Serdes.String())
                                .withValueSerde(aggregateSerde))
                .toStream()
                .map(
                        (Windowed<String> key, WindowAggregate agg) ->
                                KeyValue.pair(
                                        keyCodec.encode(
                                                new WindowKey(key.key(), key.window().startTime())),
                                        featureCodec.encode(record(key, agg))))
                .to(outputTopic, Produced.with(Serdes.ByteArray(), Serdes.ByteArray()));
        return builder.build();
    }

    /**
     * The feature record of a window update. Pane fields mean nothing here: revision 0, ON_TIME,
     * lateRecordsIncluded 0, emittedAt and watermark the write time.
     */
    static FeatureRecord record(Windowed<String> key, WindowAggregate agg) {
        long[] f = agg.features();
        Instant now = Instant.ofEpochMilli(System.currentTimeMillis());
        return new FeatureRecord(
                key.key(),
                key.window().startTime(),
                key.window().endTime(),
                f[0],
                f[1],
                f[2],
                (int) f[3],
                (int) f[4],
                (int) f[5],
                0,
                Timing.ON_TIME,
                0,
                now,
                now);
    }
}
