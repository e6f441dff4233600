package org.fraudpipe.bench.kstreams;

import java.nio.file.Path;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.streams.KafkaStreams;
import org.apache.kafka.streams.StreamsConfig;
import org.apache.kafka.streams.errors.LogAndContinueExceptionHandler;
import org.fraudpipe.bench.probe.RunProbe;
import org.fraudpipe.bench.probe.RunnerArgs;

/**
 * The Kafka Streams peer as a benchmark run: {@link KafkaStreamsFeatures} with {@code
 * processing.guarantee=exactly_once_v2}, one stream thread per core of the job's parallelism, a
 * RocksDB window store, reading the input topic from the earliest offset. Closes (which commits the
 * last transaction) once the {@link RunProbe} counted the expected records, then writes the probe's
 * result file.
 *
 * <p>Options ({@code --name value}): bootstrap-servers, schema-registry-url, input-topic,
 * output-topic, application-id, state-dir, result-file, expect-records, and optionally threads (2),
 * window-size (10m), allowed-lateness (2m), out-of-orderness (5s), commit-interval (10s, the job's
 * checkpoint interval: output becomes visible at the same pace), cache-max-bytes (Kafka Streams'
 * default, 10 MiB), settle (2s), timeout (30m).
 */
public final class KafkaStreamsFeatureApp {

    private KafkaStreamsFeatureApp() {}

    public static void main(String[] argv) throws Exception {
        org.fraudpipe.bench.probe.ParentWatch.fromSystemProperty();
        RunnerArgs args = RunnerArgs.parse(argv);
        String bootstrap = args.required("bootstrap-servers");
        String registry = args.required("schema-registry-url");
        String input = args.required("input-topic");
        String output = args.required("output-topic");
        String applicationId = args.required("application-id");
        String stateDir = args.required("state-dir");
        Path resultFile = Path.of(args.required("result-file"));
        long expected = args.longValue("expect-records");
        int threads = args.intValue("threads", 2);
        Duration window = args.duration("window-size", "10m");
        Duration lateness = args.duration("allowed-lateness", "2m");
        Duration ooo = args.duration("out-of-orderness", "5s");
        Duration commitInterval = args.duration("commit-interval", "10s");
        long cacheBytes = Long.parseLong(args.get("cache-max-bytes", "10485760"));
        Duration settle = args.duration("settle", "2s");
        Duration timeout = args.duration("timeout", "30m");
        args.requireAllRead(List.of());

        Properties p = new Properties();
        p.put(StreamsConfig.APPLICATION_ID_CONFIG, applicationId);
        p.put(StreamsConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        p.put(StreamsConfig.PROCESSING_GUARANTEE_CONFIG, StreamsConfig.EXACTLY_ONCE_V2);
        p.put(StreamsConfig.NUM_STREAM_THREADS_CONFIG, threads);
        p.put(StreamsConfig.COMMIT_INTERVAL_MS_CONFIG, commitInterval.toMillis());
        p.put(StreamsConfig.STATESTORE_CACHE_MAX_BYTES_CONFIG, cacheBytes);
        p.put(StreamsConfig.STATE_DIR_CONFIG, stateDir);
        p.put(StreamsConfig.REPLICATION_FACTOR_CONFIG, 1);
        p.put(
                StreamsConfig.DESERIALIZATION_EXCEPTION_HANDLER_CLASS_CONFIG,
                LogAndContinueExceptionHandler.class);
        p.put(StreamsConfig.consumerPrefix(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG), "earliest");
        // The job's sink settings (KafkaIO.sink): same batching and compression of the output.
        p.put(StreamsConfig.producerPrefix(ProducerConfig.LINGER_MS_CONFIG), 20);
        p.put(StreamsConfig.producerPrefix(ProducerConfig.COMPRESSION_TYPE_CONFIG), "lz4");

        RunProbe.expect(expected);
        KafkaStreams streams =
                new KafkaStreams(
                        KafkaStreamsFeatures.topology(
                                input,
                                output,
                                registry,
                                window,
                                KafkaStreamsFeatures.graceFor(lateness, ooo)),
                        p);
        streams.setUncaughtExceptionHandler(
                e -> {
                    e.printStackTrace();
                    return org.apache.kafka.streams.errors.StreamsUncaughtExceptionHandler
                            .StreamThreadExceptionResponse.SHUTDOWN_CLIENT;
                });
        streams.start();
        boolean complete = RunProbe.await(timeout);
        Thread.sleep(settle.toMillis());
        long closeStart = System.nanoTime();
        boolean closed = streams.close(Duration.ofMinutes(2));
        Map<String, Object> result = new LinkedHashMap<>();
        result.put("system", "kafka-streams");
        result.put("stateBackend", "rocksdb");
        result.put("parallelism", threads);
        result.putAll(RunProbe.result());
        result.put("closeSeconds", (System.nanoTime() - closeStart) / 1e9);
        result.put("closedCleanly", closed);
        result.put("finalState", streams.state().toString());
        result.put("timedOut", !complete);
        RunnerArgs.writeResult(resultFile, result);
        System.exit(0);
    }
}
