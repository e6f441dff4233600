package org.fraudpipe.job.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.fraudpipe.job.testing.Await;
import org.fraudpipe.local.BrokerRuntime;
import org.fraudpipe.local.LocalKafka;
import org.fraudpipe.schemas.Topic;
import org.fraudpipe.schemas.avro.Transaction;
import org.fraudpipe.schemas.wire.ConfluentAvroCodec;
import org.fraudpipe.schemas.wire.TopicSerdes;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code ./fraud job} end to end, on a real broker and schema registry, with its local default (a
 * split: both paths as two jobs, no option needed, issue #29): the command runs the window job in
 * this JVM and the decision job in a JVM of its own (with its own options and GC goal); both answer
 * (the decision job scores every transaction, the window job routes the dead letter); when the
 * decision job's JVM dies, the command cancels the window job and exits 1 naming it. The window
 * job's threads are left at their priority here ({@code --split-windows-nice 0}): the rest of this
 * JVM's tests would run reniced otherwise.
 */
class LocalSplitIT {

    private static final Duration TIMEOUT = Duration.ofMinutes(2);

    @TempDir Path dir;

    @Test
    @DisplayName(
            "./fraud job (split by default): both jobs run (the decision job in a JVM of its own)"
                    + " and the command ends, exit 1, when the decision job does")
    void bothJobsRunAndTheCommandEndsWhenTheDecisionJobDoes() throws Exception {
        try (LocalKafka kafka =
                LocalKafka.start(
                        LocalKafka.Settings.tiedToThisJvm(dir.resolve("kafka"), 2),
                        BrokerRuntime.fromSystemProperty())) {
            StringWriter err = new StringWriter();
            ExecutorService executor = Executors.newSingleThreadExecutor();
            Future<Integer> exit = jobCommand(executor, err, kafka);
            try {
                ProcessHandle decisionJvm = awaitDecisionJvm(exit);
                List<String> args = arguments(decisionJvm);
                assertThat(args)
                        .contains(FeatureJobMain.NAME, "-XX:MaxGCPauseMillis=10")
                        .containsSequence("--paths", "decisions")
                        .containsSequence("--state-backend", "hashmap")
                        .doesNotContain("--split");

                int transactions = 20;
                publish(kafka, transactions);
                Await.until(
                        "the decision job's score of every transaction",
                        TIMEOUT,
                        () -> count(kafka, Topic.TRANSACTION_SCORES) >= transactions);
                Await.until(
                        "the window job's dead letter (read uncommitted: its transaction is open)",
                        TIMEOUT,
                        () -> count(kafka, Topic.DEAD_LETTERS) == 1);

                decisionJvm.destroyForcibly();
                assertThat(exit.get(TIMEOUT.toSeconds(), TimeUnit.SECONDS)).isEqualTo(1);
                assertThat(err.toString())
                        .contains("the decision job (pid " + decisionJvm.pid() + ") ended")
                        .contains("the window job was cancelled too");
            } finally {
                killDecisionJvms();
                executor.shutdownNow();
            }
        }
    }

    @Test
    @DisplayName(
            "./fraud job (split): a window job that fails for good (--restart-attempts 0, its"
                    + " checkpoint storage broken) stops the decision job too; exit 1 naming it")
    void aWindowJobThatFailsForGoodStopsTheDecisionJob() throws Exception {
        try (LocalKafka kafka =
                LocalKafka.start(
                        LocalKafka.Settings.tiedToThisJvm(dir.resolve("kafka"), 2),
                        BrokerRuntime.fromSystemProperty())) {
            Path checkpoints = dir.resolve("checkpoints");
            StringWriter err = new StringWriter();
            ExecutorService executor = Executors.newSingleThreadExecutor();
            Future<Integer> exit =
                    jobCommand(
                            executor,
                            err,
                            kafka,
                            "--restart-attempts",
                            "0",
                            "--checkpoint-interval",
                            "1s");
            try {
                ProcessHandle decisionJvm = awaitDecisionJvm(exit);
                assertThat(arguments(decisionJvm))
                        .as("the window job's --restart-attempts is the decision job's too")
                        .containsSequence("--restart-attempts=0");
                // Both jobs checkpoint under <dir>/<job id>/chk-<n>. The window job every second,
                // the decision job every 30 s: a job directory with a second checkpoint in it is
                // the window job's.
                Path[] windowJob = new Path[1];
                Await.until(
                        "the window job's second checkpoint",
                        TIMEOUT,
                        () -> {
                            assertThat(exit.isDone()).as("the command ended early").isFalse();
                            windowJob[0] = jobDirWithCheckpoint(checkpoints, 2);
                            return windowJob[0] != null;
                        });
                // Its checkpoint storage broken: the job directory becomes a file. The next
                // checkpoint fails, the job fails over, and with no restart left fails for good.
                replaceWithFile(windowJob[0], dir.resolve("window-job-checkpoints-aside"));

                assertThat(exit.get(TIMEOUT.toSeconds(), TimeUnit.SECONDS)).isEqualTo(1);
                assertThat(err.toString())
                        .contains("the window job failed")
                        .contains(
                                "the decision job (pid " + decisionJvm.pid() + ") was stopped too");
                Await.until("the decision job's JVM gone", TIMEOUT, () -> !decisionJvm.isAlive());
            } finally {
                killDecisionJvms();
                executor.shutdownNow();
            }
        }
    }

    /**
     * {@code ./fraud job} (the local split, the window job's threads not reniced) against {@code
     * kafka} with {@code more} options, in {@code executor}; its errors in {@code err}.
     */
    private Future<Integer> jobCommand(
            ExecutorService executor, StringWriter err, LocalKafka kafka, String... more) {
        List<String> args =
                new java.util.ArrayList<>(
                        List.of(
                                "--split-windows-nice",
                                "0",
                                "--bootstrap-servers",
                                kafka.bootstrapServers(),
                                "--schema-registry-url",
                                kafka.schemaRegistryUrl(),
                                "--checkpoint-dir",
                                dir.resolve("checkpoints").toUri().toString(),
                                "--archive-dir",
                                "none",
                                "--parallelism",
                                "1",
                                "--idleness",
                                "30m"));
        args.addAll(List.of(more));
        return executor.submit(
                () -> {
                    picocli.CommandLine cl = JobCommand.commandLine();
                    cl.setErr(new PrintWriter(err, true));
                    return cl.execute(args.toArray(String[]::new));
                });
    }

    private static void killDecisionJvms() {
        ProcessHandle.current()
                .children()
                .filter(LocalSplitIT::isDecisionJvm)
                .forEach(ProcessHandle::destroyForcibly);
    }

    /** The directory under {@code checkpoints} of a job that holds {@code chk-<n>}, or null. */
    private static Path jobDirWithCheckpoint(Path checkpoints, int n) throws java.io.IOException {
        if (!java.nio.file.Files.isDirectory(checkpoints)) {
            return null;
        }
        try (java.util.stream.Stream<Path> jobs = java.nio.file.Files.list(checkpoints)) {
            return jobs.filter(j -> java.nio.file.Files.isDirectory(j.resolve("chk-" + n)))
                    .findFirst()
                    .orElse(null);
        }
    }

    /**
     * Puts a file where the directory {@code jobDir} is, while the job keeps writing checkpoints
     * into it. Deleting the tree races with the job (a checkpoint written between the walk and the
     * delete leaves the directory not empty): the directory is moved aside in one rename instead,
     * and if the job recreated it (its next checkpoint's {@code mkdirs}) before the file took its
     * place, moved aside again.
     */
    private static void replaceWithFile(Path jobDir, Path asideRoot) throws java.io.IOException {
        java.nio.file.Files.createDirectories(asideRoot);
        for (int attempt = 0; ; attempt++) {
            if (java.nio.file.Files.isDirectory(jobDir)) {
                java.nio.file.Files.move(jobDir, asideRoot.resolve("attempt-" + attempt));
            }
            try {
                java.nio.file.Files.writeString(
                        jobDir, "not a directory", java.nio.file.StandardOpenOption.CREATE_NEW);
                return;
            } catch (java.nio.file.FileAlreadyExistsException recreated) {
                assertThat(attempt).as("the job directory kept coming back").isLessThan(100);
            }
        }
    }

    /** The main class of the decision job's JVM. */
    private static final class FeatureJobMain {
        static final String NAME = org.fraudpipe.job.FeatureJob.class.getName();
    }

    private static boolean isDecisionJvm(ProcessHandle p) {
        return arguments(p).contains(FeatureJobMain.NAME);
    }

    /**
     * The command line of {@code p}, from {@code /proc} ({@link ProcessHandle.Info#arguments} gives
     * nothing for a command line as long as a JVM's with its classpath).
     */
    private static List<String> arguments(ProcessHandle p) {
        try {
            byte[] raw =
                    java.nio.file.Files.readAllBytes(Path.of("/proc", "" + p.pid(), "cmdline"));
            return List.of(new String(raw, StandardCharsets.UTF_8).split("\u0000"));
        } catch (java.io.IOException gone) {
            return List.of();
        }
    }

    /** The decision job's JVM, a child of this one, once started. */
    private static ProcessHandle awaitDecisionJvm(Future<Integer> exit) {
        ProcessHandle[] found = new ProcessHandle[1];
        Await.until(
                "the decision job's JVM",
                TIMEOUT,
                () -> {
                    assertThat(exit.isDone()).as("the command ended early").isFalse();
                    found[0] =
                            ProcessHandle.current()
                                    .children()
                                    .filter(LocalSplitIT::isDecisionJvm)
                                    .findFirst()
                                    .orElse(null);
                    return found[0] != null;
                });
        return found[0];
    }

    /** {@code n} valid transactions of recent event time and one record that is not Avro. */
    private static void publish(LocalKafka kafka, int n) throws Exception {
        ConfluentAvroCodec<Transaction> codec =
                TopicSerdes.forRegistry(kafka.schemaRegistryUrl())
                        .valueCodec(
                                Topic.TRANSACTIONS,
                                Topic.TRANSACTIONS.defaultName(),
                                Transaction.class);
        Properties p = new Properties();
        p.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, kafka.bootstrapServers());
        p.put(ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class.getName());
        p.put(ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class.getName());
        Instant now = Instant.now();
        try (KafkaProducer<byte[], byte[]> producer = new KafkaProducer<>(p)) {
            for (int i = 0; i < n; i++) {
                Transaction tx =
                        Transaction.newBuilder()
                                .setTransactionId("split-" + i)
                                .setUserId("u" + (i % 4))
                                .setAmountMinor(100 + i)
                                .setCurrency("EUR")
                                .setMerchantId("m" + (i % 3))
                                .setDeviceId("d" + (i % 2))
                                .setCountry("DE")
                                .setEventTime(now.minusSeconds(n - i))
                                .build();
                producer.send(
                        new ProducerRecord<>(
                                Topic.TRANSACTIONS.defaultName(),
                                tx.getUserId().getBytes(StandardCharsets.UTF_8),
                                codec.encode(tx)));
            }
            producer.send(
                    new ProducerRecord<>(
                            Topic.TRANSACTIONS.defaultName(),
                            "u0".getBytes(StandardCharsets.UTF_8),
                            "not avro".getBytes(StandardCharsets.UTF_8)));
            producer.flush();
        }
    }

    /** Records in {@code topic} (its default name), read uncommitted from the beginning. */
    private static long count(LocalKafka kafka, Topic topic) {
        Properties p = new Properties();
        p.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, kafka.bootstrapServers());
        p.put(ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class.getName());
        p.put(
                ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG,
                ByteArrayDeserializer.class.getName());
        p.put(ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_uncommitted");
        try (KafkaConsumer<byte[], byte[]> c = new KafkaConsumer<>(p)) {
            List<TopicPartition> parts =
                    c.partitionsFor(topic.defaultName()).stream()
                            .map(i -> new TopicPartition(i.topic(), i.partition()))
                            .toList();
            c.assign(parts);
            c.seekToBeginning(parts);
            Map<TopicPartition, Long> end = c.endOffsets(parts);
            long n = 0;
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
            while (parts.stream().anyMatch(tp -> c.position(tp) < end.get(tp))
                    && System.nanoTime() < deadline) {
                for (ConsumerRecord<byte[], byte[]> r : c.poll(Duration.ofMillis(200))) {
                    n++;
                }
            }
            return n;
        }
    }
}
