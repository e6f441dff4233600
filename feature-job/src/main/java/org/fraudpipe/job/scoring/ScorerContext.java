package org.fraudpipe.job.scoring;

import org.apache.flink.api.common.functions.RuntimeContext;
import org.apache.flink.metrics.MetricGroup;
import org.apache.flink.metrics.groups.UnregisteredMetricsGroup;

/**
 * What a scorer gets from the task that creates it ({@link BatchScorer.Factory#create}): where its
 * metrics go and how its log lines name the subtask.
 *
 * @param metrics the metric group of the operator or function that scores
 * @param subtask the task's name with its subtask index, for log lines
 */
public record ScorerContext(MetricGroup metrics, String subtask) {

    /** The context of a task's operator or function. */
    public static ScorerContext of(RuntimeContext runtime, MetricGroup metrics) {
        return new ScorerContext(metrics, runtime.getTaskInfo().getTaskNameWithSubtasks());
    }

    /** A context whose metrics go nowhere (tests, tools). */
    public static ScorerContext unregistered(String name) {
        return new ScorerContext(new UnregisteredMetricsGroup(), name);
    }
}
