package org.fraudpipe.job.window;

import java.util.LinkedHashMap;
import java.util.Map;

/**
 * A bounded, write-through copy in the heap of the panes that were written and have not fired yet,
 * so that a window's on-time firing, and its further records before it, read the pane without a
 * state-backend read (with RocksDB: a point lookup and the pane's deserialization).
 *
 * <p>Invariants: an entry is the very object last written to the window state for its (user, window
 * start), and only a pane that has not fired is held: whoever writes a pane puts it here after the
 * write, whoever fires or removes one removes it from here. The state stays the truth (every change
 * is still written), so the copy is never checkpointed, a restore starts with none, and losing an
 * entry, evicted oldest first beyond the capacity, only costs a state read.
 */
final class UnfiredPanes {

    private record Key(String userId, long windowStart) {}

    private final LinkedHashMap<Key, WindowPane> panes;

    /**
     * @param capacity most panes held; 0 holds none
     */
    UnfiredPanes(int capacity) {
        if (capacity < 0) {
            throw new IllegalArgumentException("capacity must be >= 0, got " + capacity);
        }
        this.panes =
                new LinkedHashMap<>(Math.min(capacity, 1 << 16) * 4 / 3 + 1) {
                    @Override
                    protected boolean removeEldestEntry(Map.Entry<Key, WindowPane> eldest) {
                        return size() > capacity;
                    }
                };
    }

    /** The pane last written for the window, if it is held; null otherwise. */
    WindowPane get(String userId, long windowStart) {
        return panes.get(new Key(userId, windowStart));
    }

    /** Holds {@code pane}, just written to state and not fired. */
    void written(String userId, long windowStart, WindowPane pane) {
        panes.put(new Key(userId, windowStart), pane);
    }

    /** Forgets the window (it fires or is dropped); returns the pane if it was held. */
    WindowPane remove(String userId, long windowStart) {
        return panes.remove(new Key(userId, windowStart));
    }

    int size() {
        return panes.size();
    }
}
