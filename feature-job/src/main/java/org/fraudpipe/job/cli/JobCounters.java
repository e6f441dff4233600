package org.fraudpipe.job.cli;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import org.apache.flink.api.common.JobExecutionResult;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.HeartbeatManagerOptions;
import org.apache.flink.core.execution.JobClient;
import org.apache.flink.core.execution.JobListener;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;

/**
 * Live counts of a Flink job for a {@link ProgressLine}: the sum of some of its accumulators (e.g.
 * {@code fraudRecordsIn}), read through the {@link JobClient} that the environment hands its job
 * listeners when the job is submitted; after the job, the exact final values.
 *
 * <p>Why accumulators through the client: they are Flink's own way for a client to read a job's
 * counts while it runs, the same on a local MiniCluster and on a cluster ({@code flink run}), and
 * the job keeps them anyway (every counter of the metrics table in docs/OPERATIONS.md is one). They
 * reach the JobManager with the TaskManagers' heartbeats, every {@code heartbeat.interval} (10 s by
 * default): {@link #liveOn} lowers it to {@value #HEARTBEAT_SECONDS} s for a local MiniCluster that
 * shows progress, as the demo does. (A local environment's REST API would need its port found
 * first, and counting in a static field at the source works in one JVM only.)
 */
public final class JobCounters implements JobListener {

    /** The heartbeat interval of a local MiniCluster whose counts are shown live. */
    public static final long HEARTBEAT_SECONDS = 1;

    private static final Duration READ_TIMEOUT = Duration.ofSeconds(2);

    private final List<String> accumulators;
    private final Consumer<JobCounters> onSubmitted;
    private volatile JobClient client;
    private volatile long last = ProgressLine.UNKNOWN;
    private volatile boolean finished;

    /**
     * Counts the sum of {@code accumulators}; {@code onSubmitted} runs when the job is submitted
     * (e.g. to show the stage that counts).
     */
    public JobCounters(List<String> accumulators, Consumer<JobCounters> onSubmitted) {
        this.accumulators = List.copyOf(accumulators);
        this.onSubmitted = onSubmitted;
    }

    /**
     * Lowers the heartbeat interval in {@code conf}, the configuration a local environment is
     * created with, so that the counts are at most {@value #HEARTBEAT_SECONDS} s old. (On a cluster
     * the interval is the cluster's: there it has no effect.)
     */
    public static void liveOn(Configuration conf) {
        conf.set(HeartbeatManagerOptions.HEARTBEAT_INTERVAL, Duration.ofSeconds(HEARTBEAT_SECONDS));
    }

    /** Registers this on {@code env}. */
    public JobCounters listenTo(StreamExecutionEnvironment env) {
        env.registerJobListener(this);
        return this;
    }

    @Override
    public void onJobSubmitted(JobClient jobClient, Throwable throwable) {
        if (jobClient != null) {
            client = jobClient;
            onSubmitted.accept(this);
        }
    }

    @Override
    public void onJobExecuted(JobExecutionResult result, Throwable throwable) {
        if (result != null) {
            last = sum(result.getAllAccumulatorResults());
        }
        finished = true;
    }

    /**
     * The sum of the accumulators now: the job's latest report while it runs, the final value once
     * it ended, {@link ProgressLine#UNKNOWN} before it was submitted; the last value read if the
     * client cannot answer in time.
     */
    public long read() {
        JobClient c = client;
        if (c == null || finished) {
            return last;
        }
        try {
            Map<String, Object> values =
                    c.getAccumulators().get(READ_TIMEOUT.toMillis(), TimeUnit.MILLISECONDS);
            last = sum(values);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } catch (Exception finishingOrGone) {
            // keep the last value: the next read tries again
        }
        return last;
    }

    private long sum(Map<String, Object> values) {
        long sum = 0;
        for (String name : accumulators) {
            if (values.get(name) instanceof Number n) {
                sum += n.longValue();
            }
        }
        return sum;
    }
}
