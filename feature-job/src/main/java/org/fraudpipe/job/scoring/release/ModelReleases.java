package org.fraudpipe.job.scoring.release;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.Serializable;
import java.io.UncheckedIOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Properties;
import org.apache.avro.io.BinaryDecoder;
import org.apache.avro.io.BinaryEncoder;
import org.apache.avro.io.DecoderFactory;
import org.apache.avro.io.EncoderFactory;
import org.apache.avro.specific.SpecificDatumReader;
import org.apache.avro.specific.SpecificDatumWriter;
import org.fraudpipe.schemas.Topic;
import org.fraudpipe.schemas.avro.ModelEvent;
import org.fraudpipe.schemas.wire.TopicSerdes;

/**
 * Where a scoring stage learns which model releases serve (what the job graph carries to the tasks;
 * {@link #open} makes the subtask's {@link RegistryFeed}):
 *
 * <ul>
 *   <li>{@link StartupOnly}: none; the model the job was started with scores everything (a replay
 *       without a registry, tests, the job with {@code --model-registry off});
 *   <li>{@link Followed}: the registry topic, read by every scoring subtask while the job runs
 *       ({@link RegistryFollower});
 *   <li>{@link Fixed}: a registry read whole beforehand (the parity check and a replay, from the
 *       archive's copy of the topic).
 * </ul>
 */
public sealed interface ModelReleases extends Serializable {

    /** The subtask's feed, or null for {@link StartupOnly}. */
    RegistryFeed open();

    /**
     * Longest a scoring subtask holds a record its view does not cover yet; only a followed
     * registry is ever behind.
     */
    default Duration holdTimeout() {
        return Duration.ZERO;
    }

    /**
     * The ids ({@code name:version}) of the releases of {@code kind} this registry holds, in
     * publishing order: known only for a {@link Fixed} one (empty otherwise).
     */
    default List<String> releaseIds(org.fraudpipe.schemas.avro.ModelKind kind) {
        return List.of();
    }

    /** The model the job was started with, only. */
    static ModelReleases startupOnly() {
        return new StartupOnly();
    }

    /** No registry: the start-up model scores every record. */
    record StartupOnly() implements ModelReleases {
        @Override
        public RegistryFeed open() {
            return null;
        }
    }

    /**
     * The registry topic, followed while the job runs.
     *
     * @param topic the topic's name
     * @param kafka the Kafka client's connection and security settings, bootstrap servers included
     * @param registryConfig the schema registry client's settings (the topic's values are Avro in
     *     the Confluent framing, like every other topic's)
     * @param holdTimeout longest a scoring subtask holds a record whose coordinate its view does
     *     not cover yet (the registry unreachable): then the task fails, naming the topic
     */
    record Followed(
            String topic,
            Properties kafka,
            HashMap<String, String> registryConfig,
            Duration holdTimeout)
            implements ModelReleases {

        @Override
        public RegistryFeed open() {
            RegistryFollower follower =
                    new RegistryFollower(
                            topic,
                            kafka,
                            TopicSerdes.forRegistry(registryConfig)
                                    .valueDeserializer(Topic.MODEL_RELEASES, ModelEvent.class),
                            System::currentTimeMillis);
            follower.start();
            return follower;
        }
    }

    /**
     * A registry read whole beforehand, carried in the job graph as Avro binary.
     *
     * @param events each event's Avro binary encoding, in the topic's order
     * @param appendTimes each event's broker append time, epoch millis
     */
    record Fixed(List<byte[]> events, long[] appendTimes) implements ModelReleases {

        /** The registry of {@code entries}, in the topic's order. */
        public static Fixed of(List<FixedRegistry.Entry> entries) {
            SpecificDatumWriter<ModelEvent> writer = new SpecificDatumWriter<>(ModelEvent.class);
            List<byte[]> events = new ArrayList<>(entries.size());
            long[] appendTimes = new long[entries.size()];
            for (int i = 0; i < entries.size(); i++) {
                ByteArrayOutputStream bytes = new ByteArrayOutputStream();
                BinaryEncoder encoder = EncoderFactory.get().binaryEncoder(bytes, null);
                try {
                    writer.write(entries.get(i).event(), encoder);
                    encoder.flush();
                } catch (IOException e) {
                    throw new UncheckedIOException(e);
                }
                events.add(bytes.toByteArray());
                appendTimes[i] = entries.get(i).appendTime();
            }
            return new Fixed(events, appendTimes);
        }

        /** The entries, decoded. */
        public List<FixedRegistry.Entry> entries() {
            SpecificDatumReader<ModelEvent> reader = new SpecificDatumReader<>(ModelEvent.class);
            List<FixedRegistry.Entry> entries = new ArrayList<>(events.size());
            BinaryDecoder decoder = null;
            for (int i = 0; i < events.size(); i++) {
                decoder = DecoderFactory.get().binaryDecoder(events.get(i), decoder);
                try {
                    entries.add(
                            new FixedRegistry.Entry(reader.read(null, decoder), appendTimes[i]));
                } catch (IOException e) {
                    throw new UncheckedIOException(e);
                }
            }
            return entries;
        }

        @Override
        public RegistryFeed open() {
            return new FixedRegistry(entries());
        }

        @Override
        public List<String> releaseIds(org.fraudpipe.schemas.avro.ModelKind kind) {
            return new FixedRegistry(entries())
                    .current().registry().releases(kind).stream()
                            .map(org.fraudpipe.scoring.release.ModelRegistry.Release::id)
                            .toList();
        }
    }
}
