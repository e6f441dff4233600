package org.fraudpipe.job.savepoint.migrate;

import java.io.IOException;
import java.util.Objects;
import org.apache.flink.api.common.JobExecutionResult;
import org.apache.flink.api.common.RuntimeExecutionMode;
import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.api.common.typeinfo.Types;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.CoreOptions;
import org.apache.flink.configuration.ExecutionOptions;
import org.apache.flink.core.fs.FileStatus;
import org.apache.flink.core.fs.FileSystem;
import org.apache.flink.core.fs.Path;
import org.apache.flink.state.api.OperatorIdentifier;
import org.apache.flink.state.api.OperatorTransformation;
import org.apache.flink.state.api.SavepointReader;
import org.apache.flink.state.api.SavepointWriter;
import org.apache.flink.state.api.StateBootstrapTransformation;
import org.apache.flink.state.api.functions.WindowReaderFunction;
import org.apache.flink.state.rocksdb.EmbeddedRocksDBStateBackend;
import org.apache.flink.streaming.api.datastream.DataStream;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.streaming.api.windowing.assigners.TumblingEventTimeWindows;
import org.apache.flink.streaming.api.windowing.windows.TimeWindow;
import org.apache.flink.util.CloseableIterator;
import org.fraudpipe.job.features.FeatureAccumulator;
import org.fraudpipe.job.features.FeatureAccumulatorTypeInfo;
import org.fraudpipe.job.savepoint.SavepointGuard;
import org.fraudpipe.job.topology.Uids;
import org.fraudpipe.job.window.FeatureWindowSpec;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Migrates a savepoint (or retained checkpoint) of the first release to this build's window state,
 * with Flink's State Processor API, as a batch job: the first release's window operator ({@link
 * Uids#FEATURE_WINDOW_V1}) is read window by window ({@link FirstReleaseWindowReader}), removed,
 * and written as the current window's state ({@link Uids#FEATURE_WINDOW}, {@link
 * WindowPaneBootstrap}); every other operator's state (Kafka offsets, the sinks' transactions, the
 * archive's files) is carried over as it is. The input is never modified; the output is a new
 * savepoint directory to restore from, removed again if the migration fails.
 *
 * <p>The result restores to the same panes the first release would have produced: windows not yet
 * fired fire on time, fired ones keep their revision and ON_TIME record count and re-fire on late
 * records until their cleanup.
 */
public final class SavepointMigration {

    private static final Logger LOG = LoggerFactory.getLogger(SavepointMigration.class);

    private static final String JOB_NAME = "fraudpipe savepoint migration";

    private SavepointMigration() {}

    /** What a migration did. */
    public record Result(String from, String to, long windows) {}

    /**
     * Writes to {@code to} the savepoint {@code from} with its first-release window state migrated.
     *
     * @param spec the window size and allowed lateness the job ran (and will run) with; checked
     *     against the savepoint's windows and timers
     * @param parallelism of the batch job that reads and writes the state
     * @throws IllegalArgumentException if {@code from} holds no first-release window state, or was
     *     taken with another window size or allowed lateness
     */
    public static Result migrate(String from, String to, FeatureWindowSpec spec, int parallelism)
            throws Exception {
        Objects.requireNonNull(spec, "spec");
        if (!SavepointGuard.needsMigration(from)) {
            throw new IllegalArgumentException(
                    "savepoint "
                            + from
                            + " holds no window state of the first release (operator uid '"
                            + Uids.FEATURE_WINDOW_V1
                            + "'): there is nothing to migrate; restore it as it is");
        }
        // The job's own backend and timer store (JobEnvironment: RocksDB with heap timers), so the
        // migrated savepoint carries its timers as the job's own savepoints do.
        EmbeddedRocksDBStateBackend backend = new EmbeddedRocksDBStateBackend();
        backend.setPriorityQueueStateType(EmbeddedRocksDBStateBackend.PriorityQueueStateType.HEAP);

        // Pass 1: every window must fit the spec, or nothing is written.
        StreamExecutionEnvironment check = batchEnvironment(parallelism);
        DataStream<String> mismatches =
                readFirstReleaseWindows(
                        check,
                        from,
                        backend,
                        spec,
                        new FirstReleaseWindowCheck(spec),
                        Types.STRING);
        try (CloseableIterator<String> found = mismatches.executeAndCollect(JOB_NAME + " check")) {
            if (found.hasNext()) {
                throw new IllegalArgumentException(found.next());
            }
        }

        // Pass 2: read, remove, write.
        StreamExecutionEnvironment env = batchEnvironment(parallelism);
        DataStream<MigratedWindow> windows =
                readFirstReleaseWindows(
                        env,
                        from,
                        backend,
                        spec,
                        new FirstReleaseWindowReader(spec),
                        TypeInformation.of(MigratedWindow.class));
        StateBootstrapTransformation<MigratedWindow> current =
                OperatorTransformation.bootstrapWith(windows)
                        .keyBy(MigratedWindow::userId, Types.STRING)
                        .transform(new WindowPaneBootstrap(spec));
        SavepointWriter.fromExistingSavepoint(env, from, backend)
                .removeOperator(OperatorIdentifier.forUid(Uids.FEATURE_WINDOW_V1))
                .withOperator(OperatorIdentifier.forUid(Uids.FEATURE_WINDOW), current)
                .write(to);
        Path target = new Path(to);
        FileSystem fs = target.getFileSystem();
        boolean existed = fs.exists(target);
        JobExecutionResult result;
        try {
            result = env.execute(JOB_NAME);
        } catch (Exception e) {
            // No half-written savepoint left to restore from by mistake.
            removeWritten(fs, target, existed);
            throw e;
        }
        Long migrated = result.getAccumulatorResult(FirstReleaseWindowReader.WINDOWS_READ);
        return new Result(from, to, migrated == null ? 0 : migrated);
    }

    private static StreamExecutionEnvironment batchEnvironment(int parallelism) {
        Configuration conf = new Configuration();
        conf.set(ExecutionOptions.RUNTIME_MODE, RuntimeExecutionMode.BATCH);
        conf.set(CoreOptions.DEFAULT_PARALLELISM, parallelism);
        return StreamExecutionEnvironment.getExecutionEnvironment(conf);
    }

    /**
     * Every window of the first release's window operator in {@code from}, through {@code reader}
     * (which gets each window's accumulator whole, {@link AccumulatorReadout}).
     */
    private static <OUT> DataStream<OUT> readFirstReleaseWindows(
            StreamExecutionEnvironment env,
            String from,
            EmbeddedRocksDBStateBackend backend,
            FeatureWindowSpec spec,
            WindowReaderFunction<FeatureAccumulator, OUT, String, TimeWindow> reader,
            TypeInformation<OUT> type)
            throws IOException {
        return SavepointReader.read(env, from, backend)
                .window(TumblingEventTimeWindows.of(spec.windowSize()))
                .aggregate(
                        Uids.FEATURE_WINDOW_V1,
                        new AccumulatorReadout(),
                        reader,
                        Types.STRING,
                        FeatureAccumulatorTypeInfo.INSTANCE,
                        type);
    }

    /** Deletes what a failed migration wrote: {@code target}, or its contents if it was there. */
    private static void removeWritten(FileSystem fs, Path target, boolean existed) {
        try {
            if (!existed) {
                fs.delete(target, true);
                return;
            }
            FileStatus[] children = fs.listStatus(target);
            for (FileStatus child : children == null ? new FileStatus[0] : children) {
                fs.delete(child.getPath(), true);
            }
        } catch (IOException e) {
            LOG.warn("Could not remove the partial migration output {}: {}", target, e.toString());
        }
    }
}
