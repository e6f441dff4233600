package org.fraudpipe.job.scoring.release;

import java.time.Duration;

/**
 * Where a scoring subtask gets its {@link RegistryView}s: a follower of the registry topic in the
 * running job ({@link RegistryFollower}), or a registry read whole beforehand ({@link
 * FixedRegistry}: a replay, the parity check). Views only grow: a later view holds every record an
 * earlier one held and is complete at least as far.
 */
public interface RegistryFeed extends AutoCloseable {

    /** The latest view, or null before the first one. */
    RegistryView current();

    /**
     * The first view that covers {@code coordinate}, waiting for it up to {@code timeout}.
     *
     * @throws IllegalStateException on timeout, naming the registry and why it is behind
     * @throws InterruptedException if the waiting thread is interrupted
     */
    RegistryView awaitCovering(long coordinate, Duration timeout) throws InterruptedException;

    @Override
    void close();
}
