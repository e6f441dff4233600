package org.fraudpipe.job.window;

import org.fraudpipe.schemas.avro.Timing;

/**
 * Per-window pane bookkeeping of {@link PaneWindowFunction}: the last emitted pane. A Java record,
 * serialized by Flink's POJO serializer (no Kryo).
 *
 * @param revision of the last emitted pane: 0 for the first firing, +1 per re-fire
 * @param recordsSeenOnTime raw records (duplicates included) counted into the ON_TIME pane; 0 if
 *     the window's first firing was already late
 */
public record PaneProgress(int revision, long recordsSeenOnTime) {

    /** The first pane of a window. */
    static PaneProgress first(Timing timing, long recordsSeen) {
        return new PaneProgress(0, timing == Timing.ON_TIME ? recordsSeen : 0);
    }

    /** The pane after this one (always a late re-fire). */
    PaneProgress next() {
        return new PaneProgress(revision + 1, recordsSeenOnTime);
    }
}
