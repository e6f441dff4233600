package org.fraudpipe.job.testing;

import java.util.regex.Pattern;
import org.apache.flink.api.common.JobID;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.metrics.Counter;
import org.apache.flink.metrics.Metric;
import org.apache.flink.runtime.testutils.InMemoryReporter;

/**
 * The job's Flink metrics as the README documents them, read live in a MiniCluster test through
 * Flink's in-memory reporter: a counter is the sum over the operator's subtasks.
 */
public final class JobMetrics {

    private final InMemoryReporter reporter = InMemoryReporter.createWithRetainedMetrics();

    /** The MiniCluster configuration that reports to this instance. */
    public Configuration clusterConfiguration() {
        return reporter.addToConfiguration(new Configuration());
    }

    /** Histogram {@code name} of every subtask of {@code job} that registered it. */
    public java.util.List<org.apache.flink.metrics.Histogram> histograms(JobID job, String name) {
        java.util.List<org.apache.flink.metrics.Histogram> out = new java.util.ArrayList<>();
        for (Metric m : reporter.findMetrics(job, "\\." + Pattern.quote(name) + "$").values()) {
            out.add((org.apache.flink.metrics.Histogram) m);
        }
        return out;
    }

    /**
     * The sum of counter {@code name} over every subtask of {@code job}, and over every attempt of
     * each (the reporter retains the metrics of a task that failed over: counted, not merged).
     */
    public long counter(JobID job, String name) {
        long sum = 0;
        for (java.util.Map.Entry<
                        org.apache.flink.metrics.MetricGroup, java.util.Map<String, Metric>>
                g : reporter.getMetricsByGroup().entrySet()) {
            if (!job.toString().equals(g.getKey().getAllVariables().get("<job_id>"))) {
                continue;
            }
            Metric m = g.getValue().get(name);
            if (m instanceof Counter c) {
                sum += c.getCount();
            }
        }
        return sum;
    }

    /**
     * The lowest {@code currentInputWatermark} over the subtasks of {@code job}'s operator named
     * {@code operatorName} (Flink's operator gauge), or {@code Long.MIN_VALUE} while none reports.
     */
    public long lowestInputWatermark(JobID job, String operatorName) {
        long lowest = Long.MAX_VALUE;
        boolean any = false;
        for (java.util.Map.Entry<String, Metric> e :
                reporter.findMetrics(job, "\\.currentInputWatermark$").entrySet()) {
            if (!e.getKey().contains(operatorName)) {
                continue;
            }
            Object value = ((org.apache.flink.metrics.Gauge<?>) e.getValue()).getValue();
            if (value instanceof Long w) {
                lowest = Math.min(lowest, w);
                any = true;
            }
        }
        return any ? lowest : Long.MIN_VALUE;
    }
}
