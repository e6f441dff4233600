package org.fraudpipe.tools.demo;

import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;
import org.fraudpipe.job.config.Durations;
import org.fraudpipe.job.config.JobOption;
import org.fraudpipe.local.LocalObjectStore;
import org.fraudpipe.sim.SimulationConfig;

/**
 * What one demo run does, from its options.
 *
 * <p>Time: the demo simulates the last {@code duration × speedup} of event time, ending when it
 * starts ({@link #simulation}), and publishes it paced by arrival time, {@code speedup} times
 * faster than real time. The traffic's clock then starts {@code duration × speedup} behind the wall
 * clock and catches up to the demo's start after {@code duration}: event times never run ahead of
 * the wall clock, so the job does not quarantine ordinary traffic as future-dated.
 *
 * @param users card holders simulated
 * @param duration wall-clock time of publishing
 * @param speedup how many times faster than real time traffic is published
 * @param txPerUserDay mean transactions per user and day
 * @param seed seed of the simulation
 * @param windowSize the job's window size
 * @param allowedLateness the job's allowed lateness
 * @param outOfOrderness the job's watermark bound
 * @param stateBackend the job's state backend ({@code rocksdb} or {@code hashmap})
 * @param parallelism the job's parallelism
 * @param checkpointInterval the job's checkpoint interval
 * @param webPort the Flink REST/web UI port on localhost, 0 for a free one
 * @param runDir where everything of this run goes
 * @param keepRunning whether to leave everything running after publishing
 */
public record DemoSettings(
        int users,
        Duration duration,
        double speedup,
        double txPerUserDay,
        long seed,
        Duration windowSize,
        Duration allowedLateness,
        Duration outOfOrderness,
        String stateBackend,
        int parallelism,
        Duration checkpointInterval,
        int webPort,
        Path runDir,
        boolean keepRunning,
        boolean secure,
        boolean objectStore) {

    /**
     * The traffic's anomalies, richer than {@code ./fraud simulate}'s defaults so that every fate
     * of a record shows within minutes: fraud bursts, hours-late arrivals (too late), producer
     * retries (duplicates), future-dated and malformed records (quarantine, dead letters).
     */
    public static final double FRAUD_SHARE = 0.02;

    public static final double HOURS_LATE_SHARE = 0.01;
    public static final double DUPLICATE_RATE = 0.005;
    public static final double FUTURE_RATE = 0.002;
    public static final double MALFORMED_RATE = 0.002;

    /** Partitions of each topic of the demo's broker. */
    public static final int PARTITIONS = 3;

    /** Consumer group and transactional-id prefix of the demo's job (its broker is its own). */
    public static final String JOB_ID = "fraudpipe-demo";

    public DemoSettings {
        Objects.requireNonNull(runDir, "runDir");
        if (users < 1) {
            throw new IllegalArgumentException("--users must be at least 1, was " + users);
        }
        if (duration.compareTo(Duration.ofSeconds(1)) < 0) {
            throw new IllegalArgumentException(
                    "--duration must be at least 1s, was " + Durations.format(duration));
        }
        if (!(speedup > 0) || Double.isInfinite(speedup)) {
            throw new IllegalArgumentException(
                    "--speedup must be a positive number (60: one hour of traffic per minute),"
                            + " was "
                            + speedup);
        }
        if (webPort < 0 || webPort > 65535) {
            throw new IllegalArgumentException("--web-port must be 0..65535, was " + webPort);
        }
    }

    /** How much event time the demo simulates: {@code duration × speedup}, whole milliseconds. */
    public Duration simulatedSpan() {
        return Duration.ofMillis(Math.round(duration.toMillis() * speedup));
    }

    /** The traffic: the last {@link #simulatedSpan()} of event time before {@code now}. */
    public SimulationConfig simulation(Instant now) {
        Instant end = now.truncatedTo(ChronoUnit.MILLIS);
        Duration span = simulatedSpan();
        return SimulationConfig.builder()
                .users(users)
                .start(end.minus(span))
                .duration(span)
                .seed(seed)
                .txPerUserDay(txPerUserDay)
                .fraudShare(FRAUD_SHARE)
                .duplicateRate(DUPLICATE_RATE)
                .futureRate(FUTURE_RATE)
                .hoursLateShare(HOURS_LATE_SHARE)
                .malformedRate(MALFORMED_RATE)
                .build();
    }

    /**
     * The job's options ({@link JobOption} keys) against the demo's broker and registry: the demo's
     * window, lateness, watermark bound, state backend, parallelism and checkpoint interval; its
     * own checkpoints and archive under the run directory; a consumer group and transactional ids
     * of its own, reading the topic from the beginning.
     */
    /**
     * The job's options with its Kafka client settings (the feature-job principal's file of a
     * secured run).
     */
    public Map<String, String> jobOptions(
            String bootstrapServers, String schemaRegistryUrl, Path kafkaConfig) {
        Map<String, String> o = jobOptions(bootstrapServers, schemaRegistryUrl);
        if (kafkaConfig != null) {
            o.put(JobOption.KAFKA_CONFIG.key(), kafkaConfig.toString());
        }
        return o;
    }

    public Map<String, String> jobOptions(String bootstrapServers, String schemaRegistryUrl) {
        Map<String, String> o = new LinkedHashMap<>();
        o.put(JobOption.WINDOW_SIZE.key(), Durations.format(windowSize));
        o.put(JobOption.ALLOWED_LATENESS.key(), Durations.format(allowedLateness));
        o.put(JobOption.OUT_OF_ORDERNESS.key(), Durations.format(outOfOrderness));
        o.put(JobOption.STATE_BACKEND.key(), stateBackend);
        o.put(JobOption.PARALLELISM.key(), Integer.toString(parallelism));
        o.put(JobOption.CHECKPOINT_INTERVAL.key(), Durations.format(checkpointInterval));
        o.put(JobOption.CHECKPOINT_DIR.key(), checkpointUri());
        o.put(JobOption.ARCHIVE_DIR.key(), archiveUri());
        o.put(JobOption.BOOTSTRAP_SERVERS.key(), bootstrapServers);
        o.put(JobOption.SCHEMA_REGISTRY_URL.key(), schemaRegistryUrl);
        o.put(JobOption.GROUP_ID.key(), JOB_ID);
        o.put(JobOption.TRANSACTIONAL_ID_PREFIX.key(), JOB_ID);
        o.put(JobOption.STARTING_OFFSETS.key(), "earliest");
        return o;
    }

    public Path kafkaDir() {
        return runDir.resolve("kafka");
    }

    public Path checkpointDir() {
        return objectStore ? bucketFiles().resolve("checkpoints") : runDir.resolve("checkpoints");
    }

    /**
     * The local object store's data directory ({@code --object-store}): its objects are files under
     * {@code objects/<bucket>/}.
     */
    public Path objectStoreDir() {
        return runDir.resolve("s3");
    }

    private Path bucketFiles() {
        return LocalObjectStore.objectFiles(objectStoreDir(), LocalObjectStore.DEFAULT_BUCKET);
    }

    /** The job's checkpoint root: in the object store ({@code s3p://}) or a local directory. */
    public String checkpointUri() {
        return objectStore
                ? LocalObjectStore.checkpointUri(LocalObjectStore.DEFAULT_BUCKET)
                : checkpointDir().toUri().toString();
    }

    /** Where both jobs' final savepoints go. */
    public String savepointUri() {
        return objectStore
                ? LocalObjectStore.savepointUri(LocalObjectStore.DEFAULT_BUCKET)
                : savepointDir().toUri().toString();
    }

    /** The archive as the job and parity are given it: {@code s3a://} or a local directory. */
    public String archiveUri() {
        return objectStore
                ? LocalObjectStore.archiveUri(LocalObjectStore.DEFAULT_BUCKET)
                : archiveDir().toString();
    }

    public Path savepointDir() {
        return objectStore ? bucketFiles().resolve("savepoints") : runDir.resolve("savepoints");
    }

    /** The archive's files: its local directory, or its objects' files in the store. */
    public Path archiveDir() {
        return objectStore ? bucketFiles().resolve("archive") : runDir.resolve("archive");
    }

    public Path reportDir() {
        return runDir.resolve("parity");
    }

    public Path logFile() {
        return runDir.resolve("demo.log");
    }

    /** The decision job's log (its JVM's own). */
    public Path decisionLogFile() {
        return runDir.resolve("decisions.log");
    }

    /** Where the decision job's JVM and the demo exchange its id and its final result. */
    public Path decisionControlDir() {
        return runDir.resolve(".decision-job");
    }
}
