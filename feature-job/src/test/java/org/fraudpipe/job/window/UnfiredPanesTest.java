package org.fraudpipe.job.window;

import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;

import org.junit.jupiter.api.Test;

class UnfiredPanesTest {

    @Test
    void holdsAPaneByUserAndWindowUntilRemoved() {
        UnfiredPanes panes = new UnfiredPanes(4);
        WindowPane a = new WindowPane();
        WindowPane b = new WindowPane();
        panes.written("u1", 0L, a);
        panes.written("u1", 600_000L, b);
        assertSame(a, panes.get("u1", 0L));
        assertSame(b, panes.get("u1", 600_000L));
        assertNull(panes.get("u2", 0L), "another user's window is another entry");
        assertSame(a, panes.remove("u1", 0L));
        assertNull(panes.get("u1", 0L));
        assertNull(panes.remove("u1", 0L));
    }

    @Test
    void evictsTheOldestWrittenBeyondItsCapacity() {
        UnfiredPanes panes = new UnfiredPanes(2);
        WindowPane first = new WindowPane();
        panes.written("u1", 0L, first);
        panes.written("u2", 0L, new WindowPane());
        panes.written("u3", 0L, new WindowPane());
        assertNull(panes.get("u1", 0L), "the first written is evicted (the state still has it)");
        assertSame(2, panes.size());
    }

    @Test
    void capacityZeroHoldsNothingAndANegativeOneIsRefused() {
        UnfiredPanes none = new UnfiredPanes(0);
        none.written("u1", 0L, new WindowPane());
        assertNull(none.get("u1", 0L));
        assertThrows(IllegalArgumentException.class, () -> new UnfiredPanes(-1));
    }
}
