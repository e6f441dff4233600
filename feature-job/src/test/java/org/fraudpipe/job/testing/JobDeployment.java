package org.fraudpipe.job.testing;

import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.UnaryOperator;
import org.apache.avro.specific.SpecificRecord;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.RestartStrategyOptions;
import org.apache.flink.configuration.StateRecoveryOptions;
import org.apache.flink.core.execution.JobClient;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.fraudpipe.job.KafkaFeatureJob;
import org.fraudpipe.job.archive.FileArchive;
import org.fraudpipe.job.config.JobConfig;
import org.fraudpipe.job.kafka.KafkaIO;
import org.fraudpipe.job.kafka.StartupChecks;
import org.fraudpipe.job.savepoint.SavepointGuard;
import org.fraudpipe.job.scoring.OnnxPaneScorer;
import org.fraudpipe.job.topology.FeatureJobTopology;
import org.fraudpipe.job.topology.JobEnvironment;
import org.fraudpipe.job.topology.OutputSinks;
import org.fraudpipe.job.transaction.OnnxTransactionScorer;
import org.fraudpipe.local.KafkaTestBroker;
import org.fraudpipe.local.LocalSecurity;
import org.fraudpipe.local.TopicProvisioner;
import org.fraudpipe.schemas.Topic;
import org.fraudpipe.schemas.TopicNames;
import org.fraudpipe.schemas.registry.SchemaRegistries;
import org.fraudpipe.schemas.registry.SchemaRegistryClient;
import org.fraudpipe.schemas.wire.ConfluentAvroCodec;
import org.fraudpipe.schemas.wire.TopicSerdes;

/**
 * One isolated deployment of the production feature job (Kafka source, scoring of panes and of
 * transactions at arrival, exactly-once Kafka sinks) on a test broker, run on the test's
 * MiniCluster: its own topics, schema-registry scope, consumer group and transactional ids, so the
 * tests of a class share one broker without seeing each other's data. Every subject of its registry
 * scope is FULL_TRANSITIVE, as in production.
 *
 * <p>The job is started the way {@code ./fraud job} starts it ({@link StartupChecks}, {@link
 * JobEnvironment}, {@link FeatureJobTopology} with {@link KafkaIO} and the archive in a directory
 * of its own); a test may wrap the sinks (failure injection) and restore from a savepoint. The only
 * test-specific Flink settings are a fast restart strategy (exponential delay from 100 ms to 2 s;
 * production uses Flink's default, the same strategy starting at 1 s) so that recoveries do not
 * dominate the test time.
 */
public final class JobDeployment {

    private static final AtomicInteger RUN = new AtomicInteger();

    private final KafkaTestBroker kafka;
    private final Map<String, String> options;
    private final JobConfig config;

    private JobDeployment(KafkaTestBroker kafka, Map<String, String> options) {
        this.kafka = kafka;
        this.options = Map.copyOf(options);
        this.config = JobConfig.of(options);
    }

    /**
     * A new deployment named {@code name} (made unique per JVM): creates its topics with {@code
     * partitions} partitions and configures the job with small-test defaults (checkpoints every 300
     * ms into {@code checkpointDir}, parallelism 2, idleness 1 s) overridden by {@code overrides}
     * (option name to value).
     */
    public static JobDeployment create(
            KafkaTestBroker kafka,
            String name,
            int partitions,
            Path checkpointDir,
            Map<String, String> overrides) {
        return createExactly(
                kafka, name + "-" + RUN.incrementAndGet(), partitions, checkpointDir, overrides);
    }

    /**
     * A deployment with exactly these names ({@code <run>-<topic>}, group and transactional-id
     * prefix {@code run}, registry {@code mock://run}): for state that names them, a savepoint.
     */
    public static JobDeployment createExactly(
            KafkaTestBroker kafka,
            String run,
            int partitions,
            Path checkpointDir,
            Map<String, String> overrides) {
        Map<Topic, String> names = new EnumMap<>(Topic.class);
        for (Topic t : Topic.values()) {
            names.put(t, run + "-" + t.defaultName());
        }
        TopicNames topics = TopicNames.withOverrides(names);
        try (Admin admin = kafka.admin()) {
            new TopicProvisioner(admin).ensureTopics(topics, partitions, (short) 1);
        }
        Map<String, String> options = new HashMap<>();
        options.put("bootstrap-servers", kafka.bootstrapServers());
        options.put("schema-registry-url", "mock://" + run);
        options.put("group-id", run);
        options.put("transactional-id-prefix", run);
        options.put("checkpoint-dir", checkpointDir.toUri().toString());
        options.put("archive-dir", checkpointDir.resolve("archive-" + run).toUri().toString());
        options.put("checkpoint-interval", "300ms");
        options.put("idleness", "1s");
        options.put("parallelism", "2");
        topics.asMap().forEach((t, n) -> options.put(TopicNames.optionName(t), n));
        if (kafka.isSecured()) {
            // The secured runtime: the job runs as its own principal, with the rights on this
            // deployment's topics, group and transactional ids that `./fraud kafka start
            // --secure` grants on the default names.
            options.put("schema-registry-url", kafka.schemaRegistryUrl());
            options.put(
                    "kafka-config",
                    kafka.security().clientFile(LocalSecurity.FEATURE_JOB).toString());
            kafka.grant(topics, new LocalSecurity.JobIdentity(run, run));
        }
        options.putAll(overrides);
        JobDeployment deployment = new JobDeployment(kafka, options);
        // As an operator sets them (and ./fraud kafka start does): every subject FULL_TRANSITIVE,
        // so the job's start-up check passes because its input is protected, not because the
        // check is off.
        SchemaRegistryClient registry =
                SchemaRegistries.forConfig(deployment.config.registryConfig());
        deployment.config.topics().subjectCompatibility().forEach(registry::setCompatibilityLevel);
        return deployment;
    }

    /** The same deployment (topics, group, transactional ids) with one option changed. */
    public JobDeployment with(String option, String value) {
        Map<String, String> changed = new HashMap<>(options);
        changed.put(option, value);
        return new JobDeployment(kafka, changed);
    }

    public JobConfig config() {
        return config;
    }

    public String topic(Topic topic) {
        return config.topics().name(topic);
    }

    /** Starts the job without a savepoint (its starting offsets decide where it reads). */
    public JobClient start() throws Exception {
        return job().start();
    }

    /** A job of this deployment to start, optionally restored or with wrapped sinks. */
    public Job job() {
        return new Job();
    }

    /** A job to start: the production topology, optionally restored or wrapped. */
    public final class Job {
        private String savepoint;
        private UnaryOperator<OutputSinks> sinks = UnaryOperator.identity();

        /** Restores the job's state from this savepoint (or retained checkpoint) path. */
        public Job restoringFrom(String savepointPath) {
            this.savepoint = savepointPath;
            return this;
        }

        /** Wraps the Kafka sinks (e.g. to inject a failure just before them). */
        public Job withSinks(UnaryOperator<OutputSinks> wrap) {
            this.sinks = wrap;
            return this;
        }

        public JobClient start() throws Exception {
            StartupChecks.verify(config);
            Configuration conf = JobEnvironment.flinkConfiguration(config);
            conf.set(RestartStrategyOptions.RESTART_STRATEGY, "exponential-delay");
            conf.set(
                    RestartStrategyOptions.RESTART_STRATEGY_EXPONENTIAL_DELAY_INITIAL_BACKOFF,
                    Duration.ofMillis(100));
            conf.set(
                    RestartStrategyOptions.RESTART_STRATEGY_EXPONENTIAL_DELAY_MAX_BACKOFF,
                    Duration.ofSeconds(2));
            if (savepoint != null) {
                SavepointGuard.refuseUnmigrated(savepoint);
                conf.set(StateRecoveryOptions.SAVEPOINT_PATH, savepoint);
            }
            StreamExecutionEnvironment env =
                    StreamExecutionEnvironment.getExecutionEnvironment(conf);
            FeatureJobTopology.build(
                    env,
                    KafkaFeatureJob.plan(
                                    config,
                                    OnnxPaneScorer.Factory.of(config),
                                    OnnxTransactionScorer.Factory.of(config))
                            .to(sinks.apply(KafkaIO.sinks(config)))
                            .archivedIn(FileArchive.forJob(config, false).orElse(null)));
            return env.executeAsync("feature-job-it-" + config.groupId());
        }
    }

    /** A producer of the deployment's transactions topic. */
    public TransactionProducer producer() {
        return new TransactionProducer(config, kafka.client(LocalSecurity.PRODUCER));
    }

    /** Everything committed to an output topic so far, decoded ({@code read_committed}). */
    public <T extends SpecificRecord> List<T> committed(Topic topic, Class<T> type) {
        return decode(topic, type, kafka.readAllCommitted(topic(topic)));
    }

    /**
     * Everything written to an output topic so far, decoded, including open and aborted
     * transactions ({@code read_uncommitted}).
     */
    public <T extends SpecificRecord> List<T> uncommitted(Topic topic, Class<T> type) {
        return decode(topic, type, kafka.readAllUncommitted(topic(topic)));
    }

    /** The raw committed records of an output topic (keys included). */
    public List<ConsumerRecord<byte[], byte[]>> committedRecords(Topic topic) {
        return kafka.readAllCommitted(topic(topic));
    }

    /** The codec of a topic's values against this deployment's registry. */
    public <T extends SpecificRecord> ConfluentAvroCodec<T> codec(Topic topic, Class<T> type) {
        return TopicSerdes.forRegistry(config.registryConfig())
                .valueCodec(topic, topic(topic), type);
    }

    private <T extends SpecificRecord> List<T> decode(
            Topic topic, Class<T> type, List<ConsumerRecord<byte[], byte[]>> records) {
        ConfluentAvroCodec<T> codec = codec(topic, type);
        List<T> out = new ArrayList<>();
        for (ConsumerRecord<byte[], byte[]> r : records) {
            out.add(codec.decode(r.value()));
        }
        return out;
    }

    /**
     * Waits until at least {@code expected} records are committed to {@code topic}, then returns
     * everything committed to it (so a duplicate shows as one record too many).
     */
    public <T extends SpecificRecord> List<T> awaitCommitted(
            Topic topic, Class<T> type, int expected, Duration timeout) {
        Await.until(
                "at least " + expected + " records committed to " + topic(topic),
                timeout,
                () -> kafka.readAllCommitted(topic(topic)).size() >= expected);
        return committed(topic, type);
    }
}
