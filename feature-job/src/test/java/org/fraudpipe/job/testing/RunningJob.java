package org.fraudpipe.job.testing;

import java.nio.file.Path;
import java.time.Duration;
import org.apache.flink.api.common.JobID;
import org.apache.flink.api.common.JobStatus;
import org.apache.flink.core.execution.JobClient;
import org.apache.flink.core.execution.SavepointFormatType;
import org.apache.flink.runtime.checkpoint.CheckpointStatsStatus;
import org.apache.flink.runtime.execution.ExecutionState;
import org.apache.flink.runtime.executiongraph.AccessExecutionGraph;
import org.apache.flink.runtime.executiongraph.AccessExecutionVertex;
import org.apache.flink.runtime.minicluster.MiniCluster;

/**
 * What the MiniCluster knows about a running job, for tests that wait on it: its tasks running, its
 * completed checkpoints, and how often its tasks were restarted.
 */
public final class RunningJob {

    private final MiniCluster cluster;
    private final JobClient client;

    public RunningJob(MiniCluster cluster, JobClient client) {
        this.cluster = cluster;
        this.client = client;
    }

    public JobClient client() {
        return client;
    }

    public JobID id() {
        return client.getJobID();
    }

    private AccessExecutionGraph graph() throws Exception {
        return cluster.getExecutionGraph(id()).get();
    }

    /** Checkpoints completed so far (across restarts). */
    public long completedCheckpoints() throws Exception {
        return graph().getCheckpointStatsSnapshot().getCounts().getNumberOfCompletedCheckpoints();
    }

    /** Waits until every task of the job runs. */
    public RunningJob awaitAllTasksRunning(Duration timeout) {
        Await.until(
                "all tasks of job " + id() + " running",
                timeout,
                () -> {
                    AccessExecutionGraph g = graph();
                    if (g.getState() != JobStatus.RUNNING) {
                        return false;
                    }
                    for (AccessExecutionVertex v : g.getAllExecutionVertices()) {
                        if (v.getExecutionState() != ExecutionState.RUNNING) {
                            return false;
                        }
                    }
                    return true;
                });
        return this;
    }

    /** Waits until a checkpoint completes that was started after this call. */
    public void awaitNewCheckpoint(Duration timeout) throws Exception {
        // A checkpoint in progress now may have started before: wait for the one after it.
        long target = completedCheckpoints() + 2;
        Await.until(
                "checkpoint " + target + " of job " + id() + " completed",
                timeout,
                () -> completedCheckpoints() >= target);
    }

    /** Checkpoints failed so far (across restarts). */
    public long failedCheckpoints() throws Exception {
        return graph().getCheckpointStatsSnapshot().getCounts().getNumberOfFailedCheckpoints();
    }

    /**
     * Completed checkpoints whose last acknowledgement fell in {@code [from, to]} (epoch millis),
     * among those Flink's checkpoint history still holds ({@code web.checkpoints.history}).
     */
    public long checkpointsCompletedBetween(long from, long to) throws Exception {
        return graph().getCheckpointStatsSnapshot().getHistory().getCheckpoints().stream()
                .filter(c -> c.getStatus() == CheckpointStatsStatus.COMPLETED)
                .filter(c -> c.getLatestAckTimestamp() >= from && c.getLatestAckTimestamp() <= to)
                .count();
    }

    /** The highest attempt number of any task: 0 if the job never restarted. */
    public int restarts() throws Exception {
        int max = 0;
        for (AccessExecutionVertex v : graph().getAllExecutionVertices()) {
            max = Math.max(max, v.getCurrentExecutionAttempt().getAttemptNumber());
        }
        return max;
    }

    /**
     * Stops the job with a canonical savepoint into {@code directory} (no drain: windows stay
     * open), waits until it finished, and returns the savepoint's path.
     */
    public String stopWithSavepoint(Path directory, Duration timeout) throws Exception {
        String path =
                client.stopWithSavepoint(
                                false, directory.toUri().toString(), SavepointFormatType.CANONICAL)
                        .get();
        Await.until(
                "job " + id() + " finished after its savepoint",
                timeout,
                () -> client.getJobStatus().get() == JobStatus.FINISHED);
        return path;
    }

    /** Cancels the job and waits until it is gone. */
    public void cancel() throws Exception {
        client.cancel().get();
        Await.until(
                "job " + id() + " cancelled",
                Duration.ofSeconds(60),
                () -> client.getJobStatus().get().isGloballyTerminalState());
    }
}
