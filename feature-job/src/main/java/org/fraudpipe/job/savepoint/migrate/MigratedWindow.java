package org.fraudpipe.job.savepoint.migrate;

import org.fraudpipe.job.features.FeatureAccumulator;

/**
 * One user's window as the savepoint migration carries it from the first release's window state to
 * the current one: the accumulator and the pane bookkeeping. A Java record (Flink's POJO
 * serializer; the accumulator has its own).
 *
 * @param userId the key
 * @param windowStart epoch millis
 * @param windowEnd epoch millis, exclusive
 * @param revision of the last pane emitted, {@code WindowPane.NOT_FIRED} if none
 * @param recordsSeenOnTime records counted into the ON_TIME pane (0 if none)
 * @param accumulator the window's records so far
 */
public record MigratedWindow(
        String userId,
        long windowStart,
        long windowEnd,
        int revision,
        long recordsSeenOnTime,
        FeatureAccumulator accumulator) {}
