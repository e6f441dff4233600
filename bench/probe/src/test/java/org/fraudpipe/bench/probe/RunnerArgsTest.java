package org.fraudpipe.bench.probe;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class RunnerArgsTest {

    @Test
    void readsPairsDurationsAndLeavesTheRestForTheJob() {
        RunnerArgs args =
                RunnerArgs.parse(
                        new String[] {
                            "--expect-records",
                            "42",
                            "--settle",
                            "250ms",
                            "--state-backend",
                            "hashmap"
                        });
        assertThat(args.longValue("expect-records")).isEqualTo(42);
        assertThat(args.duration("settle", "2s")).isEqualTo(Duration.ofMillis(250));
        assertThat(args.duration("timeout", "30m")).isEqualTo(Duration.ofMinutes(30));
        assertThat(args.unread()).containsExactly(Map.entry("state-backend", "hashmap"));
        assertThatThrownBy(() -> args.requireAllRead(List.of()))
                .hasMessageContaining("state-backend");
    }

    @Test
    void refusesALoneValueAndBadDurations() {
        assertThatThrownBy(() -> RunnerArgs.parse(new String[] {"--a"}))
                .hasMessageContaining("--name value");
        assertThatThrownBy(() -> RunnerArgs.parseDuration("settle", "soon"))
                .hasMessageContaining("--settle");
    }

    @Test
    void writesJson() {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("s", "a\"b\n");
        m.put("n", 1.5);
        m.put("nan", Double.NaN);
        m.put("l", List.of(1L, true));
        m.put("z", null);
        assertThat(Json.write(m))
                .isEqualTo(
                        "{\"s\":\"a\\\"b\\n\",\"n\":1.5,\"nan\":null,\"l\":[1,true],\"z\":null}");
    }
}
