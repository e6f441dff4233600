package org.fraudpipe.job.window;

/**
 * The first release's per-window pane bookkeeping (state {@code pane-progress} of its window
 * operator, {@code Uids.FEATURE_WINDOW_V1}): the last emitted pane. Read only by the savepoint
 * migration ({@code org.fraudpipe.job.savepoint}); the current window keeps the same two numbers in
 * its {@link WindowPane}. Savepoints of that release name this class in their POJO serializer
 * snapshot: never rename, move or change it.
 *
 * @param revision of the last emitted pane: 0 for the first firing, +1 per re-fire
 * @param recordsSeenOnTime raw records (duplicates included) counted into the ON_TIME pane; 0 if
 *     the window's first firing was already late
 */
public record PaneProgress(int revision, long recordsSeenOnTime) {}
