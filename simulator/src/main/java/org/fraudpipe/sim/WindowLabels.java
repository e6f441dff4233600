package org.fraudpipe.sim;

import java.time.Duration;
import java.time.Instant;
import java.util.Comparator;
import java.util.NavigableSet;
import java.util.Objects;
import java.util.TreeSet;

/**
 * The labelling rule for training on window features (issue #4), in one place.
 *
 * <p><b>Rule:</b> the window {@code (userId, windowStart)} of size {@code W} is fraudulent if and
 * only if the labels contain a transaction with {@code fraud == true}, not malformed, of that user,
 * whose {@code eventTime} lies in {@code [windowStart, windowStart + W)}. Windows are tumbling and
 * aligned to the epoch, like Flink's tumbling event-time windows with offset 0. Every other window
 * of the user is legitimate.
 *
 * <p>The rule is about what happened, not what the stream saw: a fraudulent transaction that
 * arrived too late for the streaming window still makes the window fraudulent (that gap is exactly
 * the skew the parity checker measures). Since fraud is never malformed nor future-dated, the rule
 * does not depend on how the pipeline treats those. Duplicates do not matter (labels are per id).
 * Both training exports ({@code ./fraud features --semantics ideal|as-served}) label with this
 * rule, so a window present in both carries the same label.
 */
public final class WindowLabels {

    private WindowLabels() {}

    /** A user's window, ordered by user then start. */
    public record WindowRef(String userId, Instant windowStart) implements Comparable<WindowRef> {
        private static final Comparator<WindowRef> ORDER =
                Comparator.comparing(WindowRef::userId).thenComparing(WindowRef::windowStart);

        public WindowRef {
            Objects.requireNonNull(userId, "userId");
            Objects.requireNonNull(windowStart, "windowStart");
        }

        @Override
        public int compareTo(WindowRef other) {
            return ORDER.compare(this, other);
        }
    }

    /** Start of the epoch-aligned tumbling window of the given size that contains {@code t}. */
    public static Instant windowStart(Instant t, Duration size) {
        long w = size.toMillis();
        if (w <= 0) {
            throw new IllegalArgumentException("window size must be at least 1 ms, got " + size);
        }
        long ms = t.toEpochMilli();
        return Instant.ofEpochMilli(ms - Math.floorMod(ms, w));
    }

    /** The fraudulent windows of the given size, by the rule of the class comment. */
    public static NavigableSet<WindowRef> fraudulentWindows(
            Iterable<Label> labels, Duration windowSize) {
        NavigableSet<WindowRef> windows = new TreeSet<>();
        for (Label label : labels) {
            if (label.fraud() && label.countsInWindows()) {
                windows.add(
                        new WindowRef(label.userId(), windowStart(label.eventTime(), windowSize)));
            }
        }
        return windows;
    }
}
