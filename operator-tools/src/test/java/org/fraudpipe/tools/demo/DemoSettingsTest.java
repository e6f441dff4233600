package org.fraudpipe.tools.demo;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.PipelineOptions;
import org.apache.flink.configuration.RestOptions;
import org.fraudpipe.job.config.JobConfig;
import org.fraudpipe.sim.SimulationConfig;
import org.junit.jupiter.api.Test;

class DemoSettingsTest {

    static final Path RUN = Path.of("/tmp/fraud-demo-test");

    static DemoSettings settings(int users, Duration duration, double speedup) {
        return new DemoSettings(
                users,
                duration,
                speedup,
                300,
                1,
                Duration.ofMinutes(1),
                Duration.ofMinutes(30),
                Duration.ofSeconds(2),
                "rocksdb",
                2,
                Duration.ofSeconds(5),
                0,
                RUN,
                false,
                false,
                false);
    }

    @Test
    void theTrafficIsTheLastDurationTimesSpeedupOfEventTimeBeforeNow() {
        Instant now = Instant.parse("2026-11-29T12:00:00.123456Z");
        SimulationConfig sim = settings(200, Duration.ofMinutes(2), 60).simulation(now);

        assertThat(sim.end()).isEqualTo(Instant.parse("2026-11-29T12:00:00.123Z"));
        assertThat(sim.start()).isEqualTo(Instant.parse("2026-11-29T10:00:00.123Z"));
        assertThat(sim.users()).isEqualTo(200);
        assertThat(sim.malformedRate()).isPositive();
        assertThat(sim.futureRate()).isPositive();
        assertThat(sim.hoursLateShare()).isPositive();
    }

    @Test
    void theJobRunsWithTheDemosOptionsItsOwnDirectoriesAndIds() {
        JobConfig config =
                JobConfig.of(
                        settings(200, Duration.ofMinutes(2), 60)
                                .jobOptions("localhost:1234", "http://localhost:5678"));

        assertThat(config.windowSize()).isEqualTo(Duration.ofMinutes(1));
        assertThat(config.allowedLateness()).isEqualTo(Duration.ofMinutes(30));
        assertThat(config.outOfOrderness()).isEqualTo(Duration.ofSeconds(2));
        assertThat(config.stateBackend()).isEqualTo(JobConfig.StateBackend.ROCKSDB);
        assertThat(config.checkpointInterval()).isEqualTo(Duration.ofSeconds(5));
        assertThat(config.bootstrapServers()).isEqualTo("localhost:1234");
        assertThat(config.schemaRegistryUrl()).isEqualTo("http://localhost:5678");
        assertThat(config.checkpointDir()).isEqualTo(RUN.resolve("checkpoints").toUri());
        assertThat(config.archiveDir()).contains(RUN.resolve("archive").toUri());
        assertThat(config.groupId()).isEqualTo(DemoSettings.JOB_ID);
        assertThat(config.startingOffsets()).isEqualTo(JobConfig.StartingOffsets.EARLIEST);
    }

    @Test
    void badValuesAreRefusedNamingTheOption() {
        assertThatThrownBy(() -> settings(0, Duration.ofMinutes(2), 60))
                .hasMessageContaining("--users");
        assertThatThrownBy(() -> settings(10, Duration.ofMillis(10), 60))
                .hasMessageContaining("--duration");
        assertThatThrownBy(() -> settings(10, Duration.ofMinutes(2), 0))
                .hasMessageContaining("--speedup");
        assertThatThrownBy(() -> settings(10, Duration.ofMinutes(2), Double.NaN))
                .hasMessageContaining("--speedup");
    }

    @Test
    void theWatermarkIntervalShrinksWithTheSpeedupSoLatenessIsJudgedAsInRealTime() {
        assertThat(Demo.watermarkInterval(1)).isEqualTo(Duration.ofMillis(200));
        assertThat(Demo.watermarkInterval(10)).isEqualTo(Duration.ofMillis(20));
        assertThat(Demo.watermarkInterval(60)).isEqualTo(Duration.ofMillis(10));
        assertThat(Demo.watermarkInterval(0.5)).isEqualTo(Duration.ofMillis(200));

        Configuration flink = Demo.flinkSettings(18082, 60);
        assertThat(flink.get(PipelineOptions.AUTO_WATERMARK_INTERVAL))
                .isEqualTo(Duration.ofMillis(10));
        assertThat(flink.get(RestOptions.BIND_PORT)).isEqualTo("18082");
        assertThat(flink.get(RestOptions.BIND_ADDRESS)).isEqualTo("localhost");
    }
}
