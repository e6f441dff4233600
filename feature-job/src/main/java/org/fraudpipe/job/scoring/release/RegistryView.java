package org.fraudpipe.job.scoring.release;

import org.fraudpipe.scoring.release.ModelRegistry;

/**
 * What a scoring subtask knows of the model registry at one moment: the fold of the records read,
 * and how far in coordinate time that fold is complete.
 *
 * @param registry the fold of every record read; never changed once the view is published
 * @param completeThrough epoch millis: no assignment missing from {@code registry} takes effect at
 *     or before it ({@link Long#MAX_VALUE} for a registry known whole, as in a replay or parity)
 * @param records how many records the fold holds
 */
public record RegistryView(ModelRegistry registry, long completeThrough, int records) {

    /** Whether this view decides which release serves a record at {@code coordinate}. */
    public boolean covers(long coordinate) {
        return coordinate <= completeThrough;
    }
}
