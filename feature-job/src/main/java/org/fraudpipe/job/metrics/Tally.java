package org.fraudpipe.job.metrics;

import org.apache.flink.api.common.accumulators.LongCounter;
import org.apache.flink.api.common.functions.RuntimeContext;
import org.apache.flink.metrics.Counter;
import org.apache.flink.metrics.MetricGroup;

/**
 * A count kept twice under one name: as a Flink metric of the operator (live, per subtask: web UI,
 * reporters, REST) and as a job accumulator (summed over subtasks: {@code
 * JobClient#getAccumulators()} while the job runs, {@code JobExecutionResult} once it ended, after
 * the operators' metric groups are gone). {@code ./fraud replay} and {@code ./fraud demo} read the
 * accumulators.
 *
 * <p>Accumulators reach the JobManager with the TaskManagers' heartbeats ({@code
 * heartbeat.interval}, 10 s by default), so while a job runs they trail the metrics by up to one
 * interval; the final values are exact.
 */
public record Tally(Counter metric, LongCounter accumulator) {

    /** Registers the metric in {@code metrics} and the accumulator in {@code context}. */
    public static Tally register(RuntimeContext context, MetricGroup metrics, String name) {
        return new Tally(metrics.counter(name), context.getLongCounter(name));
    }

    public void inc() {
        metric.inc();
        accumulator.add(1L);
    }

    public void inc(long n) {
        metric.inc(n);
        accumulator.add(n);
    }
}
