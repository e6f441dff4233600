package org.fraudpipe.job.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.net.URI;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import org.fraudpipe.schemas.Topic;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class JobConfigTest {

    @Test
    void defaultsAreTheDocumentedOnes() {
        JobConfig c = JobConfig.defaults();
        assertThat(c.windowSize()).isEqualTo(Duration.ofMinutes(10));
        assertThat(c.outOfOrderness()).isEqualTo(Duration.ofSeconds(5));
        assertThat(c.allowedLateness()).isEqualTo(Duration.ofMinutes(2));
        assertThat(c.stateBackend()).isEqualTo(JobConfig.StateBackend.ROCKSDB);
        assertThat(c.schemaCompatibilityCheck())
                .isEqualTo(JobConfig.SchemaCompatibilityCheck.REFUSE);
        assertThat(c.transactionTimeout()).isEqualTo(Duration.ofMinutes(10));
        assertThat(c.topics().name(Topic.FEATURES)).isEqualTo(Topic.FEATURES.defaultName());
        for (JobOption option : JobOption.values()) {
            assertThat(c.asMap()).containsEntry(option.key(), option.defaultValue());
        }
    }

    @Test
    void thePerTransactionPathDefaultsToTheWindowSizeAtLeastOnceAndAFewMilliseconds() {
        JobConfig c = JobConfig.of(Map.of("window-size", "1m"));
        assertThat(c.trailingWindow()).isEqualTo(Duration.ofMinutes(1));
        assertThat(c.transactionModel()).isEmpty();
        assertThat(c.transactionReviewThreshold()).isEqualTo(0.5);
        assertThat(c.transactionBlockThreshold()).isEqualTo(0.9);
        assertThat(c.transactionScoringMaxDelay()).isEqualTo(Duration.ofMillis(5));
        assertThat(c.transactionBufferTimeout()).isEqualTo(Duration.ofMillis(2));
        assertThat(c.transactionScoresDelivery()).isEqualTo(JobConfig.Delivery.AT_LEAST_ONCE);

        JobConfig set =
                JobConfig.of(
                        Map.of(
                                "trailing-window", "15m",
                                "transaction-model", "/models/tx.onnx",
                                "transaction-review-threshold", "0.3",
                                "transaction-block-threshold", "0.8",
                                "transaction-scoring-max-delay", "0ms",
                                "transaction-buffer-timeout", "0ms",
                                "transaction-scores-delivery", "exactly-once"));
        assertThat(set.trailingWindow()).isEqualTo(Duration.ofMinutes(15));
        assertThat(set.transactionModel()).contains(Path.of("/models/tx.onnx"));
        assertThat(set.transactionReviewThreshold()).isEqualTo(0.3);
        assertThat(set.transactionBlockThreshold()).isEqualTo(0.8);
        assertThat(set.transactionScoringMaxDelay()).isZero();
        assertThat(set.transactionBufferTimeout()).isZero();
        assertThat(set.transactionScoresDelivery()).isEqualTo(JobConfig.Delivery.EXACTLY_ONCE);
    }

    @Test
    void valuesAreParsedWithOrWithoutLeadingDashes() {
        JobConfig c =
                JobConfig.of(
                        Map.of(
                                "--window-size", "5m",
                                "allowed-lateness", "PT30S",
                                "state-backend", "hashmap",
                                "starting-offsets", "latest",
                                "schema-compatibility-check", "warn",
                                "topic.transactions", "tx-v2"));
        assertThat(c.windowSize()).isEqualTo(Duration.ofMinutes(5));
        assertThat(c.allowedLateness()).isEqualTo(Duration.ofSeconds(30));
        assertThat(c.stateBackend()).isEqualTo(JobConfig.StateBackend.HASHMAP);
        assertThat(c.startingOffsets()).isEqualTo(JobConfig.StartingOffsets.LATEST);
        assertThat(c.schemaCompatibilityCheck()).isEqualTo(JobConfig.SchemaCompatibilityCheck.WARN);
        assertThat(c.topics().name(Topic.TRANSACTIONS)).isEqualTo("tx-v2");
    }

    @ParameterizedTest(name = "{0}={1} is rejected naming the option")
    @CsvSource({
        "window-size, 0s, --window-size must be positive",
        "window-size, 10, --window-size '10' is not a duration",
        "allowed-lateness, -PT1M, --allowed-lateness '-PT1M' is negative",
        "idleness, 0ms, --idleness must be positive",
        "state-backend, memory, --state-backend 'memory' is not one of: rocksdb, hashmap",
        "parallelism, 0, --parallelism must be at least 1",
        "parallelism, 500, --parallelism must not exceed --max-parallelism",
        "parallelism, two, --parallelism 'two' is not a whole number",
        "checkpoint-dir, /tmp/ckpt, --checkpoint-dir '/tmp/ckpt' has no scheme",
        "schema-registry-url, localhost:8081, --schema-registry-url 'localhost:8081' must be",
        "starting-offsets, newest, --starting-offsets 'newest' is not one of",
        "schema-compatibility-check, ignore, --schema-compatibility-check 'ignore' is not one of:"
                + " refuse, warn",
        "bootstrap-servers, '', --bootstrap-servers must not be empty",
        "topic.features, 'bad name', topic.features: 'bad name'",
        "no-such-option, 1, unknown job option 'no-such-option'",
        "review-threshold, 1.5, --review-threshold must be between 0 and 1",
        "block-threshold, high, --block-threshold 'high' is not a number",
        "block-threshold, 0.4, --block-threshold (0.4) must be at least --review-threshold (0.5)",
        "scoring-batch-size, 0, --scoring-batch-size must be at least 1",
        "archive-dir, '', --archive-dir must not be empty",
        "archive-dir, hdfs:archive, --archive-dir 'hdfs:archive' is not a directory URI",
        "archive-dir, file:archive, --archive-dir 'file:archive' is not a directory URI",
        "archive-dir, 's3://bucket/a b', --archive-dir 's3://bucket/a b' is not a URI",
        "trailing-window, 0s, --trailing-window must be positive",
        "trailing-window, 10, --trailing-window '10' is not a duration",
        "transaction-review-threshold, 2, --transaction-review-threshold must be between 0 and 1",
        "transaction-block-threshold, 0.3, --transaction-block-threshold (0.3) must be at least"
                + " --transaction-review-threshold (0.5)",
        "transaction-scoring-max-delay, -PT1S, --transaction-scoring-max-delay '-PT1S' is"
                + " negative",
        "transaction-buffer-timeout, -PT0.001S, --transaction-buffer-timeout '-PT0.001S' is"
                + " negative",
        "transaction-buffer-timeout, 2, --transaction-buffer-timeout '2' is not a duration",
        "transaction-scores-delivery, maybe, --transaction-scores-delivery 'maybe' is not one of:"
                + " at-least-once",
    })
    void badValuesFailNamingTheOption(String key, String value, String message) {
        assertThatThrownBy(() -> JobConfig.of(Map.of(key, value)))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining(message);
    }

    @Test
    void theArchiveDefaultsToDotFraudUnderTheProjectRoot(@TempDir Path home) {
        JobConfig c = JobConfig.defaults();
        assertThat(c.archiveDir(home))
                .contains(home.resolve(".fraud").resolve("archive").toUri().normalize());
        assertThat(c.archiveDir(home).get().getScheme()).isEqualTo("file");
        assertThat(c.archiveDirIsLocalPath()).isTrue();
    }

    @Test
    void anArchiveUriIsUsedAsGivenAndALocalPathBecomesAFileUri(@TempDir Path home) {
        JobConfig s3 = JobConfig.of(Map.of("archive-dir", "s3://bucket/fraudpipe/archive"));
        assertThat(s3.archiveDir(home)).contains(URI.create("s3://bucket/fraudpipe/archive"));
        assertThat(s3.archiveDirIsLocalPath()).isFalse();
        JobConfig file = JobConfig.of(Map.of("archive-dir", "file:///mnt/shared/archive"));
        assertThat(file.archiveDir(home)).contains(URI.create("file:///mnt/shared/archive"));
        assertThat(file.archiveDirIsLocalPath()).isFalse();
        JobConfig relative = JobConfig.of(Map.of("archive-dir", "target/../archive"));
        assertThat(relative.archiveDir(home)).contains(home.resolve("archive").toUri().normalize());
        assertThat(relative.archiveDirIsLocalPath()).isTrue();
        JobConfig absolute = JobConfig.of(Map.of("archive-dir", "/var/archive"));
        assertThat(absolute.archiveDir(home)).contains(URI.create("file:///var/archive"));
    }

    @Test
    void noneTurnsTheArchiveOff() {
        JobConfig c = JobConfig.of(Map.of("archive-dir", "none"));
        assertThat(c.archiveDir()).isEmpty();
        assertThat(c.archiveDirIsLocalPath()).isFalse();
    }

    @Test
    void twoTopicsWithOneNameAreRejected() {
        assertThatThrownBy(
                        () -> JobConfig.of(Map.of("topic.features", "out", "topic.scores", "out")))
                .hasMessageContaining("topic.scores and topic.features are both 'out'");
    }

    @Test
    void transactionTimeoutAboveTheBrokerMaximumFailsAtStartUp() {
        assertThatThrownBy(() -> JobConfig.of(Map.of("transaction-timeout", "1h")))
                .hasMessageContaining("--transaction-timeout (1h) exceeds the brokers'")
                .hasMessageContaining("--broker-transaction-max-timeout");
        assertThat(
                        JobConfig.of(
                                        Map.of(
                                                "transaction-timeout", "1h",
                                                "broker-transaction-max-timeout", "2h"))
                                .transactionTimeout())
                .isEqualTo(Duration.ofHours(1));
    }

    @Test
    void transactionTimeoutShorterThanCheckpointPlusRestartFailsAtStartUp() {
        assertThatThrownBy(
                        () ->
                                JobConfig.of(
                                        Map.of(
                                                "transaction-timeout", "2m",
                                                "checkpoint-interval", "1m")))
                .hasMessageContaining("--transaction-timeout (2m) is shorter than")
                .hasMessageContaining("(3m)");
        assertThat(
                        JobConfig.of(
                                        Map.of(
                                                "transaction-timeout", "3m",
                                                "checkpoint-interval", "1m"))
                                .transactionTimeout())
                .isEqualTo(Duration.ofMinutes(3));
    }

    @Test
    void durationsFormatBackToTheirShortestForm() {
        for (String s : new String[] {"250ms", "5s", "10m", "2h", "1d", "90s"}) {
            assertThat(Durations.format(Durations.parse(s))).isEqualTo(s);
        }
        assertThat(Durations.parse("PT1H30M")).isEqualTo(Duration.ofMinutes(90));
    }
}
