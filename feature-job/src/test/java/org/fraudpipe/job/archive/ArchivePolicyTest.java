package org.fraudpipe.job.archive;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import org.fraudpipe.job.config.JobConfig;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class ArchivePolicyTest {

    @TempDir Path dir;

    private final ArchivePolicy jobDefaults = ArchivePolicy.of(JobConfig.defaults());

    private org.apache.flink.core.fs.Path root() {
        return org.apache.flink.core.fs.Path.fromLocalFile(dir.toFile());
    }

    @Test
    void theJobsPolicyIsItsEventTimeOptions() {
        ArchivePolicy p =
                ArchivePolicy.of(
                        JobConfig.of(Map.of("allowed-lateness", "30m", "idleness", "10s")));
        assertThat(p.describe())
                .isEqualTo(
                        "window-size=10m allowed-lateness=30m out-of-orderness=5s idleness=10s"
                                + " future-tolerance=5m");
    }

    @Test
    void recordingIsIdempotentAndKeepsTheHistoryOfChanges() throws Exception {
        Instant t0 = Instant.parse("2026-11-28T10:00:00Z");
        assertThat(ArchivePolicy.record(root(), jobDefaults, t0)).isTrue();
        // A restart, a failover: the same policy, nothing written.
        assertThat(ArchivePolicy.record(root(), jobDefaults, t0.plusSeconds(60))).isFalse();
        ArchivePolicy longer =
                new ArchivePolicy(
                        Duration.ofMinutes(10),
                        Duration.ofMinutes(20),
                        Duration.ofSeconds(5),
                        Duration.ofMinutes(1),
                        Duration.ofMinutes(5));
        assertThat(ArchivePolicy.record(root(), longer, t0.plusSeconds(3_600))).isTrue();
        // Back to the first policy: a change again, so a new file.
        assertThat(ArchivePolicy.record(root(), jobDefaults, t0.plusSeconds(7_200))).isTrue();

        List<ArchivePolicy.Recorded> history = ArchivePolicy.readAll(root());
        assertThat(history)
                .extracting(ArchivePolicy.Recorded::policy)
                .containsExactly(jobDefaults, longer, jobDefaults);
        assertThat(history)
                .extracting(ArchivePolicy.Recorded::recordedAt)
                .containsExactly(t0, t0.plusSeconds(3_600), t0.plusSeconds(7_200));
        try (var files = Files.list(dir.resolve(ArchivePolicy.DIRECTORY))) {
            assertThat(files.map(f -> f.getFileName().toString()))
                    .hasSize(3)
                    .allMatch(n -> n.startsWith("policy-") && n.endsWith(".json"));
        }
    }

    @Test
    void theFileIsJsonWithTheJobsOptionNamesAndParsesBack() {
        ArchivePolicy replay =
                new ArchivePolicy(
                        Duration.ofMinutes(1),
                        Duration.ofMinutes(1),
                        Duration.ZERO,
                        null,
                        Duration.ofMinutes(5));
        String json = replay.toJson(null);
        assertThat(json)
                .contains("\"window-size\" : \"1m\"")
                .contains("\"idleness\" : \"none\"")
                .doesNotContain("recordedAt");
        ArchivePolicy.Recorded back = ArchivePolicy.parse(json, "x");
        assertThat(back.policy()).isEqualTo(replay);
        assertThat(back.recordedAt()).isNull();
        assertThatThrownBy(() -> ArchivePolicy.parse("{\"window-size\": 3}", "bad.json"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("bad.json");
    }

    @Test
    void anArchiveWithoutPoliciesHasNone() throws Exception {
        assertThat(ArchivePolicy.readAll(root())).isEmpty();
    }
}
