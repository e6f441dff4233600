package org.fraudpipe.job.savepoint.migrate;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatCode;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.TreeSet;
import org.apache.flink.api.common.RuntimeExecutionMode;
import org.apache.flink.api.common.functions.OpenContext;
import org.apache.flink.api.common.state.MapState;
import org.apache.flink.api.common.typeinfo.Types;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.ExecutionOptions;
import org.apache.flink.state.api.OperatorIdentifier;
import org.apache.flink.state.api.SavepointReader;
import org.apache.flink.state.api.functions.KeyedStateReaderFunction;
import org.apache.flink.state.rocksdb.EmbeddedRocksDBStateBackend;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.util.Collector;
import org.fraudpipe.job.savepoint.SavepointGuard;
import org.fraudpipe.job.topology.Uids;
import org.fraudpipe.job.window.FeatureWindowFunction;
import org.fraudpipe.job.window.FeatureWindowSpec;
import org.fraudpipe.job.window.WindowPane;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@link SavepointMigration} on the committed first-release savepoint ({@code
 * savepoints/upgrade-v1}, README there: 4 users, window 1 fired and within its 2 min lateness with
 * 5 transactions each, window 2 open with 1 each), its output read back with the State Processor
 * API, and compared with the current build's own savepoint after the same input ({@code
 * savepoints/upgrade-v2}). That the migrated savepoint restores into the running job and finishes
 * every window exactly is {@code
 * SavepointReliabilityIT#theCommittedSavepointOfTheFirstReleaseMigratesAndRestores}.
 */
class SavepointMigrationIT {

    private static final Duration WINDOW = Duration.ofMinutes(10);
    private static final Duration LATENESS = Duration.ofMinutes(2);
    private static final long W1 = Instant.parse("2025-01-06T00:10:00Z").toEpochMilli();
    private static final long W2 = W1 + WINDOW.toMillis();

    @TempDir Path dir;
    private String firstRelease;

    @BeforeEach
    void copyTheCommittedSavepoint() throws Exception {
        Path from = dir.resolve("v1");
        Files.createDirectories(from);
        Files.copy(
                Path.of(getClass().getResource("/savepoints/upgrade-v1/_metadata").toURI()),
                from.resolve("_metadata"));
        firstRelease = from.toString();
    }

    @Test
    void everyWindowBecomesOneEntryWithItsPaneBookkeepingAndTheOneTimerItIsWaitingFor()
            throws Exception {
        String to = dir.resolve("v2").toString();

        SavepointMigration.Result result =
                SavepointMigration.migrate(
                        firstRelease, to, new FeatureWindowSpec(WINDOW, LATENESS), 2);

        assertThat(result.windows()).isEqualTo(8);
        Map<String, String> users = readWindows(to);
        String expected =
                // window 1: fired once on time with its 5 records, waiting for its cleanup;
                // window 2: one record, not fired, waiting for its on-time firing
                W1
                        + "=rev0,onTime5,seen5 "
                        + W2
                        + "=unfired,seen1 timers ["
                        + (W1 + WINDOW.toMillis() - 1 + LATENESS.toMillis())
                        + ", "
                        + (W2 + WINDOW.toMillis() - 1)
                        + "]";
        assertThat(users).containsOnlyKeys("u00", "u01", "u02", "u03");
        assertThat(users).allSatisfy((user, windows) -> assertThat(windows).isEqualTo(expected));
        // The same as the current build's own savepoint after the same input
        // (savepoints/upgrade-v2).
        assertThat(users).isEqualTo(readWindows(currentBuildSavepoint()));

        assertThat(SavepointGuard.needsMigration(to)).isFalse();
        assertThatCode(() -> SavepointGuard.refuseUnmigrated(to)).doesNotThrowAnyException();
        assertThatThrownBy(
                        () ->
                                SavepointMigration.migrate(
                                        to,
                                        dir.resolve("v3").toString(),
                                        new FeatureWindowSpec(WINDOW, LATENESS),
                                        1))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("nothing to migrate");
    }

    @Test
    void theFirstReleaseSavepointIsRefusedForARestoreWithTheCommandThatMigratesIt() {
        assertThatThrownBy(() -> SavepointGuard.refuseUnmigrated(firstRelease))
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("./fraud savepoint migrate --from " + firstRelease);
    }

    @Test
    void anotherWindowSizeStopsTheMigrationSayingSoAndLeavesNothingBehind() {
        Path to = dir.resolve("v2");

        assertThatThrownBy(
                        () ->
                                SavepointMigration.migrate(
                                        firstRelease,
                                        to.toString(),
                                        new FeatureWindowSpec(Duration.ofMinutes(5), LATENESS),
                                        2))
                .hasStackTraceContaining("the savepoint's windows are PT10M long")
                .hasStackTraceContaining("pass the --window-size the job ran with");
        assertThat(to).doesNotExist();
    }

    private String currentBuildSavepoint() throws Exception {
        Path v2 = dir.resolve("upgrade-v2");
        Files.createDirectories(v2);
        Files.copy(
                Path.of(getClass().getResource("/savepoints/upgrade-v2/_metadata").toURI()),
                v2.resolve("_metadata"));
        return v2.toString();
    }

    /** Per user: each window's pane bookkeeping and records, then the user's timers. */
    private static Map<String, String> readWindows(String savepoint) throws Exception {
        Configuration conf = new Configuration();
        conf.set(ExecutionOptions.RUNTIME_MODE, RuntimeExecutionMode.BATCH);
        StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment(conf);
        List<String> lines = new ArrayList<>();
        SavepointReader.read(env, savepoint, new EmbeddedRocksDBStateBackend())
                .readKeyedState(
                        OperatorIdentifier.forUid(Uids.FEATURE_WINDOW),
                        new WindowsReader(),
                        Types.STRING,
                        Types.STRING)
                .executeAndCollect()
                .forEachRemaining(lines::add);
        Map<String, String> byUser = new TreeMap<>();
        for (String line : lines) {
            int space = line.indexOf(' ');
            byUser.put(line.substring(0, space), line.substring(space + 1));
        }
        return byUser;
    }

    static final class WindowsReader extends KeyedStateReaderFunction<String, String> {
        private transient MapState<Long, WindowPane> windows;

        @Override
        public void open(OpenContext ctx) {
            windows = getRuntimeContext().getMapState(FeatureWindowFunction.windowsDescriptor());
        }

        @Override
        public void readKey(String user, Context ctx, Collector<String> out) throws Exception {
            Map<Long, WindowPane> sorted = new TreeMap<>();
            for (Map.Entry<Long, WindowPane> e : windows.entries()) {
                sorted.put(e.getKey(), e.getValue());
            }
            StringBuilder line = new StringBuilder(user);
            sorted.forEach(
                    (start, pane) ->
                            line.append(' ')
                                    .append(start)
                                    .append('=')
                                    .append(
                                            pane.hasFired()
                                                    ? "rev"
                                                            + pane.revision()
                                                            + ",onTime"
                                                            + pane.recordsSeenOnTime()
                                                    : "unfired")
                                    .append(",seen")
                                    .append(pane.accumulator().recordsSeen()));
            line.append(" timers ").append(new TreeSet<>(ctx.registeredEventTimeTimers()));
            out.collect(line.toString());
        }
    }
}
