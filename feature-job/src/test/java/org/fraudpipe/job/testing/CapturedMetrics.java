package org.fraudpipe.job.testing;

import java.util.Map;
import org.apache.flink.metrics.Counter;
import org.apache.flink.metrics.Gauge;
import org.apache.flink.metrics.Histogram;
import org.apache.flink.runtime.jobgraph.OperatorID;
import org.apache.flink.runtime.metrics.groups.InternalOperatorMetricGroup;
import org.apache.flink.runtime.metrics.groups.UnregisteredMetricGroups;
import org.apache.flink.runtime.metrics.util.InterceptingOperatorMetricGroup;
import org.apache.flink.runtime.operators.testutils.MockEnvironment;
import org.apache.flink.runtime.operators.testutils.MockEnvironmentBuilder;

/**
 * The metrics an operator under a test harness registers: build the harness with {@link
 * #environment()} and read counters, gauges and histograms by name afterwards.
 */
public final class CapturedMetrics {

    private final InterceptingOperatorMetricGroup metrics = new InterceptingOperatorMetricGroup();

    /** A task environment whose operators register their metrics here. */
    public MockEnvironment environment() {
        return new MockEnvironmentBuilder()
                .setMetricGroup(
                        new UnregisteredMetricGroups.UnregisteredTaskMetricGroup() {
                            @Override
                            public InternalOperatorMetricGroup getOrAddOperator(
                                    OperatorID id, String name, Map<String, String> variables) {
                                return metrics;
                            }
                        })
                .build();
    }

    public long counter(String name) {
        return ((Counter) metrics.get(name)).getCount();
    }

    public Object gauge(String name) {
        return ((Gauge<?>) metrics.get(name)).getValue();
    }

    public Histogram histogram(String name) {
        return (Histogram) metrics.get(name);
    }
}
