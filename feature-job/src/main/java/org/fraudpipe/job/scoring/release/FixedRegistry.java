package org.fraudpipe.job.scoring.release;

import java.time.Duration;
import java.util.List;
import org.fraudpipe.schemas.avro.ModelEvent;
import org.fraudpipe.scoring.release.ModelRegistry;

/**
 * A registry read whole before scoring starts (a replay, the parity check): one view, complete for
 * every coordinate. Folded by the same rules as the live follower's, so that a record gets the
 * release it got when it was served.
 */
public final class FixedRegistry implements RegistryFeed {

    /** One record of the registry topic: the event and the broker's append time. */
    public record Entry(ModelEvent event, long appendTime) {}

    private final RegistryView view;

    public FixedRegistry(List<Entry> entries) {
        ModelRegistry registry = new ModelRegistry();
        for (Entry e : entries) {
            registry.apply(e.event(), e.appendTime());
        }
        this.view = new RegistryView(registry, Long.MAX_VALUE, entries.size());
    }

    @Override
    public RegistryView current() {
        return view;
    }

    @Override
    public RegistryView awaitCovering(long coordinate, Duration timeout) {
        return view;
    }

    @Override
    public void close() {}
}
